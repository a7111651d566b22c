"""The check every answer must pass, whoever wrote it: each claim cites a passage of this turn that supports
it and does not contradict it (a number the passages never state, a negation, an opposite word).

An LLM may phrase an answer; only this check decides whether it is grounded.
"""

from __future__ import annotations

import re
from dataclasses import replace

from baeum.answering.answers import CITATION, Answer, Citation, Passage, citation_for
from baeum.answering.crosslingual import NOTE_PREFIX
from baeum.answering.quoting import passage_sentences, quotable
from baeum.answering.sentences import MIN_SENTENCE_CHARS
from baeum.extraction.tables import superscript_references
from baeum.language.analysis import (
    content_terms,
)
from baeum.language.text import sentence_spans


def best_quote(claim: str, passage: Passage) -> tuple[str, float]:
    """Return the passage sentence that best supports ``claim`` and its term overlap (0..1)."""
    claim_terms = set(content_terms(claim))
    best, best_overlap = "", 0.0
    for sentence in map(quotable, passage_sentences(passage)):  # as an answer quotes it: no code or heading glued before
        terms = set(content_terms(sentence))
        if not claim_terms or not terms:
            continue
        overlap = len(claim_terms & terms) / len(claim_terms)
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    return best, best_overlap


_LEADING_CITATIONS = re.compile(r"^((?:\s*\[\d{1,2}\])+)[.,;:]?\s*")


def _claims(text: str) -> list[str]:
    """Split an answer into claims, keeping each ``[n]`` with the sentence it follows
    ("X. [1] Y [2]." → "X. [1]", "Y [2].")."""
    claims: list[str] = []
    for line in text.split("\n"):
        if line.startswith(NOTE_PREFIX):
            continue  # a note about the answer (its language), not a claim
        for start, end in sentence_spans(line):
            sentence = line[start:end].strip()
            match = _LEADING_CITATIONS.match(sentence)
            if match and claims:
                claims[-1] += " " + match.group(1).strip()
                sentence = sentence[match.end() :].strip()
            if sentence:
                claims.append(sentence)
    return claims


_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?!\w)")


# Number words above one ("one" is as often a pronoun as a number); baeum.study.grading adds zero and one.
NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
                "eleven": "11", "twelve": "12", "sixteen": "16", "thirty-two": "32", "sixty-four": "64"}  # fmt: skip


_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without|cannot)\b|n't\b|없|않|못하|못한|아니", re.IGNORECASE)


# Words whose swap turns a sentence into its opposite (English stems, Korean morphemes or strings).
_OPPOSITES_EN = [("increas", "decreas"), ("first-in", "last-in"), ("most significant", "least significant"), ("upward", "downward"),
                 ("higher", "lower"), ("minimum", "maximum"), ("smallest", "largest"), ("before", "after"), ("inside", "outside")]  # fmt: skip


_OPPOSITES_KO = [({"늘어나", "늘리", "늘"}, {"줄이", "줄어들", "줄"}), ({"증가"}, {"감소"}), ({"최대"}, {"최소"}), ({"높"}, {"낮"})]


_OPPOSITE_STRINGS_KO = [("선입", "후입"), ("최상위", "최하위"), ("이전", "이후")]


def numbers_in(text: str) -> set[str]:
    """The numbers a text states: digits (1,577 = 1577; 4-bit → 4) and English number words above one."""
    found = {match.replace(",", "") for match in _NUMBER.findall(text)}
    found |= {NUMBER_WORDS[word] for word in re.findall(r"[a-z]+(?:-[a-z]+)?", text.casefold()) if word in NUMBER_WORDS}
    return found


def contradicts(claim: str, passages: list[Passage]) -> str:
    """Why ``claim`` says something its cited passages do not, or "": a number they never state, a
    negation their best-matching sentence does not have (or lacks one it has), or an opposite word
    ("decreasing" where the text says "increasing", "선입" for "후입")."""
    cited = " ".join(passage.text for passage in passages)
    missing = numbers_in(claim) - numbers_in(cited)
    if missing:
        return f"number {sorted(missing)[0]} is not in the source"
    sentence = max((best_quote(claim, passage) for passage in passages), key=lambda item: item[1])[0] or cited
    if len(_NEGATION.findall(claim)) % 2 != len(_NEGATION.findall(sentence)) % 2:
        return "negation differs from the source"
    lowered_claim, lowered_sentence = claim.casefold(), sentence.casefold()
    for first, second in _OPPOSITES_EN + [(second, first) for first, second in _OPPOSITES_EN]:
        if first in lowered_claim and second in lowered_sentence and first not in lowered_sentence:
            return f"“{first}” where the source says “{second}”"
    for first, second in _OPPOSITE_STRINGS_KO + [(second, first) for first, second in _OPPOSITE_STRINGS_KO]:
        if first in claim and second in sentence and first not in sentence:
            return f"“{first}” where the source says “{second}”"
    claim_terms, sentence_terms = set(content_terms(claim)), set(content_terms(sentence))
    for first, second in _OPPOSITES_KO + [(second, first) for first, second in _OPPOSITES_KO]:
        if claim_terms & first and sentence_terms & second and not sentence_terms & first:
            return f"“{sorted(claim_terms & first)[0]}” where the source says “{sorted(sentence_terms & second)[0]}”"
    return ""


# Where a claim ends in an answer still being written: a full stop (with the citations after it) or a
# line break, then the start of the next sentence.
_CLAIM_BOUNDARY = re.compile(r"(?:[.!?。](?:\s*\[\d{1,2}\])*\s+|\n+\s*)(?=[^\s\[])")


def complete_claims_end(text: str, start: int = 0) -> int:
    """How far ``text`` — a model's answer as it streams — holds whole claims from ``start``: up to the
    start of the sentence still being written (``start`` when none is complete)."""
    end = start
    for match in _CLAIM_BOUNDARY.finditer(text, start):
        end = match.end()
    return end


def claims_problem(text: str, passages: list[Passage]) -> str:
    """The first reason the claims in ``text`` do not stand (see ``ground_check``), or ""."""
    _, _, problems = ground_check(text, passages)
    return problems[0] if problems else ""


def _quoted_verbatim(claim: str, passages: list[Passage]) -> bool:
    """Whether ``claim`` is a passage's own sentence, word for word (spacing aside): a quote cannot
    contradict its source, though its negation may differ from the sentence ``best_quote`` picks
    ("Now the parameter is at ESP + 8 not ESP + 4." beside "ESP + 8 Parameter")."""
    words = " ".join(superscript_references(claim).split())
    return len(words) >= MIN_SENTENCE_CHARS and any(words in " ".join(superscript_references(passage.text).split()) for passage in passages)


def _whole_line(claim: str, passage: Passage) -> str:
    """The line of ``passage`` that ``claim`` is, word for word (a table's row: "Total current assets 16,525 15,134"),
    as the passage writes it; "" when it is none. A row is quoted alone, not the whole table its "sentence" is, so
    the viewer marks the row."""
    words = " ".join(superscript_references(claim).split())
    if len(words) < MIN_SENTENCE_CHARS:
        return ""
    return next((line.strip() for line in passage.text.split("\n") if " ".join(line.split()) == words), "")


def in_reading_order(answer: Answer) -> Answer:
    """``answer`` with its citations numbered 1, 2, 3 in the order the text first cites them (an extract
    cites passages by their retrieval rank: "[3] … [1]" read as skipped and out of order)."""
    order: dict[int, int] = {}
    for match in CITATION.finditer(answer.text):
        order.setdefault(int(match.group(1)), len(order) + 1)
    if all(old == new for old, new in order.items()):
        return answer
    return replace(
        answer,
        text=CITATION.sub(lambda match: f"[{order.get(int(match.group(1)), int(match.group(1)))}]", answer.text),
        citations=sorted((replace(citation, n=order.get(citation.n, citation.n)) for citation in answer.citations), key=lambda c: c.n),
    )


def ground_check(answer_text: str, passages: list[Passage], *, min_support: float = 0.5) -> tuple[bool, list[Citation], list[str]]:
    """Check that every claim cites a passage of this turn that supports it.

    Returns ``(grounded, citations, problems)``. A sentence with fewer than three content terms
    (a connective such as "In short:") needs no citation; every other sentence needs at least one
    ``[n]`` that exists, and the cited passages together must contain at least ``min_support`` of
    its terms. The quote of each citation is the cited passage's best-supporting sentence, verbatim.
    """
    by_number = {passage.n: passage for passage in passages}
    problems: list[str] = []
    citations: dict[int, Citation] = {}
    text = answer_text.strip()
    if not text:
        return False, [], ["empty answer"]
    for sentence in _claims(text):
        numbers = [int(number) for number in CITATION.findall(sentence)]
        claim = CITATION.sub("", sentence).strip()
        claim_terms = set(content_terms(claim))
        if not numbers:
            if len(claim_terms) >= 3:
                problems.append(f"uncited claim: {claim[:80]}")
            continue
        unknown = [number for number in numbers if number not in by_number]
        if unknown:
            problems.append(f"cites passage(s) {unknown} that were not retrieved")
            continue
        cited_terms = set().union(*(set(content_terms(by_number[number].text)) for number in numbers))
        if claim_terms and len(claim_terms & cited_terms) / len(claim_terms) < min_support:
            problems.append(f"not supported by [{', '.join(map(str, numbers))}]: {claim[:80]}")
            continue
        cited = [by_number[number] for number in numbers]
        contradiction = "" if _quoted_verbatim(claim, cited) else contradicts(claim, cited)
        if contradiction:
            problems.append(f"contradicts [{', '.join(map(str, numbers))}] ({contradiction}): {claim[:80]}")
            continue
        for number in numbers:
            quote = _whole_line(claim, by_number[number]) or best_quote(claim, by_number[number])[0]
            if quote:
                citations[number] = citation_for(by_number[number], quote, citations.get(number))
    return not problems and bool(citations), sorted(citations.values(), key=lambda c: c.n), problems
