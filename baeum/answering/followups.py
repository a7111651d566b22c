"""Follow-ups, without the database: what a question that leans on the conversation points back to.

"Tell me more about the second one" counts in the list the previous answer wrote out (or the two sides its
question compared); "Give me an example of one" / "그거 예시" carries the previous question's topic;
"Going back to tuples, …" names its own. ``resolve_references`` makes such a question stand alone for
retrieval, over the conversation's ``history``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baeum import rules
from baeum.answering.answers import CITATION
from baeum.answering.crosslingual import NOTE_PREFIX
from baeum.answering.forms import compared_terms
from baeum.answering.history import Memory
from baeum.answering.smalltalk import conversation_kind
from baeum.language import lexicon
from baeum.language.analysis import content_terms
from baeum.language.text import normalize_query, sentence_spans

ANAPHORA_EN = re.compile(rf"\b({lexicon.alternation(lexicon.POINTING_EN)})\b", re.IGNORECASE)
ANAPHORA_KO = re.compile(
    rf"(?:^|\s)(?:{lexicon.alternation(lexicon.POINTING_KO)})\s+\S+|그것|이것|저것|그거|이거|거기|그들|그곳|해당"
    rf"|(?:^|\s)(?:{lexicon.alternation(lexicon.POINTING_KO)})(?:걸|게|건|런|럴|렇|러한)|둘\s*(?:중|다)"  # "그걸", "그런 쉬프트", "그럴 때", "둘 중 어느 쪽"
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
FOLLOW_UP_TERMS = 4  # terms carried over from the previous turn: enough to name its topic, few enough not to drown the new ask
ANCHOR_TERMS = 2  # the previous question's first terms that anchor a follow-up's own words
# "the second one", "그 중 두 번째": which item of the previous answer a follow-up is about.
_ORDINALS_EN = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "last": -1}
ORDINAL_EN = re.compile(r"\b(first|second|third|fourth|fifth|last)\b(?:\s+(?:one|point|difference|item|step|reason|part))?", re.IGNORECASE)
_ORDINALS_KO = {"첫": 1, "두": 2, "세": 3, "네": 4, "다섯": 5}
# "세 번째 항목", "마지막 부분": the word that counts goes with the ordinal, as "item" and "part" do in English (searched,
# "항목" had found a chapter about items).
ORDINAL_KO = re.compile(r"(?:(첫|두|세|네|다섯)\s*번째|마지막)(?:\s*(?:항목|부분)(?=[은는을를이가의에]|\s|$))?")
_ONE_EN = re.compile(r"\b(?:one|ones|example|examples|more)\b", re.IGNORECASE)  # "Give me an example of one", "Tell me more"


def answered_turns(memory: Memory) -> list[dict]:
    """The recent turns that asked about the materials and were answered, oldest first."""
    return [
        entry for entry in memory.recent if not entry.get("refused") and entry["question"] and conversation_kind(entry["question"]) is None
    ]


def previous_turn(memory: Memory) -> dict | None:
    answered = answered_turns(memory)
    return answered[-1] if answered else None


def without_anaphora(text: str) -> str:
    return ANAPHORA_EN.sub(" ", ANAPHORA_KO.sub(" ", text))


def without_ordinal(text: str) -> str:
    return ORDINAL_KO.sub(" ", ORDINAL_EN.sub(" ", text))


def ordinal_of(question: str) -> int | None:
    """1-based position a follow-up refers to ("the second one" → 2, "마지막" → -1), or None."""
    match = ORDINAL_KO.search(question)
    if match:
        return -1 if match.group(1) is None else _ORDINALS_KO[match.group(1)]  # "마지막 (항목)"
    match = ORDINAL_EN.search(question)
    return _ORDINALS_EN[match.group(1).casefold()] if match else None


# A bare topic ending in 은/는: "32비트 보호 모드는?", "stdcall 은?". Not when it names what it asks about
# ("스택 프레임의 구조는?") or both sides of a comparison ("리틀 엔디안과 빅 엔디안의 차이는?").
_BARE_TOPIC_KO = re.compile(r"^\S+(?:\s\S+){0,2}?\s?(?:은|는)\?+$")
_ASKS_ITS_OWN_KO = re.compile(r"\S(?:과|와|랑|하고|의)\s")


def continues(question: str) -> bool:
    """Whether ``question`` continues the turn before without naming it (see ``_CONTINUES_EN``)."""
    question = question.strip()
    bare_topic = _BARE_TOPIC_KO.search(question) and not _ASKS_ITS_OWN_KO.search(question)
    return bool(_CONTINUES_EN.search(question) or _CONTINUES_KO.search(question) or bare_topic or rules.applies(CONDITIONAL, question))


# A question that is only a condition ("what happens if I don't?", "what if it's empty?", "인자 안 넘기면?", "끝나면
# 어떻게 돼?", "중간에 빠져나오려면?") supposes what the turn before was about: a clause with no main clause of its own.
_CONDITIONAL_EN = re.compile(r"^(?:(?:and|but|so)\s+if|what\s+(?:happens\s+|would\s+happen\s+)?if)\b", re.IGNORECASE)
_CONDITIONAL_KO = re.compile(r"(?:으?면|으?려면)\s*(?:어떻게\s*(?:돼|되나요|되는데|해|하나요|해야\s*돼)|어떡해)?\s*\?*\s*$")
CONDITIONAL = rules.register(
    rules.Rule(
        "followup:conditional",
        lambda question: bool(_CONDITIONAL_EN.search(question) or _CONDITIONAL_KO.search(question)),
        "what happens if I don't?",
        "a question that is only a condition (what if …?, …하면?) supposes the topic of the turn before",
    )
)[0]


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
    source = enumerating_turn(memory)
    if source is None:
        return [], False
    items = answer_items(source.get("answer", ""))
    listed = next((found for found in map(listed_items, items) if found), [])
    if listed:
        return listed, True
    sides = compared_terms(source["question"]) if not _DIFFERENCES.search(source["question"]) else ()
    if sides and counts_alternatives(question) and ordinal_of(question) in (1, 2, -1):
        # "the second difference" and "the second one" of "the two major differences between A and B" count
        # differences, not the sides.
        # A side named by a pronoun ("internal ones") is of the topic that question carried ("interrupt").
        own = set(carried_terms(source["question"]))
        carried = [term for term in carried_terms(source.get("searched") or "") if term not in own][:ANCHOR_TERMS]
        return [" ".join([_ONES.sub("", side).strip(), *carried]) for side in sides], True
    return items, False


_ONES = re.compile(r"\s+ones?$", re.IGNORECASE)
_DIFFERENCES = re.compile(r"\bdifferences\b|차이점들", re.IGNORECASE)


def enumerating_turn(memory: Memory) -> dict | None:
    """The turn an ordinal follow-up counts in (see ``enumerated_items``)."""
    answered = answered_turns(memory)
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
_SECTION_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)*)")
_PARTICLES = lexicon.NOUN_ENDING_PARTICLES_KO  # what ends a Korean noun that is not part of it ("방법으로", "표현법의")


def _asked_noun(question: str) -> str:
    """What an ordinal follow-up counts: "kind" in "the second kind", "" in "And the second?"."""
    asked = _ASKED_NOUN_KO.search(question) or _ASKED_NOUN_EN.search(question)
    return asked.group(1).casefold() if asked else ""


def counts_alternatives(question: str) -> bool:
    """Whether an ordinal follow-up counts alternatives ("the second one", "the first kind", "두 번째 방법"),
    not something narrower ("the second step", "두 번째 차이점") or unrelated ("the first thing we discussed")."""
    noun = _asked_noun(question)
    return (
        not noun or noun in ("one", "ones", "것", "거") or bool(re.fullmatch(f"{_ALTERNATIVES_EN}|{_ALTERNATIVES_KO}[{_PARTICLES}]*", noun))
    )


def ordinal_in_text(question: str, ordinal: int) -> re.Pattern | None:
    """The sentences that name the ``ordinal``-th of what ``question`` counts, or None when it counts no
    alternatives the materials could name that way."""
    if ordinal not in _ORDINAL_WORDS_EN:
        return None
    noun = _asked_noun(question)
    if counts_alternatives(question):
        english, korean = _ALTERNATIVES_EN, _ALTERNATIVES_KO
    elif re.fullmatch(f"{_NARROWER_EN}|{_NARROWER_KO}[{_PARTICLES}]*", noun):
        english = korean = re.escape(noun.rstrip(_PARTICLES).rstrip("s"))
    else:
        return None
    return re.compile(
        rf"\b{_ORDINAL_WORDS_EN[ordinal]}\s+(?:\w+\s+)?{english}|{_ORDINAL_WORDS_KO[ordinal]}\s*번째\s*{korean}", re.IGNORECASE
    )


def same_part(section: str, other: str) -> bool:
    """Whether two chunks' sections are in the same part of the book ("3.6.1 Method one", "3.6.2 Method two"
    are; "4.3 The Stack" is not): the same numbered parent section, when both are numbered."""
    mine, theirs = _SECTION_NUMBER.match(section), _SECTION_NUMBER.match(other)
    if not (mine and theirs):
        return True
    return _parent_section(mine.group(1)) == _parent_section(theirs.group(1))


def _parent_section(number: str) -> list[str]:
    """ "3.6.2" → ["3", "6"]; a chapter's number is its own part."""
    parts = number.split(".")
    return parts[:-1] or parts


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten".split())


def heading_head(title: str) -> str:
    """The noun a section heading is about: "Arithmetic shifts" → shift, "Use of shifts" → use, "Method two"
    → method, "산술 쉬프트" → 쉬프트, "쉬프트의 이용" → 이용."""
    title = re.split(r"\s+of\s+", title, maxsplit=1, flags=re.IGNORECASE)[0]
    terms = [term for term in content_terms(title) if any(char.isalpha() for char in term) and term not in _NUMBER_WORDS]
    return terms[-1] if terms else ""


def section_key(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


def first_sentence(text: str) -> str:
    return next((text[start:end] for start, end in sentence_spans(text)), "")


# "What are the ways to represent signed integers?", "부호 있는 정수를 표현하는 방법에는 어떤 것들이 있어?": the
# answer names each way where the materials number them ("The first method …", "두 번째 방법은 …").
ENUMERATION_QUESTION = re.compile(
    rf"\b(?:what|which)\b.*\b(?:{lexicon.alternation(lexicon.ENUMERATION_NOUNS_EN)})\b"
    rf"|(?:{lexicon.alternation(lexicon.ENUMERATION_NOUNS_KO)})\S*\s+(?:어떤|무엇|뭐)|어떤\s*(?:것들|방법들|종류)",
    re.IGNORECASE,
)
ENUMERATED_ITEMS_MAX = 5
_LEADING_ARTICLE = re.compile(r"(?:\b(?:The|the|A|a|An|an)\s+)$")


def from_the_ordinal(sentence: str, match: re.Match) -> str:
    """``sentence`` from its ordinal on when what precedes it is a run-in heading ("One's complement The second
    method is …", "1 의 보수 표현법두 번째 방법은 …"): a few words with no verb and no particle at their end."""
    start = match.start()
    article = _LEADING_ARTICLE.search(sentence[:start])
    start = article.start() if article else start
    prefix = sentence[:start].strip()
    words = prefix.split()
    if (
        not prefix
        or len(words) > 4
        or re.search(r"[.!?:]|\b(?:is|are|was|were|use|uses|has|have)\b", prefix)
        or words[-1][-1] in _PARTICLES
    ):
        return sentence
    return sentence[start:].strip()


def carried_terms(text: str) -> list[str]:
    """The terms a follow-up carries over: words, not numbers ("110.0112", "0.25" name no topic)."""
    return [term for term in dict.fromkeys(content_terms(text)) if len(term) > 1 and any(char.isalpha() for char in term)]


# The name an item's sentence gives it: "… a third method called two's complement representation.", "The
# second method is known as one's complement …", "… 부호 있는 크기 (signed magnitude) 표현법이라 부른다."
_ITEM_NAME = re.compile(
    rf"\b(?:{lexicon.alternation(lexicon.NAMING_EN)})\s+(?P<en>[^.,;:()]+)"
    r"|(?P<ko>[^\s,.]+(?:\s+[^\s,.]+){0,3}?)\s*(?:\([^)]*\)\s*)?(?:이?라고?\s*(?:부른다|한다|불린다)|표현법이다)",
    re.IGNORECASE,
)


def _item_name(item: str) -> str:
    """The name an item's sentence gives it ("two's complement representation"), or ""."""
    named = _ITEM_NAME.search(item)
    return (named.group("en") or named.group("ko") or "") if named else ""


def item_terms(item: str) -> list[str]:
    """An item's terms, the name its sentence gives it first ("two complement representation" before "modern
    computer use third method"): what a follow-up about "it" is about."""
    first = carried_terms(_item_name(item))
    return [*first, *(term for term in carried_terms(item) if term not in first)]


def item_name_terms(item: str) -> tuple[str, ...]:
    """The first two terms of the name an item is given ("semantic errors", "… called two's complement
    representation" → two, complement), or () when its sentence gives it no name."""
    name = _item_name(item) or (item if len(item.split()) <= LISTED_ITEM_MAX_WORDS else "")
    return tuple(carried_terms(name)[:2])


def nth(items: list, ordinal: int | None):
    """The item at 1-based ``ordinal`` (-1: the last), or "" when there is none."""
    if ordinal is None or not items or ordinal > len(items):
        return ""
    return items[ordinal - 1] if ordinal > 0 else items[-1]


CHAIN_OWN_TERMS = 1  # "why does that matter" (matter) leans on its topic; "and the type of the inner packet?" names its own


def own_terms(question: str) -> list[str]:
    """The words a follow-up names of its own: not those pointing back, nor those asking for a form of answer."""
    return [term for term in carried_terms(without_anaphora(question)) if term not in _ASKED_FORM_WORDS]


def topic_question(entry: dict) -> str:
    """What a turn was about: its question, or, when it leaned on the turn before ("example?", "And the third
    kind?"), the question as it was searched, with what it leaned on named: a chain of follow-ups keeps the
    topic its first question named ("aliasing" after "example?", then "why does that matter"), rule
    ``followup:chain-topic``."""
    question, searched = entry["question"], entry.get("searched") or ""
    leaned = searched and (ordinal_of(question) is not None or rules.applies(CHAIN_TOPIC, question, searched))
    return searched if leaned else question


CHAIN_TOPIC = rules.register(
    rules.Rule(
        "followup:chain-topic",
        lambda question, searched: searched != normalize_query(question) and len(own_terms(question)) <= CHAIN_OWN_TERMS,
        ("example?", "alias python object one reference name example"),
        "the turn before was a follow-up with at most one word of its own: its topic is what it was searched as",
    )
)[0]


# A question with no word of its own to search ("Why?", "How so?", "왜?", "어떻게?") is about what was said before.
BARE_QUESTION = rules.register(
    rules.Rule(
        "followup:bare-question", lambda question: not content_terms(question), "Why?", "a question with nothing of its own to search"
    )
)[0]


_ASKED_FORM_WORDS = frozenset(lexicon.ASKED_FORM_WORDS_EN) | frozenset(lexicon.ASKED_FORM_WORDS_KO)


def asks_only_form(question: str) -> bool:
    """Whether every word of ``question`` asks how to answer, none what about ("give me an example", "예시 보여줘")."""
    terms = content_terms(question)
    return bool(terms) and all(term in _ASKED_FORM_WORDS for term in terms)


# A follow-up whose words only ask for a form of answer names no subject of its own: its sentences are chosen for the
# conversation's topic (the question made to stand alone), never for "example" alone (walkthrough 23: "give me an
# example" after url.host and url.hostname quoted "For example, the ASCII space character …" from another page).
FORM_ONLY = rules.register(
    rules.Rule(
        "followup:form-only",
        asks_only_form,
        "give me an example",
        "a follow-up asking only for a reason, an example or more is answered for the conversation's topic",
    )
)[0]


@dataclass(frozen=True)
class FollowUp:
    """A question read once against the conversation: what every resolver decides on."""

    question: str
    memory: Memory
    item: str  # the item an ordinal points at, when the caller found it where the materials name it
    previous: dict | None  # the last answered turn about the materials
    topic: str  # the topic the learner stated ("topic" entity), if any
    ordinal: int | None  # "the second one" → 2
    refers: bool  # points back (a pointing word, "one", a continuation, an ordinal)

    @classmethod
    def read(cls, question: str, memory: Memory, *, item: str = "") -> FollowUp:
        ordinal = ordinal_of(question)
        refers = (
            bool(ANAPHORA_EN.search(question) or ANAPHORA_KO.search(question) or _ONE_EN.search(question) or continues(question))
            or ordinal is not None
            or rules.applies(BARE_QUESTION, question)
            or rules.applies(FORM_ONLY, question)  # "예를 들어줘", "코드로 보여줘": of what was said before
        )
        topic = next((entity["value"] for entity in reversed(memory.entities) if entity["key"] == "topic"), "")
        return cls(question, memory, item, previous_turn(memory), topic, ordinal, refers)


def _stands_alone(follow_up: FollowUp) -> str | None:
    """Points back at nothing, or there is nothing to point at."""
    if not follow_up.refers or (follow_up.previous is None and not follow_up.topic):
        return normalize_query(follow_up.question)
    return None


def _the_nth_item(follow_up: FollowUp) -> str | None:
    """ "Tell me more about the second one.": the item the ordinal counts to, by its name."""
    if follow_up.ordinal is None:
        return None
    item = follow_up.item or nth(enumerated_items(follow_up.memory, follow_up.question)[0], follow_up.ordinal)
    if not item:
        return None
    stripped = without_ordinal(without_anaphora(follow_up.question))  # resolved: "second" would find "The second operand"
    return normalize_query(f"{' '.join(item_terms(item)[: 2 * FOLLOW_UP_TERMS])} {stripped}")


def _the_previous_topic(follow_up: FollowUp) -> str | None:
    """ "Give me an example of one" / "그거 예시": the previous question's topic and the first line of its answer."""
    previous = follow_up.previous
    items = answer_items(previous.get("answer", ""))
    carried = carried_terms(topic_question(previous))[:FOLLOW_UP_TERMS]
    if items:
        carried += [term for term in carried_terms(items[0]) if term not in carried][:FOLLOW_UP_TERMS]
    return normalize_query(f"{' '.join(carried) or follow_up.topic} {without_anaphora(follow_up.question)}")


# How a follow-up is made to stand alone: the first resolver that answers decides.
RESOLVERS = rules.register(
    rules.Rule("followup:stands-alone", _stands_alone, "What is a register?", "points back at nothing"),
    rules.Rule("followup:nth-item", _the_nth_item, "Tell me more about the second one.", "an ordinal: the item it counts to"),
    rules.Rule("followup:previous-topic", _the_previous_topic, "Give me an example of one.", "the previous turn's topic"),
)


def resolve(question: str, memory: Memory, *, item: str = "") -> tuple[str, str]:
    """``question`` made to stand alone from the conversation, and the resolver that did it ("" when every
    resolver that would have answered is switched off)."""
    follow_up = FollowUp.read(question, memory, item=item)
    for resolver in RESOLVERS:
        resolved = rules.resolved(resolver, follow_up)
        if resolved is not None:
            return resolved, resolver.name
    return normalize_query(question), ""


def resolve_references(question: str, memory: Memory, *, item: str = "") -> str:
    """Make a follow-up stand alone from the previous turn's question and answer (``RESOLVERS``, in order).

    "Tell me more about the second one." → the second line of the previous answer; "Give me an example of
    one" / "그거 예시" → the previous question's topic and the first line of its answer; "그 회사 매출은?"
    after talking about A사 → "A사 매출은?".
    """
    return resolve(question, memory, item=item)[0]


def anchored_query(question: str, memory: Memory) -> str:
    """A follow-up in its own words, anchored by the previous question's first terms ("dictionary" for
    "How do I loop over one?"; a chain of follow-ups by its topic, ``topic_question``), without the previous
    answer's."""
    previous = previous_turn(memory)
    if previous is None:
        return ""
    stripped = without_ordinal(without_anaphora(question))
    return normalize_query(f"{' '.join(carried_terms(topic_question(previous))[:ANCHOR_TERMS])} {stripped}")


def said_before(memory: Memory) -> frozenset[str]:
    """The lines of the previous answer: a follow-up ("And how do I go from hex back to binary?") is
    answered with what the learner has not just read, when the passages hold it."""
    previous = previous_turn(memory)
    return frozenset(answer_items(previous.get("answer", ""))) if previous else frozenset()


ITEM_NAME_TERMS = 3  # an item's name ("two complement representation"), which its stand-alone question begins with


def refers_back(question: str) -> bool:
    return bool(ANAPHORA_EN.search(question) or ANAPHORA_KO.search(question))


# "And the other one?", "What about the other kind?", "다른 하나는?", "나머지는?": the other of two things the
# conversation was about. Resolved by ``other_ordinal`` (after "the first one" of a list, the second) or by
# ``chat.services.enumeration.sibling_question`` (the sibling the book names beside the last question's subject:
# "shallow copy" → "deep copy").
OTHER_ONE = re.compile(
    r"^\s*(?:and|but|so|then|what about|how about|tell me about|explain)?\s*(?:the\s+)?other\s*"
    r"(?:one|kind|type|method|way|form|case|mode|side)?\s*(?:then)?\s*\??\s*$"
    r"|^\s*(?:그럼|그러면|그리고|그럼\s*이제)?\s*(?:다른|나머지)\s*(?:하나|것|거|건|쪽|방법|방식|경우|형태|종류)?\s*(?:은|는|도|요)?"
    r"\s*(?:뭐야|뭐예요|뭔가요|무엇인가요|설명해\s*줘|알려\s*줘)?\s*\??\s*$",
    re.IGNORECASE,
)
THE_OTHER_ONE = rules.register(
    rules.Rule(
        "followup:the-other-one",
        lambda question: bool(OTHER_ONE.match(question)),
        "And the other one?",
        "a follow-up about the other of two things, asked as the last question about its sibling",
    )
)[0]


def other_ordinal(question: str, memory: Memory) -> str:
    """ "The other one" after an ordinal follow-up over a list of two ("첫 번째 것은 뭐야?" → "다른 하나는?"): the
    other ordinal, asked in the question's language ("두 번째 것은?"); "" when the last turn named no first or
    second item."""
    previous = previous_turn(memory)
    ordinal = ordinal_of(previous["question"]) if previous else None
    if ordinal not in (1, 2) or re.search(r"\w-(?:first|second)\b|\b(?:first|second)-\w", previous["question"], re.IGNORECASE):
        # "What is depth-first search?" names no first item
        return ""
    other = 3 - ordinal
    return f"{_ORDINAL_WORDS_KO[other]} 번째 것은?" if re.search(r"[가-힣]", question) else f"And the {_ORDINAL_WORDS_EN[other]} one?"


# Every two-word phrase from a word's start, overlapping ("a shallow", "shallow copy"); a word starts after a space,
# so "depth-first search" is one, never "first search".
_PAIR_EN = re.compile(r"(?<!\S)(?=([A-Za-z][\w'-]*)[ -]([A-Za-z][\w'-]+)\b)")
_PAIR_KO = re.compile(r"(?<!\S)(?=(\S+)\s+([가-힣A-Za-z]+?)(?=[" + _PARTICLES + r"]?(?:\s|\?|$)))")
# Words that name no kind of anything, as a modifier or a head ("is a", "What is").
FUNCTION_WORDS = frozenset(lexicon.FUNCTION_WORDS_EN) | frozenset(lexicon.AUXILIARIES_EN)


def subject_phrases(question: str) -> list[tuple[str, str]]:
    """The two-word phrases of a question that may name its subject, as (modifier, head): "What is a shallow
    copy?" → ("shallow", "copy"); "빅 엔디안이 뭐야?" → ("빅", "엔디안"). Function words are neither."""
    function_words = FUNCTION_WORDS | {"what", "how", "why", "which", "who", "when"}
    pattern = _PAIR_KO if re.search(r"[가-힣]", question) else _PAIR_EN
    return [
        (match.group(1), match.group(2))
        for match in pattern.finditer(question)
        if match.group(1).casefold() not in function_words and match.group(2).casefold() not in function_words and len(match.group(2)) >= 2
    ]
