"""The tutor over a course: a member's question is answered from the course's book with its page; a
question the book does not cover reaches the teacher as text alone (a name only when shared), grouped by
topic; a flagged answer reaches the teacher with its quote and page; leaving mid-conversation is said."""

import pytest
from rest_framework.test import APIClient

from accounts.content_managers import content_managers_group_sync
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

BOOK = [
    "Chapter 1 Pipelining\nA pipeline overlaps the stages of several instructions, so the processor finishes one "
    "instruction every cycle. A pipeline hazard stalls the pipeline when an instruction needs a result that is not ready.",
    "Chapter 2 Caches\nA cache keeps recently used memory blocks close to the processor. A cache miss costs many cycles "
    "because the block must be fetched from main memory.",
]


def _client(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


@pytest.fixture
def classroom(ingest):
    teacher = UserFactory()
    teacher.groups.add(content_managers_group_sync())
    teacher_api = _client(teacher)
    course = teacher_api.post("/api/v1/courses/", {"title": "Computer architecture", "language": "en"}, format="json").json()
    book = ingest(teacher, make_pdf(BOOK), "architecture.pdf")
    teacher_api.patch(f"/api/v1/materials/{book.ref_id}", {"courseId": course["id"]}, format="json")
    code = teacher_api.post(f"/api/v1/courses/{course['id']}/invitations/", {}, format="json").json()[0]["code"]
    learner = UserFactory(first_name="Mina")
    learner_api = _client(learner)
    assert learner_api.post("/api/v1/courses/join", {"code": code}, format="json").status_code == 200
    return {"teacher": teacher_api, "learner": learner_api, "course": course["id"], "book": book, "learner_user": learner}


def _ask(api, conversation_id: int, question: str) -> dict:
    response = api.post(f"/api/v1/conversations/{conversation_id}/messages", {"content": question}, format="json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_member_is_answered_from_the_course_book_and_the_teacher_sees_what_it_does_not_cover(classroom):
    learner, teacher, course = classroom["learner"], classroom["teacher"], classroom["course"]
    conversation = learner.post("/api/v1/conversations/", {}, format="json").json()["id"]
    answered = _ask(learner, conversation, "What does a pipeline hazard do?")
    assert not answered["refused"]
    assert {(item["refId"], item["pageNumber"]) for item in answered["citations"]} == {(classroom["book"].ref_id, 1)}
    for question in ("How do I bake sourdough bread at home?", "What temperature should sourdough bread bake at?"):
        assert _ask(learner, conversation, question)["refused"]
    gaps = teacher.get(f"/api/v1/courses/{course}/gaps").json()
    assert len(gaps) == 1 and gaps[0]["count"] == 2 and "sourdough" in gaps[0]["topic"]
    assert {question["learner"] for question in gaps[0]["questions"]} == {None}  # text only, no name
    assert "pipeline" not in str(gaps)  # an answered question is not a gap
    # The learner chooses to share their name: later questions carry it.
    shared = learner.patch(f"/api/v1/courses/{course}/membership", {"shareName": True}, format="json")
    assert shared.status_code == 200 and shared.json()["shareName"] is True
    assert _ask(learner, conversation, "Who won the football world cup in 2002?")["refused"]
    named = [
        question for gap in teacher.get(f"/api/v1/courses/{course}/gaps").json() for question in gap["questions"] if question["learner"]
    ]
    assert [question["text"] for question in named] == ["Who won the football world cup in 2002?"]
    assert named[0]["learner"] == "Mina"
    # The learner cannot read the gaps; another learner's conversation is no business of the teacher's.
    assert learner.get(f"/api/v1/courses/{course}/gaps").status_code == 404
    assert teacher.get(f"/api/v1/conversations/{conversation}/").status_code == 404


def test_a_flagged_answer_reaches_the_teacher_with_its_quote_and_page(classroom, ingest):
    learner, teacher, course = classroom["learner"], classroom["teacher"], classroom["course"]
    conversation = learner.post("/api/v1/conversations/", {}, format="json").json()["id"]
    answered = _ask(learner, conversation, "Why does a cache miss cost many cycles?")
    flagged = learner.post(
        f"/api/v1/conversations/{conversation}/messages/{answered['id']}/flag",
        {"kind": "citation_off", "citation": answered["citations"][0]["n"], "comment": "not the point"},
        format="json",
    )
    assert flagged.status_code == 201, flagged.content
    flags = teacher.get(f"/api/v1/courses/{course}/flags").json()["results"]
    assert len(flags) == 1
    assert flags[0]["question"] == "Why does a cache miss cost many cycles?" and flags[0]["pageNumber"] == 2
    assert flags[0]["quote"] == answered["citations"][0]["quote"] and flags[0]["learner"] is None
    assert flags[0]["comment"] == "not the point"
    # An answer from the learner's own notes has no teacher to tell.
    own = ingest(
        classroom["learner_user"], make_pdf(["Chapter 1 Diary\nThe lighthouse keeper paints the stairs every spring."]), "diary.pdf"
    )
    mine = learner.post("/api/v1/conversations/", {"refIds": [own.ref_id]}, format="json").json()["id"]
    answer = _ask(learner, mine, "What does the lighthouse keeper paint?")
    refused = learner.post(f"/api/v1/conversations/{mine}/messages/{answer['id']}/flag", {"kind": "wrong_answer"}, format="json")
    assert refused.status_code == 400 and refused.json()["error"]["code"] == "not_a_course_answer"
    assert learner.get(f"/api/v1/courses/{course}/flags").status_code == 404


def test_leaving_mid_conversation_is_said_and_the_book_is_never_quoted_again(classroom):
    learner, course, book = classroom["learner"], classroom["course"], classroom["book"]
    conversation = learner.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    first = _ask(learner, conversation, "What does a pipeline overlap?")
    assert not first["refused"], first
    assert learner.post(f"/api/v1/courses/{course}/leave").status_code == 204
    after = _ask(learner, conversation, "What does a pipeline overlap?")
    assert after["refused"] and after["citations"] == []
    detail = learner.get(f"/api/v1/conversations/{conversation}/").json()
    assert [source["removed"] for source in detail["sources"]] == [True]


def test_a_refused_follow_up_reaches_the_teacher_with_the_question_it_follows_and_numbers_name_no_topic(classroom):
    learner, teacher, course = classroom["learner"], classroom["teacher"], classroom["course"]
    conversation = learner.post("/api/v1/conversations/", {}, format="json").json()["id"]
    assert _ask(learner, conversation, "Who won the football world cup in 2002?")["refused"]
    assert _ask(learner, conversation, "and why?")["refused"]
    texts = [question["text"] for gap in teacher.get(f"/api/v1/courses/{course}/gaps").json() for question in gap["questions"]]
    assert "Who won the football world cup in 2002? → and why?" in texts  # "and why?" alone tells the teacher nothing
    topics = [gap["topic"] for gap in teacher.get(f"/api/v1/courses/{course}/gaps").json()]
    assert all("2002" not in topic for topic in topics) and any("football" in topic for topic in topics)
