"""The cache is JSON, never pickle: a value planted in Redis by any local process (the memory of a
conversation, a session's content) is never executed when read; the memory is rebuilt from PostgreSQL."""

import os
import pickle

import pytest
from django.core.cache import cache
from django_redis import get_redis_connection

from chat.services.conversations import conversation_create
from chat.services.memory import _key, memory_load
from chat.services.reply import chat_reply
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db


class Exploit:
    def __init__(self, marker: str):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def test_a_pickle_planted_in_a_memory_key_is_not_run_and_memory_is_rebuilt(user, ingest, tmp_path):
    book = ingest(user, make_pdf(["Chapter 1 The Stack\nThe stack is a last-in first-out structure used for calls."]))
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    chat_reply(conversation=conversation, content="What is the stack?")
    marker = tmp_path / "pwned"
    get_redis_connection("default").set(cache.make_key(_key(conversation)), pickle.dumps(Exploit(str(marker))))

    memory = memory_load(conversation=conversation)

    assert not marker.exists()  # nothing ran
    assert [entry["question"] for entry in memory.recent] == ["What is the stack?"]  # rebuilt from PostgreSQL
    assert isinstance(cache.get(_key(conversation)), dict)  # and stored again, as JSON
