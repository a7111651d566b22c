"""The document's own outline (a PDF's bookmarks): its chapters and sections as the author titled them, and
the pages they start on. Where a PDF has one, it says what the text's look cannot: "Variables, expressions
and statements" whole, where the page shows "Chapter 2" over a title broken across lines, and which level
is a chapter (a book in parts puts its chapters one level down). No Django imports.

- ``outline_entries``: the raw bookmarks (``{"level", "title", "page"}``, 1-based pages) cleaned and checked
  against the page count.
- ``chapter_pages``: the pages chapters start on, where a chunk must start (``chunking.chunk_pages``' breaks).
- ``apply_outline``: each chunk's section title and level from the outline, in place of the ones the text's
  headings gave.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, replace

from baeum.extraction.chunking import Chunk

MAX_ENTRIES = 2000  # a bookmark tree longer than this is an index, not an outline
MAX_TITLE_CHARS = 300
# A level is the book's chapters when its entries (with the shallower ones) start this many pages apart at
# most, in the median: a part of a book runs 100 pages, a chapter 10 to 40.
CHAPTER_MEDIAN_PAGES = 50
MIN_CHAPTERS = 3
DEEPEST = 3  # section levels a chunk records: 1 chapter, 2 section, 3 anything deeper


@dataclass(frozen=True)
class Entry:
    level: int  # as the PDF nests it, 0 outermost
    title: str
    page: int  # 1-based


def outline_entries(raw: list[dict], page_count: int) -> list[Entry]:
    """The outline's entries that point at a page of the document, in the PDF's order, which is reading
    order: an entry pointing before the one listed above it is a broken link and is left out (pcasm-book-korean
    lists "Index" last, pointing at page 36, inside chapter 2). Titles with their spacing made plain; [] when
    fewer than two remain."""
    entries: list[Entry] = []
    for item in raw[:MAX_ENTRIES]:
        title = " ".join(str(item.get("title", "")).split())[:MAX_TITLE_CHARS]
        page, level = item.get("page"), item.get("level")
        if not (title and isinstance(page, int) and isinstance(level, int) and 1 <= page <= page_count and level >= 0):
            continue
        if entries and page < entries[-1].page:
            continue
        entries.append(Entry(level, title, page))
    return entries if len(entries) >= 2 else []


def chapter_level(entries: list[Entry]) -> int:
    """The outline level that holds the chapters: the shallowest whose entries (with the shallower ones)
    start at most ``CHAPTER_MEDIAN_PAGES`` apart, in the median and on average, and number at least
    ``MIN_CHAPTERS``. The average keeps a manual in five parts after a title page, a contents page and a
    quick-start guide bookmarked at the top (the Valgrind manual: 8 entries on pages 1, 2, 3, 8, … 397,
    median gap 5) from offering its parts as chapters."""
    levels = sorted({entry.level for entry in entries})
    for level in levels:
        pages = sorted({entry.page for entry in entries if entry.level <= level})
        gaps = [later - earlier for earlier, later in zip(pages, pages[1:], strict=False)]
        if len(pages) >= MIN_CHAPTERS and gaps and max(statistics.median(gaps), statistics.mean(gaps)) <= CHAPTER_MEDIAN_PAGES:
            return level
    return levels[-1]


def _depth(entry: Entry, chapters: int) -> int:
    """1 for a chapter (or a part above it), 2 for its sections, 3 for anything deeper."""
    return min(DEEPEST, 1 + max(0, entry.level - chapters))


def chapter_pages(entries: list[Entry]) -> frozenset[int]:
    """The pages a chapter (or a part) starts on: a chunk starts there, so no chunk holds two chapters."""
    if not entries:
        return frozenset()
    chapters = chapter_level(entries)
    return frozenset(entry.page for entry in entries if entry.level <= chapters)


def apply_outline(chunks: list[Chunk], entries: list[Entry]) -> list[Chunk]:
    """Chunks with their section title and level from the outline: a chunk that starts on or after an
    entry's page, first of those, opens that entry (the shallowest entry when several open it: a chapter
    and its first section on one page); every chunk's title is the deepest entry in force where it starts.
    Without an outline the chunks are returned as they are."""
    if not entries or not chunks:
        return chunks
    chapters = chapter_level(entries)
    opened: dict[int, Entry] = {}
    position = 0
    for entry in entries:
        while position < len(chunks) and chunks[position].page_start < entry.page:
            position += 1
        if position == len(chunks):
            break
        current = opened.get(position)
        if current is None or _depth(entry, chapters) < _depth(current, chapters):
            opened[position] = entry
    result = []
    in_force: Entry | None = None
    upcoming = iter(entries)
    following = next(upcoming, None)
    for position, chunk in enumerate(chunks):
        while following is not None and following.page <= chunk.page_start:
            in_force, following = following, next(upcoming, None)
        opening = opened.get(position)
        title = opening.title if opening is not None else (in_force.title if in_force is not None else chunk.section_title)
        level = _depth(opening, chapters) if opening is not None else 0
        result.append(replace(chunk, section_title=title, section_level=level))
    return result
