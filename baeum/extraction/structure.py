"""Front and back matter of a book: the pages a study session should not open with or spend time on.

Title page, copyright, contents, preface and acknowledgements come before the first chapter; the
bibliography and the index come after the last. Learners may read them, but a plan lists them as
optional reading instead of making them session 1 ("Explain http · Explain thank · Explain license").
No Django imports.
"""

from __future__ import annotations

import re

from baeum.extraction.lines import heading_level
from baeum.extraction.tables import find_tables

FRONT = "front"
BACK = "back"
HEAD_LINES = 4  # where a page's own heading sits (after a running head)
# The first chapter of a book starts within this share of its pages (prefaces run long, but not longer).
FRONT_MATTER_MAX_SHARE = 0.2
FRONT_MATTER_MIN_PAGES = 5  # a short book still has a title page, a contents page and a preface before chapter 1
# Back matter starts within this share of the last pages (an index and a bibliography together).
BACK_MATTER_MAX_SHARE = 0.3
# A contents page: most of its lines end with a page number ("3.2 Loops ....... 41").
TOC_LINE_SHARE = 0.4
_TOC_LINE = re.compile(r"(?:\.{2,}|…|\s)\s*[0-9ivxlc]{1,4}$", re.IGNORECASE)
# The back matter's headings; a GNU manual's licence appendix too ("Appendix A Copying Information", "A.1 GNU Free
# Documentation License": libtasn1's made five of fifteen study sessions, "Explain mmc · Explain xyz").
_BACK_HEADING = re.compile(
    r"^(?:index|bibliography|references|works cited|찾아보기|색인|참고\s*문헌"
    r"|appendix\s+[a-z]\W*\s*copying(?:\s+information)?|(?:[a-z]\.\d+\s+)?gnu\s+free\s+documentation\s+licen[cs]e)$",
    re.IGNORECASE,
)
_INDEX_LINE = re.compile(r"^[^\d,]{2,60},\s*\d{1,4}(?:\s*[-–,]\s*\d{1,4})*$")  # "stack frame, 72, 75–77"


def _lines(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


def is_contents_page(text: str) -> bool:
    lines = _lines(text)
    return len(lines) >= 5 and sum(1 for line in lines if _TOC_LINE.search(line)) / len(lines) >= TOC_LINE_SHARE


# The opening of the first chapter: "Chapter 1", "제1장", "Part I", or a first numbered heading "1 Introduction".
_CHAPTER = re.compile(r"^(?:chapter|part)\s*(?:\d+|[ivxl]+)\b|^제\s*\d+\s*[장편부]|^1\.?\s+\S", re.IGNORECASE)


def _opens_chapter(text: str, *, markdown: bool) -> bool:
    if is_contents_page(text):
        return _opens_after_contents(_lines(text), markdown=markdown)
    lines = _lines(text)
    # A table's row at the top of a page ("1 Logical Unit # msb of LBA") opens no chapter.
    rows = (
        set() if markdown else {index for table in find_tables(lines, is_heading=heading_level) for index in range(table.start, table.end)}
    )
    return any(
        index not in rows and heading_level(line, markdown=markdown) == 1 and _CHAPTER.match(line.lstrip("#").strip())
        for index, line in enumerate(lines[:HEAD_LINES])
    )


CHAPTER_BODY_LINES = 3  # lines of text after a first chapter's heading on the contents page it closes


def _opens_after_contents(lines: list[str], *, markdown: bool) -> bool:
    """Whether the first chapter opens on this contents page, below its last entries: a paper's two-page contents
    ends halfway down page 2 with "5.4 Performance of CRC algorithms . . . 23", then "1 Definition of CRC" and the
    definition the whole paper stands on (made front matter, it was never a study session nor read first by the tutor).
    The heading's lines before are mostly entries, those after it mostly not."""
    for index, line in enumerate(lines):
        if heading_level(line, markdown=markdown) != 1 or not _CHAPTER.match(line.lstrip("#").strip()) or _TOC_LINE.search(line):
            continue
        before, after = lines[:index], lines[index + 1 :]
        entries = sum(1 for other in before if _TOC_LINE.search(other))
        body_entries = sum(1 for other in after if _TOC_LINE.search(other))
        if (
            before
            and entries / len(before) >= TOC_LINE_SHARE
            and len(after) >= CHAPTER_BODY_LINES
            and body_entries / len(after) < TOC_LINE_SHARE
        ):
            return True
    return False


# A back-matter heading at the top of more than this share of the pages before the back-matter window is a link
# printed on every page (Corning's 10-K opens each of its 138 pages with "Index", a link back to its contents),
# not a heading; the licence guide's own "참고 문헌" closing a few sections is one.
RUNNING_BACK_HEADING_SHARE = 0.5


def _back_heading(text: str) -> bool:
    return any(_BACK_HEADING.match(line.lstrip("#").strip()) for line in _lines(text)[:HEAD_LINES])


def _opens_back_matter(text: str, *, headings: bool = True) -> bool:
    lines = _lines(text)
    if headings and _back_heading(text):
        return True
    return len(lines) >= 10 and sum(1 for line in lines if _INDEX_LINE.match(line)) / len(lines) >= TOC_LINE_SHARE


def page_matter(texts: list[str], *, markdown: bool = False) -> dict[int, str]:
    """Return {page number (1-based): "front" | "back"} for the pages outside the book's chapters."""
    count = len(texts)
    kinds: dict[int, str] = {}
    first = next((index for index, text in enumerate(texts) if _opens_chapter(text, markdown=markdown)), None)
    if first is not None and 0 < first <= max(FRONT_MATTER_MIN_PAGES, round(FRONT_MATTER_MAX_SHARE * count)):
        kinds.update(dict.fromkeys(range(1, first + 1), FRONT))
    else:  # no chapter to start from: only contents pages at the very start
        for index, text in enumerate(texts[: max(1, round(FRONT_MATTER_MAX_SHARE * count))]):
            if not is_contents_page(text):
                break
            kinds[index + 1] = FRONT
    start_back = max(first or 0, count - round(BACK_MATTER_MAX_SHARE * count))
    before = texts[: count - round(BACK_MATTER_MAX_SHARE * count)]
    headings = sum(1 for text in before if _back_heading(text)) <= RUNNING_BACK_HEADING_SHARE * len(before)
    back = next(
        (index for index in range(start_back, count) if index > (first or 0) and _opens_back_matter(texts[index], headings=headings)),
        None,
    )
    if back is not None:
        kinds.update(dict.fromkeys(range(back + 1, count + 1), BACK))
    # A part's own contents inside the book (the Valgrind manual opens each of its five parts with one), or
    # an index with leaders at its end (nettle's): matter too, so no session teaches it and no answer quotes it.
    for index, text in enumerate(texts):
        if index + 1 not in kinds and _contents_inside(text):
            kinds[index + 1] = FRONT if index < count / 2 else BACK
    return kinds


_LEADER_LINE = re.compile(r"(?:\.{3,}|…)\s*[0-9ivxlc]{1,6}$", re.IGNORECASE)  # "2.1. What Valgrind does … 15"


def _contents_inside(text: str) -> bool:
    """A contents page away from the front of the book: most of its lines end in a leader and a page number
    ("2.1. What Valgrind does with your program … 15"). Not a heading "Table of Contents": filings print it
    on every page as a link back, over tables whose lines end in numbers."""
    lines = _lines(text)
    return len(lines) >= 5 and sum(1 for line in lines if _LEADER_LINE.search(line)) / len(lines) >= TOC_LINE_SHARE


def matter_breaks(kinds: dict[int, str], page_count: int) -> frozenset[int]:
    """The pages where front matter ends or back matter begins: chunks must not straddle them."""
    return frozenset(number for number in range(2, page_count + 1) if kinds.get(number, "") != kinds.get(number - 1, ""))
