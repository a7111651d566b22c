"""The teacher edits the course's plan: builds it from the chapters chosen, renames a session, moves one;
the learners' progress, cards and conversations stay with their session; nobody else can edit it."""

import pytest
from rest_framework.test import APIClient

from accounts.content_managers import content_managers_group_sync
from chat.models import Conversation
from courses.services import course_create, course_join, invitation_create
from knowledge.services.materials import material_publish
from plans.choices import material_choice
from plans.models import Card, Plan, SessionProgress, StudySession
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

LONG = " ".join(["This sentence pads the chapter so that it needs a session of its own to read."] * 60)
BOOK = [
    f"Chapter 1 Stacks\nA stack is a collection where the last element added is the first one removed. {LONG}",
    f"Chapter 2 Queues\nA queue is a collection where the first element added is the first one removed. {LONG}",
    f"Chapter 3 Trees\nA tree is a collection of nodes where each node has one parent except the root. {LONG}",
]


@pytest.fixture
def course(client, ingest, django_capture_on_commit_callbacks):
    teacher = UserFactory(first_name="Teacher")
    teacher.groups.add(content_managers_group_sync())
    book = ingest(teacher, make_pdf(BOOK), "structures.pdf")
    course = course_create(user=teacher, title="Data structures", language="en")
    material_publish(user=teacher, material=book, course_id=course.pk)
    ana = UserFactory(first_name="Ana")
    course_join(user=ana, code=invitation_create(user=teacher, course_id=course.pk).code)
    client.force_login(teacher)

    def build(**form):
        with django_capture_on_commit_callbacks(execute=True):
            assert client.post(f"/courses/{course.pk}/plan", {"ref_ids": [book.ref_id], "minutes": 5, **form}).status_code == 302
        plan = Plan.objects.unscoped().filter(course=course).order_by("-id").first()
        assert plan.status == Plan.Status.READY
        return plan

    return {"teacher": teacher, "course": course, "book": book, "ana": ana, "build": build}


def test_the_teacher_builds_the_plan_from_the_chapters_chosen(client, course):
    teacher, book = course["teacher"], course["book"]
    chapters = material_choice(teacher, book.ref_id, book.title, book.page_count)["chapters"]
    assert [chapter["title"] for chapter in chapters][:3] == ["Chapter 1 Stacks", "Chapter 2 Queues", "Chapter 3 Trees"]
    page = client.get(f"/courses/{course['course'].pk}/plan/edit").content.decode()
    assert f'name="chapters_{book.ref_id}"' in page  # the plan's page offers the chapters to tick
    assert f"/courses/{course['course'].pk}/plan/edit" in client.get(f"/courses/{course['course'].pk}/").content.decode()

    second = chapters[1]["pages"]
    plan = course["build"](**{f"chapters_{book.ref_id}": f"{second[0]}-{second[1]}"})
    pages = {page for session in plan.sessions.all() for item in session.ranges for page in range(item["pages"][0], item["pages"][1] + 1)}
    assert pages == set(range(second[0], second[1] + 1))  # queues only
    assert plan.minutes_per_session == 5


def test_renaming_and_moving_a_session_keeps_the_learners_progress_cards_and_conversations(client, course):
    plan = course["build"]()
    sessions = list(plan.sessions.order_by("number"))
    assert len(sessions) >= 3
    ana, course_id = course["ana"], course["course"].pk
    learner = APIClient()
    learner.force_login(ana)
    assert learner.post(f"/api/v1/courses/{course_id}/sessions/3/progress", {"status": "completed"}, format="json").status_code == 200
    client.force_login(ana)
    client.post(f"/courses/{course_id}/sessions/3/complete")
    third = sessions[2]
    cards = Card.objects.unscoped().filter(owner=ana, plan=plan)
    assert cards.exists() and set(cards.values_list("session_number", flat=True)) == {3}

    teacher = APIClient()
    teacher.force_login(course["teacher"])
    body = {"refIds": [course["book"].ref_id], "planId": plan.pk, "session": 3}
    conversation = teacher.post("/api/v1/conversations/", body, format="json")  # the teacher's own, about session 3
    assert conversation.status_code == 201, conversation.content
    client.force_login(course["teacher"])
    assert client.post(f"/courses/{course_id}/sessions/3/edit", {"move": "up"}).status_code == 302
    assert client.post(f"/courses/{course_id}/sessions/2/edit", {"title": "  Queues,  first  "}).status_code == 302
    third.refresh_from_db()
    assert third.number == 2 and third.title == "Queues, first"
    assert StudySession.objects.unscoped().get(pk=sessions[1].pk).number == 3
    assert SessionProgress.objects.unscoped().get(owner=ana).session_id == third.pk  # progress stays with its session
    assert set(Card.objects.unscoped().filter(owner=ana, plan=plan).values_list("session_number", flat=True)) == {2}
    assert Conversation.objects.unscoped().get(pk=conversation.json()["id"]).session_number == 2

    # Through the API: the first session to the end; the learner sees the new order with their status.
    moved = teacher.patch(f"/api/v1/courses/{course_id}/sessions/1/", {"position": 99}, format="json")
    assert moved.status_code == 200 and moved.json()["number"] == len(sessions)
    listed = learner.get(f"/api/v1/courses/{course_id}/plan").json()["sessions"]
    assert [session["number"] for session in listed] == list(range(1, len(sessions) + 1))
    assert [session["myStatus"] for session in listed if session["title"] == "Queues, first"] == ["completed"]
    assert teacher.patch(f"/api/v1/courses/{course_id}/sessions/1/", {"title": "   "}, format="json").status_code == 400


def test_only_the_teacher_edits_the_course_plan(client, course):
    plan = course["build"]()
    course_id = course["course"].pk
    before = list(plan.sessions.order_by("number").values_list("pk", "title"))
    for user in (course["ana"], UserFactory()):
        client.force_login(user)
        assert client.get(f"/courses/{course_id}/plan/edit").status_code == 404
        assert client.post(f"/courses/{course_id}/sessions/2/edit", {"move": "up", "title": "mine"}).status_code == 404
        api = APIClient()
        api.force_login(user)
        assert api.patch(f"/api/v1/courses/{course_id}/sessions/2/", {"position": 1}, format="json").status_code == 404
        assert api.post(f"/api/v1/courses/{course_id}/plan", {}, format="json").status_code == 404
    assert list(plan.sessions.order_by("number").values_list("pk", "title")) == before


def test_the_course_page_leads_the_learner_to_their_next_session(client, course):
    course["build"]()
    course_id = course["course"].pk
    client.force_login(course["ana"])
    page = client.get(f"/courses/{course_id}/")
    assert page.context["next_session"].number == 1 and f"/courses/{course_id}/sessions/1/" in page.content.decode()
    client.post(f"/courses/{course_id}/sessions/1/complete")
    assert client.get(f"/courses/{course_id}/").context["next_session"].number == 2
    done = client.get(f"/courses/{course_id}/sessions/1/").content.decode()
    assert (
        f"/courses/{course_id}/sessions/2/" in done
        and 'id="complete"' in done
        and "<button" not in done.split('id="complete"')[1].split("</form>")[0]
    )


def test_a_session_length_that_is_not_a_number_builds_with_the_default(client, course):
    plan = course["build"](minutes="abc")  # the form's own number field stops this in a browser; a hand-made post does not
    assert plan.minutes_per_session == 25
