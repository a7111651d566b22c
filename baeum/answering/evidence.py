"""Sufficiency: whether the passages at hand can answer a question, or it is refused.

Coverage weighs the question's terms by rarity, a plausible vector match backs it, and a question whose
topic or names the materials never use is refused whatever else matches.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import combinations

from baeum import rules
from baeum.answering.answers import Passage
from baeum.answering.crosslingual import ANCHORED_VECTOR_SHARE, SHARED_TERMS_MIN_SHARE, crosses_languages, identifiers, shared_script_terms
from baeum.language import lexicon
from baeum.language.analysis import (
    QUESTION_FRAME_WORDS,
    camel_parts,
    content_terms,
    may_name_a_topic,
    named_phrases,
    named_terms,
    without_particle_forms,
    word_prefix,
)
from baeum.language.questions import COVERAGE_FRAME_WORDS, asks_if_covered
from baeum.language.text import is_hangul_heavy
from baeum.observers import Observed


def squeezed(text: str) -> str:
    """``text`` without whitespace, case-folded: what stays the same however a PDF spaced it."""
    return re.sub(r"\s+", "", text).casefold()


def found_terms(terms: list[str], text: str) -> set[str]:
    """Terms of ``terms`` present in ``text``: as analysed terms, or (for Korean compounds written
    without spaces, "인터럽트핸들러") as a substring of the text, both with spaces removed: a name Kiwi reads
    as one ("구리야마 히데키") is found however it is spaced."""
    analysed = set(content_terms(text))
    flat = squeezed(text)
    return {term for term in terms if term in analysed or (len(term) >= 2 and squeezed(term) in flat) or _period_found(term, analysed)}


# "fy2018", "q3": fiscal periods a question names the way filings' tables do not ("2018", "Three Months Ended").
FISCAL_PERIOD = re.compile(r"^fy(\d{2}|\d{4})$")


def _period_found(term: str, analysed: set[str]) -> bool:
    match = FISCAL_PERIOD.match(term)
    if not match:
        return False
    year = match.group(1)
    return year in analysed or (len(year) == 2 and f"20{year}" in analysed)


@dataclass(frozen=True)
class Evidence:
    coverage: float  # share of the question's weighted terms found in the best passage
    vector: float  # best cosine similarity among the passages
    sufficient: bool
    # Why: "covered", "strong-coverage", "low-coverage", "weak-meaning", "topic-missing", "names-missing",
    # "no-passages", "no-terms", "crosslingual:covered", "crosslingual:weak-meaning", "crosslingual:shared-terms-missing",
    # or what a caller decided on top ("follow-up:unknown-words", "session-overview", "never-mentioned").
    reason: str = ""
    missing: tuple[str, ...] = ()  # "never-mentioned", "names-missing": what the materials never mention ("Fibonacci heap")


SUFFICIENT_REASONS = frozenset({"covered", "strong-coverage", "crosslingual:covered", "session-overview"})


INTERROGATIVE_KO = re.compile(rf"^(?:{lexicon.alternation(lexicon.QUESTION_STEMS_KO)})")


# An arithmetic operator between two operands: " / ", " * ", ") / (", "divided by", "×", "÷", "나누기".
_OPERATOR = re.compile(r"(?:\s|\))[/*×÷](?:\s|\()|[×÷]|\bdivided\s+by\b|\bmultiplied\s+by\b|나누|곱한", re.IGNORECASE)

FORMULA = rules.register(
    rules.Rule(
        "evidence:formula-across-passages",
        lambda question: _OPERATOR.search(question) is not None,
        "What is FY2018 for Walmart? 365 * (average accounts payable) / (FY2018 COGS + change in inventory).",
        "a figure computed from others is covered by two passages together (its operands stand on several pages)",
    )
)[0]


# A question term carrying this share of the question's weight, found in no passage, decides alone.
TOPIC_WEIGHT_SHARE = 0.6


def asked_terms(question: str) -> list[str]:
    """The question's terms once each, without Kiwi's particle-glued duplicates, and without the words that
    only frame it unless nothing else is left ("What is the difference?")."""
    terms = without_particle_forms(list(dict.fromkeys(content_terms(question))))
    return [term for term in terms if term not in QUESTION_FRAME_WORDS] or terms


def judge_evidence(
    question: str,
    passages: list[Passage],
    *,
    min_coverage: float,
    min_vector: float | None,
    strong_coverage: float,
    known: Callable[[list[str]], set[str]] | None = None,
    pairs_known: Callable[[list[tuple[str, str]]], set[tuple[str, str]]] | None = None,
) -> Evidence:
    """Decide whether the passages can answer the question.

    Coverage weights each question term by its rarity in the passages at hand (a term that appears in
    every passage says little), so "What is X's population?" is not covered by passages that merely
    contain "population". Enough coverage with a plausible vector match, or very high coverage, is
    sufficient; anything else is refused. A vector match is plausible at ``min_vector`` when given,
    else at each passage's own ``vector_threshold`` (its embedding model's).
    """
    terms = asked_terms(question)
    if not passages or not terms:
        return Evidence(0.0, 0.0, False, "no-passages" if not passages else "no-terms")
    if crosses_languages(question, passages):
        evidence = _judge_across_languages(question, passages, min_vector=min_vector)
        missing = names_missing(question, passages, known, pairs_known)
        return replace(evidence, sufficient=False, reason="names-missing", missing=missing) if missing else evidence
    found_in = [found_terms(terms, passage.text) for passage in passages]
    total = len(found_in)
    weights = {term: math.log(1 + (total + 1) / (1 + sum(term in found for found in found_in))) for term in terms}
    weight_sum = sum(weights.values()) or 1.0
    coverage = max(sum(weights[term] for term in terms if term in found) / weight_sum for found in found_in)
    if rules.applies(FORMULA, question):
        # A figure computed from others ("FY2018 revenue / (average PP&E …)") stands on several pages (the
        # income statement, the balance sheet): the question is covered by the best two passages together.
        coverage = max(
            coverage,
            *(sum(weights[term] for term in terms if term in first | second) / weight_sum for first, second in combinations(found_in, 2)),
        )
    vector = max((passage.vector_score or 0.0) for passage in passages)
    plausible = any(
        passage.vector_score is not None
        and passage.vector_score >= (min_vector if min_vector is not None else passage.vector_threshold or 0.0)
        for passage in passages
    )
    # The word a question turns on ("광합성" in "광합성은 어떻게 일어나는가?") found in no passage: the
    # passages are about something else, however well the rest of the question matches.
    core = [
        term
        for term in terms
        if not any(other != term and len(other) >= 2 and term.startswith(other) for other in terms)  # "일어나는" is "일어나"
        and not INTERROGATIVE_KO.match(term)  # "무엇인" asks; it is not what the question is about
    ]
    core_sum = sum(weights[term] for term in core) or 1.0
    heavy_missing = [
        term
        for term in core
        if weights[term] / core_sum >= TOPIC_WEIGHT_SHARE
        and not any(term in found for found in found_in)
        and may_name_a_topic(term, question)
    ]
    # ...and nowhere in the materials either (``known``: the terms the learner's materials contain):
    # "used" in "What is a register used for?" is missing from the passages but not from the book.
    missing_topic = bool(heavy_missing) and known is not None and not (set(heavy_missing) & known(heavy_missing))
    # In one language a name's words are common words written apart in any book ("Doctor Who Christmas Specials" in a
    # Doctor Who article): its phrase is looked for across languages only (rule ``evidence:name-phrases``).
    missing_names = () if missing_topic else names_missing(question, passages, known)
    if missing_topic:
        reason = "topic-missing"
    elif missing_names:
        return Evidence(round(coverage, 4), round(vector, 4), False, "names-missing", missing_names)
    elif coverage >= strong_coverage:
        reason = "strong-coverage"
    elif coverage >= min_coverage:
        reason = "covered" if plausible else "weak-meaning"
    else:
        reason = "low-coverage"
    return Evidence(round(coverage, 4), round(vector, 4), reason in SUFFICIENT_REASONS, reason)


_ENGLISH_INTERROGATIVES = frozenset(lexicon.QUESTION_WORDS_EN)


# Words a follow-up asks with ("Give me one", "Tell me more", "Show me another"), whatever the materials say.
_ASKING_WORDS = frozenset("one ones give gives tell show more another other thing things something anything".split())


def unknown_topics(question: str, passages: list[Passage], known: Callable[[list[str]], set[str]]) -> list[str]:
    """The words ``question`` could be about that no passage holds and the learner's materials never use
    ("laptop" in "What's the best gaming laptop to buy this year?" over an assembly book)."""
    terms = [term for term in asked_terms(question) if term not in QUESTION_FRAME_WORDS]
    absent = [
        term
        for term in terms
        if len(term) > 1
        and not INTERROGATIVE_KO.match(term)
        and term not in _ENGLISH_INTERROGATIVES
        and term not in _ASKING_WORDS
        and "'" not in term
        and "’" not in term  # "can't", "i've": how it is asked
        and any(char.isalpha() for char in term)
        and may_name_a_topic(term, question)
        and not any(term in found_terms([term], passage.text) for passage in passages)
    ]
    return [term for term in absent if term not in known(absent)] if absent else []


def names_missing(
    question: str,
    passages: list[Passage],
    known: Callable[[list[str]], set[str]] | None,
    pairs_known: Callable[[list[tuple[str, str]]], set[tuple[str, str]]] | None = None,
) -> tuple[str, ...]:
    """The names of a question that names something ("How do I write an if statement in Rust?", "… in Java?"
    over a Korean book) when neither the passages nor the materials contain any of them (else none): the
    materials are about something else. One name found is enough ("Block (formerly known as Square)"); with
    ``pairs_known`` (across languages) a name of several words is found only where its words stand together
    (rule ``evidence:name-phrases``)."""
    names = [name for name in named_terms(question) if not FISCAL_PERIOD.match(name)]
    if not names or known is None:
        return ()
    if (any(found_terms(names, passage.text) for passage in passages) or known(names)) and not (
        pairs_known is not None and rules.applies(NAME_PHRASES, question, passages, known, pairs_known)
    ):
        return ()
    # As the question writes them, without a possessive ("Python's subprocess.run" never mentions "Python").
    shown = (re.sub(r"['’]s$", "", " ".join(words)) for words in _names_written(question))
    return tuple(dict.fromkeys(shown)) or tuple(names)


def _names_written(question: str) -> list[tuple[str, ...]]:
    """The names of ``question`` as it writes them, but a fiscal period ("FY2019") and a word that names nothing
    alone ("Who" is a name only with "Doctor": the pair is looked for as written)."""
    return [
        phrase
        for phrase in named_phrases(question)
        if any(content_terms(word) for word in phrase)
        and not any(FISCAL_PERIOD.match(term) for word in phrase for term in content_terms(word)[:1])
    ]


def _pair_written(first: str, second: str, text: str) -> bool:
    """Whether ``first`` and ``second`` stand side by side in ``text``, in any case and number."""

    pattern = rf"\b{re.escape(word_prefix(first))}\w*[\s-]+{re.escape(word_prefix(second))}"
    return re.search(pattern, text, re.IGNORECASE) is not None


def phrases_missing(
    question: str,
    passages: list[Passage],
    known: Callable[[list[str]], set[str]],
    pairs_known: Callable[[list[tuple[str, str]]], set[tuple[str, str]]],
) -> bool:
    """No name the question writes is in the passages or the materials, a name of several words counted only
    where its words stand together: "What does the Server Side Public License require from cloud providers?"
    over a Korean licence guide that writes "server", "public" and "License" in Latin but never this licence."""
    phrases = _names_written(question)
    if not any(len(words) > 1 for words in phrases):
        return False
    single = [content_terms(words[0])[0] for words in phrases if len(words) == 1]
    if single and (any(found_terms(single, passage.text) for passage in passages) or known(single)):
        return False
    pairs = list(dict.fromkeys(pair for words in phrases if len(words) > 1 for pair in zip(words, words[1:], strict=False)))
    written = {pair for pair in pairs if any(_pair_written(*pair, passage.text) for passage in passages)}
    unwritten = [pair for pair in pairs if pair not in written]
    found = written | (pairs_known(unwritten) if unwritten else set())
    return not any(all(pair in found for pair in zip(words, words[1:], strict=False)) for words in phrases if len(words) > 1)


NAME_PHRASES = rules.register(
    rules.Rule(
        "evidence:name-phrases",
        phrases_missing,
        "What does the Server Side Public License require from cloud providers?",
        "across languages, a name of several words is in the materials only where its words stand together",
    )
)[0]


def _written_in(name: str, text: str) -> bool:
    """Whether ``text`` writes the identifier ``name``: an acronym as it is ("CALL", not "call"), a name with
    lower-case letters in any case ("ifrOSS" in "IfrOSS(Institut …", "2others"), an option as a word ("-k")."""
    if name.startswith("-"):  # an option: as a word ("-k" is not in "--keep")
        return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text) is not None
    return name in text or (any(char.islower() for char in name) and name.casefold() in text.casefold())


def crosslingual_bar(passage: Passage, *, from_korean: bool) -> float | None:
    """The cosine a passage in another language than the question's must reach: the model's own bar for a Korean
    question where it has one (``crosslingual_similarity_from_korean``)."""
    if from_korean and passage.crosslingual_threshold_from_korean is not None:
        return passage.crosslingual_threshold_from_korean
    return passage.crosslingual_threshold


def written_names(question: str) -> list[tuple[str, ...]]:
    """The Latin-script words of a Korean question, each as the terms that name it whole: "SHA-256" is "sha-256" or
    "sha256", never its parts "sha" and "256" (a paper that writes "SHA-1" and "256 entries" never names it)."""
    shared = set(shared_script_terms(question))
    names = []
    for word, _, _ in _latin_words(question):
        terms = [term for term in dict.fromkeys(content_terms(word)) if term in shared]
        whole = tuple(term for term in terms if not any(term != other and term in other.split("-") for other in terms))
        if whole and whole not in names:
            names.append(whole)
    return names


def _shared_share(question: str, passages: list[Passage]) -> float:
    """The share of a Korean question's Latin-script terms the best passage holds: by whole names
    (``crosslingual:whole-names``, "SHA-256은 어떻게 동작해?" over a CRC paper that writes "SHA-1"), else by terms."""
    shared = shared_script_terms(question)
    if not shared:
        return 1.0
    found_in = [found_terms(shared, passage.text) for passage in passages]  # each passage analysed once
    share = max((len(found) for found in found_in), default=0) / len(shared)
    names = written_names(question) if is_hangul_heavy(question) and rules.is_on(WHOLE_NAMES) else []  # terms of ``shared``
    if not names:
        return share
    whole = max((sum(not found.isdisjoint(name) for name in names) for found in found_in), default=0) / len(names)
    if whole < SHARED_TERMS_MIN_SHARE <= share:
        rules.fired(WHOLE_NAMES.name)
    return whole


WHOLE_NAMES = rules.register(
    rules.Rule(
        "crosslingual:whole-names",
        lambda question: bool(written_names(question)),
        "SHA-256은 어떻게 동작해? (over a paper that writes SHA-1 and 256, never SHA-256)",
        "a Korean question's Latin-script name counts as found only whole, not by its parts",
    )
)[0]


def _judge_across_languages(question: str, passages: list[Passage], *, min_vector: float | None) -> Evidence:
    shared = shared_script_terms(question)
    share = _shared_share(question, passages)
    vector = max((passage.vector_score or 0.0) for passage in passages)
    # Identifiers the question names and a passage contains verbatim are evidence of their own: then a
    # weaker meaning match is enough (short pages, where a chunk mixes topics, score lower).
    names = identifiers(question)
    anchored = bool(names) and all(any(_written_in(name, passage.text) for passage in passages) for name in names)
    if not names and shared and is_hangul_heavy(question):
        # In a Korean question every Latin-script word is such a name ("NaN", "htonl", "vtable"), whatever its
        # case: each must be a word of a passage.
        anchored = all(any(term in content_terms(passage.text) for passage in passages) for term in shared)

    from_korean = is_hangul_heavy(question)

    def threshold(passage: Passage) -> float:
        base = (
            min_vector if min_vector is not None else crosslingual_bar(passage, from_korean=from_korean) or passage.vector_threshold or 0.0
        )
        return base * ANCHORED_VECTOR_SHARE if anchored else base

    plausible = any(passage.vector_score is not None and passage.vector_score >= threshold(passage) for passage in passages)
    if share < SHARED_TERMS_MIN_SHARE:
        reason = "crosslingual:shared-terms-missing"
    else:
        reason = "crosslingual:covered" if plausible else "crosslingual:weak-meaning"
    return Evidence(round(share, 4), round(vector, 4), plausible and share >= SHARED_TERMS_MIN_SHARE, reason)


# --- The decision's signals, for fitting a refusal model (``manage.py fit_weights --refusals``) -------------

# Every answer-or-refuse decision's signals, for an observer (``fit_weights --refusals``): ``DECISIONS.watching()``.
DECISIONS: Observed[dict] = Observed("baeum_observed_decisions")
observing_evidence = DECISIONS.watching
observe_evidence = DECISIONS.report


def evidence_signals(
    question: str, passages: list[Passage], evidence: Evidence, known: Callable[[list[str]], set[str]] | None, *, follow_up: bool
) -> dict:
    """The named signals behind an answer-or-refuse decision: what the rules decide on, as numbers."""
    across = bool(passages) and crosses_languages(question, passages)
    from_korean = is_hangul_heavy(question)

    def margin(passage: Passage) -> float:
        bar = (crosslingual_bar(passage, from_korean=from_korean) if across else None) or passage.vector_threshold or 0.0
        return passage.vector_score - bar

    names = [name for name in named_terms(question) if not FISCAL_PERIOD.match(name)]
    in_passages = {name for name in names if any(found_terms([name], passage.text) for passage in passages)}
    in_materials = known([name for name in names if name not in in_passages]) if known and len(in_passages) < len(names) else set()
    return {
        "coverage": evidence.coverage,
        "vector": evidence.vector,
        "vector_margin": max((margin(passage) for passage in passages if passage.vector_score is not None), default=-1.0),
        "crosslingual": float(across),
        "follow_up": float(follow_up),
        "names": float(len(names)),
        "names_found": (len(in_passages) + len(in_materials)) / len(names) if names else 1.0,
        "unknown_topics": float(len(unknown_topics(question, passages, known))) if known and passages else 0.0,
        "rules_answer": float(evidence.sufficient),
        "reason": evidence.reason,
    }


# --- "Does it also cover X?": the materials cover X only if they mention it ---------------------------------

# Words that qualify what is asked rather than name it ("a simple example of recursion"): never half of a name.
QUALIFIERS_EN = frozenset(
    "simple basic common different other main good best important new various general specific actual real typical "
    "same whole entire full short quick quickly easy hard detailed brief more much many some any every".split()
)
_LATIN_WORD = re.compile(r"(?<![\w+#-])[A-Za-z0-9](?:[A-Za-z0-9+#-]*[A-Za-z0-9+#])?")


def _name_pairs(question: str) -> list[tuple[str, str]]:
    """Two words written side by side in ``question`` that together may name one thing ("Fibonacci heap",
    "wavelet trees"), as lower-case index terms: neither a frame, a qualifier nor a verb form."""
    words = _latin_words(question)
    pairs = []
    for (first, _, first_end), (second, second_start, _) in zip(words, words[1:], strict=False):
        if question[first_end:second_start].strip() or first.isdigit() or second.isdigit():
            continue  # not side by side ("divide and conquer", "heap, stack"), or a number ("TLS 1.3")
        terms = [content_terms(word) for word in (first, second)]
        if not all(len(found) == 1 for found in terms):
            continue  # a stop word ("the heap") or a word the analyser splits
        pair = (terms[0][0], terms[1][0])
        if any(
            term in QUESTION_FRAME_WORDS or term in COVERAGE_FRAME_WORDS or term in QUALIFIERS_EN or not may_name_a_topic(term, question)
            for term in pair
        ):
            continue
        pairs.append((first, second))
    return pairs


_ACRONYM = re.compile(r"\b[A-Z][A-Z0-9+#]+\b")


def _acronyms(question: str) -> list[str]:
    return [term for token in _ACRONYM.findall(question) for term in content_terms(token)[:1]]


def _shown(question: str, missing: list[str]) -> list[str]:
    """The missing terms as the question writes them, each with the word it names a thing with ("skip lists"
    for "skip"; "Boyer-Moore" once for "boyer-moore", "boyer" and "moore")."""
    words = [_as_written(term, question) for term in missing]
    pairs = _name_pairs(question)
    # English names end in their noun: a missing word goes with the word after it ("skip lists", not "configure WireGuard").
    shown = [next((f"{first} {second}" for first, second in pairs if word == first), word) for word in words]
    shown = list(dict.fromkeys(shown))
    return [name for name in shown if not any(name != other and name.casefold() in other.casefold() for other in shown)]


def _without_compounds_mentioned(question: str, missing: list[str], present: set[str], known) -> list[str]:
    """``missing`` without the terms of a name written in parts whose every part the materials use:
    "ChaCha20-Poly1305" where the book writes "ChaCha-Poly1305" (its "chacha" and "poly1305"), "Rabin-Karp"
    where it writes "Karp–Rabin"; "post-quantum" stays missing where only "post" is used. A part ending in a
    number is also looked for without it ("chacha20" as "chacha")."""
    words = [word for word, _, _ in _latin_words(question)]
    # A name's parts are its hyphen's and dot's, not its camel case's ("cha" of "ChaCha20").
    split = [[term for term in content_terms(word) if term not in parts] for word in words for parts in (camel_parts(word),)]
    compounds = [terms for terms in split if len(terms) > 1 and set(terms) & set(missing)]
    parts_of = [[term for term in terms[1:] if not term.isdigit() and term != terms[0]] for terms in compounds]
    bare = {part: part.rstrip("0123456789") for parts in parts_of for part in parts}
    stems = {stem for stem in bare.values() if stem and stem not in present}
    used = present | (known(sorted(stems)) if stems else set())  # one lookup for every part of every name
    for terms, parts in zip(compounds, parts_of, strict=True):
        if parts and all(part in used or bare[part] in used for part in parts):
            missing = [term for term in missing if term not in terms]
    return missing


def _as_written(term: str, question: str) -> str:
    """``term`` as the question writes it ("WireGuard" for "wireguard"); a Korean term as analysed ("판례")."""
    if not term.isascii():
        return term
    return next((word for word, _, _ in _latin_words(question) if term in content_terms(word)), term)


def _latin_words(question: str) -> list[tuple[str, int, int]]:
    return [(match.group(0), match.start(), match.end()) for match in _LATIN_WORD.finditer(question)]


def names_never_written(question: str, known: Callable[[list[str]], set[str]]) -> list[str]:
    """The names a question writes that the materials (in another language) never write: a Korean question's
    Latin words ("KMP", "WireGuard"), an English one's names and acronyms ("SPDX", "WTFPL")."""
    written = shared_script_terms(question) if is_hangul_heavy(question) else named_terms(question) + _acronyms(question)
    names = [name for name in dict.fromkeys(written) if not FISCAL_PERIOD.match(name) and any(char.isalpha() for char in name)]
    present = known(names) if names else set()
    return list(dict.fromkeys(_as_written(name, question) for name in names if name not in present))


def never_mentioned(
    question: str,
    known: Callable[[list[str]], set[str]],
    pairs_known: Callable[[list[tuple[str, str]]], set[tuple[str, str]]],
    *,
    names_only: bool = False,
) -> list[str]:
    """What a question asking whether the materials cover something names that they never mention: a word
    ("WireGuard", "판례"), or two words that name one thing and never stand together ("Fibonacci heap",
    where "Fibonacci" and "heap" each do). With ``names_only`` (materials in another language than the
    question: "레드-블랙 트리" is not expected in an English book), only the names it writes ("KMP")."""
    if not asks_if_covered(question):
        return []
    if names_only:
        return names_never_written(question, known)
    parts = camel_parts(question)  # "WireGuard" is mentioned as a word, not as "wire" and "guard"
    terms = [
        term
        for term in asked_terms(question)
        if term not in parts
        and term not in COVERAGE_FRAME_WORDS
        and term not in QUALIFIERS_EN
        and term not in _ENGLISH_INTERROGATIVES
        and not INTERROGATIVE_KO.match(term)
        and any(char.isalpha() for char in term)
        and may_name_a_topic(term, question)
    ]
    if not terms:
        return []
    present = known(terms)
    missing = [term for term in terms if term not in present]
    missing = _without_compounds_mentioned(question, missing, present, known)
    if missing:
        return _shown(question, missing)
    pairs = _name_pairs(question)
    found = pairs_known(pairs) if pairs else set()
    return [f"{first} {second}" for first, second in pairs if (first, second) not in found]


# Counted and switchable like every rule (``--without evidence:never-mentioned``); its test returns what the
# materials never mention, or None.
NEVER_MENTIONED = rules.register(
    rules.Rule(
        "evidence:never-mentioned",
        lambda question, known=lambda terms: set(), pairs_known=lambda pairs: set(), names_only=False: (
            never_mentioned(question, known, pairs_known, names_only=names_only) or None
        ),
        "does it cover WireGuard?",
        "a question whether the materials cover something they never mention is answered no, not from nearby pages",
    )
)[0]
