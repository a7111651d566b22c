"""Tables, captions, footnotes and reference markers in page text: what chunking keeps whole or moves aside.

PDF text comes as lines (PDFium keeps a table's row on one line, its cells separated by spaces). A table is
a run of lines with value cells at their ends ("Net income $ 5,363 $ 4,869 $ 5,058"), or the short lines
next to a caption ("Table 1.3: …", "Figure 7.6: …", "[표 1] …", "그림 7.6: …"). Chunking keeps a table whole,
never takes one of its rows for a heading ("5 Control" in a figure of pcasm), and when a table is longer
than the chunk budget cuts it between rows and repeats its caption and header rows in every part.

A footnote sits at the bottom of its page and starts with the number its marker carries in the text above
("…GNU10-based…" / "10GNU is a project of…", "GNU10) 의…" / "10) 무료 소프트웨어…"). Chunking moves
footnotes out of the sentence flow to the end of their page's text, as paragraphs of their own.

The document's own reference markers ("KorQuAD 1.0[1]") look like the tutor's citation marks [n];
``superscript_references`` rewrites them for text a learner or a model reads next to citations.

No Django imports. ``python -m baeum.extraction.tables_report PDF...`` measures how chunking treats them.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from baeum.extraction.pdflayout import PLAIN

# A value cell: an amount, a percentage, a number in parentheses (a negative), a dash for "none", a year.
# Not "75," (an index entry's page) nor "[1," (a list in code).
_CELL = re.compile(r"^(?:\(?[-–—−+]?[$€£¥₩]?\d(?:[\d,]*\d)?(?:\.\d+)?%?\)?%?|[-–—]{1,2}|n/?a|nm)$", re.IGNORECASE)
_CODE_PROMPT = re.compile(r"^(?:>>>|\.\.\.|\$ |In \[\d+\]:)")
_CURRENCY_OR_LEADER = {"$", "€", "£", "¥", "₩", "%", "…", "—$"}
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_SENTENCE_END = re.compile(r"[.!?。]['\"”’)]*$|[다요]\.?$")
# A caption: "Table 3.5: …", "Figure 2.1.: …", "Fig. 3", "표 1.1: …", "[표 1] …", "<그림 2> …" (a caption line
# says little else; "Figure 7.6 shows …" in a paragraph has no colon or bracket after its number).
_CAPTION = re.compile(r"^[\[<]?(?:Table|TABLE|Figure|FIGURE|Fig\.|Exhibit|표|그림|도표)\s*[A-Z]?\d+(?:[.-]\d+)*\.?\s*(?::|[\]>]|$)")
# Title lines of a financial statement, a header row of years or periods, and unit notes above a table.
_STATEMENT_TITLE = re.compile(
    r"statements?\s+of\b|balance\s+sheets?|\bin\s+(?:millions|thousands|billions)\b|\((?:\$|dollars|amounts|in)\b",
    re.IGNORECASE,
)
# Lines a table may not grow past: its rows are never prose.
TABLE_MIN_ROWS = 3  # fewer rows with values are a sentence with numbers, not a table
TABLE_MAX_LABEL_RUN = 3  # label lines ("Cash Flows from Investing Activities") in a row inside a table
HEADER_MAX_LINES = 12  # title, unit note and column heads above a table's first row (one date a line in some filings)
CAPTIONED_MAX_LINES = 30  # short lines gathered next to a caption
# A row is short next to a page's typical full line: prose fills the line, table rows and listings rarely do.
SHORT_LINE_SHARE = 0.75


def value_cells(line: str) -> tuple[int, int]:
    """Return (value cells at the end of ``line``, words before them): "Goodwill 10,051 10,513" → (2, 1).
    A line of code at an interpreter prompt has none."""
    if _CODE_PROMPT.match(line):
        return 0, len(line.split())
    tokens = line.split()
    cells = 0
    position = len(tokens)
    while position and (tokens[position - 1] in _CURRENCY_OR_LEADER or _CELL.match(tokens[position - 1])):
        if tokens[position - 1] not in _CURRENCY_OR_LEADER:
            cells += 1
        position -= 1
    return cells, position


def is_caption(line: str) -> bool:
    return bool(_CAPTION.match(line))


def _is_header_row(line: str) -> bool:
    """Column heads made of years or periods ("(Millions) 2018 2017 2016", "2015 2016 2017")."""
    tokens = [token.strip("(),") for token in line.split()]
    cells, words = value_cells(line)
    years = sum(1 for token in tokens if _YEAR.match(token))
    return cells >= 1 and years >= cells and words <= 4


def _is_prose(line: str, typical_width: float) -> bool:
    return bool(_SENTENCE_END.search(line)) and len(line) >= 0.5 * typical_width and value_cells(line)[0] < 2


@dataclass(frozen=True)
class Table:
    """Lines ``start``..``end`` (exclusive) of a page form one table; the first ``header`` of them (caption,
    titles, column heads) open every part when it is cut. ``breaks``: line indexes after which it may be cut."""

    start: int
    end: int
    header: int
    breaks: frozenset[int]

    def __contains__(self, index: int) -> bool:
        return self.start <= index < self.end


def _row_breaks(lines: list[str], start: int, end: int) -> frozenset[int]:
    """A table may be cut after a line that ends a row: one with values, or a caption. A label line
    ("Inventories") belongs with the rows under it; a line of values alone finishes the label above it."""
    breaks = set()
    for index in range(start, end):
        cells, _ = value_cells(lines[index])
        if cells or is_caption(lines[index]):
            if index + 1 < end and value_cells(lines[index + 1])[1] == 0 and value_cells(lines[index])[1] > 0 and cells == 0:
                continue
            breaks.add(index)
    breaks.add(end - 1)
    return frozenset(breaks)


def _numeric_blocks(lines: list[str], typical_width: float, is_heading: Callable[[str], int]) -> list[tuple[int, int]]:
    """Runs of lines with value cells at their end (at least two cells on most rows), label lines between."""
    blocks: list[tuple[int, int]] = []
    index = 0
    count = len(lines)
    while index < count:
        cells, words = value_cells(lines[index])
        if cells < 2 or _is_prose(lines[index], typical_width) or words > 20:
            index += 1
            continue
        start = index
        last_row = index
        rows = 1
        wide_rows = 1
        labels = 0
        index += 1
        while index < count:
            line = lines[index]
            cells, words = value_cells(line)
            if is_caption(line) or not line:
                break
            if (cells >= 2 or cells == 1 and len(line) <= 0.9 * typical_width) and not _is_prose(line, typical_width) and words <= 24:
                last_row, labels = index, 0
                rows += 1
                wide_rows += cells >= 2
            elif (
                cells == 0
                and not _SENTENCE_END.search(line)
                and labels < TABLE_MAX_LABEL_RUN
                and len(line) <= 0.9 * typical_width
                and not is_heading(line)  # a section heading between two tables ends the first
            ):
                labels += 1
            else:
                break
            index += 1
        if rows >= TABLE_MIN_ROWS and wide_rows >= 2:
            blocks.append((start, last_row + 1))
        index = last_row + 1
    return blocks


def _header_start(lines: list[str], start: int, typical_width: float, floor: int, is_heading: Callable[[str], int]) -> int:
    """Where a table's header begins above its first row: title, unit note and column-head lines."""
    top = start
    while top > floor and start - top < HEADER_MAX_LINES:
        line = lines[top - 1]
        if is_caption(line):
            return top - 1
        if not line or is_heading(line) or _CODE_PROMPT.match(line):
            break
        lead_in = line.endswith((":", ";")) and len(line) > 0.5 * typical_width  # "… is as follows:" is prose
        title = line.isupper() and len(line) < 0.6 * typical_width  # "ADOBE INC."
        if (_SENTENCE_END.search(line) and not title) or lead_in or len(line) > SHORT_LINE_SHARE * typical_width:
            if not _STATEMENT_TITLE.search(line) or len(line) > 1.2 * typical_width:
                break
        top -= 1
    return top


def _leading_header_rows(lines: list[str], start: int, end: int) -> int:
    count = 0
    while start + count < end and _is_header_row(lines[start + count]):
        count += 1
    return count


def _is_short_row(line: str, typical_width: float) -> bool:
    """A line that can be a row of a captioned table or figure: short, not the end of a sentence."""
    if is_caption(line) or not line or line.endswith(":"):
        return False
    if value_cells(line)[0] >= 2:
        return True
    return len(line) < SHORT_LINE_SHARE * typical_width and not _SENTENCE_END.search(line)


_LEADING_NUMBER = re.compile(r"^(\d{1,3})\s")


def _numbered_rows(line: str, following: str) -> bool:
    """Two rows numbered one after the other ("0 Operation Code", "1 Logical Unit"): a table, not headings."""
    first, second = _LEADING_NUMBER.match(line), _LEADING_NUMBER.match(following)
    return bool(first and second and int(second.group(1)) == int(first.group(1)) + 1)


def _captioned_blocks(
    lines: list[str], typical_width: float, taken: list[tuple[int, int]], is_heading: Callable[[str], int]
) -> list[Table]:
    """Short lines next to a caption: above it (figures, and tables captioned below) or else below it."""
    tables: list[Table] = []
    occupied = {index for start, end in taken for index in range(start, end)}
    for caption, line in enumerate(lines):
        if not is_caption(line) or caption in occupied:
            continue
        top = caption
        while top > 0 and caption - top < CAPTIONED_MAX_LINES and top - 1 not in occupied and _is_short_row(lines[top - 1], typical_width):
            top -= 1
        while top < caption and is_heading(lines[top]) and not _numbered_rows(lines[top], lines[top + 1]):
            top += 1  # a section heading right above a figure is not part of it (numbered rows "0 …", "1 …" are)
        if caption - top >= 2:
            tables.append(Table(top, caption + 1, 0, frozenset(range(top, caption + 1))))
            occupied.update(range(top, caption + 1))
            continue
        bottom = caption + 1
        while (
            bottom < len(lines)
            and bottom - caption <= CAPTIONED_MAX_LINES
            and bottom not in occupied
            and _is_short_row(lines[bottom], typical_width)
            and not (is_heading(lines[bottom]) and not _numbered_rows(lines[bottom - 1], lines[bottom]))
        ):
            bottom += 1
        if bottom - caption - 1 >= 2:
            header = 1 + _leading_header_rows(lines, caption + 1, bottom)
            tables.append(Table(caption, bottom, min(header, bottom - caption - 1), frozenset(range(caption, bottom))))
            occupied.update(range(caption, bottom))
    return tables


def _no_heading(line: str) -> int:
    return 0


_PIPE_ROW = re.compile(r"\S\s\|\s\S|^\|.*\|$")  # "cell | cell" (Office tables, see baeum.extraction.officeworker) or "| a | b |"
_PIPE_RULE = re.compile(r"^\|?[\s:|-]+\|?$")  # Markdown's "|---|---|" under the header row


def _pipe_tables(lines: list[str]) -> list[Table]:
    """Rows written ``a | b`` one a line, the header row first: the tables of slides, documents and Markdown."""
    tables: list[Table] = []
    index = 0
    while index < len(lines):
        end = index
        while end < len(lines) and (_PIPE_ROW.search(lines[end]) or end > index and _PIPE_RULE.match(lines[end]) and "-" in lines[end]):
            end += 1
        if end - index >= 2:
            header = 2 if end - index > 2 and _PIPE_RULE.match(lines[index + 1]) else 1
            top = index - 1 if index and is_caption(lines[index - 1]) else index
            tables.append(Table(top, end, header + index - top, frozenset(range(top + header + index - top - 1, end))))
        index = max(end, index + 1)
    return tables


def find_tables(
    lines: list[str], *, typical_width: float = 80.0, is_heading: Callable[[str], int] = _no_heading, markdown: bool = False
) -> list[Table]:
    """Return the tables of one page's lines, in order; see the module docstring. ``is_heading`` tells a
    section heading, which a table's header never reaches above. In Markdown (and the text of Office files)
    only ``a | b`` rows make a table."""
    if markdown:
        return _pipe_tables(lines)
    tables: list[Table] = []
    previous_end = 0
    for start, end in _numeric_blocks(lines, typical_width, is_heading):
        top = _header_start(lines, start, typical_width, previous_end, is_heading)
        header = (start - top) + _leading_header_rows(lines, start, end)
        below = next((end + gap for gap in range(3) if end + gap < len(lines) and is_caption(lines[end + gap])), None)
        if below is not None and all(_is_short_row(line, typical_width) for line in lines[end:below]) and not is_caption(lines[top]):
            end = below + 1  # a caption under its table (pcasm's "Table 1.1: …"), maybe after a last label row
        header = min(header, end - top - 1)
        tables.append(Table(top, end, header, _row_breaks(lines, top, end)))
        previous_end = end
    tables += _captioned_blocks(lines, typical_width, [(table.start, table.end) for table in tables], is_heading)
    return sorted(tables, key=lambda table: table.start)


NOTE_REGION_LINES = 14  # footnotes start within the last lines of a page
# A footnote's opening: its number glued to its first word ("10GNU is…", "2Actually,…", "11http://…"),
# with a parenthesis ("10) 무료…"), or alone on its line with the text on the next one. Not "2nd", "80x86", "2BD16".
# The first word after the number is a word ("GNU", "Actually,", "A root"), not "BD16" (a hex number) or "a" (a formula).
_NOTE_GLUED = re.compile(r"^(\d{1,3})(?!st\b|nd\b|rd\b|th\b)(?=[A-Za-z]{2,}(?![\w])|[A-Za-z]{2,}[^\w\s]|[A-Z]\s\w|[“\"'(])")
_NOTE_PAREN = re.compile(r"^(\d{1,3})\)\s*[^\s)]")
_NOTE_ALONE = re.compile(r"^(\d{1,3})$")
_RAISED_NUMBER = re.compile(r"^([⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})(?=[^\s⁰¹²³⁴⁵⁶⁷⁸⁹])")  # "¹⁰GNU is…" → "¹⁰ GNU is…"


def _marker_in(text: str, number: str) -> bool:
    """The body carries footnote ``number`` as a superscript PDFium glued to the word before it:
    "GNU10-based", "compiler.11", "segments2", "GNU10) 의"."""
    return bool(
        re.search(rf"(?<=[A-Za-z\u00c0-\u024f\uac00-\ud7a3.,;:)”’\"']){number}(?![\d\w])|(?<=[A-Za-z\uac00-\ud7a3]){number}\)", text)
    )


def _note_number(lines: list[str], index: int) -> str | None:
    line = lines[index]
    for pattern in (_NOTE_GLUED, _NOTE_PAREN):
        match = pattern.match(line)
        if match:
            return match.group(1)
    match = _NOTE_ALONE.match(line)
    # Alone on its line, the number must be followed by words, not by the next numbered line of a listing.
    if match and index + 1 < len(lines) and re.match(r"[^\W\d_]", lines[index + 1]) and not value_cells(lines[index + 1])[0]:
        return match.group(1)
    return None


def split_footnotes(lines: list[str]) -> tuple[list[str], list[str]]:
    """Split a page's lines into body and footnotes (the bottom lines from the first footnote on). Markers
    and numbers read as superscripts ("GNU¹⁰-based", "¹⁰GNU is…", see ``baeum.extraction.pdflayout``) count
    as the digits they are."""
    plain = [line.translate(PLAIN) for line in lines]
    for index in range(max(1, len(lines) - NOTE_REGION_LINES), len(lines)):
        number = _note_number(plain, index)
        if number is None or int(number) == 0:
            continue
        if _marker_in("\n".join(plain[:index]), number):
            return lines[:index], lines[index:]
    return lines, []


def footnote_paragraphs(notes: list[str]) -> list[str]:
    """Join footnote lines into one paragraph per footnote ("10GNU is…", "11http://…")."""
    paragraphs: list[list[str]] = []
    plain = [line.translate(PLAIN) for line in notes]
    for index, line in enumerate(notes):
        if not paragraphs or _note_number(plain, index) is not None:
            if paragraphs and _NOTE_ALONE.match(paragraphs[-1][-1]) and len(paragraphs[-1]) == 1:
                paragraphs[-1].append(line)  # "2" then its text on the next line
                continue
            paragraphs.append([line])
        else:
            paragraphs[-1].append(line)
    # "10GNU is…" → "10 GNU is…": only a space is added, so a quote of it is still found on its page.
    return [_RAISED_NUMBER.sub(r"\1 ", _NOTE_GLUED.sub(r"\1 ", " ".join(paragraph))) for paragraph in paragraphs]


_SUPERSCRIPT = str.maketrans("0123456789,-–", "⁰¹²³⁴⁵⁶⁷⁸⁹˒⁻⁻")
_REFERENCE = re.compile(r"\[([1-9]\d{0,2}(?:\s*[,–-]\s*[1-9]\d{0,2})*)\](?!\s*[=\[(])")
_LATIN_WORD_BEFORE = re.compile(r"[A-Za-z_][\w]*$")


def superscript_references(text: str) -> str:
    """Rewrite the document's own reference markers as superscripts ("KorQuAD 1.0[1]" → "KorQuAD 1.0⁽¹⁾"),
    so they are never read as the tutor's citation marks [n]. An index in code ("t[1]", "a[0] = 3") stays;
    after a Latin word only a marker that cannot be an index stays a reference ("BERT multilingual[12]")."""

    def replace(match: re.Match) -> str:
        before = text[: match.start()]
        inner = match.group(1)
        if (
            _LATIN_WORD_BEFORE.search(before)
            and len(inner) < 2
            or before.endswith(("]", ")"))
            or before.rstrip().endswith(("=", "(", ",", "["))
        ):
            return match.group(0)  # an index or a list in code: "t[1]", "a[0][2]", "x = [1]", "f([2])"
        return "⁽" + re.sub(r"\s+", "", inner).translate(_SUPERSCRIPT) + "⁾"

    return _REFERENCE.sub(replace, text)
