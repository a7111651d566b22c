"""An example the learner asks for ("give me an example", "예를 들어줘"), without the database: the listing a passage
of the answer shows, quoted as code under the prose.

A walkthrough over Node's child_process page asked "give me an example" and "give me an example of exec" and was
answered with option descriptions, though the page holds dozens of listings: code is never quoted as a sentence,
so the answer had no way to show one.
"""

from __future__ import annotations

import re

from baeum import rules
from baeum.answering.answers import Passage
from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy

_ASKS_FOR_EXAMPLE = re.compile(
    r"\b(?:examples?|e\.g\.|sample\s+code|code\s+sample|snippet|show\s+me\s+(?:the\s+|some\s+)?code|demonstrat\w*)\b"
    r"|예(?:를|시|제)|코드\s*(?:로|를|좀)?\s*보여",
    re.IGNORECASE,
)
EXAMPLE_LISTING = rules.register(
    rules.Rule(
        "answer:example-listing",
        lambda question: bool(_ASKS_FOR_EXAMPLE.search(question)),
        "give me an example of exec",
        "an example asked for: the answer's passage's listing is shown as code under the prose",
    )
)[0]
EXAMPLE_MAX_LINES = 20  # a listing longer than this is cut, with "…" (the viewer shows it whole)
EXAMPLE_MIN_CHARS = 15  # shorter code ("ls") is an inline name, not an example
# A line of a table the reader kept as code ("Ctrl+6 | Redo previous change | …"): no example.
_TABLE_ROW = re.compile(r"\s\|\s")
FENCE = "```"


def listings(passage: Passage) -> list[tuple[int, int]]:
    """The passage's listings: its code spans, those with only blank space between them merged."""
    merged: list[list[int]] = []
    for start, end in sorted(passage.code_spans):
        if merged and not passage.text[merged[-1][1] : start].strip():
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [(start, end) for start, end in merged]


def example_listing(passages: list[Passage], asked: str) -> tuple[Passage, list[str]] | None:
    """The listing that best shows what is ``asked`` (the question made to stand alone): the one whose code and the
    prose before it (back to the listing before) share most of its terms, the first passage's on a tie; its lines
    as the passage stores them (spaces collapsed), at most ``EXAMPLE_MAX_LINES``. None when no listing shares a term
    (a listing about something else is no example of this)."""
    terms = set(content_terms(asked))
    best, best_shared = None, 0
    for passage in passages:
        at = 0
        for start, end in listings(passage):
            code = passage.text[start:end]
            lead, at = passage.text[at:start], end
            if len(code.strip()) < EXAMPLE_MIN_CHARS or all(_TABLE_ROW.search(line) for line in code.split("\n") if line.strip()):
                continue
            shared = len(terms & set(content_terms(f"{lead} {code}")))
            if shared > best_shared:
                best, best_shared = (passage, code), shared
    if best is None:
        return None
    passage, code = best
    lines = [line for line in code.split("\n") if line.strip()]
    return passage, lines[:EXAMPLE_MAX_LINES] + (["…"] if len(lines) > EXAMPLE_MAX_LINES else [])


def example_block(question: str, n: int, lines: list[str]) -> str:
    """The listing as the answer shows it: a lead line in the question's language with its citation, then the code
    fenced ("Example [2]:" / "예제 [2]:")."""
    lead = f"예제 [{n}]:" if is_hangul_heavy(question) else f"Example [{n}]:"
    return "\n".join([lead, FENCE, *lines, FENCE])


_FENCED = re.compile(r"(?:^|\n)(?P<lead>[^\n]*)\n```[^\n]*\n(?P<code>.*?)\n```[ \t]*(?=\n|$)", re.DOTALL)


def fenced_blocks(text: str) -> list[re.Match]:
    """The fenced listings of an answer, each with the line before it (``lead``, which cites the listing's passage)."""
    return list(_FENCED.finditer(text))


def without_listings(text: str) -> str:
    """``text`` without its fenced listings and their lead lines: what is read as prose."""
    return _FENCED.sub("", text)


def listing_lines(code: str) -> list[str]:
    """A fenced listing's lines as its passage stores them (spaces collapsed), without the cut mark "…"."""
    return [" ".join(line.split()) for line in code.split("\n") if line.strip() and line.strip() != "…"]
