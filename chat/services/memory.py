"""Conversation memory: recent turns, a rolling summary and key entities.

PostgreSQL holds the durable copy (messages, ``Conversation.summary`` and ``entities``); Redis holds
the working copy for 24 hours, refreshed on use and rebuilt from PostgreSQL whenever it is missing
(after a Redis restart, say). The offline summariser and entity extractor are deterministic.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field

from django.core.cache import cache

from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy, split_sentences

from ..models import Conversation, Message

logger = logging.getLogger(__name__)
RECENT_TURNS = 5
SUMMARY_EVERY = 5
MAX_SUMMARY_SENTENCES = 20
MAX_ENTITIES = 25
WORKING_TTL_SECONDS = 24 * 3600


@dataclass
class Memory:
    # [{"turn", "question", "answer", "refused", "searched"}], oldest first; "searched": the question made to stand alone
    recent: list[dict] = field(default_factory=list)
    summary: str = ""
    entities: list[dict] = field(default_factory=list)


def _key(conversation: Conversation) -> str:
    """The conversation's key: its owner, id and creation time, so a database rebuilt under a Redis that
    kept its keys (a reset development database, a test run after another) never reads another
    conversation's turns under a reused id."""
    return f"chat:memory:{conversation.owner_id}:{conversation.pk}:{conversation.created_at.timestamp():.6f}"


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


# --- Entities ------------------------------------------------------------------------------

# "my exam is on Friday", "my exam date will be December 3"
_ENGLISH_FACT = re.compile(r"\bmy ([a-z][a-z \-]{1,30}?) (?:is|are|was|will be|=)\s+([^.?!,;]{1,60})", re.IGNORECASE)
# "I have an exam on Friday", "I've got a quiz next week": the event is the key, its time the value.
_ENGLISH_EVENT = re.compile(
    r"\bI(?:'ve| have)(?: got)? (?:an?|my|the) ([a-z][a-z \-]{1,30}?) ((?:on|at|in|next|this|tomorrow)\b[^.?!,;]{0,40})", re.IGNORECASE
)
# "I'm studying for the midterm", "I am preparing for the final exam"
_ENGLISH_GOAL = re.compile(
    r"\bI(?:'m| am)\s+(?:currently\s+|now\s+)?(?:studying|preparing|revising|reviewing|cramming)\s+for\s+([^.?!,;]{1,60})", re.IGNORECASE
)
# "내 시험은 금요일이야", "제 목표는 합격입니다": 내/제/나의/우리 as a word of its own, not the end of "문제는".
_KOREAN_FACT = re.compile(
    r"(?<![가-힣A-Za-z])(?:제|내|나의|우리)\s*([가-힣A-Za-z][가-힣A-Za-z ]{0,19}?)(?:은|는|이|가)\s+([^.?!,;]{1,40}?)"
    r"\s*(?:이에요|예요|입니다|이다|이야|야|요|에요)?\s*(?:[.?!]|$)"
)
# "중간고사 공부 중이야", "나는 기말고사를 준비하고 있어"
_KOREAN_GOAL = re.compile(
    r"(?:(?:나는|저는|난|전|요즘|지금)\s+)*([가-힣A-Za-z0-9][가-힣A-Za-z0-9 ]{0,19}?)\s*(?:을|를)?\s*(?:공부|준비)\s*(?:하고\s*있|하는\s*중|중)"
)
STUDY_GOAL_EN = "study goal"
STUDY_GOAL_KO = "공부 목표"

# A question states no fact: "내 시험은 언제야?" must not record "언제" as the exam.
_QUESTION_OPENING_EN = re.compile(
    r"^\s*(?:what|when|where|who|whom|whose|why|how|which|is|are|am|was|were|do|does|did|can|could|should|would|will|shall"
    r"|may|might|tell me|explain|describe|define|compare|list|give me|show me)\b",
    re.IGNORECASE,
)
_INTERROGATIVE = re.compile(
    r"\b(?:what|when|where|who|whom|why|how|which)\b|뭐|무엇|뭔|언제|어디|누구|누가|왜|어떻게|어떤|어느|몇|무슨|얼마", re.IGNORECASE
)
_QUESTION_ENDING_KO = re.compile(r"(?:까|니|냐|나요|가요|는가|은가|인가|죠|지요)\s*[.!]*\s*$")


def is_question(text: str) -> bool:
    """Tell whether the learner asks (or asks for) something rather than states something."""
    text = text.strip()
    return (
        "?" in text
        or bool(_QUESTION_OPENING_EN.match(text))
        or bool(_QUESTION_ENDING_KO.search(text))
        or bool(is_hangul_heavy(text) and _INTERROGATIVE.search(text))
    )


def _facts(sentence: str, *, turn: int) -> Iterator[dict]:
    for pattern in (_ENGLISH_FACT, _ENGLISH_EVENT, _KOREAN_FACT):
        for match in pattern.finditer(sentence):
            yield {"key": match.group(1).strip().lower(), "value": match.group(2).strip(), "turn": turn}
    for pattern, key in ((_ENGLISH_GOAL, STUDY_GOAL_EN), (_KOREAN_GOAL, STUDY_GOAL_KO)):
        for match in pattern.finditer(sentence):
            yield {"key": key, "value": match.group(1).strip(), "turn": turn}


def extract_entities(text: str, *, turn: int) -> list[dict]:
    """Find facts a learner states about themselves ("my X is Y", "내 X는 Y이다", "I'm studying for Y"),
    skipping questions and values that ask ("my exam is when")."""
    facts = []
    for sentence in split_sentences(text):
        if is_question(sentence):
            continue
        facts += [fact for fact in _facts(sentence, turn=turn) if fact["key"] and fact["value"] and not _INTERROGATIVE.match(fact["value"])]
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
