"""Which page a piece of a chunk stands on (no Django imports): a chunk keeps where each of its pages begins
(``page_starts``), so a quote carries the page of its own sentence, and a quote running over a page break
both pages.
"""

from __future__ import annotations


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
