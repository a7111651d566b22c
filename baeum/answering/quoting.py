"""The part of a passage sentence an answer quotes: without a title line, a code listing, a worked formula or
an interpreter session glued before it by a lost line break, or a footnote marker after it; always a
verbatim piece of the page, so the citation's quote is found there.
"""

from __future__ import annotations

import re

from baeum import rules
from baeum.answering.answers import Passage
from baeum.answering.sentences import PROSE_WORD, is_code, is_heading
from baeum.language.text import sentence_spans


def quoted_sentence(passage: Passage, start: int, end: int) -> tuple[str, bool]:
    """The passage's sentence at ``start:end`` as an answer quotes it (``quotable``), and whether it is an
    aside: a footnote's ("5 Actually, reversing …"), or front or back matter (a title page, an index). A
    line of code (set in a fixed-pitch font) is no sentence to quote: "" for it."""
    if any(first <= start < last for first, last in passage.code_spans):
        return "", False
    note = any(first <= start < last for first, last in passage.note_spans)
    return quotable(passage.text[start:end], note=note), note or bool(passage.matter)


def passage_sentences(passage: Passage) -> list[str]:
    return [passage.text[start:end] for start, end in sentence_spans(passage.text)]


_GLUED_HEADING = re.compile(
    r"^(?P<heading>[A-Z][\w’'-]*(?:\s+(?:[a-z][\w’'-]*|[A-Z][a-z][\w’'-]*)){0,5})\s+(?:The|A|An|This|These|In|We|It|If|When|For|Here|There)\s"
)


_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|can|will|would|does|do|did|may|must|should)\b")


# A footnote marker PDFium glued after a sentence's full stop ("the opposite transformation.5").
_FOOTNOTE_MARKER_AT_END = re.compile(r"(?<=[a-z]{2}[.!?])\d{1,2}$")


_NOTE_NUMBER = re.compile(r"^\d{1,3}\)?\s+(?=\S)")


def quotable(sentence: str, *, note: bool = False) -> str:
    """The part of a passage sentence an answer quotes: without a title line glued before it, a footnote
    marker after it or, in a footnote, its number ("10 GNU is …"); still a verbatim piece of the page, so
    the citation's quote is found there. The cleaners run in ``CLEANERS`` order."""
    for cleaner in CLEANERS:
        sentence = rules.cleaned(cleaner, sentence)
    return rules.cleaned(NOTE_NUMBER, sentence) if note else sentence


def _without_leading_formula(sentence: str) -> str:
    """Drop a worked formula glued before a sentence by a lost line break ("110.0112 = 4 + 2 + 0.25 = 6.375
    Converting from decimal to binary is …", "2BD16 = 2 × 162 + 11 × 161 = 701 To convert …"): words up to
    the first capitalised one, holding an "=" and no word of prose."""
    words = sentence.split(" ")
    for index, word in enumerate(words[:40]):
        if index and re.match(r"[A-Z][a-z]", word):
            head = words[:index]
            if "=" in head and not any(PROSE_WORD.fullmatch(re.sub(r"[^\w]", "", part)) for part in head):
                return " ".join(words[index:])
            return sentence
    return sentence


def _without_leading_listing(sentence: str) -> str:
    """Drop a code listing or a figure's numbers glued before a sentence by a lost line break ("6 ror ax, 1 ;
    ax = C123H, CF = 1 There are two additional rotate instructions …", "110 0000 0101 1010 0111 11102 6 0 5 A
    7 E16 A 4-bit number is called a nibble ."): the words before the first capitalised one that starts prose,
    when they are code, or numbers and capitals only ("In 1990 The …" and "x86 Assembly …" keep theirs)."""
    words = sentence.split(" ")
    for index in range(1, min(len(words) - 2, 60)):
        if not (re.fullmatch(r"[A-Z][a-z]*", words[index]) and all(re.search(r"[a-z]{2}", word) for word in words[index + 1 : index + 3])):
            continue
        head = words[:index]
        numbers = (
            len(head) >= 3  # a figure's row, not a year or a line number ("2003 Korean users …")
            and any(char.isdigit() for word in head for char in word)
            and not any(char.islower() for word in head for char in word)
        )
        if numbers or is_code(" ".join(head)):
            return " ".join(words[index:])
        return sentence
    return sentence


def without_leading_heading(sentence: str) -> str:
    """Drop a title line glued to its sentence by a single line break ("Chapter 1 Registers\\nA register is …")."""
    first, separator, rest = sentence.partition("\n")
    if separator and rest.strip() and is_heading(first):
        return rest.strip()
    glued = _GLUED_HEADING.match(sentence)  # the line break lost: "Signed magnitude The first method is …"
    if glued and not _VERB.search(glued.group("heading")):
        return sentence[glued.end("heading") :].strip()
    return sentence


# What is cut off a passage sentence before it is quoted, in this order (each a verbatim piece stays).
CLEANERS = rules.register(
    rules.Rule(
        "quote:glued-heading", lambda sentence: without_leading_heading(sentence), "Chapter 1 Registers\nA register is a very fast store.",
        "a title line glued to its sentence",
    ),
    rules.Rule(
        "quote:leading-formula", lambda sentence: _without_leading_formula(sentence),
        "110.0112 = 4 + 2 + 0.25 = 6.375 Converting from decimal to binary is simple.", "a worked formula glued before it",
    ),
    rules.Rule(
        "quote:leading-listing", lambda sentence: _without_leading_listing(sentence),
        "6 ror ax, 1 ; ax = C123H, CF = 1 There are two additional rotate instructions.", "a code listing or a figure's numbers before it",
    ),
    rules.Rule(
        "quote:footnote-marker", lambda sentence: _FOOTNOTE_MARKER_AT_END.sub("", sentence), "the opposite transformation.5",
        "a footnote marker glued after its full stop",
    ),
)  # fmt: skip
NOTE_NUMBER = rules.register(
    rules.Rule(
        "quote:note-number", lambda sentence: _NOTE_NUMBER.sub("", sentence), "10 GNU is a free operating system.", "a footnote's number"
    )
)[0]
