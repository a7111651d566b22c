"""Which page a piece of a chunk stands on (no Django imports): a chunk keeps where each of its pages begins
(``page_starts``), so a quote carries the page of its own sentence, and a quote running over a page break
both pages.
"""

from __future__ import annotations

from baeum.language.text import LIST_ITEM


def page_at(page_starts: list[tuple[int, int]] | list[list[int]], offset: int, default: int) -> int:
    """Return the page of the character at ``offset`` (``default`` for chunks stored without offsets)."""
    page = default
    for start, number in page_starts:
        if start > offset:
            break
        page = number
    return page


def page_span(page_starts, start: int, end: int, default: int) -> tuple[int, int]:
    """Return the first and last page of the text between ``start`` and ``end`` (a quote may span two)."""
    return page_at(page_starts, start, default), page_at(page_starts, max(start, end - 1), default)


def quote_pages(content: str, page_starts, quote: str, default: int) -> tuple[int, int]:
    """Return the pages of ``quote`` inside ``content`` (its first occurrence), or ``default`` twice."""
    position = content.find(quote) if quote else -1
    if position < 0:
        return default, default
    return page_span(page_starts, position, position + len(quote), default)


HEADING, CODE, ITEM, TEXT = "heading", "code", "item", ""


def line_kinds(text: str, *, headings: set[str], code: set[str]) -> list[str]:
    """What each line of a page is, for a viewer that shows headings as headings and code as code: ``HEADING``
    where the line (or it and the next, "Chapter 3" / "Functions") is one of ``headings``, ``CODE`` where it is
    one of the passages' ``code`` lines, ``ITEM`` where a list item begins, else ``TEXT``. ``headings`` and
    ``code`` hold the texts as chunking stored them, spaces collapsed; the page's lines are compared the same way."""
    lines = [" ".join(line.split()) for line in text.split("\n")]
    kinds = [TEXT] * len(lines)
    for index, line in enumerate(lines):
        if not line or kinds[index]:
            continue
        if line in headings:
            kinds[index] = HEADING
        elif index + 1 < len(lines) and lines[index + 1] and f"{line} {lines[index + 1]}" in headings:
            kinds[index] = kinds[index + 1] = HEADING
        elif line in code:
            kinds[index] = CODE
        elif LIST_ITEM.match(line):
            kinds[index] = ITEM
    return kinds
