"""In a session's conversation, "what matters most here?" is answered with the session's key points, cited."""

import pytest

from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from plans.services.session_content import session_content
from tests.plans.test_plans import book, plan  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("question", ["What matters most in this session?", "Summarise this session.", "이 세션에서 제일 중요한 게 뭐야?"])
def test_the_session_key_points_answer_what_matters_most(user, plan, question):  # noqa: F811
    conversation = conversation_create(owner=user, ref_ids=[], plan_id=plan.pk, session_number=1)
    message = chat_reply(conversation=conversation, content=question)
    assert not message.refused, message.content
    session = plan.sessions.get(number=1)
    points = session_content(user=user, plan=plan, session=session).key_points
    assert all(point["text"] in message.content for point in points)
    start, end = session.ranges[0]["chunkRange"]
    assert message.citations and all(start <= citation["chunkIndex"] <= end for citation in message.citations)


def test_outside_a_session_the_same_words_are_an_ordinary_question(user, plan, book):  # noqa: F811
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    message = chat_reply(conversation=conversation, content="What matters most in this session?")
    assert "key points of this session" not in message.content


def test_a_refusal_in_a_session_says_only_its_pages_were_searched(user, plan):  # noqa: F811
    # A learner's walkthrough: "I couldn't find this in your materials" for what the book has on a later page.
    conversation = conversation_create(owner=user, ref_ids=[], plan_id=plan.pk, session_number=1)
    message = chat_reply(conversation=conversation, content="What does a dictionary map keys to, and why is lookup fast?")
    assert message.refused
    assert "only this session's pages" in message.content and "new conversation" in message.content


def test_a_refusal_names_every_material_searched_not_only_those_that_came_back(user, ingest, book):  # noqa: F811
    from tests.pdfgen import make_pdf

    garden = ingest(user, make_pdf(["Tomatoes need six hours of sun and regular watering."]), "garden.pdf", title="Garden notes")
    two = conversation_create(owner=user, ref_ids=[book.ref_id, garden.ref_id])
    message = chat_reply(conversation=two, content="How does photosynthesis turn sunlight into sugar in tomato leaves?")
    assert message.refused and "“Think Python excerpt”" in message.content and "“Garden notes”" in message.content, message.content
    for name in ("Birds", "Rivers"):
        ingest(user, make_pdf([f"{name} notes. Herons wade in shallow rivers to catch fish."]), f"{name}.pdf", title=f"{name} notes")
    everything = conversation_create(owner=user, ref_ids=[])
    message = chat_reply(conversation=everything, content="How does photosynthesis turn sunlight into sugar in tomato leaves?")
    assert message.refused and "I searched all 4 of your materials" in message.content, message.content
