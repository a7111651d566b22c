"""Faults: the database goes away (clean 503, nothing half-written)."""

import pytest
from django.db import connection

from knowledge.models import Material

# transaction=True: faults kill connections mid-transaction; a test transaction would die with them.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def database_outage():
    """Point the connection at a port where no PostgreSQL listens, then restore it."""
    original = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["PORT"] = "1"
    connection.settings_dict["HOST"] = "127.0.0.1"
    yield
    connection.close()
    connection.settings_dict.update(original)
    connection.ensure_connection()


def test_api_and_pages_answer_503_while_the_database_is_unreachable(api_client, client, user, english_pdf, database_outage):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("notes.pdf", english_pdf)}, format="multipart")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert response["Retry-After"] == "5"
    assert client.get("/healthz").status_code == 503
    assert client.get("/healthz").json()["checks"]["database"] == "down"  # the reason is for staff


def test_nothing_was_written_during_the_outage(api_client, user, english_pdf):
    from django.core.files.uploadedfile import SimpleUploadedFile

    original = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(PORT="1", HOST="127.0.0.1")
    try:
        api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("notes.pdf", english_pdf)}, format="multipart")
    finally:
        connection.close()
        connection.settings_dict.update(original)
    assert Material.objects.count() == 0


@pytest.mark.serial  # the shared Redis goes away for a moment
@pytest.mark.skipif(bool(__import__("os").environ.get("REDIS_URL")), reason="restarts the embedded Redis only")
def test_redis_restart_loses_no_conversation_memory(user, ingest):
    """Redis dies without saving and comes back: working memory is rebuilt from PostgreSQL."""
    from baeum import runtime
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply
    from tests.pdfgen import make_pdf

    book = ingest(
        user,
        make_pdf(
            [
                "Chapter 1 The Stack\nThe stack is a last-in first-out structure. When a function is called, the return address is pushed on the stack."
            ]
        ),
    )
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    chat_reply(conversation=conversation, content="What is the stack?")
    started_before = "redis" in runtime.STARTED_HERE
    runtime.stop_redis(save=False)
    try:
        runtime.ensure_redis()
        follow_up = chat_reply(conversation=conversation, content="What is pushed on it when a function is called?")
        assert "return address" in follow_up.content
        assert conversation.messages.count() == 4
    finally:
        if not started_before:
            runtime.STARTED_HERE.discard("redis")
        # Drop pooled connections to the old server so later tests start clean.
        from django_redis import get_redis_connection

        get_redis_connection("default").connection_pool.disconnect()
