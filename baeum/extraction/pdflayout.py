"""What a PDF page's geometry says that its text alone does not: side notes and sub- and superscripts.

PDFium's text (``get_text_range``) is in content order with the positions dropped, so two things a reader
sees come out wrong:

- **Side notes** — a note set in the page's margin beside the paragraph it comments — are read into the
  line they sit beside: "There are two popular methods of Endian is pronounced like storing integers"
  (pcasm-book-english.pdf, p.34). A note is text whose line boxes lie wholly outside the page's text
  column (the span of its full-width lines). It is cut out of the body and returned on its own, one
  string a note; chunking keeps notes apart from the sentences, like footnotes.
- **Code** is set in a fixed-pitch font (PDFium's font flags, or a typewriter font's name: Menlo, CMTT10,
  LMMono10, Courier, Consolas …): a line whose sampled characters are all in one is a line of code, which
  chunking keeps as a line of its own, a block apart from the prose ("print('Hello')" no longer opens the
  sentence after it).
- **Sub- and superscripts** — smaller glyphs set below or above the line — come out flat: "12345678₁₆"
  reads "1234567816", "2 × 10²" reads "2 × 102". A run of characters at least ``SMALLER`` the size of
  the line's own text, whose baseline is ``RAISED`` above or ``LOWERED`` below its neighbour's, is
  written with Unicode's superscript or subscript forms when all its characters have one ("10²", "FF₁₆");
  otherwise it is left as it was. Footnote markers become superscripts too ("GNU¹⁰-based"), which
  ``baeum.extraction.tables`` reads as markers.

The functions here take plain numbers (boxes, sizes, baselines), not PDFium objects, so they are tested
without a PDF; ``baeum.extraction.pdfworker`` reads the geometry. No Django imports.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

SMALLER = 0.85  # a script glyph is at most this share of the line's text size
RAISED = 0.2  # a superscript's baseline stands this share of the text size above its neighbour's
LOWERED = 0.08  # a subscript's baseline stands this share below
COLUMN_MIN_LINES = 3  # a page needs this many full-width lines before anything is called a margin
WIDE_SHARE = 0.5  # a full-width line is at least this share of the page's wide lines (90th percentile)
MARGIN_GAP = 4.0  # points between a side note and the text column
NOTE_MIN_WORDS = 5  # words with letters: a page number ("vii") or a reference entry's name in the margin ("SHR") is no note
NOTE_PROSE_SHARE = 0.6  # of them lower-case or Hangul (see ``_is_prose``)
NOTE_WORD_SHARE = 0.5  # of its tokens words, not numbers or signs (a listing's line numbers)
NOTE_MAX_SECTION_NUMBERS = 3  # "3.2.1", "3.2.2", "3.2.3": a contents column, not a note
NOTE_LONG_WORDS = 12  # words enough to be a note without a sentence's end ("… if it is divisible by 4")
NOTE_LINE_GAP = 1.6  # lines of one note stand at most this many line heights apart

SUPERSCRIPTS = dict(zip("0123456789+-−=()ni", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ⁿⁱ", strict=True))
SUBSCRIPTS = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ", strict=True))
# Back to the characters the typesetter set: for matching footnote numbers and markers.
PLAIN = str.maketrans({**{v: k for k, v in SUPERSCRIPTS.items() if k != "−"}, **{v: k for k, v in SUBSCRIPTS.items() if k != "−"}})


_HANGUL = re.compile(r"[\uac00-\ud7a3]")
_NUMBERED = re.compile(r"^(?:\d+(?:\.\d+)*\.?\s|제\s*\d+\s*장)")
_SECTION_NUMBER = re.compile(r"^\d+\.\d+\.\d+$")  # "3.2.1": a contents column
_SENTENCE_END = re.compile(r"(?:[.!?]|[다요])\s*[\"'”’)]*\s*[.!?]?\s*$")


@dataclass(frozen=True)
class Box:
    """A line box on the page, in points from the bottom-left corner."""

    left: float
    bottom: float
    right: float
    top: float

    @property
    def width(self) -> float:
        return self.right - self.left

    @property
    def height(self) -> float:
        return self.top - self.bottom


# Boxes of one line stand at most this share of their height apart: PDFium returns a justified line's letters as
# boxes of their own where it spreads them (a Korean page printed from HTML: "석", "결", …), which are no note.
LINE_GAP_SHARE = 0.6


def _lines_of(boxes: Sequence[tuple[Box, str]]) -> list[list[int]]:
    """The page's boxes grouped into lines, left to right: boxes whose middles stand within half a box's height of
    each other are a row, and in a row a box joins the one before it when it follows within ``LINE_GAP_SHARE`` of
    its height. Sorted once, so a filing's page of thousands of table cells stays within its CPU budget."""

    def middle(index: int) -> float:
        box = boxes[index][0]
        return (box.top + box.bottom) / 2

    rows: list[list[int]] = []
    for index in sorted(range(len(boxes)), key=middle, reverse=True):
        if rows and middle(rows[-1][0]) - middle(index) <= 0.5 * max(boxes[rows[-1][0]][0].height, 1.0):
            rows[-1].append(index)
        else:
            rows.append([index])
    lines: list[list[int]] = []
    for row in rows:
        row.sort(key=lambda index: boxes[index][0].left)
        first = len(lines)  # this row's lines start here
        for index in row:
            if len(lines) > first:
                last, box = boxes[lines[-1][-1]][0], boxes[index][0]
                if -1.0 <= box.left - last.right <= LINE_GAP_SHARE * max(box.height, last.height):
                    lines[-1].append(index)
                    continue
            lines.append([index])
    return lines


def margin_notes(boxes: Sequence[tuple[Box, str]]) -> list[list[int]]:
    """Return the side notes among a page's line boxes (each with its text), as lists of box indexes, one
    list a note, top to bottom. A box is in the margin when it lies wholly left or right of every full-width
    line with ``MARGIN_GAP`` to spare; the boxes of one note stand close above one another on one side. Boxes
    that continue one line (``_lines_of``) are read as one."""
    lines = _lines_of(boxes)
    merged = [
        (
            Box(
                min(boxes[index][0].left for index in line),
                min(boxes[index][0].bottom for index in line),
                max(boxes[index][0].right for index in line),
                max(boxes[index][0].top for index in line),
            ),
            "".join(boxes[index][1] for index in line),
        )
        for line in lines
    ]
    return [[index for line in note for index in lines[line]] for note in _margin_notes(merged)]


def _margin_notes(boxes: Sequence[tuple[Box, str]]) -> list[list[int]]:
    widths = sorted(box.width for box, _ in boxes)
    if len(widths) < COLUMN_MIN_LINES:
        return []
    wide_width = widths[int(0.9 * (len(widths) - 1))] * WIDE_SHARE
    wide = [box for box, _ in boxes if box.width >= wide_width]
    if len(wide) < COLUMN_MIN_LINES:
        return []
    # The column's left edge is where most full lines start (a listing set further left is no margin), its
    # right edge where the full lines that share it end.
    column_left = statistics.mode(round(box.left) for box in wide)
    flush_right = max(box.right for box in wide if abs(box.left - column_left) <= 3)
    if sum(box.left >= flush_right or box.right <= column_left for box in wide) >= COLUMN_MIN_LINES:
        return []  # full lines beside the column: two columns, no single margin to read
    column_right = max(box.right for box in wide if box.left < flush_right)
    sides: list[tuple[int, str]] = []
    for index, (box, _text) in enumerate(boxes):
        if box.width >= wide_width:
            continue
        if box.right < column_left - MARGIN_GAP:
            sides.append((index, "left"))
        elif box.left > column_right + MARGIN_GAP:
            sides.append((index, "right"))
    notes: list[list[int]] = []
    for side in ("left", "right"):
        indexes = sorted((index for index, where in sides if where == side), key=lambda index: -boxes[index][0].top)
        for index in indexes:
            box = boxes[index][0]
            if notes and notes[-1][0] in indexes:
                above = boxes[notes[-1][-1]][0]
                if above.bottom - box.top <= NOTE_LINE_GAP * max(box.height, above.height):
                    notes[-1].append(index)
                    continue
            notes.append([index])
    kept = [note for note in notes if _is_prose([boxes[index][1] for index in note])]
    return sorted(kept, key=lambda note: -boxes[note[0]][0].top)


def _is_prose(lines: list[str]) -> bool:
    """A side note is written in words, most of them lower-case or Hangul, and reads as a sentence ("Endian
    is pronounced like indian."); a table's or a listing's column set beside the text is not ("JL JLE JMP
    JNA JNAE", "void 1 { 2 int 3"), nor a contents column ("2.1 정수들 다루기 2.1.1 정수의 표현"), a figure's
    labels ("header: body: parameter:") or a page number ("vii")."""
    text = " ".join(lines)
    tokens = text.split()
    words = [word for word in tokens if any(char.isalpha() for char in word)]
    prose = sum(_HANGUL.search(word) is not None or next(char for char in word if char.isalpha()).islower() for word in words)
    numbered = sum(bool(_NUMBERED.match(line.strip())) for line in lines)
    sections = sum(bool(_SECTION_NUMBER.match(token)) for token in tokens)
    return (
        len(words) >= NOTE_MIN_WORDS
        and prose >= NOTE_PROSE_SHARE * len(words)
        and len(words) >= NOTE_WORD_SHARE * len(tokens)
        and numbered * 2 < len(lines)
        and sections < NOTE_MAX_SECTION_NUMBERS
        and (bool(_SENTENCE_END.search(text)) or len(words) >= NOTE_LONG_WORDS)
    )


def script_runs(text: str, sizes: Sequence[float], baseline: Callable[[int], float]) -> dict[int, str]:
    """Return {character index: its script form} for the sub- and superscripts of ``text`` (one character a
    size; ``baseline(index)`` is a character's baseline height, asked only near a smaller run).

    Lines are the text's own line breaks; a line's text size is the size most of its letters have."""
    forms: dict[int, str] = {}
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        forms.update(_line_scripts(text, sizes, baseline, start, end))
        start = end + 1
    return forms


def _line_scripts(text: str, sizes: Sequence[float], baseline: Callable[[int], float], start: int, end: int) -> dict[int, str]:
    counted = [round(sizes[index], 1) for index in range(start, end) if text[index].isalnum() and sizes[index] > 1]
    if len(counted) < 2:
        return {}
    size = statistics.mode(counted)
    small = [index for index in range(start, end) if not text[index].isspace() and 1 < sizes[index] <= SMALLER * size]
    forms: dict[int, str] = {}
    position = 0
    while position < len(small):
        run = [small[position]]
        while position + len(run) < len(small) and small[position + len(run)] == run[-1] + 1:
            run.append(small[position + len(run)])
        position += len(run)
        neighbour = _text_size_neighbour(text, sizes, size, run[0], run[-1], start, end)
        if neighbour is None:
            continue
        rise = baseline(run[0]) - baseline(neighbour)
        table = SUPERSCRIPTS if rise > RAISED * size else SUBSCRIPTS if rise < -LOWERED * size else None
        if table is not None and all(text[index] in table for index in run):
            forms.update({index: table[text[index]] for index in run})
    return forms


def _text_size_neighbour(text: str, sizes: Sequence[float], size: float, first: int, last: int, start: int, end: int) -> int | None:
    """The nearest letter or digit of the line's text size before the run (else after it): the baseline to compare."""
    for index in [*range(first - 1, start - 1, -1), *range(last + 1, end)]:
        if text[index].isalnum() and abs(sizes[index] - size) < 0.15 * size:
            return index
    return None


# A typewriter font by its name when the PDF does not flag it fixed-pitch (TeX's Computer Modern CMTT10 does not).
MONO_FONT = re.compile(r"mono|courier|consol|menlo|cmtt|lmtt|typewriter|inconsolata|sourcecode|sfmono|fixed|\bcode", re.IGNORECASE)
CODE_SAMPLES = 5  # characters of a line whose fonts are looked at


def code_lines(text: str, is_mono: Callable[[int], bool], removed: set[int] = frozenset()) -> list[str]:
    """The lines of ``text`` (stripped) set in a fixed-pitch font: up to ``CODE_SAMPLES`` of their visible
    characters, spread over the line, are all ``is_mono``. Lines in ``removed`` (side notes) are left out."""
    found: list[str] = []
    start = 0
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        visible = [index for index in range(start, end) if not text[index].isspace() and index not in removed]
        if len(visible) >= 2:
            step = max(1, len(visible) // CODE_SAMPLES)
            if all(is_mono(index) for index in visible[::step][:CODE_SAMPLES] + [visible[-1]]):
                found.append(" ".join(text[start:end].split()))
        start = end + 1
    return found


def remove_spans(text: str, removed: set[int]) -> str:
    """``text`` without the characters at ``removed``: a line left with nothing but spaces goes, and the
    spaces a removal leaves doubled or at a line's end are closed up."""
    lines_out: list[str] = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        line_indexes = range(start, end)
        if any(index in removed for index in line_indexes):
            kept = "".join(text[index] for index in line_indexes if index not in removed)
            kept = " ".join(kept.replace("\r", "").split())
            if kept:
                lines_out.append(kept + ("\r" if text[start:end].endswith("\r") else ""))
        else:
            lines_out.append(text[start:end])
        start = end + 1
    return "\n".join(lines_out)


# --- Headings by their size --------------------------------------------------------------------------------------

# A line whose letters are this many times the body text's size is a heading: the Ninja manual printed from HTML
# (body 16 pt; headings 32, 24 and 18.7 pt) numbers none of its headings, so "Validations" had been glued to the
# section's first sentence ("Validations Validations listed on the build line cause …") in answers and key points.
HEADING_SIZE = 1.15
HEADING_LEVELS = ((1.8, 1), (1.3, 2))  # a chapter from this size up, a section from this; smaller: level 3
SIZE_TOLERANCE = 0.05  # a line this close to the page's size is body text: only other lines are reported
MIN_FONT_SIZE = 4.0  # PDFium reports 1.0 where a text matrix scales the font: sizes that small mean nothing
_ENDS_AS_SENTENCE = re.compile(r"[.,;:]$")


def line_sizes(text: str, sizes: Sequence[float], removed: set[int] = frozenset()) -> tuple[dict[float, int], dict[str, float]]:
    """How many letters of the page are set in each size, and the lines (spaces collapsed, side notes aside) set in
    another size than most of the page's letters, with the size most of their letters have."""
    counted: Counter[float] = Counter()
    lines: list[tuple[str, float]] = []
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        letters = [round(sizes[index], 1) for index in range(start, end) if text[index].isalnum() and index not in removed]
        if letters:
            counted.update(letters)
            kept = "".join(text[index] for index in range(start, end) if index not in removed)
            lines.append((" ".join(kept.split()), Counter(letters).most_common(1)[0][0]))
        start = end + 1
    if not counted:
        return {}, {}
    most = counted.most_common(1)[0][0]
    return dict(counted), {line: size for line, size in lines if abs(size - most) > SIZE_TOLERANCE * most}


BODY_SHARE = 0.2  # a size that sets this share of a document's letters is body text (its prose or its code)


def body_size(pages: Sequence[dict[float, int]]) -> float:
    """The document's body text size: the largest of the sizes that set ``BODY_SHARE`` of its letters (a book of
    code and prose sets each in its own size; its prose is the larger, and no heading)."""
    total: Counter[float] = Counter()
    for letters in pages:
        total.update({size: count for size, count in letters.items() if size >= MIN_FONT_SIZE})
    letters = sum(total.values())
    return max((size for size, count in total.items() if count >= BODY_SHARE * letters), default=0.0)


def sized_headings(lines: dict[str, float], body: float) -> dict[str, int]:
    """Of a page's ``lines`` (text → size), those set as headings, with their level: at least ``HEADING_SIZE``
    times ``body``, short, with words, and not ending as a sentence does."""
    if body < MIN_FONT_SIZE:
        return {}
    headings = {}
    for line, size in lines.items():
        words = sum(char.isalpha() for char in line)
        if size < HEADING_SIZE * body or len(line) > 90 or words < 2 or _ENDS_AS_SENTENCE.search(line):
            continue
        headings[line] = next((level for ratio, level in HEADING_LEVELS if size >= ratio * body), 3)
    return headings
