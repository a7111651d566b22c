"""How ``eval_study`` judges what a plan shows a learner: key points, questions and objectives.

These are the judge, written apart from the generator's own filters (``plans.services.session_content``,
``baeum.study.quiz``) and never imported by them: a check the generator also applied would pass by
construction and measure nothing. Each check returns the name of what is wrong, or None.

- ``key_point_problem``: a key point is a sentence of the book's prose that stands alone: not a duplicate of
  another in its session, not an exercise or instruction ("Write a function called circle…", "Hint: …",
  "…해 보시오."), not code, not a caption ("Figure 3.1 …"), not a fragment (no sentence end, a lowercase
  start, a page number or running head glued in: "Definitions and uses 21 And then …"), and not a sentence
  that goes on from the one before ("This data is…", "따라서 …").
- ``question_problem``: a question can be answered from what it shows: no page debris in it ("What is 1 The
  distance called?"); a short answer is a name, not "after V"; a multiple choice never contains its
  answer in its stem; a blank keeps at least ``MIN_WORDS_LEFT`` words of its sentence and does not open by
  pointing back at text the learner does not see ("It", "This", "그", "처음의").
- ``objective_matched``: an objective names something its session's key points or questions teach.
"""

from __future__ import annotations

import re
import unicodedata

from baeum.language.analysis import content_terms

BLANK = "_____"
MIN_WORDS_LEFT = 4  # words of a blank's sentence besides the blank, for a reader to know what is asked

_EXERCISE = re.compile(
    r"^(?:exercise|hint|note|write|modify|rewrite|use|try|create|define|implement|add|change|run|type|compute|find|draw|make|"
    r"read|test|call|print|download|go|look|consider|suppose|imagine|show|prove|check|enter|save|open)\b"
    r"|(?:하시오|하세요|보시오|보세요|하라|보라|보자|봅시다|바랍니다)[.!?]?$",
    re.IGNORECASE,
)
# Code syntax, not a name from code in a sentence ("When cat_twice terminates, …" is prose about code).
# A semicolon inside a sentence is prose ("…an empty list; you can create one…"); one that ends it is code.
_CODE = re.compile(r"\w\([^)]*\)|[{}]|;\s*$|==|!=|=>|->|>>>|::|\b\w+\.\w+\(|^\s*[$#>]\s|\w\s*=\s*\w")
_CAPTION = re.compile(r"^(?:figure|fig\.|table|listing|그림|표)\s*\d", re.IGNORECASE)
_DEBRIS = re.compile(r"[a-z]{2,} \d{1,4} [A-Z][a-z]|\b(?:Chapter|CHAPTER)\s+\d+\s+\S")
_SENTENCE_END = re.compile(r"[.!?。)\"'”’]$")
_GOES_ON = re.compile(
    r"^(?:this|these|that|those|it|its|they|their|such|however|therefore|thus|hence|so|but|and|also|then|here)\b"
    r"|^(?:그러나|따라서|또한|그래서|그리고|하지만|즉|이것|이는|이를|이러한|이런|그것|그러한|그런|위의|앞의|처음의|이|그)(?:\s|,)",
    re.IGNORECASE,
)


def said(text: str) -> str:
    """``text`` as compared: NFKC, case-folded, no spacing or punctuation."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())


def key_point_problem(text: str, seen: set[str]) -> str | None:
    """What keeps ``text`` from standing alone as a key point (``seen``: the session's earlier key points, said)."""
    text = text.strip()
    if said(text) in seen:
        return "duplicate"
    if _EXERCISE.search(text):
        return "exercise"
    if _CODE.search(text):
        return "code"
    if _CAPTION.match(text):
        return "caption"
    if not _SENTENCE_END.search(text) or text[:1].islower() or _DEBRIS.search(text):
        return "fragment"
    if _GOES_ON.match(text):
        return "goes-on"
    return None


# A page's debris inside a question: a footnote's number before a capitalised word ("What is 1 The distance
# called?"), a page number glued between words.
_QUESTION_DEBRIS = re.compile(r"(?<=\w )\d{1,3} (?:The|A|An|In|It|This)\b|[a-z]{2,} \d{1,4} [A-Z][a-z]")
# A short answer that is not a name: it opens with a preposition ("after V" of "… is named after V. Levenshtein").
_NOT_A_NAME = re.compile(r"^(?:after|by|from|of|to|with)\s", re.IGNORECASE)


def question_problem(kind: str, question: str, answer: str, choices: list[str] | None = None) -> str | None:
    """What keeps a question from being answerable from what it shows."""
    stem = question.strip()
    if _QUESTION_DEBRIS.search(stem):
        return "question-debris"
    if kind == "short_answer" and _NOT_A_NAME.match(answer.strip()):
        return "answer-not-a-name"
    if kind == "choice" and said(answer) and said(answer) in said(stem.replace(BLANK, " ")):
        return "choice-contains-answer"
    if BLANK in stem:
        left = [word for word in stem.replace(BLANK, " ").split() if any(character.isalnum() for character in word)]
        if len(left) < MIN_WORDS_LEFT:
            return "blank-too-little-left"
        if _GOES_ON.match(stem):
            return "blank-needs-context"
    return None


GENERIC_OBJECTIVE_WORDS = frozenset(
    "explain describe understand know learn identify use apply compare define list name recognise recognize "
    "설명 설명하기 이해 이해하기 알기 구분 구분하기 비교 비교하기 정의 정의하기 사용 사용하기 익히기".split()
)


def objective_matched(objective: str, taught: list[str]) -> bool:
    """Whether ``objective`` names a term of its session's key points or questions (``taught``)."""
    wanted = {term for term in content_terms(objective) if term.casefold() not in GENERIC_OBJECTIVE_WORDS and len(term) > 1}
    if not wanted:
        return False
    taught_terms = {term for text in taught for term in content_terms(text)}
    return bool(wanted & taught_terms)
