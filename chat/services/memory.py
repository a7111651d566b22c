"""Conversation memory: recent turns, a rolling summary and key entities.

PostgreSQL holds the durable copy (messages, ``Conversation.summary`` and ``entities``); Redis holds
the working copy for 24 hours, refreshed on use and rebuilt from PostgreSQL whenever it is missing
(after a Redis restart, say). The offline summariser and entity extractor are deterministic.
"""

from __future__ import annotations

import logging
import re
from dataclasses import asdict, dataclass, field

from django.core.cache import cache

from baeum.grounding import content_terms
from baeum.text import split_sentences

from ..models import Conversation, Message

logger = logging.getLogger(__name__)
RECENT_TURNS = 5
SUMMARY_EVERY = 5
MAX_SUMMARY_SENTENCES = 20
MAX_ENTITIES = 25
WORKING_TTL_SECONDS = 24 * 3600


@dataclass
class Memory:
    recent: list[dict] = field(default_factory=list)  # [{"turn", "question", "answer", "refused"}], oldest first
    summary: str = ""
    entities: list[dict] = field(default_factory=list)


def _key(conversation_id: int) -> str:
    return f"chat:memory:{conversation_id}"


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
    return Memory(recent=[turns[turn] for turn in sorted(turns)], summary=conversation.summary, entities=list(conversation.entities))


def memory_load(*, conversation: Conversation) -> Memory:
    """Return the working memory, from Redis (refreshing its TTL) or rebuilt from PostgreSQL."""
    try:
        raw = cache.get(_key(conversation.pk))
    except Exception:  # noqa: BLE001 - Redis down: PostgreSQL has everything
        raw = None
    if raw is not None:
        try:
            cache.touch(_key(conversation.pk), WORKING_TTL_SECONDS)
        except Exception:  # noqa: BLE001
            logger.warning("could not refresh working memory TTL of conversation %s", conversation.pk)
        return Memory(**raw)
    memory = _rebuild(conversation)
    _store(conversation.pk, memory)
    return memory


def _store(conversation_id: int, memory: Memory) -> None:
    try:
        cache.set(_key(conversation_id), asdict(memory), WORKING_TTL_SECONDS)
    except Exception:  # noqa: BLE001 - a cache write failure loses nothing durable
        logger.warning("could not store working memory of conversation %s", conversation_id)


def memory_forget(*, conversation_id: int) -> None:
    try:
        cache.delete(_key(conversation_id))
    except Exception:  # noqa: BLE001
        logger.warning("could not drop working memory of conversation %s", conversation_id)


# --- Entities ------------------------------------------------------------------------------

_ENGLISH_FACT = re.compile(r"\bmy ([a-z][a-z \-]{1,30}?) (?:is|are|was|will be|=)\s+([^.?!,;]{1,60})", re.IGNORECASE)
_KOREAN_FACT = re.compile(
    r"(?:제|내|나의|우리)\s*([가-힣A-Za-z][가-힣A-Za-z ]{0,19}?)(?:은|는|이|가)\s+([^.?!,;]{1,40}?)\s*(?:이에요|예요|입니다|이다|이야|야|요|에요)?\s*(?:[.?!]|$)"
)


def extract_entities(text: str, *, turn: int) -> list[dict]:
    """Find "my X is Y" / "내 X는 Y이다" facts a learner states about themselves."""
    facts = []
    for pattern in (_ENGLISH_FACT, _KOREAN_FACT):
        for match in pattern.finditer(text):
            key, value = match.group(1).strip().lower(), match.group(2).strip()
            if key and value:
                facts.append({"key": key, "value": value, "turn": turn})
    return facts


def merge_entities(entities: list[dict], new: list[dict]) -> list[dict]:
    """Update by key (the old entry is removed, the new one appended); keep the newest 25."""
    result = list(entities)
    for fact in new:
        result = [entity for entity in result if entity["key"] != fact["key"]]
        result.append(fact)
    return result[-MAX_ENTITIES:]


# --- Summary -------------------------------------------------------------------------------


def _topic_terms(text: str) -> set[str]:
    return {term for term in content_terms(text) if len(term) > 1}


def summarise(previous: str, turns: list[dict]) -> str:
    """Fold the last turns into the summary: recent topics first, one line per turn; when the topic
    changed, the earlier summary shrinks to one line. At most 20 sentences."""
    lines = []
    for entry in reversed(turns):
        question = entry["question"].strip().replace("\n", " ")
        if entry.get("refused"):
            outcome = "not covered by the materials"
        else:
            first = split_sentences(entry["answer"].replace("\n", " "))
            outcome = first[0][:160] if first else ""
        lines.append(f"Turn {entry['turn']}: {question[:160]} → {outcome}".strip())
    previous_lines = [line for line in previous.split("\n") if line.strip()]
    if previous_lines:
        recent_topics = set().union(*(_topic_terms(entry["question"]) for entry in turns)) if turns else set()
        earlier_topics = _topic_terms(previous)
        overlap = len(recent_topics & earlier_topics) / max(1, len(recent_topics | earlier_topics))
        if overlap < 0.15:
            keywords = [term for term in dict.fromkeys(content_terms(previous)) if len(term) > 1 and not term.startswith("turn")][:8]
            previous_lines = [f"Earlier topics: {', '.join(keywords)}."]
    return "\n".join((lines + previous_lines)[:MAX_SUMMARY_SENTENCES])


def memory_record_turn(*, conversation: Conversation, memory: Memory, turn: int, question: str, answer: str, refused: bool) -> Memory:
    """Add a finished turn to memory; every 5 turns fold the last 5 into the summary."""
    memory.recent = [*memory.recent, {"turn": turn, "question": question, "answer": answer, "refused": refused}][-RECENT_TURNS:]
    memory.entities = merge_entities(memory.entities, extract_entities(question, turn=turn))
    fields = ["entities", "updated_at"]
    conversation.entities = memory.entities
    if turn % SUMMARY_EVERY == 0:
        memory.summary = summarise(memory.summary, memory.recent)
        conversation.summary, conversation.summary_turn = memory.summary, turn
        fields += ["summary", "summary_turn"]
    conversation.save(update_fields=fields)
    _store(conversation.pk, memory)
    return memory
