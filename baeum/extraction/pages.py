"""Which page a piece of a chunk stands on (no Django imports): a chunk keeps where each of its pages begins
(``page_starts``), so a quote carries the page of its own sentence, and a quote running over a page break
both pages.
"""

from __future__ import annotations

import re

from baeum.language.analysis import join_lines
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


# A line that ends a sentence (or a lead-in): a reader's line break is kept after it, elsewhere the lines flow.
_ENDS_SENTENCE = re.compile(r"(?:[.!?:;。]|다\.?)[\"'”’)\]]*$")


def text_blocks(text: str, kinds: list[str]) -> list[dict]:
    """``text`` as the blocks a reader sees, from its ``line_kinds``: a heading, a code listing (its lines, blank
    ones inside it, as laid out), a list item, a paragraph. A paragraph's or an item's lines flow: they are joined
    where a line does not end a sentence (``analysis.join_lines``: no space where a Korean word was broken over
    two lines), so a phone breaks them where its screen ends; a man page's option lines ("c 현재 디렉터리입니다." /
    "e 실행하고 있는 실행 파일입니다.") stay lines of their own."""
    lines = text.split("\n")
    blocks: list[dict] = []
    for index, line in enumerate(lines):
        kind = kinds[index] if index < len(kinds) else TEXT
        last = blocks[-1] if blocks else None
        if not line.strip():
            later = next((other for other in range(index + 1, len(lines)) if lines[other].strip()), None)
            if last and last["kind"] == CODE and later is not None and later < len(kinds) and kinds[later] == CODE:
                last["lines"].append("")  # a blank line inside a listing stays in it
            elif last:
                last["open"] = False
            continue
        if (
            last
            and last.get("open")
            and (
                (kind == CODE and last["kind"] == CODE)
                or (kind == TEXT and last["kind"] in (TEXT, ITEM))
                or (kind == HEADING == last["kind"])
            )
        ):
            last["lines"].append(line)
            continue
        blocks.append({"kind": kind, "lines": [line], "open": True})
    shown = []
    for block in blocks:
        if block["kind"] == CODE:
            body = "\n".join(block["lines"])
        elif block["kind"] == HEADING:
            body = " ".join(line.strip() for line in block["lines"])
        else:
            runs, run = [], []
            for line in block["lines"]:
                run.append(line.strip())
                if _ENDS_SENTENCE.search(line.strip()):
                    runs.append(join_lines(run))
                    run = []
            if run:
                runs.append(join_lines(run))
            body = "\n".join(runs)
        shown.append({"kind": block["kind"] or "text", "text": body})
    return shown


def laid_out(lines: list[str], page_lines: list[str]) -> list[str]:
    """A listing's ``lines`` as a chunk stores them (spaces collapsed) laid out as its page lays them out: the run of
    the page's lines that holds them in order, its indentation and blank lines kept. Matched in sequence, never line
    by line: a listing's "}" and "try {" are on its page at several depths (walkthrough 19 had every closing brace of
    a class at one depth). Where the page holds only the listing's first lines (a listing cut over pages), those are
    laid out and the rest stay as they are."""
    wanted = [" ".join(line.split()) for line in lines]
    collapsed = [" ".join(line.split()) for line in page_lines]
    best: tuple[int, int, int] = (0, 0, 0)  # lines matched, where the page's run starts, where it ends
    for start, line in enumerate(collapsed):
        if not wanted or line != wanted[0]:
            continue
        matched, at = 0, start
        while matched < len(wanted):
            while at < len(collapsed) and not collapsed[at] and matched:
                at += 1  # a blank line inside the listing
            if at < len(collapsed) and collapsed[at] == wanted[matched]:
                matched, at = matched + 1, at + 1
            else:
                break
        if matched > best[0]:
            best = (matched, start, at)
        if matched == len(wanted):
            break
    matched, start, end = best
    if not matched:
        return list(lines)
    return [line.rstrip() for line in page_lines[start:end]] + list(lines[matched:])
