"""Whether a sentence stands alone as a key point: named signals with weights fitted on readers' verdicts.

A key point is read on a list, away from its page. Readers failed sentences that start inside another
("는 특허분쟁으로부터 …", ", N −1 where …"), point back or at what the list cannot show ("Both solutions …",
"the command below"), are list items or instructions ("D. Preserve …", "Write a function …"), or carry a
page's debris ("…보호된다.186 이 …"). Each of those is a signal below, valued
from the sentence alone; how much each counts is fitted, not chosen: a logistic regression over readers'
verdicts on the tuning books' candidate sentences (``evaluation/study_judgements/tune_*.jsonl``), written to
``standing_weights.json`` by ``manage.py fit_standing`` and judged there on the readers' verdicts of books
on the check side. ``standing`` is that model's probability; the session's key points and the sentences its
questions are made from prefer sentences it rates as standing alone (``plans.services.session_content``).

Why scikit-learn's logistic regression: the verdicts are a few hundred, the signals a dozen and readable,
and the score must be a weighted sum the session page computes without a model runtime (as
``baeum.answering.weights``). scikit-learn is needed to fit, never to choose a key point.
"""

from __future__ import annotations

import json
import math
import re
from functools import cache
from pathlib import Path

from baeum.language import analysis, lexicon
from baeum.study.definitions import find_definitions

WEIGHTS_FILE = Path(__file__).with_name("standing_weights.json")

FEATURES = (
    "opens_pointing",  # "It …", "This …", "따라서 …", "Both …": goes on from the sentence before
    "opens_inside",  # a lowercase or punctuation start; Korean: a particle, an ending, a bound noun first
    "no_subject_verb",  # English: a capitalised word then an article ("Decode the class …"): an instruction or a blurb
    "definite_subject",  # English: "The lines are ordered …": a subject named by common words only, whose referent is elsewhere
    "no_finite_verb",  # English: no auxiliary and no -ed/-es/-s verb outside its relative clauses: a label
    "opens_example",  # "For example, …", "In this case …", "여기서 …", "이 경우 …": about an example or a case shown nearby
    "list_marker",  # "D. …", "3) …", "• …"
    "points_elsewhere",  # "below", "the following", "listing 5", "다음과 같이", "아래의"
    "demonstrative",  # "this License", "the function"; Korean 이/그/해당 before a noun
    "glued_number",  # a footnote's number after a sentence's end or between Korean words
    "unbalanced",  # brackets or quotation marks left open
    "identifiers",  # share of words written as code: CAPS_WITH_UNDERSCORES, snake_case, dotted.names
    "defines",  # the sentence defines a term ("A stack is …", "…이라고 한다")
    "instruction",  # an exercise's or a manual's instruction: "Write a function …", "Hint: …", "…해 보시오."
    "asks",  # a question, not a statement: "What happens if …?"
)

_AUXILIARY = re.compile(rf"\b(?:{lexicon.alternation(lexicon.AUXILIARIES_EN)})\b", re.IGNORECASE)
_RELATIVE = re.compile(rf"\s(?:{lexicon.alternation(lexicon.RELATIVE_OPENERS_EN)})\s[^,;]*", re.IGNORECASE)
_OPENERS = frozenset(lexicon.SENTENCE_OPENERS_EN)
_POINTING = re.compile(
    rf"^(?:{lexicon.alternation(lexicon.CONNECTIVES_EN)}|{lexicon.alternation(lexicon.POINTING_EN)}|such|both|because|"
    r"nevertheless|moreover|furthermore|instead|otherwise)\b"
    rf"|^(?:{lexicon.alternation(lexicon.CONNECTIVES_KO)}|이것|이는|이를|이와|이러한|이런|그것|그러한|그런|왜냐하면|다시 말해|게다가|반면|이들)"
    r"(?:\s|,|[이은는을를가의도A-Za-z0-9(])|^(?:이|그|저)\s",
    re.IGNORECASE,
)
_OPENS_EXAMPLE = re.compile(
    r"^(?:for example|for instance|e\.g\.|in this case|in that case|in either case|in this chapter|in this section|"
    r"in the (?:previous|next|following|last) (?:example|section|chapter)|here,|when that happens|more generally|"
    r"since \d|as an exercise|an alternative\b)"
    r"|^(?:예를 들(?:어|면)|이 경우|이런 경우|그 경우|이 장에서|이 절에서|여기서|여기에서|앞에서|앞서|이때|이 때|사실상)",
    re.IGNORECASE,
)
_LIST = re.compile(r"^(?:[A-Z]\.|\d{1,2}[.)])\s|^[•·◦▪‣–-]\s|\s[•◦▪‣]\s")
_ELSEWHERE = re.compile(
    r"\b(?:below|above|the following|as follows)\b|\b(?:listing|figure|table|fig\.)\s*\d|다음(?:과|의)? 같|아래(?:의|와|에)|위(?:의|와) 같",
    re.IGNORECASE,
)
_DEMONSTRATIVE_EN = re.compile(
    r"\b(?:this|these|those|said)\s+(?!as\b|is\b|was\b|way\b|case\b|book\b|chapter\b|section\b|document\b)[a-z]"
    r"|\bthe (?:function|method|command|routine|former|latter)\b",
    re.IGNORECASE,
)
_COUNTER = rf"(?:{lexicon.alternation(lexicon.COUNTERS_KO)})"
_GLUED_NUMBER = re.compile(
    r"(?<=[a-z가-힣])[.!?][\"'”’)]*\d{1,3}(?:\s|$)|다\s?\d{1,3}\s|[가-힣] \d{2,3} [가-힣]|^\d{1,3}\s+(?![가-힣]*" + _COUNTER + r"|[a-z])\S"
)
_INSTRUCTION = re.compile(
    r"^(?:exercise|hint|note|write|modify|rewrite|use|try|create|define|implement|add|change|run|type|compute|find|draw|"
    r"make|read|test|call|print|download|go|look|consider|suppose|imagine|show|prove|check|enter|save|open|see|remember|"
    r"notice|compare|start|repeat|fix|replace|encapsulate|generalize|generalise)\b"
    r"|(?:하시오|하세요|보시오|보세요|하라|보라|보자|봅시다|바랍니다|해야 한다)[.!?]?$",
    re.IGNORECASE,
)
# "The lines are ordered by glob weight.", "The first argument is a pointer …": "The" and up to four lowercase words, then
# the verb. A name, a number or code in the subject ("The EAX mode is …", "The 80386 has …") names what it is about.
_DEFINITE_SUBJECT = re.compile(rf"^The (?:[a-z][a-z-]*,? ){{0,4}}?(?:{lexicon.alternation(lexicon.AUXILIARIES_EN)}|[a-z]{{3,}}(?:s|ed))\b")
_CODE_WORD = re.compile(r"^(?:[A-Z0-9]+_[A-Z0-9_]+|[a-z0-9]+_[a-z0-9_]+|\w+\.\w+\(?.*|\w+\(\)?)$")


def features(sentence: str) -> dict[str, float]:
    """The sentence's signals, each 0..1."""
    text = sentence.strip()
    words = text.split()
    korean = bool(re.search(r"[가-힣]", text))
    main = _RELATIVE.sub(" ", text)
    latin = re.findall(r"[A-Za-z][A-Za-z'-]*", main)
    morphemes = analysis.tokens(text) if korean else []
    tokens = morphemes if re.match(r"[가-힣]", text) else []
    opens_inside = (
        not text[:1].isalnum()
        and text[:1] not in "“\"‘'"
        or text[:1].islower()
        or bool(tokens)
        and tokens[0].tag.startswith(("J", "E", "XS", "NNB", "VX"))
        or bool(re.match(r"[은는을를의에와과도로가]\s", text))
    )
    demonstrative = bool(_DEMONSTRATIVE_EN.search(text)) or (
        korean and any(token.tag == "MM" and token.form in ("이", "그", "저", "해당") for token in morphemes)
    )
    return {
        "opens_pointing": float(bool(_POINTING.match(text))),
        "opens_inside": float(opens_inside),
        "no_subject_verb": float(
            not korean
            and len(latin) >= 2
            and latin[1].casefold() in ("the", "a", "an", "all", "each", "every", "any")
            and latin[0].casefold() not in _OPENERS
            and not latin[0].casefold().endswith("ly")
            and not re.match(rf"{re.escape(latin[0])}\s*,", main.lstrip())
        ),
        "definite_subject": float(bool(_DEFINITE_SUBJECT.match(text))),
        "no_finite_verb": float(
            not korean and not _AUXILIARY.search(main) and not any(re.fullmatch(r"[a-z]{3,}(?:ed|es|s)", word) for word in latin[1:])
        ),
        "opens_example": float(bool(_OPENS_EXAMPLE.match(text))),
        "list_marker": float(bool(_LIST.search(text))),
        "points_elsewhere": float(bool(_ELSEWHERE.search(text))),
        "demonstrative": float(demonstrative),
        "glued_number": float(bool(_GLUED_NUMBER.search(text))),
        "unbalanced": float(text.count("(") != text.count(")") or text.count("“") != text.count("”") or text.count("[") != text.count("]")),
        "identifiers": sum(bool(_CODE_WORD.match(word.strip(".,;:()"))) for word in words) / max(1, len(words)),
        "defines": float(bool(find_definitions(text))),
        "instruction": float(bool(_INSTRUCTION.search(text))),
        "asks": float(text.rstrip().endswith("?")),
    }


@cache
def _model() -> dict:
    """The shipped fit: ``intercept``, ``weights`` and ``bar``, read once."""
    return json.loads(WEIGHTS_FILE.read_text(encoding="utf-8"))


def standing(sentence: str) -> float:
    """The fitted probability that a reader finds ``sentence`` standing alone as a key point."""
    intercept, weights = _model()["intercept"], _model()["weights"]
    values = features(sentence)
    logit = intercept + sum(weights[name] * values[name] for name in FEATURES)
    return 1 / (1 + math.exp(-logit))


# A sentence rated below this is chosen as a key point, or made a question, only when too few others are left. The
# bar is fitted with the weights (``fit_standing``): the best precision on the tuning verdicts that keeps 85 % of
# the sentences readers passed.
STANDS_ALONE = float(_model().get("bar", 0.5))
