"""The tutor's answer pipeline: memory → query resolution → scoped retrieval → sufficiency →
generation (extractive offline, or an LLM) → ground check → save the turn.

Whatever generates the text, ``baeum.answering.groundcheck`` decides whether it stands: every ``[n]`` must be a
passage retrieved for this turn, and every claim must be supported by what it cites. A question the
materials do not cover is refused on every turn, never answered from general knowledge.
"""

from __future__ import annotations

import re
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from baeum.answering import groundcheck, prompts
from baeum.answering.answers import CITATION, REFUSAL_EN, REFUSAL_KO, Answer, Passage, refusal_text, weak_results_text
from baeum.answering.budgets import BUDGETS, fit_passages, fit_text
from baeum.answering.crosslingual import NOTE_PREFIX, crosses_languages
from baeum.answering.evidence import Evidence, judge_evidence, names_missing, unknown_topics
from baeum.answering.extractive import extractive_answer
from baeum.answering.forms import compared_terms, without_place
from baeum.answering.groundcheck import claims_problem, complete_claims_end, in_reading_order
from baeum.answering.history import STUDY_GOAL_EN, Memory, extract_entities, is_question
from baeum.answering.llm import LLMError
from baeum.answering.sentences import is_readable_sentence, numbered_headings
from baeum.extraction.tables import superscript_references
from baeum.language.analysis import content_terms
from baeum.language.questions import analyse_question, named_sources
from baeum.language.text import estimate_tokens, is_hangul_heavy, korean_particle, normalize_query, sentence_spans
from core.providers import configured_llm, embedder_for_model
from knowledge.selectors import (
    TOP_K,
    ChunkRange,
    Scope,
    chunk_range,
    materials_in_scope,
    names_in_other_language,
    retrieve,
    term_document_frequencies,
)

from ..models import Conversation, Message
from .conversations import conversation_sources
from .memory import memory_load, memory_record_turn

_ANAPHORA_EN = re.compile(r"\b(it|its|they|them|their|this|that|these|those|he|she|his|her)\b", re.IGNORECASE)
_ANAPHORA_KO = re.compile(
    r"(?:^|\s)(?:그|이|저)\s+\S+|그것|이것|저것|그거|이거|거기|그들|그곳|해당"
    r"|(?:^|\s)(?:그|이|저)(?:걸|게|건|런|럴|렇|러한)|둘\s*(?:중|다)"  # "그걸", "그런 쉬프트", "그럴 때", "둘 중 어느 쪽"
)
# A follow-up that names no earlier thing but only makes sense after it: "What about SI and DI?", "And
# 32-bit protected mode?", "How is the Pascal convention different?", "그럼 …", "세그먼트 레지스터는요?",
# "32비트 보호 모드는?", "파스칼 호출 규약은 어떻게 달라?". (A comparison that names both sides, "How is TEST
# different from AND?", stands alone.)
_CONTINUES_EN = re.compile(
    r"^(?:and|then|so|also)\b|^(?:what|how)\s+about\b|^why\s+not\b|\binstead\b|\bthe\s+equivalent\b|\bsuch\s+an?\b"
    r"|\b(?:different|differently|differ)\s*\??$",
    re.IGNORECASE,
)
_CONTINUES_KO = re.compile(
    r"^(?:그럼|그러면|그래서|그런데|반대로|그리고)\s|^[^?]*(?:은|는)요\?"
    r"|어떻게\s*달라|(?:랑|와|과)\s*비교하면|앞의|위의"
)
_COMPARISON = re.compile(r"\b(?:compare|difference between|versus|vs\.?)\b|차이|비교|다른\s*점", re.IGNORECASE)
_MY_QUESTION = re.compile(r"\bmy\b|(?:^|\s)(?:내|제|나의)\s", re.IGNORECASE)

# --- Tuning (each measured or chosen where its comment says) --------------------------------
# How many passages an answer reads is ``knowledge.selectors.TOP_K`` (5; a session's conversation: 3).
LLM_RERANK_CANDIDATES = 20  # with an LLM: a first stage this wide, narrowed to k by the LLM reranker (one call)
FOLLOW_UP_TERMS = 4  # terms carried over from the previous turn: enough to name its topic, few enough not to drown the new ask
ANCHORED_PASSAGES = 2  # a follow-up also reads the best passages of its own words (``anchored_query``)
ANCHOR_TERMS = 2  # the previous question's first terms that anchor a follow-up's own words
PREVIOUS_PASSAGES = 2  # a follow-up may also read what the previous answer cited ("Give me a famous example of one")
# A follow-up naming this many words the materials never use is about something else, whatever it carries
# over (evaluation/conversations.jsonl: 8 of 16 out-of-scope turns, 1 of 162 follow-ups; one such word
# is too often the learner's own paraphrase: "보존", "two-dimensional", "under the hood").
FOLLOW_UP_UNKNOWN_WORDS = 2
AGENTIC_MAX_CALLS = 3  # the agentic loop's bound: search, one refinement or split, one neighbour expansion
AGENTIC_PART_K = 3  # passages for each part of a split comparison (two parts: about one answer's worth)
NEIGHBOUR_RADIUS = 1  # the agentic "get_section" step reads the best hit's chunks either side
NEIGHBOUR_SCORE = 0.9  # a neighbour ranks just under the hit it was read for
PROMPT_QUESTION_CHARS = 400  # the question as the model reads it: a pasted page is cut, a question never is
# Confidence shown with an answer: coverage of the question's terms counts most, the vector match the rest
# (chosen by hand, not measured); a refusal's confidence stays under REFUSED_CONFIDENCE.
CONFIDENCE_COVERAGE_WEIGHT = 0.6
REFUSED_CONFIDENCE = 0.3


def chat_settings() -> dict:
    return settings.BAEUM["CHAT"]


# --- Query transformation ------------------------------------------------------------------


# "the second one", "그 중 두 번째": which item of the previous answer a follow-up is about.
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
_ORDINAL_EN = re.compile(r"\b(first|second|third|fourth|fifth|last)\b(?:\s+(?:one|point|difference|item|step|reason|part))?", re.IGNORECASE)
_ORDINALS_KO = {"첫": 1, "두": 2, "세": 3, "네": 4, "다섯": 5}
_ORDINAL_KO = re.compile(r"(첫|두|세|네|다섯)\s*번째|마지막")
_ONE_EN = re.compile(r"\b(?:one|ones|example|examples|more)\b", re.IGNORECASE)  # "Give me an example of one", "Tell me more"


def _answered_turns(memory: Memory) -> list[dict]:
    """The recent turns that asked about the materials and were answered, oldest first."""
    return [entry for entry in memory.recent if not entry.get("refused") and entry["question"] and conversation_kind(entry["question"]) is None]


def _previous_turn(memory: Memory) -> dict | None:
    answered = _answered_turns(memory)
    return answered[-1] if answered else None


def _without_anaphora(text: str) -> str:
    return _ANAPHORA_EN.sub(" ", _ANAPHORA_KO.sub(" ", text))


def _without_ordinal(text: str) -> str:
    return _ORDINAL_KO.sub(" ", _ORDINAL_EN.sub(" ", text))


def ordinal_of(question: str) -> int | None:
    """1-based position a follow-up refers to ("the second one" → 2, "마지막" → -1), or None."""
    match = _ORDINAL_KO.search(question)
    if match:
        return -1 if match.group(0) == "마지막" else _ORDINALS_KO[match.group(1)]
    match = _ORDINAL_EN.search(question)
    return _ORDINALS_EN[match.group(1).casefold()] if match else None


# A bare topic ending in 은/는: "32비트 보호 모드는?", "stdcall 은?". Not when it names what it asks about
# ("스택 프레임의 구조는?") or both sides of a comparison ("리틀 엔디안과 빅 엔디안의 차이는?").
_BARE_TOPIC_KO = re.compile(r"^\S+(?:\s\S+){0,2}?\s?(?:은|는)\?+$")
_ASKS_ITS_OWN_KO = re.compile(r"\S(?:과|와|랑|하고|의)\s")


def _continues(question: str) -> bool:
    """Whether ``question`` continues the turn before without naming it (see ``_CONTINUES_EN``)."""
    question = question.strip()
    bare_topic = _BARE_TOPIC_KO.search(question) and not _ASKS_ITS_OWN_KO.search(question)
    return bool(_CONTINUES_EN.search(question) or _CONTINUES_KO.search(question) or bare_topic)


def answer_items(answer: str) -> list[str]:
    """The lines of a previous answer, without citation marks and notes: what "the second one" counts."""
    lines = [CITATION.sub("", line).strip(" -•") for line in answer.split("\n")]
    return [line for line in lines if line and not line.startswith(NOTE_PREFIX)]


# A list written out after a colon: "Three kinds of errors can occur in a program: syntax errors, runtime
# errors, and semantic errors." Each item a short name, not a clause.
_LIST_SEPARATOR = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+|\s*(?:,\s*)?(?:그리고|또는)\s+")
LISTED_ITEM_MAX_WORDS = 4
LISTED_ITEMS_MIN = 3  # "Integers come in two flavors: unsigned and signed." is an aside, not what "the first one" counts


def listed_items(line: str) -> list[str]:
    """The items a line lists after its colon ("…: syntax errors, runtime errors, and semantic errors"), else []."""
    if ":" not in line:
        return []
    listed = line.rsplit(":", 1)[1].strip().rstrip(".!;")
    items = [item.strip() for item in _LIST_SEPARATOR.split(listed) if item.strip()]
    if len(items) < LISTED_ITEMS_MIN or any(len(item.split()) > LISTED_ITEM_MAX_WORDS for item in items):
        return []
    return items


def enumerated_items(memory: Memory, question: str = "") -> tuple[list[str], bool]:
    """What "the second one" counts: the items of a list the last enumerating answer wrote out, else the two
    sides its question compared ("What's the difference between external and internal ones?" → "Give me an
    example of the first kind."), else that answer's lines. An ordinal follow-up counts in the list its own
    previous ordinal counted in ("How does the first one work?" → "And the second one?"), so the answer it
    counts in is the last one that was not itself about an item."""
    source = _enumerating_turn(memory)
    if source is None:
        return [], False
    items = answer_items(source.get("answer", ""))
    listed = next((found for found in map(listed_items, items) if found), [])
    if listed:
        return listed, True
    sides = compared_terms(source["question"]) if not _DIFFERENCES.search(source["question"]) else ()
    if sides and _counts_alternatives(question) and ordinal_of(question) in (1, 2, -1):
        # "the second difference" and "the second one" of "the two major differences between A and B" count
        # differences, not the sides.
        # A side named by a pronoun ("internal ones") is of the topic that question carried ("interrupt").
        own = set(_terms(source["question"]))
        carried = [term for term in _terms(source.get("searched") or "") if term not in own][:ANCHOR_TERMS]
        return [" ".join([_ONES.sub("", side).strip(), *carried]) for side in sides], True
    return items, False


_ONES = re.compile(r"\s+ones?$", re.IGNORECASE)
_DIFFERENCES = re.compile(r"\bdifferences\b|차이점들", re.IGNORECASE)


def _enumerating_turn(memory: Memory) -> dict | None:
    """The turn an ordinal follow-up counts in (see ``enumerated_items``)."""
    answered = _answered_turns(memory)
    return next((entry for entry in reversed(answered) if ordinal_of(entry["question"]) is None), answered[-1] if answered else None)


# The book's own enumeration: "The second method is known as one's complement", "Modern computers use a third
# method called two's complement", "두 번째 방법은 1의 보수 표현법이다". An ordinal word counts only before a
# noun that enumerates alternatives ("The first part is the sign bit and the second is the magnitude" and "The
# first step in debugging" list no alternatives). A follow-up naming a narrower noun ("the second step", "두
# 번째 차이점") counts only that noun; one naming something else ("the first thing we discussed") is not looked up.
_ORDINAL_WORDS_EN = {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth"}
_ORDINAL_WORDS_KO = {1: "첫", 2: "두", 3: "세", 4: "네", 5: "다섯"}
_ALTERNATIVES_EN = r"(?:methods?|ways?|kinds?|types?|approach(?:es)?|techniques?|forms?)"
_ALTERNATIVES_KO = r"(?:방법|방식|종류|유형|형태|기법)"
_NARROWER_EN = r"(?:steps?|reasons?|differences?|stages?|phases?|options?|categor(?:y|ies)|classes?)"
_NARROWER_KO = r"(?:단계|이유|차이점|차이|경우|특징|과정)"
_ASKED_NOUN_EN = re.compile(r"\b(?:first|second|third|fourth|fifth)\s+(\w+)", re.IGNORECASE)
_ASKED_NOUN_KO = re.compile(r"(?:첫|두|세|네|다섯)\s*번째\s*([가-힣]+)")
ORDINAL_WINDOW = 6  # chunks either side of the enumerating answer's citation where the book may name the n-th item
_SECTION_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*)")
_PARTICLES = "은는이가을를에으로의"  # what ends a Korean noun that is not part of it ("방법으로", "표현법의")


def _asked_noun(question: str) -> str:
    """What an ordinal follow-up counts: "kind" in "the second kind", "" in "And the second?"."""
    asked = _ASKED_NOUN_KO.search(question) or _ASKED_NOUN_EN.search(question)
    return asked.group(1).casefold() if asked else ""


def _counts_alternatives(question: str) -> bool:
    """Whether an ordinal follow-up counts alternatives ("the second one", "the first kind", "두 번째 방법"),
    not something narrower ("the second step", "두 번째 차이점") or unrelated ("the first thing we discussed")."""
    noun = _asked_noun(question)
    return not noun or noun in ("one", "ones", "것", "거") or bool(re.fullmatch(f"{_ALTERNATIVES_EN}|{_ALTERNATIVES_KO}[{_PARTICLES}]*", noun))


def _ordinal_in_text(question: str, ordinal: int) -> re.Pattern | None:
    """The sentences that name the ``ordinal``-th of what ``question`` counts, or None when it counts no
    alternatives the materials could name that way."""
    if ordinal not in _ORDINAL_WORDS_EN:
        return None
    noun = _asked_noun(question)
    if _counts_alternatives(question):
        english, korean = _ALTERNATIVES_EN, _ALTERNATIVES_KO
    elif re.fullmatch(f"{_NARROWER_EN}|{_NARROWER_KO}[{_PARTICLES}]*", noun):
        english = korean = re.escape(noun.rstrip(_PARTICLES).rstrip("s"))
    else:
        return None
    return re.compile(
        rf"\b{_ORDINAL_WORDS_EN[ordinal]}\s+(?:\w+\s+)?{english}|{_ORDINAL_WORDS_KO[ordinal]}\s*번째\s*{korean}", re.IGNORECASE
    )


def _same_part(section: str, other: str) -> bool:
    """Whether two chunks' sections are in the same part of the book ("3.6.1 Method one", "3.6.2 Method two"
    are; "4.3 The Stack" is not): the same numbered parent section, when both are numbered."""
    mine, theirs = _SECTION_NUMBER.match(section), _SECTION_NUMBER.match(other)
    if not (mine and theirs):
        return True
    return _parent_section(mine.group(1)) == _parent_section(theirs.group(1))


def _parent_section(number: str) -> list[str]:
    """"3.6.2" → ["3", "6"]; a chapter's number is its own part."""
    parts = number.split(".")
    return parts[:-1] or parts


def named_item(conversation: Conversation, question: str, memory: Memory) -> tuple[Passage, str, tuple[str, str]] | None:
    """Where the materials themselves name the item an ordinal follow-up points at ("What's wrong with the
    second one?" → "The second method is known as one's complement representation."): the first such sentence
    in the pages the enumerating answer cited or just after them, with its passage, and how the answer shows
    the sentence that names it (``_named_line``); else None."""
    ordinal = ordinal_of(question)
    pattern = _ordinal_in_text(question, ordinal) if ordinal else None
    source = _enumerating_turn(memory)
    if pattern is None or source is None:
        return None
    reply = (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation, role=Message.Role.ASSISTANT, turn=source.get("turn"), refused=False)
        .first()
    )
    near = [(citation["refId"], citation["chunkIndex"]) for citation in (reply.citations if reply else [])]
    topic = set(_terms(source["question"]))
    found = _nth_in_text(conversation, near, topic, pattern)
    if found is not None:  # "1 의 보수 표현법두 번째 방법은 …" is shown from its ordinal on
        passage, sentence = found
        return passage, sentence, (sentence, _from_the_ordinal(sentence, pattern.search(sentence)))
    subsection = _nth(subsections(conversation, near, topic), ordinal)
    if not subsection:
        return None
    title, chunk, opening = subsection
    # Named by its heading and first sentence ("Method two. A lookup table can also be used …"): a heading alone
    # may name little; the answer shows that sentence under its heading ("Arithmetic shifts: These shifts are …").
    return _passage(chunk, n=0, score=1.0), f"{title}. {opening}", (opening.strip(), f"{title}: {opening.strip()}")


def _nth_in_text(conversation: Conversation, near: list[tuple[str, int]], topic: set[str], pattern: re.Pattern) -> tuple[Passage, str] | None:
    """The first sentence matching ``pattern`` in the chunks near the first of ``near`` (refId, chunkIndex)
    pairs, nearest first, on ``topic`` and in the same part of the book; with its passage."""
    from baeum.errors import NotFound

    for ref_id, cited in near[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(user=conversation.owner, ref_id=ref_id, start=cited - ORDINAL_WINDOW, end=cited + ORDINAL_WINDOW)
        except NotFound:
            continue
        # The nearest mention on the enumerating answer's topic: "the first method" of the next section is another list.
        section = next((chunk.section_title for chunk in chunks if chunk.chunk_index == cited), "")
        for chunk in sorted(chunks, key=lambda chunk: abs(chunk.chunk_index - cited)):
            if not (topic & set(content_terms(chunk.content)) and _same_part(section, chunk.section_title)):
                continue
            for start, end in sentence_spans(chunk.content):
                sentence = chunk.content[start:end]
                if pattern.search(sentence):
                    return _passage(chunk, n=0, score=1.0), sentence
    return None


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten".split())


def heading_head(title: str) -> str:
    """The noun a section heading is about: "Arithmetic shifts" → shift, "Use of shifts" → use, "Method two"
    → method, "산술 쉬프트" → 쉬프트, "쉬프트의 이용" → 이용."""
    title = re.split(r"\s+of\s+", title, maxsplit=1, flags=re.IGNORECASE)[0]
    terms = [term for term in content_terms(title) if any(char.isalpha() for char in term) and term not in _NUMBER_WORDS]
    return terms[-1] if terms else ""


def _section_key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def subsections(conversation: Conversation, near: list[tuple[str, int]], topic: set[str]) -> list[tuple[str, object, str]]:
    """The numbered subsections about ``topic`` where the first of ``near`` (refId, chunkIndex) pairs stands,
    in order, each as (title, the chunk it starts in, its first sentence): after "What kinds of shift
    operations …", 3.1.1 Logical shifts, 3.1.3 Arithmetic shifts and 3.1.4 Rotate shifts ("3.1.2 Use of
    shifts" is no kind of shift); after "What methods …", 3.6.1 Method one … 3.6.3 Method three. They are the
    children, else the siblings, of the deepest section the citation stands in; at least two, else []."""
    from baeum.errors import NotFound

    for ref_id, cited in near[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(user=conversation.owner, ref_id=ref_id, start=cited - ORDINAL_WINDOW, end=cited + ORDINAL_WINDOW)
        except NotFound:
            continue
        headings: dict[tuple[int, ...], tuple[str, object, str]] = {}
        standing: list[tuple[int, ...]] = []  # the sections the cited chunk stands in: the last one before it, those in it
        for chunk in chunks:
            for match in numbered_headings(chunk.content):
                number = _section_key(match.group("number"))
                headings.setdefault(number, (match.group("title").strip(), chunk, _first_sentence(chunk.content[match.end() :])))
                if chunk.chunk_index < cited:
                    standing[:] = [number]
                elif chunk.chunk_index == cited:
                    standing.append(number)
        for number in sorted(standing, key=len, reverse=True):
            for parent in (number, number[:-1]):  # its subsections, else its siblings
                items = [
                    headings[key]
                    for key in sorted(headings)
                    if len(key) == len(parent) + 1 and key[:-1] == parent and heading_head(headings[key][0]) in topic
                ]
                if len(items) >= 2:
                    return items
    return []


def _first_sentence(text: str) -> str:
    return next((text[start:end] for start, end in sentence_spans(text)), "")


# "What are the ways to represent signed integers?", "부호 있는 정수를 표현하는 방법에는 어떤 것들이 있어?": the
# answer names each way where the materials number them ("The first method …", "두 번째 방법은 …").
_ENUMERATION_QUESTION = re.compile(
    r"\b(?:what|which)\b.*\b(?:ways|kinds|types|methods|techniques|approaches|forms)\b"
    r"|(?:방법|방식|종류|유형|기법)\S*\s+(?:어떤|무엇|뭐)|어떤\s*(?:것들|방법들|종류)",
    re.IGNORECASE,
)
ENUMERATED_ITEMS_MAX = 5
_LEADING_ARTICLE = re.compile(r"(?:\b(?:The|the|A|a|An|an)\s+)$")


def _from_the_ordinal(sentence: str, match: re.Match) -> str:
    """``sentence`` from its ordinal on when what precedes it is a run-in heading ("One's complement The second
    method is …", "1 의 보수 표현법두 번째 방법은 …"): a few words with no verb and no particle at their end."""
    start = match.start()
    article = _LEADING_ARTICLE.search(sentence[:start])
    start = article.start() if article else start
    prefix = sentence[:start].strip()
    words = prefix.split()
    if not prefix or len(words) > 4 or re.search(r"[.!?:]|\b(?:is|are|was|were|use|uses|has|have)\b", prefix) or words[-1][-1] in _PARTICLES:
        return sentence
    return sentence[start:].strip()


def enumeration_lines(conversation: Conversation, question: str, answer: Answer) -> list[tuple[Passage, str]]:
    """For "what are the ways …", the sentences that name each way in order, found near the answer's first
    citation ("The first method is the simplest and is called signed magnitude.", "The second method is known
    as one's complement representation.", "Modern computers use a third method called two's complement
    representation."); [] unless at least the first two are found."""
    if answer.refused or not answer.citations or not _ENUMERATION_QUESTION.search(question):
        return []
    near = [(citation.refId, citation.chunkIndex) for citation in answer.citations]
    topic = set(_terms(question)) - set(_terms("ways kinds types methods techniques approaches forms 방법 방식 종류 유형 기법"))
    found: list[tuple[Passage, str]] = []
    for ordinal in range(1, ENUMERATED_ITEMS_MAX + 1):
        pattern = _ordinal_in_text("", ordinal)
        hit = _nth_in_text(conversation, near, topic, pattern) if pattern and topic else None
        if hit is None:
            break
        passage, sentence = hit
        found.append((passage, _from_the_ordinal(sentence, pattern.search(sentence))))
    if len(found) >= 2:
        return found
    # The book's subsections, each with its first sentence: "Arithmetic shifts: These shifts are designed to …".
    found = [
        (_passage(chunk, n=0, score=1.0), f"{title}: {opening.strip()}")
        for title, chunk, opening in subsections(conversation, near, set(_terms(question)))
        if is_readable_sentence(opening)
    ]
    return found[:ENUMERATED_ITEMS_MAX] if len(found) >= 2 else []


def _terms(text: str) -> list[str]:
    """The terms a follow-up carries over: words, not numbers ("110.0112", "0.25" name no topic)."""
    return [term for term in dict.fromkeys(content_terms(text)) if len(term) > 1 and any(char.isalpha() for char in term)]


# The name an item's sentence gives it: "… a third method called two's complement representation.", "The
# second method is known as one's complement …", "… 부호 있는 크기 (signed magnitude) 표현법이라 부른다."
_ITEM_NAME = re.compile(
    r"\b(?:called|known\s+as|named|termed)\s+(?P<en>[^.,;:()]+)"
    r"|(?P<ko>[^\s,.]+(?:\s+[^\s,.]+){0,3}?)\s*(?:\([^)]*\)\s*)?(?:이?라고?\s*(?:부른다|한다|불린다)|표현법이다)",
    re.IGNORECASE,
)


def _item_name(item: str) -> str:
    """The name an item's sentence gives it ("two's complement representation"), or ""."""
    named = _ITEM_NAME.search(item)
    return (named.group("en") or named.group("ko") or "") if named else ""


def _item_terms(item: str) -> list[str]:
    """An item's terms, the name its sentence gives it first ("two complement representation" before "modern
    computer use third method"): what a follow-up about "it" is about."""
    first = _terms(_item_name(item))
    return [*first, *(term for term in _terms(item) if term not in first)]


def item_name_terms(item: str) -> tuple[str, ...]:
    """The first two terms of the name an item is given ("semantic errors", "… called two's complement
    representation" → two, complement), or () when its sentence gives it no name."""
    name = _item_name(item) or (item if len(item.split()) <= LISTED_ITEM_MAX_WORDS else "")
    return tuple(_terms(name)[:2])


def _nth(items: list, ordinal: int | None):
    """The item at 1-based ``ordinal`` (-1: the last), or "" when there is none."""
    if ordinal is None or not items or ordinal > len(items):
        return ""
    return items[ordinal - 1] if ordinal > 0 else items[-1]


def _topic_question(entry: dict) -> str:
    """What a turn was about: its question, or, when it asked about an item by its place ("And the third
    kind?"), the question as it was searched, with the item named."""
    question, searched = entry["question"], entry.get("searched") or ""
    return searched if searched and ordinal_of(question) is not None else question


# A question that goes back to an earlier topic by name: "Going back to tuples, …", "Back to the stack: …",
# "다시 스택 얘기로 돌아가서, …".
_RETURNS_TO = re.compile(
    r"^\s*(?:(?:so|ok|okay),?\s+)?(?:going|coming|getting|turning)?\s*back\s+to\b|^\s*다시\s+(?=\S+\s*(?:얘기|이야기)로\s*돌아가)",
    re.IGNORECASE,
)


def resolve_references(question: str, memory: Memory, *, item: str = "") -> str:
    """Make a follow-up stand alone from the previous turn's question and answer.

    "Tell me more about the second one." → the second line of the previous answer; "Give me an example of
    one" / "그거 예시" → the previous question's topic and the first line of its answer; "그 회사 매출은?"
    after talking about A사 → "A사 매출은?".
    """
    returning = _RETURNS_TO.search(question)
    if returning:  # "Going back to tuples, can I change one?": it names its topic; the turn before is another
        return normalize_query(question[: returning.start()] + question[returning.end() :])
    previous = _previous_turn(memory)
    topic = next((entity["value"] for entity in reversed(memory.entities) if entity["key"] == "topic"), "")
    ordinal = ordinal_of(question)
    refers = bool(
        _ANAPHORA_EN.search(question) or _ANAPHORA_KO.search(question) or _ONE_EN.search(question) or _continues(question)
    ) or ordinal is not None
    if not refers or (previous is None and not topic):
        return normalize_query(question)
    stripped = _without_anaphora(question)
    if previous is None:
        return normalize_query(f"{topic} {stripped}")
    items = answer_items(previous.get("answer", ""))
    item = item or (_nth(enumerated_items(memory, question)[0], ordinal) if ordinal is not None else "")
    if ordinal is not None and item:
        stripped = _without_ordinal(stripped)  # resolved: "second" would find "The second operand"
        return normalize_query(f"{' '.join(_item_terms(item)[: 2 * FOLLOW_UP_TERMS])} {stripped}")
    carried = _terms(_topic_question(previous))[:FOLLOW_UP_TERMS]
    if items:
        carried += [term for term in _terms(items[0]) if term not in carried][:FOLLOW_UP_TERMS]
    return normalize_query(f"{' '.join(carried) or topic} {stripped}")


# --- Conversation: greetings, thanks and statements about the learner ---------------------
#
# These are not questions about the materials: they get a short reply that claims nothing about the
# materials (so there is nothing to cite or refuse), and a statement's facts go to memory with the turn.

CONVERSATION = "conversation"  # the generator of these replies
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?: there| tutor| baeum)?$|^(?:안녕|안녕하세요|안녕하십니까|반가워|반가워요|반갑습니다)$"
)
_THANKS = re.compile(
    r"^(?:thanks|thank you|thanks a lot|thank you (?:so|very) much|many thanks|thx|ty)(?: tutor| baeum)?$"
    r"|^(?:고마워|고마워요|고맙습니다|감사합니다|감사해요|땡큐)$"
)
# Punctuation, emoticons and symbols around a greeting ("Hi!", "고마워요~ ^^").
_NOT_A_WORD = re.compile(r"[^\w\s']+|_")

_GREETING_REPLY_EN = (
    "Hello! I'm your study tutor. Ask me about your materials and I'll answer only from them, citing the page. "
    "You can also tell me things like your exam date, and I'll remember them."
)
_GREETING_REPLY_KO = (
    "안녕하세요! 저는 올려 주신 학습 자료로만 답하는 튜터예요. 자료에 대해 물어보시면 근거가 된 쪽수를 밝혀 답해 드려요. "
    "시험 날짜처럼 알려 주신 내용은 기억해 둘게요."
)
_THANKS_REPLY_EN = "You're welcome! Ask me anything else about your materials; I answer only from them, citing the page."
_THANKS_REPLY_KO = "천만에요! 자료에 대해 더 궁금한 것이 있으면 물어보세요. 자료에 있는 내용으로만, 쪽수를 밝혀 답해 드려요."
_NOTED_EN = "Got it, I'll remember that {facts}. Ask me about your materials whenever you're ready."
_NOTED_KO = "알겠어요. {facts} — 기억해 둘게요. 자료에 대해 궁금한 것을 물어보세요."


def _small_talk_words(text: str) -> str:
    return " ".join(_NOT_A_WORD.sub(" ", text).casefold().split())


def conversation_kind(text: str) -> str | None:
    """Return "greeting", "thanks" or "statement" for a message that asks nothing of the materials, else None.

    A greeting or thanks is the whole message ("Hi!", "감사합니다"); a statement tells a fact about the
    learner ("My exam is on Friday.", "내 시험은 금요일이야") and asks nothing. "What is my exam date?" asks.
    """
    words = _small_talk_words(text)
    if _GREETING.match(words):
        return "greeting"
    if _THANKS.match(words):
        return "thanks"
    if not is_question(text) and extract_entities(text, turn=0):
        return "statement"
    return None


def _restated(fact: dict, *, korean: bool) -> str:
    if korean:
        return f"{fact['key']}: {fact['value']}"
    if fact["key"] == STUDY_GOAL_EN:
        return f"you're studying for {fact['value']}"
    return f"your {fact['key']} is {fact['value']}"


def _conversation_answer(question: str) -> Answer | None:
    """Reply briefly to a greeting, thanks or statement, in the learner's language; None for a question."""
    kind = conversation_kind(question)
    if kind is None:
        return None
    korean = is_hangul_heavy(question)
    if kind == "greeting":
        text = _GREETING_REPLY_KO if korean else _GREETING_REPLY_EN
    elif kind == "thanks":
        text = _THANKS_REPLY_KO if korean else _THANKS_REPLY_EN
    else:
        facts = [_restated(fact, korean=korean) for fact in extract_entities(question, turn=0)]
        text = _NOTED_KO.format(facts=", ".join(facts)) if korean else _NOTED_EN.format(facts=" and ".join(facts))
    return Answer(text=text, confidence=1.0, generator=CONVERSATION)


# --- Retrieval -----------------------------------------------------------------------------


@dataclass
class Retrieval:
    query: str
    passages: list[Passage]
    steps: list[dict] = field(default_factory=list)
    tool_calls: int = 0


def _passage(chunk, *, n: int, score: float, vector_score: float | None = None, lexical_score: float | None = None) -> Passage:
    model = chunk.material.embedding_model
    embedder = embedder_for_model(model) if model else None
    return Passage(
        n=n,
        chunk_id=chunk.pk,
        ref_id=chunk.material.ref_id,
        title=chunk.material.title,
        chunk_index=chunk.chunk_index,
        page_number=chunk.page_number,
        text=chunk.content,
        score=score,
        vector_score=vector_score,
        lexical_score=lexical_score,
        vector_threshold=embedder.answer_similarity if embedder else None,
        crosslingual_threshold=embedder.crosslingual_similarity if embedder else None,
        page_starts=tuple(tuple(start) for start in chunk.page_starts),
        note_spans=tuple(tuple(span) for span in chunk.note_spans),
        matter=chunk.matter,
        model=model,
        korean=chunk.material.korean,
    )


def _passages(hits, start: int = 1) -> list[Passage]:
    return [
        _passage(hit.chunk, n=start + index, score=hit.score, vector_score=hit.vector_score, lexical_score=hit.lexical_score)
        for index, hit in enumerate(hits)
    ]


def _renumber(passages: list[Passage]) -> list[Passage]:
    seen: dict[int, Passage] = {}
    for passage in passages:
        seen.setdefault(passage.chunk_id, passage)
    return [Passage(**{**passage.__dict__, "n": number}) for number, passage in enumerate(seen.values(), start=1)]


def conversation_scope(conversation: Conversation, sources: list[str]) -> Scope:
    """Where this answer searches: ``sources`` (the conversation's materials in the library now, read
    once per answer), and in a study session's conversation only the session's chunk ranges."""
    ranges = [ChunkRange.from_dict(item) for item in conversation.scope_ranges]
    return (Scope.within(ranges) if ranges else Scope.materials(sources)).narrowed_to(sources)


def _search(conversation: Conversation, query: str, *, k: int, scope: Scope) -> list[Passage]:
    """The best ``k`` passages for ``query`` within ``scope`` (hybrid retrieval; with an LLM, reranked by it)."""
    if scope.ranges:  # a session's conversation reads at most its own (smaller) top-K
        return _passages(retrieve(user=conversation.owner, scope=scope, query=query, k=min(k, conversation.top_k)))
    llm = configured_llm()
    if llm is not None:
        hits = retrieve(user=conversation.owner, scope=scope, query=query, k=k, candidates=LLM_RERANK_CANDIDATES, reranker="llm", llm=llm)
    else:
        hits = retrieve(user=conversation.owner, scope=scope, query=query, k=k)
    return _passages(hits)


def _judge(question: str, passages: list[Passage], known=None) -> Evidence:
    config = chat_settings()
    return judge_evidence(
        question,
        passages,
        min_coverage=config["MIN_COVERAGE"],
        min_vector=config["MIN_VECTOR"],
        strong_coverage=config["STRONG_COVERAGE"],
        known=known,
    )


def _vocabulary(conversation: Conversation, sources: list[str]):
    """The terms among ``terms`` that the conversation's materials contain (their lexical index)."""

    def known(terms: list[str]) -> set[str]:
        return set(term_document_frequencies(user=conversation.owner, ref_ids=sources, terms=terms)[0]) if sources else set()

    return known


def retrieve_standard(
    conversation: Conversation, query: str, *, scope: Scope, follow_up: bool = False, anchored: str = "", first: list[Passage] = ()
) -> Retrieval:
    """The best passages for ``query``, and the best of ``anchored``: for a follow-up its own words with the
    previous topic's (where the resolved query leans on the previous answer), for a "what is X" question X
    without the place it names. A follow-up also reads the previous answer's passages. ``first``: passages
    read before any found (where the materials name the item an ordinal points at)."""
    top_k = conversation.top_k or TOP_K
    passages = [*first, *_search(conversation, query, k=top_k, scope=scope)]
    extra = []
    if anchored and anchored != query:
        seen = {passage.chunk_id for passage in passages}
        extra = [passage for passage in _search(conversation, anchored, k=top_k, scope=scope) if passage.chunk_id not in seen]
        extra = extra[:ANCHORED_PASSAGES] if follow_up else extra
    if follow_up:
        passages = _renumber(passages + extra + _previous_passages(conversation))[: len(first) + top_k + ANCHORED_PASSAGES + PREVIOUS_PASSAGES]
    elif extra:
        passages = _renumber(passages + extra)
    return Retrieval(query=query, passages=passages, tool_calls=1)


def anchored_query(question: str, memory: Memory) -> str:
    """A follow-up in its own words, anchored by the previous question's first terms ("dictionary" for
    "How do I loop over one?"), without the previous answer's."""
    previous = _previous_turn(memory)
    if previous is None:
        return ""
    stripped = _without_ordinal(_without_anaphora(question))
    return normalize_query(f"{' '.join(_terms(previous['question'])[:ANCHOR_TERMS])} {stripped}")


def _previous_passages(conversation: Conversation) -> list[Passage]:
    """The passages the previous answer cited, still in the learner's library (a removed material is skipped)."""
    from baeum.errors import NotFound

    reply = (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation, role=Message.Role.ASSISTANT, refused=False)
        .exclude(citations=[])
        .order_by("-turn", "-id")
        .first()
    )
    passages: list[Passage] = []
    for citation in (reply.citations if reply else [])[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(
                user=conversation.owner, ref_id=citation["refId"], start=citation["chunkIndex"], end=citation["chunkIndex"]
            )
        except NotFound:
            continue
        passages += [_passage(chunk, n=0, score=0.0) for chunk in chunks]
    return passages


def retrieve_agentic(conversation: Conversation, query: str, *, scope: Scope) -> Retrieval:
    """A bounded loop (at most ``AGENTIC_MAX_CALLS`` tool calls, one step each) with deterministic rules:
    split a comparison into its parts, refine an unanswered query to its key terms, and expand a good
    hit to its neighbours."""
    passages, steps = _agentic_search(conversation, query, scope)
    evidence = _judge(query, passages)
    steps[-1]["judgement"] = "answer" if evidence.sufficient else "search again"
    if not evidence.sufficient and len(steps) < AGENTIC_MAX_CALLS:
        passages, evidence = _agentic_refine(conversation, query, scope, passages, steps, evidence)
    if evidence.sufficient and passages and len(steps) < AGENTIC_MAX_CALLS:
        passages = _agentic_expand(conversation, passages, steps)
    return Retrieval(query=query, passages=_renumber(passages)[: TOP_K + 2], steps=steps, tool_calls=len(steps))


def _agentic_search(conversation: Conversation, query: str, scope: Scope) -> tuple[list[Passage], list[dict]]:
    """The first search: each part of a comparison ("A와 B의 차이", "A vs B") alone, else the whole query."""
    parts = (
        [part for part in re.split(r"\s*(?:와|과|and|vs\.?|versus|및|,)\s+", query) if part.strip()] if _COMPARISON.search(query) else []
    )
    if len(parts) < 2:
        passages = _search(conversation, query, k=TOP_K, scope=scope)
        return passages, [{"tool": "search_all", "input": {"query": query}, "results": len(passages)}]
    passages, steps = [], []
    for part in parts[:2]:
        found = _search(conversation, part, k=AGENTIC_PART_K, scope=scope)
        steps.append({"tool": "search_by_metadata", "input": {"query": part, "refIds": conversation.ref_ids}, "results": len(found)})
        passages += found
    return passages, steps


def _agentic_refine(
    conversation: Conversation, query: str, scope: Scope, passages: list[Passage], steps: list[dict], evidence: Evidence
) -> tuple[list[Passage], Evidence]:
    """Search again for the query's key terms alone when the first search did not answer it."""
    refined = " ".join(dict.fromkeys(term for term in content_terms(query) if len(term) > 1))
    if not refined or refined == query:
        return passages, evidence
    passages = _search(conversation, refined, k=TOP_K, scope=scope) + passages
    evidence = _judge(query, passages)
    steps.append(
        {
            "tool": "search_all",
            "input": {"query": refined},
            "results": len(passages),
            "judgement": "answer" if evidence.sufficient else "give up",
        }
    )
    return passages, evidence


def _agentic_expand(conversation: Conversation, passages: list[Passage], steps: list[dict]) -> list[Passage]:
    """Read the best hit's neighbouring chunks (range retrieval) and put them right after it."""
    best = passages[0]
    neighbours = chunk_range(
        user=conversation.owner,
        ref_id=best.ref_id,
        start=max(0, best.chunk_index - NEIGHBOUR_RADIUS),
        end=best.chunk_index + NEIGHBOUR_RADIUS,
    )
    expanded = [
        _passage(chunk, n=0, score=best.score * NEIGHBOUR_SCORE, vector_score=best.vector_score)
        for chunk in neighbours
        if chunk.pk != best.chunk_id
    ]
    steps.append(
        {
            "tool": "get_section",
            "input": {"refId": best.ref_id, "chunkIndex": best.chunk_index, "radius": NEIGHBOUR_RADIUS},
            "results": len(expanded),
            "judgement": "answer",
        }
    )
    return passages[:1] + expanded + passages[1:]


# --- Generation (the instructions themselves: baeum/answering/prompts.py) -------------------------------


def build_prompt(question: str, memory: Memory, passages: list[Passage]) -> tuple[str, str]:
    """Return (system, prompt) within the token budgets (whole passages and lines only)."""
    budgets = BUDGETS
    refusal = refusal_text(question)
    system = prompts.TUTOR_SYSTEM.format(refusal=refusal)
    kept = fit_passages(passages, budgets["passages"])
    summary = fit_text([line for line in memory.summary.split("\n") if line], budgets["memory"])
    entities = fit_text(
        [f"- {entity['key']}: {entity['value']} (turn {entity['turn']})" for entity in reversed(memory.entities)], budgets["entities"]
    )
    recent = fit_text(
        [f"Learner: {entry['question']}\nTutor: {entry['answer']}" for entry in reversed(memory.recent)], budgets["recent"]
    )
    sections = []
    if summary:
        sections.append("Conversation summary:\n" + "\n".join(summary))
    if entities:
        sections.append("Facts the learner stated:\n" + "\n".join(entities))
    if recent:
        sections.append("Recent turns (newest first):\n" + "\n\n".join(recent))
    sections.append(
        # The document's own reference markers ("KorQuAD 1.0[1]") as superscripts: a model copying "[1]"
        # from the text would otherwise cite passage 1.
        "Passages:\n"
        + "\n\n".join(
            f"[{passage.n}] ({passage.title}, p.{passage.page_number})\n{superscript_references(passage.text)}" for passage in kept
        )
    )
    sections.append(f"Question: {question[:PROMPT_QUESTION_CHARS]}")
    return system, "\n\n".join(sections)


@dataclass
class Outcome:
    answer: Answer
    usage: dict
    steps: list[dict]
    search_query: str
    removals: list[str] = field(default_factory=list)  # removed materials this answer told the learner about


def removal_note(question: str, titles: list[str], *, anything_left: bool = True) -> str:
    """Said once per removed material: the conversation goes on over what is left (when anything is)."""
    names = ", ".join(f"“{title}”" for title in titles)
    if is_hangul_heavy(question):
        rest = "남은 자료로 답합니다." if anything_left else "더 이상 검색할 수 없습니다."
        return f"{NOTE_PREFIX}{names} 자료는 라이브러리에서 삭제되어, {rest}"
    rest = "I answer from your remaining materials." if anything_left else "it can no longer be searched."
    return f"{NOTE_PREFIX}{names} was removed from your library; {rest}"


def _memory_answer(question: str, memory: Memory) -> Answer | None:
    """Answer "what is my X?" from facts the learner stated earlier in this conversation."""
    if not _MY_QUESTION.search(question) or not memory.entities:
        return None
    terms = set(content_terms(question))
    for entity in reversed(memory.entities):
        key_terms = set(content_terms(entity["key"]))
        if entity["key"] != "topic" and key_terms and key_terms <= terms:
            if is_hangul_heavy(question):
                key, value = entity["key"], entity["value"]
                topic, quoted = korean_particle(key, "은", "는"), korean_particle(value, "이라고", "라고")
                text = f"앞서 {key}{topic} {value}{quoted} 알려 주셨어요."
            else:
                text = f"Earlier you told me that your {entity['key']} is {entity['value']}."
            return Answer(text=text, confidence=1.0, generator="memory")
    return None


def _sentence_similarity(passages: list[Passage]):
    """Cosines of the question to sentences, with the embedder of the best passage's vectors (multilingual):
    how a Korean question picks sentences of an English page, where no word is shared."""
    model = next((passage.model for passage in passages if passage.model), "")
    if not model:
        return None
    embedder = embedder_for_model(model)

    def similarity(question: str, sentences: list[str]) -> list[float]:
        query = embedder.embed_query(question)
        return [float(vector @ query) for vector in _sentence_vectors(embedder, sentences)]

    return similarity


# Vectors of passage sentences already embedded, per process (model, sentence → vector): a follow-up, or
# another question over the same pages, reads the same sentences again. 4,096 e5 vectors are 6 MB.
SENTENCE_VECTOR_CACHE = 4096
_SENTENCE_VECTORS: OrderedDict[tuple[str, str], object] = OrderedDict()
_SENTENCE_VECTORS_LOCK = threading.Lock()


def _sentence_vectors(embedder, sentences: list[str]) -> list:
    """``embedder``'s document vectors of ``sentences``, embedding in one batch only those not kept."""
    with _SENTENCE_VECTORS_LOCK:
        kept = {sentence: _SENTENCE_VECTORS.get((embedder.model, sentence)) for sentence in sentences}
    missing = [sentence for sentence, vector in kept.items() if vector is None]
    if missing:
        kept.update(zip(missing, embedder.embed_documents(missing), strict=True))
    with _SENTENCE_VECTORS_LOCK:
        for sentence, vector in kept.items():
            _SENTENCE_VECTORS[(embedder.model, sentence)] = vector
            _SENTENCE_VECTORS.move_to_end((embedder.model, sentence))
        while len(_SENTENCE_VECTORS) > SENTENCE_VECTOR_CACHE:
            _SENTENCE_VECTORS.popitem(last=False)
    return [kept[sentence] for sentence in sentences]


def _said_before(memory: Memory) -> frozenset[str]:
    """The lines of the previous answer: a follow-up ("And how do I go from hex back to binary?") is
    answered with what the learner has not just read, when the passages hold it."""
    previous = _previous_turn(memory)
    return frozenset(answer_items(previous.get("answer", ""))) if previous else frozenset()


def _offline(question: str, turn: _Turn) -> Answer:
    passages = turn.passages
    similarity, said = _sentence_similarity(passages), _said_before(turn.memory)
    previous = _previous_turn(turn.memory)
    if previous is not None and ordinal_of(previous["question"]) is not None and ordinal_of(question) is None and _refers_back(question):
        # "What range of values can it hold?" after "Explain the third one.": "it" is the item that turn named
        # (two's complement), not any byte range the passages hold (signed magnitude's −127 … +127).
        question = f"{question} {' '.join(_terms(_topic_question(previous))[:ITEM_NAME_TERMS])}"
    if turn.item_found and turn.search_query != normalize_query(question):
        # "Give me an example of the second kind": its sentences are chosen for the item it names, never for
        # "second" ("the second line is indented").
        ordinal = _ORDINAL_KO.search(question) or _ORDINAL_EN.search(question)
        question = f"{turn.search_query} {ordinal.group(0)}"
    answer = extractive_answer(question, passages, similarity=similarity, said=said, names=turn.names, naming=turn.item_name)
    if answer.refused and turn.search_query != normalize_query(question):
        # A judged-sufficient follow-up whose own words no sentence shares ("Why is that slow?", "그 둘을 쓰면
        #뭐가 좋아?"): its sentences are chosen for the question made to stand alone.
        answer = extractive_answer(turn.search_query, passages, similarity=similarity, said=said, names=turn.names)
    if answer.refused:  # no sentence answers it: refused as when the evidence is too weak, naming what was searched
        text = weak_results_text(question, turn.searched, in_session=turn.in_session) if turn.searched else refusal_text(question)
        return Answer(text=text, refused=True)
    if turn.conversation is not None:
        answer = _with_items(answer, enumeration_lines(turn.conversation, question, answer), turn)
    return _named_line(answer, turn.item_line)


def _named_line(answer: Answer, item_line: tuple[str, str]) -> Answer:
    """``answer`` with the sentence that names an ordinal follow-up's item shown as the materials mean it: under
    its heading ("Arithmetic shifts: These shifts are designed to …": "These shifts" alone names nothing), or
    from its ordinal on ("1 의 보수 표현법두 번째 방법은 …" → "두 번째 방법은 …")."""
    if not item_line or item_line[0] == item_line[1]:
        return answer
    sentence, shown = item_line
    lines = answer.text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith(sentence):
            lines[index] = shown + line[len(sentence) :]
            return replace(answer, text="\n".join(lines))
    return answer


def _with_items(answer: Answer, items: list[tuple[Passage, str]], turn: _Turn) -> Answer:
    """``answer`` with the items the materials number added as a list, each cited (its passage joins the turn's,
    so the ground check reads it)."""
    lines = []
    for passage, sentence in items:
        if sentence in answer.text:
            continue
        known = next((known for known in turn.passages if known.chunk_id == passage.chunk_id), None)
        if known is None:
            known = replace(passage, n=max((other.n for other in turn.passages), default=0) + 1)
            turn.passages = [*turn.passages, known]
        lines.append(f"- {' '.join(sentence.split())} [{known.n}]")
    if lines:
        answer.text = "\n".join([answer.text, *lines])
    return answer


ITEM_NAME_TERMS = 3  # an item's name ("two complement representation"), which its stand-alone question begins with


def _refers_back(question: str) -> bool:
    return bool(_ANAPHORA_EN.search(question) or _ANAPHORA_KO.search(question))


def _confidence(evidence: Evidence, grounded: bool) -> float:
    if not grounded:
        return round(min(REFUSED_CONFIDENCE, evidence.coverage * REFUSED_CONFIDENCE), 3)
    weight = CONFIDENCE_COVERAGE_WEIGHT
    return round(min(1.0, weight * evidence.coverage + (1 - weight) * max(0.0, evidence.vector)), 3)


@dataclass
class _Turn:
    """What is decided before an answer is written: the retrieval, the evidence, and (when nothing is
    to be written: small talk, a remembered fact, a refusal) the answer itself."""

    question: str
    memory: Memory
    usage: dict
    started: float
    retrieved_at: float
    search_query: str
    passages: list[Passage] = field(default_factory=list)
    evidence: Evidence | None = None
    steps: list[dict] = field(default_factory=list)
    tool_calls: int = 0
    removed: list[str] = field(default_factory=list)
    answer: Answer | None = None
    # Across languages: the question's terms as the learner's own glosses name them in the passages' language.
    names: tuple[str, ...] = ()
    # The written answer that already passed the ground check whole (``_written``, ``_stream_written``):
    # ``_finish`` checks every other answer, so each answer is checked exactly once.
    checked: Answer | None = None
    # An ordinal follow-up whose item was found by name (a list the answer wrote out, or the materials' own
    # "the second method"): its sentences are chosen for that item.
    item_found: bool = False
    conversation: Conversation | None = None  # where an answer may read more (the items a list question asks for)
    item_name: tuple[str, ...] = ()  # the terms naming the item an ordinal follow-up points at: its sentences name it
    item_line: tuple[str, str] = ()  # the sentence naming that item, and how the answer shows it (``_named_line``)
    searched: list[str] = field(default_factory=list)  # the titles searched, which a refusal names
    in_session: bool = False  # searched only a study session's pages
    nothing_left: bool = False  # every material of the conversation was removed


def _prepare(conversation: Conversation, question: str, mode: str) -> _Turn:
    """Everything before an answer is written: what to answer without the materials, where to search,
    the retrieval, the evidence judged, and the refusal when the evidence is not enough."""
    started = time.perf_counter()
    memory = memory_load(conversation=conversation)
    usage = {"llmCalls": 0, "inputTokens": 0, "outputTokens": 0, "estimated": True}
    turn = _answered_without_search(conversation, question, memory, usage, started)
    if turn is not None:
        return turn
    question, sources, removed, searched = _where_to_search(conversation, question)
    items, listed = enumerated_items(memory, question) if ordinal_of(question) is not None else ([], False)
    named = None if listed else named_item(conversation, question, memory)
    search_query = resolve_references(question, memory, item=named[1] if named else "")  # retrieval drops answering instructions itself
    follow_up = search_query != normalize_query(question)
    scope = conversation_scope(conversation, sources)
    if mode == "agentic":
        retrieval = retrieve_agentic(conversation, search_query, scope=scope)
    else:
        anchored = anchored_query(question, memory) if follow_up else without_place(question)
        retrieval = retrieve_standard(
            conversation, search_query, scope=scope, follow_up=follow_up, anchored=anchored, first=[named[0]] if named else []
        )
    retrieved_at = time.perf_counter()
    # Judge the passages against what is asked, not against "round to two decimal places" (baeum.language.questions).
    asked = analyse_question(question).judged
    known = _vocabulary(conversation, sources)
    evidence = _judge(resolve_references(asked, memory) if follow_up else asked, retrieval.passages, known)
    if follow_up and evidence.sufficient and not (listed or named) and (
        len(unknown_topics(asked, retrieval.passages, known)) >= FOLLOW_UP_UNKNOWN_WORDS
        or names_missing(asked, retrieval.passages, known)
    ):
        # The words carried over make any follow-up look covered, and the question made to stand alone is
        # lower case: what it names of its own must be in the materials ("What's the best gaming laptop to
        # buy this year?" is not about "this" protected mode, nor "How does the Java virtual machine manage
        # its call stack?" about the stack the x86 book describes). An item found by its place is in the
        # materials ("Explain the second kind.": "second" and "kind" name no topic).
        evidence = replace(evidence, sufficient=False)
    turn = _Turn(
        question,
        memory,
        usage,
        started,
        retrieved_at,
        search_query,
        retrieval.passages,
        evidence,
        retrieval.steps,
        retrieval.tool_calls,
        removed,
    )
    turn.item_found = bool(listed or named)
    turn.item_line = named[2] if named else ()
    if listed:  # a short name from the answer's own list ("semantic errors"); a book's sentence names more loosely
        turn.item_name = item_name_terms(_nth(items, ordinal_of(question)))
    turn.conversation, turn.searched, turn.in_session = conversation, searched, bool(scope.ranges)
    if crosses_languages(question, retrieval.passages):
        turn.names = tuple(names_in_other_language(user=conversation.owner, question=question))
    turn.nothing_left = bool(removed) and not sources
    turn.answer = _refusal(
        question, retrieval.passages, evidence, searched=searched, in_session=bool(scope.ranges), nothing_left=turn.nothing_left
    )
    return turn


def _answered_without_search(conversation: Conversation, question: str, memory: Memory, usage: dict, started: float) -> _Turn | None:
    """Small talk, a fact the learner stated earlier, or a session's key points: answered without a search."""
    remembered = _conversation_answer(question) or _memory_answer(question, memory)
    if remembered:
        return _Turn(question, memory, usage, started, started, question, answer=remembered)
    overview = _session_overview(conversation, question)
    if overview is not None:  # "이 세션에서 제일 중요한 게 뭐야?": the session's key points, cited
        passages, answer = overview
        evidence = Evidence(1.0, 1.0, True)
        return _Turn(question, memory, usage, started, time.perf_counter(), question, passages, evidence, answer=answer)
    return None


def _where_to_search(conversation: Conversation, question: str) -> tuple[str, list[str], list[str], list[str]]:
    """Return the question without where-to-look words, the refIds to search, those removed since, and the
    titles of the materials searched (what a refusal names).

    The library is read once per answer. "in this book", "PC 어셈블리어 책에서": where to look is not
    what is asked; a title named narrows the search to that material. A title that the named materials'
    text also uses ("What is shown in the Esteve Pharmacy museum?" over materials titled "Pharmacy") is
    what is asked as well: it stays in the question.
    """
    sources, removed = conversation_sources(conversation=conversation)
    titles = dict(materials_in_scope(user=conversation.owner, ref_ids=sources).values_list("ref_id", "title")) if sources else {}
    asked, named = named_sources(question, titles)
    asked_terms = set(content_terms(asked))
    title_terms = [term for term in dict.fromkeys(content_terms(question)) if term not in asked_terms]
    if named and title_terms and _vocabulary(conversation, named)(title_terms):
        asked = question
    searched = named or sources
    return asked, searched, removed, [titles[ref_id] for ref_id in searched if ref_id in titles]


# Every material of the conversation was removed: say what to do, not "not found".
_NOTHING_LEFT_EN = (
    "This conversation has no materials left to search. Choose others with “Change sources”, or start a new conversation."
)
_NOTHING_LEFT_KO = "이 대화에는 검색할 자료가 남아 있지 않습니다. “자료 바꾸기”로 다른 자료를 고르거나 새 대화를 시작하세요."


def _refusal(
    question: str, passages: list[Passage], evidence: Evidence, *, searched: list[str], in_session: bool, nothing_left: bool = False
) -> Answer | None:
    """The refusal when nothing was found or the evidence is too weak to answer from; else None. It names
    what was searched: every material of the conversation (not only those whose passages came back), or a
    study session's pages, which are not the whole book."""
    if nothing_left:
        return Answer(text=_NOTHING_LEFT_KO if is_hangul_heavy(question) else _NOTHING_LEFT_EN, refused=True)
    if not passages:
        return Answer(text=refusal_text(question), refused=True)
    if not evidence.sufficient:
        return Answer(text=weak_results_text(question, searched, in_session=in_session), refused=True)
    return None


# "What matters most in this session?", "summarise this session", "이 세션의 핵심은?": in a session's
# conversation, the answer is the session's key points (what its page lists), each cited.
_OVERVIEW = re.compile(
    r"\b(?:summar(?:y|i[sz]e)|key points?|main (?:points?|ideas?)|most important|matters? (?:the )?most|takeaways?|what (?:did|do) (?:i|we) (?:learn|cover))\b"
    r"|요약|핵심|(?:제일|가장)\s*중요한|중요한\s*(?:것|게|내용|점)|무엇을\s*배웠|뭘\s*배웠",
    re.IGNORECASE,
)


def _session_overview(conversation: Conversation, question: str) -> tuple[list[Passage], Answer] | None:
    if not (conversation.plan_id and conversation.session_number and _OVERVIEW.search(question)):
        return None
    from baeum.errors import NotFound
    from plans.selectors import access_plan, access_session
    from plans.services.session_content import session_content

    try:
        plan = access_plan(user=conversation.owner, plan_id=conversation.plan_id)
        session = access_session(user=conversation.owner, plan=plan, number=conversation.session_number)
    except NotFound:
        return None
    passages, lines = [], []
    for point in session_content(user=conversation.owner, plan=plan, session=session).key_points:
        try:
            (chunk,) = chunk_range(user=conversation.owner, ref_id=point["refId"], start=point["chunkIndex"], end=point["chunkIndex"])
        except (NotFound, ValueError):
            continue
        passage = next((known for known in passages if known.chunk_id == chunk.pk), None)
        if passage is None:
            passage = _passage(chunk, n=len(passages) + 1, score=1.0)
            passages.append(passage)
        lines.append(f"- {point['text']} [{passage.n}]")
    if not lines:
        return None
    intro = NOTE_PREFIX + ("이 세션의 핵심 내용입니다." if is_hangul_heavy(question) else "The key points of this session.")
    return passages, Answer(text="\n".join([intro, *lines]), generator="extractive")


def _fallback(turn: _Turn, why: str) -> Answer:
    answer = _offline(turn.question, turn)
    answer.generator = f"extractive ({why})"
    return answer


def _written(turn: _Turn, llm) -> Answer:
    """The answer a model writes from the passages (checked whole), or the extract when it cannot."""
    system, prompt = build_prompt(turn.question, turn.memory, turn.passages)
    try:
        completion = llm.complete(system=system, prompt=prompt)
    except LLMError:
        return _fallback(turn, "LLM unavailable")
    turn.usage.update(llmCalls=1, inputTokens=completion.input_tokens, outputTokens=completion.output_tokens, estimated=False)
    text = completion.text.strip()
    if text.startswith((REFUSAL_KO, REFUSAL_EN)):
        return Answer(text=refusal_text(turn.question), refused=True, generator=completion.model)
    grounded, citations, _problems = groundcheck.ground_check(text, turn.passages)
    if not grounded:
        return _fallback(turn, "LLM answer failed the ground check")
    turn.checked = Answer(text=text, citations=citations, generator=completion.model)
    return turn.checked


def _finish(conversation: Conversation, turn: _Turn, answer: Answer) -> Outcome:
    """The last word on any answer: the ground check (an unsupported answer becomes a refusal, whatever
    wrote it), confidence, usage, and the one-time note about removed materials."""
    answer = _ground_checked(turn, answer)
    if answer.generator.startswith("extractive") and not answer.refused:
        answer = in_reading_order(answer)  # checked against the passages' numbers first
    if turn.evidence is not None:
        answer.confidence = _confidence(turn.evidence, not answer.refused)
    _measure_usage(turn, answer)
    removals = _unannounced_removals(conversation, turn.removed)
    if removals:
        answer.text = f"{_removal_prefix(conversation, turn.question, removals, anything_left=not turn.nothing_left)}{answer.text}"
    return Outcome(answer, turn.usage, turn.steps, turn.search_query, removals)


def _ground_checked(turn: _Turn, answer: Answer) -> Answer:
    """``answer`` with its citations when every claim is supported by what it cites, else a refusal.

    Not checked again: a refusal, small talk or a stated fact (nothing retrieved), and a written answer
    that passed the check whole already (``turn.checked``).
    """
    remembered = turn.evidence is None and answer is turn.answer
    if answer.refused or remembered or answer is turn.checked:
        return answer
    grounded, citations, _problems = groundcheck.ground_check(answer.text, turn.passages)
    if not grounded:  # never let an unsupported answer through, whatever produced it
        return Answer(text=refusal_text(turn.question), refused=True, generator=answer.generator)
    answer.citations = citations
    return answer


def _measure_usage(turn: _Turn, answer: Answer) -> None:
    """Tokens (estimated when no model counted them), milliseconds per stage, and the evidence's measures."""
    if turn.usage["estimated"]:
        turn.usage["inputTokens"] = estimate_tokens(turn.question) + sum(estimate_tokens(passage.text) for passage in turn.passages)
        turn.usage["outputTokens"] = estimate_tokens(answer.text)
    finished = time.perf_counter()
    turn.usage.update(
        retrievalMs=round((turn.retrieved_at - turn.started) * 1000, 1),
        generationMs=round((finished - turn.retrieved_at) * 1000, 1),
        totalMs=round((finished - turn.started) * 1000, 1),
    )
    if turn.evidence is not None:
        turn.usage.update(toolCalls=turn.tool_calls, coverage=turn.evidence.coverage, vector=turn.evidence.vector)


def _removal_prefix(conversation: Conversation, question: str, removals: list[str], *, anything_left: bool = True) -> str:
    titles = [conversation.material_titles.get(ref_id, ref_id) for ref_id in removals]
    return f"{removal_note(question, titles, anything_left=anything_left)}\n"


def answer_question(*, conversation: Conversation, question: str, mode: str = "standard", llm=None) -> Outcome:
    """Run the pipeline for one question without saving anything; see ``chat_reply``."""
    turn = _prepare(conversation, question, mode)
    answer = turn.answer
    if answer is None:
        llm = llm if llm is not None else configured_llm()
        answer = _written(turn, llm) if llm is not None else _offline(question, turn)
    return _finish(conversation, turn, answer)


def _unannounced_removals(conversation: Conversation, removed: list[str]) -> list[str]:
    if not removed:
        return []
    announced = (
        Conversation.objects.for_user(conversation.owner).filter(pk=conversation.pk).values_list("removals_announced", flat=True).first()
    )
    return [ref_id for ref_id in removed if ref_id not in (announced or [])]


# --- Saving --------------------------------------------------------------------------------


@transaction.atomic
def _save_turn(conversation: Conversation, question: str, outcome: Outcome, mode: str) -> Message:
    conversation = Conversation.objects.for_user(conversation.owner).select_for_update().get(pk=conversation.pk)
    turn = conversation.turn_count + 1
    Message.objects.create(
        conversation=conversation, owner=conversation.owner, turn=turn, role=Message.Role.USER, content=question, mode=mode
    )
    answer = outcome.answer
    reply = Message.objects.create(
        conversation=conversation,
        owner=conversation.owner,
        turn=turn,
        role=Message.Role.ASSISTANT,
        content=answer.text,
        citations=[citation.as_dict() for citation in answer.citations],
        refused=answer.refused,
        confidence=answer.confidence,
        mode=mode,
        steps=outcome.steps,
        usage=outcome.usage,
        generator=answer.generator,
        search_query=outcome.search_query,
    )
    conversation.turn_count = turn
    if outcome.removals:
        conversation.removals_announced = [*conversation.removals_announced, *outcome.removals]
    if not conversation.title:
        conversation.title = title_from_question(question)
    conversation.updated_at = timezone.now()
    conversation.save(update_fields=["turn_count", "title", "updated_at", "removals_announced"])
    cap = chat_settings()["MESSAGE_CAP"]
    stale = (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation)
        .order_by("-turn", "-id")
        .values_list("id", flat=True)[cap:]
    )
    Message.objects.for_user(conversation.owner).filter(id__in=list(stale)).delete()  # FIFO cap per conversation
    memory = memory_load(conversation=conversation)
    memory_record_turn(
        conversation=conversation,
        memory=memory,
        turn=turn,
        question=question,
        answer=answer.text,
        refused=answer.refused,
        searched=outcome.search_query,
    )
    return reply


TITLE_CHARS = 60  # a title fits two lines of the conversation list (about 30 characters a line at 210 px)


def title_from_question(question: str) -> str:
    """The first question as a conversation title, shortened between words (never inside one), with "…"."""
    words = " ".join(question.split())
    if len(words) <= TITLE_CHARS:
        return words
    window = words[: TITLE_CHARS + 1]
    cut = (window.rsplit(" ", 1)[0] if " " in window else window[:TITLE_CHARS]).rstrip(" ,.;:!?")
    return (cut or words[:TITLE_CHARS]) + "…"


def chat_reply(*, conversation: Conversation, content: str, mode: str = "standard", llm=None) -> Message:
    """Answer one learner message and save the turn (question and answer) once it has succeeded."""
    outcome = answer_question(conversation=conversation, question=content, mode=mode, llm=llm)
    return _save_turn(conversation, content, outcome, mode)


def chat_reply_stream(*, conversation: Conversation, content: str, mode: str = "standard", llm=None) -> Iterator[tuple[str, object]]:
    """Yield ("token", text) events, then ("citations", [...]), then ("done", message_id).

    Offline, the answer is composed and checked first, then sent word by word. With an LLM, its words
    are sent as it writes them, a sentence at a time once the sentence has passed the ground check; if
    a sentence fails (or the model stops answering), a ("reset", reason) event tells the client to drop
    what it showed, and the extract follows. What streams after the last reset is what is saved; the
    turn is saved in ``finally`` even when the client goes away mid-stream.
    """
    turn = _prepare(conversation, content, mode)
    saved: Message | None = None
    outcome: Outcome | None = None
    try:
        llm = llm if llm is not None or turn.answer is not None else configured_llm()
        if turn.answer is None and llm is not None:
            removals = _unannounced_removals(conversation, turn.removed)
            prefix = _removal_prefix(conversation, content, removals) if removals else ""
            if prefix:
                yield "token", prefix
            answer = yield from _stream_written(turn, llm)
            if answer.refused or answer.generator.startswith("extractive"):
                yield "reset", answer.generator
                text = f"{prefix}{answer.text}"
                for piece in re.findall(r"\S+\s*|\n", text):
                    yield "token", piece
            outcome = _finish(conversation, turn, answer)
        else:
            answer = turn.answer or _offline(content, turn)
            outcome = _finish(conversation, turn, answer)
            for piece in re.findall(r"\S+\s*|\n", outcome.answer.text):
                yield "token", piece
        yield "citations", [citation.as_dict() for citation in outcome.answer.citations]
    finally:
        if outcome is None:  # the client left before the answer was complete: save what the pipeline says
            outcome = answer_question(conversation=conversation, question=content, mode=mode, llm=llm)
        saved = _save_turn(conversation, content, outcome, mode)
    yield "done", saved.pk


def _stream_written(turn: _Turn, llm) -> Iterator[tuple[str, object]]:
    """Send the model's answer as it is written, each sentence once it passes the ground check; return
    the Answer (the model's, or the extract when a sentence fails or the model stops answering)."""
    system, prompt = build_prompt(turn.question, turn.memory, turn.passages)
    text, sent = "", 0
    try:
        for piece in llm.stream(system=system, prompt=prompt):
            text += piece
            ready = complete_claims_end(text, sent)
            if ready > sent:
                if not sent and text.lstrip().startswith((REFUSAL_KO, REFUSAL_EN)):
                    break  # the model says the passages do not answer it
                problem = claims_problem(text[sent:ready], turn.passages)
                if problem:
                    return _fallback(turn, "LLM answer failed the ground check")
                yield "token", text[sent:ready] if sent else text[sent:ready].lstrip()
                sent = ready
    except LLMError:
        return _fallback(turn, "LLM unavailable")
    turn.usage.update(llmCalls=1, estimated=True)
    if text.strip().startswith((REFUSAL_KO, REFUSAL_EN)):
        return Answer(text=refusal_text(turn.question), refused=True, generator=getattr(llm, "model", "llm"))
    rest = text[sent:]
    if rest.strip():
        if claims_problem(rest, turn.passages):
            return _fallback(turn, "LLM answer failed the ground check")
        yield "token", rest if sent else rest.lstrip()
    answer_text = text.strip()
    grounded, citations, _problems = groundcheck.ground_check(answer_text, turn.passages)
    if not grounded:
        return _fallback(turn, "LLM answer failed the ground check")
    turn.checked = Answer(text=answer_text, citations=citations, generator=getattr(llm, "model", "llm"))
    return turn.checked
