"""Conversation memory: recent turns, a rolling summary and key entities.

PostgreSQL holds the durable copy (messages, ``Conversation.summary`` and ``entities``); Redis holds
the working copy for 24 hours, refreshed on use and rebuilt from PostgreSQL whenever it is missing
(after a Redis restart, say). The offline summariser and entity extractor are deterministic.
"""

from __future__ import annotations

import logging
from dataclasses import asdict

from django.core.cache import cache

from baeum.answering.history import Memory, extract_entities, merge_entities, summarise
from core.learner_cache import learner_key

from ..models import Conversation, Message

logger = logging.getLogger(__name__)
RECENT_TURNS = 5
SUMMARY_EVERY = 5
WORKING_TTL_SECONDS = 24 * 3600


def _key(conversation: Conversation) -> str:
    """The conversation's key: its owner, id and creation time, so a database rebuilt under a Redis that
    kept its keys (a reset development database, a test run after another) never reads another
    conversation's turns under a reused id."""
    return learner_key(conversation.owner_id, "chat", "memory", conversation.pk, f"{conversation.created_at.timestamp():.6f}")


def _rebuild(conversation: Conversation) -> Memory:
    messages = list(
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation, turn__gt=max(0, conversation.turn_count - RECENT_TURNS))
        .order_by("turn", "id")
    )
    turns: dict[int, dict] = {}
    for message in messages:
        entry = turns.setdefault(message.turn, {"turn": message.turn, "question": "", "answer": "", "refused": False})
        if message.role == Message.Role.USER:
            entry["question"] = message.content
        else:
            entry["answer"] = message.content
            entry["refused"] = message.refused
            entry["searched"] = message.search_query
    return Memory(recent=[turns[turn] for turn in sorted(turns)], summary=conversation.summary, entities=list(conversation.entities))


def memory_load(*, conversation: Conversation) -> Memory:
    """Return the working memory, from Redis (refreshing its TTL) or rebuilt from PostgreSQL."""
    try:
        raw = cache.get(_key(conversation))
    except Exception:  # noqa: BLE001 - Redis down, or a value that is not ours (not JSON): PostgreSQL has everything
        raw = None
    if isinstance(raw, dict) and raw.keys() == Memory.__dataclass_fields__.keys():
        try:
            cache.touch(_key(conversation), WORKING_TTL_SECONDS)
        except Exception:  # noqa: BLE001
            logger.warning("could not refresh working memory TTL of conversation %s", conversation.pk)
        return Memory(**raw)
    memory = _rebuild(conversation)
    _store(conversation, memory)
    return memory


def _store(conversation: Conversation, memory: Memory) -> None:
    try:
        cache.set(_key(conversation), asdict(memory), WORKING_TTL_SECONDS)
    except Exception:  # noqa: BLE001 - a cache write failure loses nothing durable
        logger.warning("could not store working memory of conversation %s", conversation.pk)


def memory_forget(*, conversation: Conversation) -> None:
    try:
        cache.delete(_key(conversation))
    except Exception:  # noqa: BLE001
        logger.warning("could not drop working memory of conversation %s", conversation.pk)


def memory_record_turn(
    *, conversation: Conversation, memory: Memory, turn: int, question: str, answer: str, refused: bool, searched: str = ""
) -> Memory:
    """Add a finished turn to memory; every 5 turns fold the last 5 into the summary. ``searched``: the
    question as it was searched, made to stand alone (a follow-up's topic, for the follow-up after it)."""
    entry = {"turn": turn, "question": question, "answer": answer, "refused": refused, "searched": searched}
    memory.recent = [*memory.recent, entry][-RECENT_TURNS:]
    memory.entities = merge_entities(memory.entities, extract_entities(question, turn=turn))
    fields = ["entities", "updated_at"]
    conversation.entities = memory.entities
    if turn % SUMMARY_EVERY == 0:
        memory.summary = summarise(memory.summary, memory.recent)
        conversation.summary, conversation.summary_turn = memory.summary, turn
        fields += ["summary", "summary_turn"]
    conversation.save(update_fields=fields)
    _store(conversation, memory)
    return memory
