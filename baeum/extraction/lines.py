"""What a line of page text is, read before chunking (no Django imports): a heading and its level, a line of
code, a running head or footer repeated at the edge of many pages, a bare page number.
"""

from __future__ import annotations

import re
from collections import Counter

RUNNING_LINE_SHARE = 0.3  # a line repeated at the edge of this share of the pages is a running head or footer...
RUNNING_LINE_MIN_PAGES = 3  # ...and of at least this many pages (a numbered one: its number moving with the page)
RUNNING_LINE_MAX_CHARS = 100  # running heads and footers are short
HEADING_MAX_CHARS = 90  # a longer line is a sentence, never a heading
DIGITS = re.compile(r"\d+")
PAGE_NUMBER_LINE = re.compile(r"^[\W_]*(?:page\s*)?\d{1,4}(?:\s*(?:/|of)\s*\d{1,4})?[\W_]*$", re.IGNORECASE)
_HEADING_PATTERNS: list[tuple[re.Pattern[str], int]] = [
    (re.compile(r"^(#{1,6})\s+\S"), 0),  # Markdown: level = number of #
    (re.compile(r"^(?:Chapter|CHAPTER|Part|PART|Appendix|APPENDIX)\s*(?:\d+|[IVXL]+|[A-Z])\b"), 1),
    (re.compile(r"^제\s*\d+\s*[장편부]"), 1),
    (re.compile(r"^제\s*\d+\s*절"), 2),
    (re.compile(r"^(\d{1,2}\.\d{1,2}(?:\.\d{1,2}){0,2})\.?\s*[A-Za-z가-힣]"), -1),  # 1.2 / 1.2.3: level from dots
    (re.compile(r"^(\d{1,2})\.?\s+[A-Z][A-Za-z]+(?:\s[A-Za-z]+){0,5}$"), -1),  # "3 Functions"
    # A unit's summary closes the unit ("Lesson 1 SUMMARY" after Lessons 1.1–1.6): a section of it, never a chapter
    # that would hold the next unit's lessons.
    (
        re.compile(
            r"^(?:Lesson|LESSON|Unit|UNIT|Module|MODULE)\s+\d{1,2}\s*[:.]?\s*(?:SUMMARY|Summary|summary|REVIEW|Review|review|요약|정리|복습)"
        ),
        2,
    ),
    # A tutorial's units ("Lesson 1.1:  MOVING THE CURSOR", "Unit 3 Loops"): level from dots.
    (re.compile(r"^(?:Lesson|LESSON|Unit|UNIT|Module|MODULE|Step|STEP|Week|WEEK)\s+(\d{1,2}(?:\.\d{1,2}){0,2})(?=[\s:.)]|$)"), -1),
]
TERMINAL = re.compile(r"[.!?。:;,]$|[다요죠]\.$")
_TOC_ENTRY = re.compile(r"…|\S\s+\d{1,4}$")
_BARE_CHAPTER = re.compile(r"^(?i:chapter|part|appendix)\s*\w+$|^제\s*\d+\s*[장편부절]$")
_CODE_MARKERS = re.compile(
    r">>>|\s;\s|//|::|==|!=|->|[{}]|#include|\bdef\s+\w+\(|\w+\([^)]*\);"
    r"|\b(?:global|extern)\s+_\w+|\bsegment\s+\.(?:text|data|bss)\b"  # assembler directives
)
_ASSEMBLY_OPERANDS = re.compile(
    r"\b(?:mov|lea|add|sub|cmp|and|or|xor|push|pop)\s+(?:dword\s+|byte\s+|word\s+)?[\w\[][\w\[\]+*-]*\s*[,;\]]", re.IGNORECASE
)
_LISTING_NUMBER = re.compile(r"(?<!\S)(\d{1,3})(?!\S)")


def looks_like_code(text: str, *, listing_numbers: bool = True) -> bool:
    """Tell a code listing from prose: comment and operator marks, assembly instructions with operands,
    or (with ``listing_numbers``) the line numbers of a listing: small integers counting up, which a
    truth table's rows of 0 and 1 also are. Code stays in chunks and search, but is never a key point,
    a practice question or an answer sentence."""
    if _CODE_MARKERS.search(text) or len(_ASSEMBLY_OPERANDS.findall(text)) >= 2:
        return True
    if not listing_numbers:
        return False
    numbers = [int(number) for number in _LISTING_NUMBER.findall(text)]
    return sum(1 for first, second in zip(numbers, numbers[1:], strict=False) if 0 < second - first <= 2) >= 2


def heading_level(line: str, *, markdown: bool = False) -> int:
    """Return 1..6 when ``line`` looks like a heading, else 0. ``#`` lines count only in Markdown."""
    if line.startswith("#") and not markdown:
        return 0
    if len(line) > HEADING_MAX_CHARS or len(line) < 2 or TERMINAL.search(line) and not line.startswith("#"):
        return 0
    if _TOC_ENTRY.search(line) and not _BARE_CHAPTER.match(line):
        return 0  # a table-of-contents entry ("3.2 Loops .... 41"), not the section itself
    for pattern, level in _HEADING_PATTERNS:
        match = pattern.match(line)
        if not match:
            continue
        if level == 0:
            return len(match.group(1))
        if level == -1:
            if len(line.split()) > 12:
                return 0
            return min(6, match.group(1).count(".") + 1)
        if level == 1 and (len(line) > 50 or (")" in line and "(" not in line)):
            return 0  # "Chapter 4 에서 다룰 것이다) …" is a sentence that mentions a chapter
        return level
    return 0


def _end_numbers(line: str) -> set[int]:
    """The numbers opening and closing ``line`` ("12 Chapter 2. Variables" → 12; "… expressions 201" → 201;
    "- 39 -" → 39)."""
    line = line.strip(" -–—|·")
    found = {match.group() for match in (re.match(r"\d{1,4}\b", line), re.search(r"\b\d{1,4}$", line)) if match}
    return {int(number) for number in found}


def _printed_page_offset(pages: list[list[str]], edge: int, threshold: int) -> int | None:
    """The printed page number minus the page's position that most pages' edge lines agree on, if enough do."""
    offsets: Counter[int] = Counter()
    for position, lines in enumerate(pages):
        found = {
            number - position
            for line in lines[:edge] + lines[-edge:]
            if len(line) <= RUNNING_LINE_MAX_CHARS
            for number in _end_numbers(line)
        }
        offsets.update(found)
    if not offsets:
        return None
    offset, count = offsets.most_common(1)[0]
    return offset if count >= threshold else None


RUN_MIN_PAGES = 4  # a chapter's own running head tops this many pages close together...
RUN_MAX_GAP = 2  # ...each at most this many pages after the one before (a page may open with a figure instead)


def _skeleton(line: str) -> str:
    return DIGITS.sub("#", line).casefold()


def _may_run(line: str) -> bool:
    """A line that may be a chapter's own running head: no sentence of the text ("…이행해야 한다.", "… 할 수
    있게 한다. 이 때문에, 해당 사용": a paragraph the guide repeats for every use case) nor a bare chapter
    heading."""
    return (
        not TERMINAL.search(line)
        and not re.search(r"[.!?]\s", line)
        and not _BARE_CHAPTER.match(line)
        and any(char.isalpha() for char in line)
    )


def _runs_over_pages(positions: list[int]) -> bool:
    """An edge line seen on ``RUN_MIN_PAGES`` pages close together: a chapter's running head, which a long book
    shows on too few of its pages to count as repeated ("Massif: a heap profiler" on 20 of the Valgrind
    manual's 397 pages; "2 오픈소스: 동일한 관념, 다양한 라이선스" over chapter 2 of the licence guide). A
    heading that opens pages of different chapters ("Exercises") is seen far apart."""
    run = 1
    for before, after in zip(positions, positions[1:], strict=False):
        run = run + 1 if after - before <= RUN_MAX_GAP else 1
        if run >= RUN_MIN_PAGES:
            return True
    return False


PRINTED_GAP = 3  # pages in a row that may not show their number (a chapter's opening page) between two that do


def printed_page_numbers(pages: list[list[str]], *, edge: int = 2) -> dict[int, str]:
    """{position (0-based): the number the page prints} for a book whose PDF gives no page labels, read from
    its pages' edge lines ("- 39 -", "12 Chapter 2. Variables", "1.1. NUMBER SYSTEMS 3"): where most pages
    agree on one offset from their position (``_printed_page_offset``), the pages that show their number,
    and those between two such pages at most ``PRINTED_GAP`` apart. Front matter before the first and pages
    numbered anew (an appendix starting at 1) are left unnumbered."""
    threshold = max(RUNNING_LINE_MIN_PAGES, int(RUNNING_LINE_SHARE * len(pages)))
    offset = _printed_page_offset(pages, edge, threshold)
    if offset is None:
        return {}
    shown = [
        position
        for position, lines in enumerate(pages)
        if any(position + offset in _end_numbers(line) for line in lines[:edge] + lines[-edge:] if len(line) <= RUNNING_LINE_MAX_CHARS)
    ]
    numbered = set(shown)
    for before, after in zip(shown, shown[1:], strict=False):
        if after - before <= PRINTED_GAP + 1:
            numbered.update(range(before, after))
    return {position: str(position + offset) for position in sorted(numbered) if position + offset >= 1}


def _carries_page_number(line: str, position: int, offset: int | None) -> bool:
    """``line`` closes with its page's printed number ("… Generator expressions 201"); a bare chapter heading
    whose number happens to be the page's ("Chapter 1" on page 1) is no running head, nor a listing line
    that opens with a line number ("26 ret")."""
    closing = re.search(r"\b\d{1,4}$", line)
    return offset is not None and closing is not None and int(closing.group()) == position + offset and not _BARE_CHAPTER.match(line)


def _edge_keys(line: str, position: int) -> set[str]:
    """Keys under which an edge line may repeat: its digit-free skeleton (or, for a line carrying a number, the
    line as it is), and for a line carrying a number, the skeleton plus that number's offset from the page
    position (a printed page number)."""
    skeleton = DIGITS.sub("#", line).casefold()
    # A line repeated as it is, digits and all, is a footer whatever its numbers ("CNPP/2008.11. © O. Bonaventure
    # 2008" atop every slide of a deck): its numbers never move with the page, so only the line itself repeats.
    keys = {skeleton} if skeleton == line.casefold() else {f"={line.casefold()}"}
    numbers = DIGITS.findall(line)
    # A printed page number opens or closes a running head ("12 Chapter 2" / "4.5. CALLING CONVENTIONS 75").
    for number in dict.fromkeys(numbers[:2] + numbers[-1:]):
        if len(number) <= 4:
            keys.add(f"{skeleton}@{int(number) - position}")
    return keys


def strip_running_lines(
    pages: list[list[str]], *, edge: int = 2, keep_blank_lines: bool = False, code: frozenset[str] = frozenset()
) -> list[list[str]]:
    """Remove lines repeated at the top or bottom of many pages (running heads, footers, page numbers), and the
    blank lines, unless ``keep_blank_lines`` (a text, Markdown or Office file, whose blank lines end paragraphs:
    without them Node's "Stability: 2 - Stable" ran into the paragraph after it). Edges are read without blanks.

    A line without digits is a running line when it sits at the edge of at least 30% of the pages
    (and at least 3). A line with a number ("12 Chapter 2. Variables") is one when its number moves
    with the page on at least 3 pages, so chapter headings that merely repeat a word stay. Once the
    book's printed page numbers are known that way (the offset most edge lines share with the page's
    position, on at least 30% of the pages), any short edge line closing with its page's own number is a
    running head too, however rarely its words repeat ("19.2. Generator expressions 201",
    the head of a section one page long). A line of ``code`` (spaces collapsed) is never one: undici's Dispatcher page
    opens many listings with the same lines, and where a virtual page began inside one, "const client = new
    Client(…)" had been cut out of the listing as a running head.
    """
    if keep_blank_lines:
        dense = strip_running_lines([[line for line in lines if line] for lines in pages], edge=edge, code=code)
        return [_with_blank_lines(lines, kept) for lines, kept in zip(pages, dense, strict=True)]
    if len(pages) < RUNNING_LINE_MIN_PAGES:
        return [[line for line in lines if not PAGE_NUMBER_LINE.match(line)] for lines in pages]
    counts: Counter[str] = Counter()
    runs: dict[str, list[int]] = {}  # a chapter's own head: its skeleton, and the pages it tops
    for position, lines in enumerate(pages):
        keys: set[str] = set()
        for line in lines[:edge] + lines[-edge:]:
            if len(line) <= RUNNING_LINE_MAX_CHARS:
                keys |= _edge_keys(line, position)
                if _may_run(line):
                    runs.setdefault(_skeleton(line), []).append(position)
        counts.update(keys)
    threshold = max(RUNNING_LINE_MIN_PAGES, int(RUNNING_LINE_SHARE * len(pages)))
    repeated = {key for key, count in counts.items() if count >= (RUNNING_LINE_MIN_PAGES if "@" in key else threshold)}
    repeated |= {f"run:{skeleton}" for skeleton, positions in runs.items() if _runs_over_pages(sorted(set(positions)))}
    offset = _printed_page_offset(pages, edge, threshold)
    cleaned: list[list[str]] = []
    for position, lines in enumerate(pages):
        keep = list(lines)
        edges = sorted(set(range(min(edge, len(keep)))) | set(range(max(0, len(keep) - edge), len(keep))))
        for index in edges:
            line = keep[index]
            if (
                line
                and len(line) <= RUNNING_LINE_MAX_CHARS
                and " ".join(line.split()) not in code
                and (
                    _edge_keys(line, position) & repeated
                    or PAGE_NUMBER_LINE.match(line)
                    or _carries_page_number(line, position, offset)
                    or _may_run(line)
                    and f"run:{_skeleton(line)}" in repeated
                )
            ):
                keep[index] = ""
        cleaned.append([line for line in keep if line])
    if not any(cleaned):
        # Every line repeats (the same page three times): nothing tells a running line from the text; keep it.
        return [[line for line in lines if not PAGE_NUMBER_LINE.match(line)] for lines in pages]
    return cleaned


def _with_blank_lines(lines: list[str], kept: list[str]) -> list[str]:
    """``lines`` without those ``strip_running_lines`` removed (``kept`` is the rest, in order), blanks kept."""
    result, remaining = [], iter(kept)
    wanted = next(remaining, None)
    for line in lines:
        if not line:
            result.append(line)
        elif line == wanted:
            result.append(line)
            wanted = next(remaining, None)
    return result
