"""A conversation's history as the tutor reads it, without the database: the recent turns, the rolling
summary and the facts the learner stated ("my exam is on Friday", "내 시험은 금요일이야"). The offline
summariser and fact extractor are deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy, split_sentences

MAX_SUMMARY_SENTENCES = 20
MAX_ENTITIES = 25


@dataclass
class Memory:
    # [{"turn", "question", "answer", "refused", "searched"}], oldest first; "searched": the question made to stand alone
    recent: list[dict] = field(default_factory=list)
    summary: str = ""
    entities: list[dict] = field(default_factory=list)


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
    r"(?<![가-힣A-Za-z])(?:제|내|나의|우리)\s+([가-힣A-Za-z][가-힣A-Za-z ]{0,19}?)(?:은|는|이|가)\s+([^.?!,;]{1,40}?)"
    r"\s*(?:이에요|예요|입니다|이다|이야|야|요|에요)?\s*(?:[.?!]|$)"
)
# When something is, as a learner says it in Korean: "내일", "다음 주 월요일", "12월 3일 오후 2시".
_KOREAN_TIME = (
    r"(?:오늘|내일|모레|글피|(?:다다음|다음|이번)\s*주\s*(?:[월화수목금토일]요일|주말)?|(?:다음|이번)\s*달|주말|[월화수목금토일]요일"
    r"|\d{1,2}\s*월\s*\d{1,2}\s*일|\d{1,2}\s*일\s*(?:뒤|후))(?:\s*(?:오전|오후|아침|저녁|밤))?(?:\s*\d{1,2}\s*시(?:\s*반)?)?"
)
_KOREAN_IS = r"(?:이야|야|이에요|예요|입니다|이다|이래|래|있어|있어요|있습니다|있음|임)"
# "내일 시험이야", "다음 주에 발표 있어": the time first, then the event and a copula (without one, "내일 비가 와" would be a fact).
_KOREAN_EVENT_TIME_FIRST = re.compile(
    rf"^\s*(?P<value>{_KOREAN_TIME})(?:에|은|는)?\s+(?P<key>[가-힣A-Za-z]{{1,10}}?(?:\s[가-힣A-Za-z]{{1,10}}?)?)(?:이|가)?\s*{_KOREAN_IS}\s*[.!~]*\s*$"
)
# "시험이 다음 주 월요일이야", "발표는 금요일": the event, then when it is.
_KOREAN_EVENT_NAME_FIRST = re.compile(
    rf"^\s*(?:(?:제|내|나의|우리)\s+)?(?P<key>[가-힣A-Za-z]{{1,10}}?(?:\s[가-힣A-Za-z]{{1,10}}?)?)(?:은|는|이|가)\s+(?P<value>{_KOREAN_TIME})(?:에)?\s*{_KOREAN_IS}?\s*[.!~]*\s*$"
)
# "The exam is tomorrow", "the quiz's on Monday": an event without "my" ("my exam is …" is _ENGLISH_FACT's).
_ENGLISH_DUE = re.compile(
    r"^\s*(?!my\b)(?:the |our )?(?P<key>[a-z][a-z \-]{1,30}?)(?:'s| is| will be)\s+(?P<value>(?:on |this |next )?"
    r"(?:tomorrow|today|tonight|monday|tuesday|wednesday|thursday|friday|saturday|sunday|week|weekend|month"
    r"|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{1,2}(?:st|nd|rd|th)?|in \d+ (?:days?|weeks?))\b[^.?!,;]{0,30}?)\s*[.!]*\s*$",
    re.IGNORECASE,
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
INTERROGATIVE = re.compile(
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
        or bool(is_hangul_heavy(text) and INTERROGATIVE.search(text))
    )


def _facts(sentence: str, *, turn: int) -> Iterator[dict]:
    for pattern in (_ENGLISH_FACT, _ENGLISH_EVENT, _KOREAN_FACT):
        for match in pattern.finditer(sentence):
            yield {"key": match.group(1).strip().lower(), "value": match.group(2).strip(), "turn": turn}
    for pattern in (_ENGLISH_DUE, _KOREAN_EVENT_TIME_FIRST, _KOREAN_EVENT_NAME_FIRST):
        match = pattern.match(sentence)
        if match and not _KOREAN_FACT.search(sentence):  # "내 시험은 금요일이야" is _KOREAN_FACT's, once
            yield {"key": match.group("key").strip().lower(), "value": " ".join(match.group("value").split()), "turn": turn}
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
        facts += [fact for fact in _facts(sentence, turn=turn) if fact["key"] and fact["value"] and not INTERROGATIVE.match(fact["value"])]
    return facts


def merge_entities(entities: list[dict], new: list[dict]) -> list[dict]:
    """Update by key (the old entry is removed, the new one appended); keep the newest 25."""
    result = list(entities)
    for fact in new:
        result = [entity for entity in result if entity["key"] != fact["key"]]
        result.append(fact)
    return result[-MAX_ENTITIES:]


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
