"""In a session's conversation, "what matters most here?" is answered with the session's key points, cited."""

import pytest

from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from plans.services.session_content import session_content
from tests.plans.test_plans import book, plan  # noqa: F401 - fixtures

pytestmark = pytest.mark.django_db(transaction=True)


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
