"""Notes (API and page) and downloads: a plan, a session, notes and a conversation as Markdown with page
references; a plan's cards as an Anki package and as CSV. A second user sees none of it (404)."""

import csv
import io
import json
import re
import sqlite3
import zipfile
from datetime import timedelta

import pytest
from django.utils import timezone

from knowledge.models import MaterialPage
from plans.models import Card, Note, Plan
from plans.selectors_guide import plan_deck
from plans.services.export import page_reference, stable_id
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

CHAPTERS = {
    "Variables": "A variable is a name that refers to a value. Assignment statements create variables and give them values.",
    "Functions": "A function is a named sequence of statements. Calling a function runs its body with the given arguments.",
    "Recursion": "A recursive function calls itself. Every recursion needs a base case that stops it from running forever.",
}


@pytest.fixture
def book(user, ingest):
    pages = [f"Chapter {number} {title}\n" + (text + " ") * 6 for number, (title, text) in enumerate(CHAPTERS.items(), start=1)]
    return ingest(user, make_pdf(pages), "python.pdf", title="Think Python excerpt")


@pytest.fixture
def plan(user, book, django_capture_on_commit_callbacks):
    from plans.services.plans import plan_create

    with django_capture_on_commit_callbacks(execute=True):
        created = plan_create(owner=user, title="Learn Python", ref_ids=[book.ref_id], minutes_per_session=5)
    created.refresh_from_db()
    assert created.status == "READY", created.error_message
    return created


def _page_text(material, number: int) -> str:
    return " ".join(MaterialPage.objects.for_user(material.owner).get(material=material, number=number).text.split())


# --- Notes ---------------------------------------------------------------------------------------


def test_notes_are_saved_listed_filtered_edited_and_deleted(api_client, book, plan):
    citation = {"refId": book.ref_id, "pageNumber": 2, "quote": "A function is a named sequence of statements."}
    created = api_client.post(
        "/api/v1/notes",
        {
            "kind": "key_point",
            "text": "A function is a named sequence of statements.",
            "citations": [citation],
            "planId": plan.pk,
            "source": "Session 1",
        },
        format="json",
    )
    assert created.status_code == 201, created.content
    note = created.json()
    # The material is named by its title in the learner's library when the caller gave none.
    assert note["citations"] == [{**citation, "title": "Think Python excerpt", "pageEnd": 2}]
    assert (note["planId"], note["planTitle"], note["source"]) == (plan.pk, "Learn Python", "Session 1")
    again = api_client.post(
        "/api/v1/notes",
        {"kind": "key_point", "text": "A function is a named sequence of statements.", "citations": [citation], "planId": plan.pk},
        format="json",
    )
    assert again.status_code == 200 and again.json()["id"] == note["id"]  # saved twice from the same place: one note
    own = api_client.post("/api/v1/notes/", {"text": "Recursion needs a base case."}, format="json").json()
    assert own["kind"] == "own" and own["planId"] is None
    twice = api_client.post("/api/v1/notes/", {"text": "Recursion needs a base case."}, format="json")
    assert twice.status_code == 201  # the learner's own words are theirs to repeat
    api_client.delete(f"/api/v1/notes/{twice.json()['id']}")

    assert [row["id"] for row in api_client.get("/api/v1/notes").json()["results"]] == [own["id"], note["id"]]
    assert [row["id"] for row in api_client.get(f"/api/v1/notes?planId={plan.pk}").json()["results"]] == [note["id"]]

    edited = api_client.patch(f"/api/v1/notes/{note['id']}", {"comment": "Ask about default arguments"}, format="json")
    assert edited.status_code == 200 and edited.json()["comment"] == "Ask about default arguments"
    assert Note.objects.for_user(plan.owner).get(pk=note["id"]).comment == "Ask about default arguments"
    assert api_client.patch(f"/api/v1/notes/{note['id']}/", {"planId": None}, format="json").json()["planId"] is None

    assert api_client.delete(f"/api/v1/notes/{own['id']}").status_code == 204
    assert api_client.get(f"/api/v1/notes/{own['id']}").status_code == 404
    assert Note.objects.for_user(plan.owner).count() == 1


def test_a_saved_key_point_or_answer_says_saved_after_a_reload(client, user, api_client, book, plan):
    import html as html_module
    import json as json_module

    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply

    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/sessions/1/").content.decode()
    buttons = re.findall(r"data-save-note='([^']*)'", page)
    assert buttons and "Saved" not in page
    first = json_module.loads(html_module.unescape(buttons[0]))
    assert api_client.post("/api/v1/notes", first, format="json").status_code == 201
    page = client.get(f"/plans/{plan.pk}/sessions/1/").content.decode()
    assert len(re.findall(r"data-save-note='", page)) == len(buttons) - 1 and "Saved" in page

    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    reply = chat_reply(conversation=conversation, content="What is a function?")
    assert not reply.refused and reply.citations
    chat = client.get(f"/chat/{conversation.pk}/").content.decode()
    [answer] = re.findall(r'data-save-note="([^"]*)"', chat)  # the tutor's answer can be kept, with its citations
    note = json_module.loads(html_module.unescape(answer))
    assert note["kind"] == "answer" and note["citations"][0]["refId"] == book.ref_id
    saved = api_client.post("/api/v1/notes", note, format="json")
    assert saved.status_code == 201 and saved.json()["citations"][0]["title"] == "Think Python excerpt"
    chat = client.get(f"/chat/{conversation.pk}/").content.decode()
    assert 'data-save-note="' not in chat and "Saved" in chat

    # A later answer is filed under the question it answers, not the conversation's first (a walkthrough's note
    # on "그럼 되돌아가려면?" read "Tutor answer · How do I exit Vim …").
    later = chat_reply(conversation=conversation, content="What is recursion?")
    assert not later.refused
    chat = client.get(f"/chat/{conversation.pk}/").content.decode()
    [answer] = re.findall(r'data-save-note="([^"]*)"', chat)
    assert json_module.loads(html_module.unescape(answer))["source"] == "What is recursion?"
    one = client.get(f"/chat/{conversation.pk}/messages/{later.pk}/").json()["html"]
    assert "What is recursion?" in html_module.unescape(one)


def test_note_input_is_validated(api_client, plan):
    assert api_client.post("/api/v1/notes", {"kind": "poem", "text": "x"}, format="json").status_code == 400
    assert api_client.post("/api/v1/notes", {"kind": "own", "text": ""}, format="json").status_code == 400
    bad_citation = {"text": "x", "citations": [{"refId": "mat_x", "pageNumber": 0}]}
    assert api_client.post("/api/v1/notes", bad_citation, format="json").status_code == 400
    assert api_client.get("/api/v1/notes?planId=abc").status_code == 400
    for ref_id in ("a/b", "../x", "mat x"):  # a refId becomes a link to the viewer: only a material's id shape
        refused = api_client.post("/api/v1/notes", {"text": "x", "citations": [{"refId": ref_id, "pageNumber": 1}]}, format="json")
        assert refused.status_code == 400 and "refId" in refused.json()["error"]["message"]
    assert Note.objects.for_user(plan.owner).count() == 0


def test_a_second_user_sees_no_note_and_cannot_file_one_under_someone_elses_plan(api_client, other_api_client, other_user, plan):
    note = api_client.post("/api/v1/notes", {"text": "Mine", "planId": plan.pk}, format="json").json()
    assert other_api_client.get("/api/v1/notes").json()["count"] == 0
    assert other_api_client.get(f"/api/v1/notes?planId={plan.pk}").json()["count"] == 0
    for method in ("get", "patch", "delete"):
        response = getattr(other_api_client, method)(f"/api/v1/notes/{note['id']}", {"comment": "theirs"}, format="json")
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    refused = other_api_client.post("/api/v1/notes", {"text": "x", "planId": plan.pk}, format="json")
    assert refused.status_code == 404
    assert Note.objects.for_user(other_user).count() == 0
    assert Note.objects.for_user(plan.owner).get().comment == ""


def test_notes_page_lists_filters_and_the_save_buttons_script_is_served(client, user, other_user, plan):
    from plans.services.notes import note_create

    note_create(
        owner=user, kind="answer", text="A variable is a name.", plan_id=plan.pk, citations=[{"refId": plan.ref_ids[0], "pageNumber": 1}]
    )
    note_create(owner=user, kind="own", text="Unfiled thought")
    client.force_login(user)
    page = client.get("/notes/").content.decode()
    assert "A variable is a name." in page and "Unfiled thought" in page
    assert "js/notes.js" in page and f"/library/{plan.ref_ids[0]}/?page=1" in page
    filtered = client.get(f"/notes/?plan={plan.pk}").content.decode()
    assert "A variable is a name." in filtered and "Unfiled thought" not in filtered
    assert f"/api/v1/notes/export.md?planId={plan.pk}" in filtered
    client.force_login(other_user)
    assert "A variable is a name." not in client.get("/notes/").content.decode()


# --- Markdown ------------------------------------------------------------------------------------


def test_page_references():
    assert page_reference("Think Python", 12) == "(Think Python, p. 12)"
    assert page_reference("Think Python", 12, 13) == "(Think Python, pp. 12–13)"
    assert page_reference("Think Python", 12, 12) == "(Think Python, p. 12)"
    assert page_reference("", 3) == "(p. 3)"


def test_plan_and_session_markdown_cite_the_page_of_each_key_point(api_client, book, plan):
    from plans.services.session_content import session_content

    response = api_client.get(f"/api/v1/plans/{plan.pk}/export.md")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/markdown; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="learn-python.md"'
    text = response.content.decode()
    assert text.startswith("# Learn Python\n")
    session = plan.sessions.order_by("number").first()
    content = session_content(user=plan.owner, plan=plan, session=session)
    assert content.key_points
    for point in content.key_points:
        section = f"**{point['section']}**: " if point["section"] else ""  # the section it stands in, as the page shows it
        line = f"- {section}{point['text']} (Think Python excerpt, p. {point['pageNumber']})"
        assert line in text
        assert point["text"] in _page_text(book, point["pageNumber"])  # the reference is the sentence's own page
    for objective in session.objectives:
        assert f"- {objective}" in text

    one = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{session.number}/export.md", HTTP_ACCEPT="text/markdown")
    assert one.status_code == 200
    body = one.content.decode()
    assert f"## {session.number}. {session.title}" in body and "### Practice questions" in body
    for question in content.questions:
        assert f"**Answer:** {question['answer']} (Think Python excerpt, p. {question['citation']['pageNumber']})" in body


def test_notes_markdown_quotes_each_note_with_its_page_reference(api_client, book, plan):
    api_client.post(
        "/api/v1/notes",
        {
            "kind": "passage",
            "text": "A recursive function calls itself.",
            "comment": "Compare with loops.",
            "citations": [{"refId": book.ref_id, "pageNumber": 3, "pageEnd": 4}],
            "planId": plan.pk,
        },
        format="json",
    )
    response = api_client.get(f"/api/v1/notes/export.md?planId={plan.pk}")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/markdown")
    text = response.content.decode()
    assert "> A recursive function calls itself." in text
    assert "(Think Python excerpt, pp. 3–4)" in text and "Compare with loops." in text


def test_conversation_markdown_lists_each_answer_with_its_sources(api_client, other_api_client, book):
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply

    conversation = conversation_create(owner=book.owner, ref_ids=[book.ref_id])
    answer = chat_reply(conversation=conversation, content="What is a recursive function?")
    assert answer.citations
    response = api_client.get(f"/api/v1/conversations/{conversation.pk}/export.md")
    assert response.status_code == 200 and response["Content-Type"] == "text/markdown; charset=utf-8"
    text = response.content.decode()
    assert "## What is a recursive function?" in text
    for citation in answer.citations:
        assert f"[{citation['n']}] (Think Python excerpt, p. {citation['pageNumber']})" in text
        assert f"> {citation['quote'].splitlines()[0]}" in text
    assert other_api_client.get(f"/api/v1/conversations/{conversation.pk}/export.md").status_code == 404


# --- Decks ---------------------------------------------------------------------------------------


def _cards(plan, book):
    now = timezone.now()
    common = {"owner": plan.owner, "plan": plan, "scheduling": {}, "accepted": []}
    return [
        Card.objects.create(
            **common,
            session_number=1,
            key="q1",
            kind="definition",
            prompt="What is a variable?",
            answer="A name that refers to a value.",
            citation={
                "refId": book.ref_id,
                "chunkIndex": 0,
                "pageNumber": 1,
                "pageEnd": 1,
                "quote": "A variable is a name that refers to a value.",
            },
            due=now,
        ),
        Card.objects.create(
            **common,
            session_number=2,
            key="q2",
            kind="choice",
            prompt="Which function calls itself?",
            answer="a recursive function",
            choices=["a recursive function", "a void function", "a pure function"],
            citation={"refId": book.ref_id, "chunkIndex": 2, "pageNumber": 3, "pageEnd": 3, "quote": "A recursive function calls itself."},
            due=now + timedelta(days=3),
        ),
    ]


def _apkg(content: bytes, tmp_path):
    archive = zipfile.ZipFile(io.BytesIO(content))
    assert set(archive.namelist()) == {"collection.anki2", "media"}
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "collection.anki2").write_bytes(archive.read("collection.anki2"))
    return sqlite3.connect(tmp_path / "collection.anki2")


def test_the_deck_downloads_as_an_anki_package_with_ids_from_the_plan(api_client, book, plan, tmp_path):
    _cards(plan, book)
    response = api_client.get(f"/api/v1/plans/{plan.pk}/deck.apkg")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/apkg"
    assert response["Content-Disposition"] == 'attachment; filename="learn-python.apkg"'
    database = _apkg(response.content, tmp_path)
    notes = database.execute("select guid, flds, tags from notes order by id").fetchall()
    deck = plan_deck(user=plan.owner, plan=plan)  # the two cards and every question not answered yet
    assert len(notes) == len(deck) > 2 and database.execute("select count(*) from cards").fetchone()[0] == len(deck)
    fields = [(row[1].split("\x1f"), row[2]) for row in notes]
    assert any(
        found[:3] == ["What is a variable?", "A name that refers to a value.", "(Think Python excerpt, p. 1)"] for found, _ in fields
    )
    choice = "Which function calls itself?<br>- a recursive function<br>- a void function<br>- a pure function"
    assert any(found[0] == choice and "session_2" in tags for found, tags in fields)
    decks = json.loads(database.execute("select decks from col").fetchone()[0])
    models = json.loads(database.execute("select models from col").fetchone()[0])
    assert str(stable_id("baeum-deck", plan.pk)) in decks and str(stable_id("baeum-model", plan.pk)) in models
    # Importing it again updates the same notes: ids and guids do not change between downloads.
    again = _apkg(api_client.get(f"/api/v1/plans/{plan.pk}/deck.apkg").content, tmp_path / "again")
    assert [row[0] for row in again.execute("select guid from notes order by id")] == [row[0] for row in notes]


def test_the_deck_downloads_as_csv(api_client, book, plan):
    _cards(plan, book)
    response = api_client.get(f"/api/v1/plans/{plan.pk}/deck.csv")
    assert response.status_code == 200 and response["Content-Type"] == "text/csv; charset=utf-8"
    text = response.content.decode("utf-8")
    assert text.startswith("\ufeff")
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff"))))
    assert rows[0] == ["front", "back", "source", "quote", "kind", "session", "due"]
    rows = [rows[0], *[row for row in rows[1:] if row[1] == "A name that refers to a value." or row[0].startswith("Which function")]]
    assert rows[1][:6] == [
        "What is a variable?",
        "A name that refers to a value.",
        "(Think Python excerpt, p. 1)",
        "A variable is a name that refers to a value.",
        "definition",
        "1",
    ]
    assert rows[2][0].startswith("Which function calls itself?\n- a recursive function")


def test_csv_cells_that_start_like_a_formula_are_never_run_by_a_spreadsheet(api_client, book, plan):
    card = _cards(plan, book)[0]
    card.prompt, card.answer = '=HYPERLINK("http://evil.example","click")', "+1"
    card.citation = {**card.citation, "quote": "@SUM(A1:A9)"}
    card.save()
    text = api_client.get(f"/api/v1/plans/{plan.pk}/deck.csv").content.decode("utf-8").lstrip("\ufeff")
    row = next(row for row in csv.reader(io.StringIO(text)) if "HYPERLINK" in row[0])
    assert row[0] == '\'=HYPERLINK("http://evil.example","click")' and row[1] == "'+1" and row[3] == "'@SUM(A1:A9)"


def test_an_exam_date_no_study_has_is_refused_and_an_old_one_breaks_nothing(api_client, user, book, plan):
    for value in ("0001-01-01", "9999-12-31"):
        refused = api_client.patch(f"/api/v1/plans/{plan.pk}/settings", {"examDate": value}, format="json")
        assert refused.status_code == 400 and value in refused.json()["error"]["message"]
    Plan.objects.for_user(user).filter(pk=plan.pk).update(exam_date="0001-01-01")  # stored before dates were checked
    card = _cards(plan, book)[0]
    assert api_client.get("/api/v1/review/").status_code == 200
    answered = api_client.post(f"/api/v1/review/cards/{card.pk}/answer", {"response": "a name"}, format="json")
    assert answered.status_code == 200, answered.content[:300]
    assert api_client.get(f"/api/v1/plans/{plan.pk}/settings").status_code == 200


def test_a_fresh_plan_downloads_every_practice_question_not_zero_cards(api_client, client, user, book, plan):
    from plans.services.session_content import session_content

    questions = [
        question
        for session in plan.sessions.order_by("number")
        for question in session_content(user=user, plan=plan, session=session).questions
    ]
    assert questions and not Card.objects.for_user(user).exists()  # nothing answered yet
    rows = list(csv.reader(io.StringIO(api_client.get(f"/api/v1/plans/{plan.pk}/deck.csv").content.decode("utf-8").lstrip("\ufeff"))))
    assert [row[0].split("\n")[0] for row in rows[1:]] == [question["question"] for question in questions]
    assert all(row[6] == "" for row in rows[1:])  # not scheduled until answered
    client.force_login(user)
    assert f"({len(questions)} cards)" in client.get(f"/plans/{plan.pk}/").content.decode()


def test_korean_titles_give_korean_file_names(api_client, book, plan):
    plan.title = "파이썬 배우기"
    plan.save(update_fields=["title"])
    response = api_client.get(f"/api/v1/plans/{plan.pk}/export.md")
    assert response["Content-Disposition"] == "attachment; filename*=utf-8''%ED%8C%8C%EC%9D%B4%EC%8D%AC-%EB%B0%B0%EC%9A%B0%EA%B8%B0.md"


def test_a_second_user_downloads_nothing(api_client, other_api_client, book, plan):
    _cards(plan, book)
    api_client.post("/api/v1/notes", {"text": "Mine", "planId": plan.pk}, format="json")
    for path in [
        f"/api/v1/plans/{plan.pk}/export.md",
        f"/api/v1/plans/{plan.pk}/sessions/1/export.md",
        f"/api/v1/plans/{plan.pk}/deck.apkg",
        f"/api/v1/plans/{plan.pk}/deck.csv",
        f"/api/v1/notes/export.md?planId={plan.pk}",
    ]:
        response = other_api_client.get(path)
        assert response.status_code == 404, path
        assert response.json()["error"]["code"] == "not_found"
    mine_hidden = other_api_client.get("/api/v1/notes/export.md")
    assert mine_hidden.status_code == 200 and "Mine" not in mine_hidden.content.decode()


def test_a_korean_learner_downloads_korean_headings_and_page_references(api_client, book, plan):
    from plans.services.session_content import session_content

    text = api_client.get(f"/api/v1/plans/{plan.pk}/export.md", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "**자료:**" in text and "### 핵심 내용" in text
    session = plan.sessions.order_by("number").first()
    content = session_content(user=plan.owner, plan=plan, session=session)
    point = content.key_points[0]
    assert f"(Think Python excerpt, {point['pageNumber']}쪽)" in text  # not "p. 2"
    assert "### Key points" not in text and "**Materials:**" not in text and " min" not in text
    one = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{session.number}/export.md", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "**정답:**" in one and "**Answer:**" not in one
