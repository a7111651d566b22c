"""Plan control in the browser and the API: rename, delete, regenerate with chosen chapters or pages,
an exam date that spreads sessions over the days left (and what is due today), the tutor after completion."""

import csv
import io
from datetime import date, timedelta

import pytest
from django.utils import timezone

from plans.models import Card, Note, Plan, StudySession
from plans.services.plans import chosen_chunks, plan_create, plan_schedule
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

CHAPTERS = {
    "Variables": "A variable is a name that refers to a value. Assignment statements create variables and give them values.",
    "Functions": "A function is a named sequence of statements. Calling a function runs its body with the given arguments.",
    "Recursion": "A recursive function calls itself. Every recursion needs a base case that stops it from running forever.",
    "Dictionaries": "A dictionary maps keys to values. Looking up a key in a dictionary is fast because it uses a hash table.",
}


def _pages():
    pages = []
    for number, (title, text) in enumerate(CHAPTERS.items(), start=1):
        pages.append(f"Chapter {number} {title}\n" + (text + " ") * 6)
        pages.append(f"{number}.1 More about {title.lower()}\n" + (text + " ") * 6)
    return pages  # chapter n on pages 2n-1 and 2n


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(_pages()), "python.pdf", title="Think Python excerpt")


@pytest.fixture
def plan(user, book, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = plan_create(owner=user, title="Learn Python", ref_ids=[book.ref_id], minutes_per_session=5)
    created.refresh_from_db()
    assert created.status == Plan.Status.READY, created.error_message
    return created


def _pages_read(plan) -> set[int]:
    pages = set()
    for session in StudySession.objects.for_user(plan.owner).filter(plan=plan):
        for item in session.ranges:
            pages.update(range(item["pages"][0], item["pages"][1] + 1))
    return pages


def test_rename_in_the_browser(client, user, other_user, plan):
    client.force_login(other_user)
    assert client.post(f"/plans/{plan.pk}/rename", {"title": "Theirs"}).status_code == 404
    client.force_login(user)
    response = client.post(f"/plans/{plan.pk}/rename", {"title": "  Python, chapter by chapter "})
    assert response.status_code == 302 and response["Location"] == f"/plans/{plan.pk}/"
    plan.refresh_from_db()
    assert plan.title == "Python, chapter by chapter"
    client.post(f"/plans/{plan.pk}/rename", {"title": " "})
    plan.refresh_from_db()
    assert plan.title == "Python, chapter by chapter"  # a blank title is refused


def test_delete_in_the_browser_asks_first_and_keeps_the_notes(client, user, other_user, plan):
    from plans.services.notes import note_create

    note = note_create(owner=user, kind="own", text="Keep me", plan_id=plan.pk)
    Card.objects.create(
        owner=user, plan=plan, key="k", kind="key_point", prompt="p", answer="a", citation={}, scheduling={}, due=timezone.now()
    )
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert f'action="/plans/{plan.pk}/delete"' in page and "data-confirm=" in page and "confirm(" in page
    client.force_login(other_user)
    assert client.post(f"/plans/{plan.pk}/delete").status_code == 404
    assert Plan.objects.for_user(user).filter(pk=plan.pk).exists()
    client.force_login(user)
    assert client.get(f"/plans/{plan.pk}/delete").status_code == 405  # a link can never delete
    response = client.post(f"/plans/{plan.pk}/delete")
    assert response.status_code == 302 and response["Location"] == "/plans/"
    assert not Plan.objects.for_user(user).filter(pk=plan.pk).exists()
    assert Card.objects.for_user(user).count() == 0
    note.refresh_from_db()
    assert note.plan is None and note.text == "Keep me"


def test_chosen_chunks_form_runs_of_consecutive_chunks():
    from baeum.study.curriculum import ChunkInfo

    chunks = [ChunkInfo(index=i, tokens=10, page_start=i + 1, page_end=i + 1, section_level=0, section_title="") for i in range(6)]
    assert chosen_chunks(chunks, []) == [chunks]
    runs = chosen_chunks(chunks, [{"refId": "m", "pages": [2, 3]}, {"refId": "m", "pages": [5, 6]}])
    assert [[chunk.index for chunk in run] for run in runs] == [[1, 2], [4, 5]]


def test_regenerate_in_the_browser_with_chosen_chapters_and_pages(client, user, book, plan, django_capture_on_commit_callbacks):
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    # The chapters offered are the book's, with their pages.
    assert f'name="chapters_{book.ref_id}" value="3-4"' in page and "Chapter 2 Functions" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            f"/plans/{plan.pk}/regenerate",
            {"ref_ids": [book.ref_id], f"chapters_{book.ref_id}": ["3-4"], f"pages_{book.ref_id}": "7-8", "minutes": "5"},
        )
    assert response.status_code == 302
    plan.refresh_from_db()
    assert plan.status == Plan.Status.READY, plan.error_message
    assert _pages_read(plan) == {3, 4, 7, 8}  # Functions and Dictionaries only
    settings = client.get(f"/api/v1/plans/{plan.pk}/settings").json()
    assert settings["ranges"] == [{"refId": book.ref_id, "pages": [3, 4]}, {"refId": book.ref_id, "pages": [7, 8]}]
    assert [chapter["pages"] for chapter in settings["materials"][0]["chapters"]] == [[1, 2], [3, 4], [5, 6], [7, 8]]
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert 'value="3-4" checked' in page and 'value="7-8" checked' in page  # the form shows the choice
    # Nothing chosen: the whole book again.
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"/plans/{plan.pk}/regenerate", {"ref_ids": [book.ref_id], "minutes": "5"})
    plan.refresh_from_db()
    assert _pages_read(plan) == set(range(1, 9))


def test_create_in_the_browser_with_chosen_pages_and_an_exam_date(client, user, book, django_capture_on_commit_callbacks):
    client.force_login(user)
    page = client.get("/plans/").content.decode()
    assert f'name="chapters_{book.ref_id}"' in page and 'name="exam_date"' in page
    assert f"/library/{book.ref_id}/guide/" in page
    exam = timezone.localdate() + timedelta(days=10)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/plans/new",
            {"ref_ids": [book.ref_id], f"chapters_{book.ref_id}": ["1-2", "5-6"], "minutes": "5", "exam_date": exam.isoformat()},
        )
    plan = Plan.objects.for_user(user).get()
    assert response["Location"] == f"/plans/{plan.pk}/"
    assert plan.status == Plan.Status.READY and plan.exam_date == exam
    assert _pages_read(plan) == {1, 2, 5, 6}
    days = [session.scheduled_for for session in plan.sessions.order_by("number")]
    assert days[0] == timezone.localdate() and all(day < exam for day in days) and days == sorted(days)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert "Due today:" in page and f'href="/plans/{plan.pk}/sessions/1/"' in page.split('id="due-sessions"')[1].split("</p>")[0]


def test_plan_schedule_spreads_the_sessions_left_over_the_days_before_the_exam(plan):
    today = date(2026, 11, 23)
    first = plan.sessions.get(number=1)
    for number in range(2, 7):  # six sessions to place (what a longer book gives)
        StudySession.objects.create(
            plan=plan, owner=plan.owner, number=number, title=f"Part {number}", ranges=first.ranges, tokens=100, estimated_minutes=5
        )
    sessions = list(plan.sessions.order_by("number"))
    sessions[0].status = StudySession.Status.COMPLETED
    sessions[0].save(update_fields=["status"])
    plan.exam_date = today + timedelta(days=2 * (len(sessions) - 1))
    plan.save(update_fields=["exam_date"])
    plan_schedule(plan=plan, today=today)
    days = [session.scheduled_for for session in plan.sessions.order_by("number")]
    assert days[0] is None  # done already: not scheduled
    assert days[1:] == [today + timedelta(days=2 * position) for position in range(len(sessions) - 1)]
    # Fewer days than sessions: several a day, none on or after the exam day.
    plan.exam_date = today + timedelta(days=2)
    plan.save(update_fields=["exam_date"])
    plan_schedule(plan=plan, today=today)
    days = [session.scheduled_for for session in plan.sessions.order_by("number")][1:]
    assert set(days) == {today, today + timedelta(days=1)} and days == sorted(days)
    # An exam today (or past): everything left is due today.
    plan.exam_date = today
    plan.save(update_fields=["exam_date"])
    plan_schedule(plan=plan, today=today)
    assert {session.scheduled_for for session in plan.sessions.exclude(status="completed")} == {today}


def test_exam_date_in_the_browser_and_the_api(client, api_client, user, plan):
    exam = timezone.localdate() + timedelta(days=7)
    client.force_login(user)
    client.post(f"/plans/{plan.pk}/exam-date", {"exam_date": exam.isoformat()})
    plan.refresh_from_db()
    assert plan.exam_date == exam
    assert all(session.scheduled_for for session in plan.sessions.all())
    today = api_client.get(f"/api/v1/plans/{plan.pk}/today").json()
    assert today["examDate"] == exam.isoformat() and today["daysLeft"] == 7
    assert today["dueSessions"] == [1] and today["cardsDue"] == 0
    assert [row["number"] for row in today["sessions"]] == sorted(row["number"] for row in today["sessions"])
    client.post(f"/plans/{plan.pk}/exam-date", {"clear": "1"})
    plan.refresh_from_db()
    assert plan.exam_date is None and not any(session.scheduled_for for session in plan.sessions.all())
    response = api_client.patch(f"/api/v1/plans/{plan.pk}/settings", {"examDate": exam.isoformat()}, format="json")
    assert response.status_code == 200 and response.json()["examDate"] == exam.isoformat()
    assert Plan.objects.for_user(user).get(pk=plan.pk).status == Plan.Status.READY  # a date alone rebuilds nothing


def test_settings_api_regenerates_with_the_choice_and_refuses_what_is_not_yours(
    api_client, other_api_client, user, other_user, ingest, book, plan, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.patch(
            f"/api/v1/plans/{plan.pk}/settings",
            {"ranges": [{"refId": book.ref_id, "pages": [6, 5]}], "minutesPerSession": 10},
            format="json",
        )
    assert response.status_code == 202, response.content
    assert response.json()["ranges"] == [{"refId": book.ref_id, "pages": [5, 6]}]
    plan.refresh_from_db()
    assert plan.minutes_per_session == 10 and _pages_read(plan) == {5, 6}

    outside = api_client.patch(f"/api/v1/plans/{plan.pk}/settings", {"ranges": [{"refId": "mat_other", "pages": [1, 2]}]}, format="json")
    assert outside.status_code == 400
    theirs = ingest(other_user, make_pdf(["Chapter 1 Theirs\nA secret is a thing kept hidden. " * 5]), "theirs.pdf")
    refused = api_client.patch(f"/api/v1/plans/{plan.pk}/settings", {"refIds": [theirs.ref_id]}, format="json")
    assert refused.status_code == 404 and refused.json()["error"]["code"] == "not_found"
    plan.refresh_from_db()
    assert plan.ref_ids == [book.ref_id] and plan.status == Plan.Status.READY
    assert other_api_client.get(f"/api/v1/plans/{plan.pk}/settings").status_code == 404
    assert other_api_client.patch(f"/api/v1/plans/{plan.pk}/settings", {"examDate": "2030-01-01"}, format="json").status_code == 404
    assert other_api_client.get(f"/api/v1/plans/{plan.pk}/today").status_code == 404
    assert Plan.objects.for_user(user).get(pk=plan.pk).exam_date is None


def test_the_tutor_stays_offered_after_the_last_session(client, user, plan):
    plan.sessions.update(status=StudySession.Status.COMPLETED, completed_at=timezone.now())
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert "Every session is done." in page
    assert 'action="/chat/new"' in page and f'name="plan_id" value="{plan.pk}"' in page


def test_plan_page_offers_downloads_notes_and_study_guides(client, user, book, plan):
    Note.objects.create(owner=user, plan=plan, text="x")
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    for link in (
        f"/api/v1/plans/{plan.pk}/export.md",
        f"/api/v1/plans/{plan.pk}/deck.apkg",
        f"/api/v1/plans/{plan.pk}/deck.csv",
        f"/api/v1/plans/{plan.pk}/sessions/1/export.md",
        f"/notes/?plan={plan.pk}",
        f"/library/{book.ref_id}/guide/",
    ):
        assert link in page, link


def test_regenerating_after_a_removal_keeps_the_choice_for_the_materials_left(
    api_client, user, ingest, book, django_capture_on_commit_callbacks
):
    from knowledge.services.materials import material_delete

    other = ingest(user, make_pdf(["Chapter 1 Stacks\nA stack is a list where the last item in is the first out. " * 6]), "stacks.pdf")
    ranges = [{"refId": book.ref_id, "pages": [3, 4]}, {"refId": other.ref_id, "pages": [1, 1]}]
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Two books", ref_ids=[book.ref_id, other.ref_id], minutes_per_session=5, ranges=ranges)
    material_delete(material=other)
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(f"/api/v1/plans/{plan.pk}/regenerate")
    assert response.status_code == 202, response.content
    plan.refresh_from_db()
    assert plan.status == Plan.Status.READY and plan.ref_ids == [book.ref_id]
    assert plan.assumptions["chosenRanges"] == [{"refId": book.ref_id, "pages": [3, 4]}]
    assert _pages_read(plan) == {3, 4}


def test_every_page_number_a_learner_reads_is_the_one_the_book_prints(client, user, ingest, django_capture_on_commit_callbacks):
    """A book numbered i, ii, 1, 2 …: the plan's sessions and modules, the session's text, the notes and the
    study guide say "p.1" for its third page, as citations and the viewer do (a walkthrough found file
    positions in each of these beside printed numbers in the key points)."""
    from tests.pdfgen import with_page_labels

    book = ingest(user, with_page_labels(make_pdf(_pages()), front_pages=2), "labelled.pdf", title="Numbered")
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(
            owner=user, title="Numbered", ref_ids=[book.ref_id], minutes_per_session=5, ranges=[{"refId": book.ref_id, "pages": [3, 4]}]
        )
    plan.refresh_from_db()
    assert plan.status == Plan.Status.READY, plan.error_message
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert "· p.1" in page and "· p.3" not in page  # the session's pages
    assert '<span class="muted">p.1' in page and '<span class="muted">p.3' not in page  # the module's
    session = client.get(f"/plans/{plan.pk}/sessions/1/").content.decode()
    assert 'margin-top:.8rem">p.1<' in session and 'margin-top:.8rem">p.3<' not in session
    Note.objects.create(
        owner=user,
        kind="key_point",
        text="A function is a named sequence of statements.",
        citations=[{"refId": book.ref_id, "pageNumber": 3, "pageEnd": 4, "quote": "A function"}],
    )
    notes = client.get("/notes/").content.decode()
    assert "pp. 1–2)" in notes and "pp. 3–4" not in notes
    guide = client.get(f"/library/{book.ref_id}/guide/").content.decode()
    assert "p.1<" in guide
    # Downloads say what the pages say (a walkthrough's plan Markdown had "pp. 4–10" for printed 1–7, its notes
    # Markdown "27쪽" where the notes page showed p.15, its CSV cards file positions).
    exported = client.get(f"/api/v1/plans/{plan.pk}/export.md").content.decode()
    assert "p. 1" in exported and "p. 3" not in exported and "pp. 3" not in exported, exported
    assert "pp. 1–2" in client.get("/api/v1/notes/export.md").content.decode()
    deck = client.get(f"/api/v1/plans/{plan.pk}/deck.csv").content.decode("utf-8-sig")
    sources = [row[2] for row in list(csv.reader(io.StringIO(deck)))[1:]]
    assert sources and all("p. 1" in source or "p. 2" in source or "pp. 1" in source for source in sources), sources
