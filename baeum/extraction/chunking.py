"""Cut extracted pages into token-budgeted, overlapping chunks that respect headings and paragraphs.

Pipeline: normalise each page → drop repeated running headers/footers and bare page numbers →
move footnotes to the end of their page's text → find tables (``baeum.extraction.tables``) → group the other lines
into headings and paragraphs → split paragraphs into sentences → pack sentences into chunks of about
``target_tokens`` (CJK-aware estimate), starting a new chunk at a heading when the current one is
reasonably full, and repeating the tail of the previous chunk (``overlap`` of the budget) at the start
of the next one unless the next one opens a new section. A table goes into one chunk whole, one row a
line; a table longer than the budget is cut between rows, each part opening with its caption and header.
No Django imports.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from baeum import rules
from baeum.extraction.lines import _BARE_CHAPTER, TERMINAL, heading_level, strip_running_lines
from baeum.extraction.tables import Table, find_tables, footnote_paragraphs, is_caption, split_footnotes
from baeum.language.analysis import join_lines
from baeum.language.text import LIST_ITEM, SHORT_NOTE, estimate_tokens, normalize_text, split_sentences

# Packing. Ingestion passes BAEUM_CHUNK_TOKENS and BAEUM_CHUNK_OVERLAP (config/settings/base.py, the same
# defaults); the retrieval numbers in docs/evaluation.md (eval_retrieval) were measured with these values.
TARGET_TOKENS = 300  # a chunk's budget: a few paragraphs, one idea to cite
OVERLAP = 0.12  # share of the budget repeated from the previous chunk, so a sentence cut at a border is found whole
HEADING_BREAK_FILL = 0.4  # a sub-heading starts a new chunk once the current one holds this share of the budget
# Layout heuristics, read off the sample books' PDFs (tests/machinery/test_chunking.py pins them).
PARAGRAPH_END_WIDTH = 0.75  # a line shorter than this share of a typical line that ends a sentence closes its paragraph
DEFAULT_LINE_WIDTH = 80.0  # a typical line's characters when a document has too few lines to measure it


@dataclass(frozen=True)
class PageText:
    number: int
    text: str
    notes: tuple[str, ...] = ()  # side notes from the margin (``baeum.extraction.pdflayout``), kept apart like footnotes
    code: tuple[str, ...] = ()  # lines set in a fixed-pitch font: each kept a line of its own, apart from the prose
    headings: tuple[tuple[str, int], ...] = ()  # lines set as headings by their size, with their level (``pdflayout``)


@dataclass
class Chunk:
    index: int
    content: str
    page_start: int
    page_end: int
    token_count: int
    overlap_chars: int = 0  # leading characters repeated from the previous chunk
    section_title: str = ""  # the heading in force where the chunk's own text begins
    section_level: int = 0  # level of a heading that opens this chunk (0: the chunk continues a section)
    # (character offset in ``content``, page number) where each page of the chunk begins, so a quote
    # carries the page of its own sentence, not the page the chunk starts on (see ``page_span``).
    page_starts: list[tuple[int, int]] = field(default_factory=list)
    # (start, end) offsets in ``content`` of footnotes, moved out of the sentences to the end of their page.
    note_spans: list[tuple[int, int]] = field(default_factory=list)
    # (start, end) offsets in ``content`` of lines of code (set in a fixed-pitch font): never quoted as prose.
    code_spans: list[tuple[int, int]] = field(default_factory=list)
    # (start, end, level) of every heading line in ``content``: a section that opens inside the chunk is
    # evidence for it too, not only ``section_title`` (the heading in force where the chunk begins).
    heading_spans: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class _Unit:
    text: str
    page: int
    heading_level: int = 0  # > 0: a heading of that level
    paragraph_start: bool = False
    table: int = 0  # > 0: one or more rows of that table (numbered across the document), never cut inside
    table_header: bool = False  # the table's caption and column heads, repeated in each part of a cut table
    note: bool = False  # a footnote
    code: bool = False  # a line of code, never joined to a sentence
    tokens: int = field(init=False)

    def __post_init__(self) -> None:
        self.tokens = estimate_tokens(self.text)


def _table_units(number: int, lines: list[str], table: Table, table_id: int) -> list[_Unit]:
    """One unit for the header (caption, titles, column heads), then one per row (a row may take two lines:
    a label, then its values); rows of one table are joined by line breaks, never cut inside."""
    units: list[_Unit] = []
    header_end = table.start + table.header
    if table.header:
        units.append(_Unit("\n".join(lines[table.start : header_end]), number, paragraph_start=True, table=table_id, table_header=True))
    row: list[str] = []
    for index in range(header_end, table.end):
        row.append(lines[index])
        if index in table.breaks or index == table.end - 1:
            units.append(_Unit("\n".join(row), number, paragraph_start=not units, table=table_id))
            row = []
    return units


# A line ending a sentence with a full stop, then a short note (``baeum.language.text.SHORT_NOTE``).
_ENDS_WITH_NOTE = re.compile(rf"[.。]\s*{SHORT_NOTE}\s*$")


SIZED_HEADING = rules.register(
    rules.Rule(
        "chunk:sized-heading",
        lambda line: True,
        "Validations",
        "a line the PDF sets larger than its body text is a heading (``pdflayout.sized_headings``), numbered or not: the "
        "Ninja manual's 'Validations' had been glued to its section's first sentence in answers and key points",
    )
)[0]


def _page_units(
    number: int,
    lines: list[str],
    typical_width: float,
    markdown: bool,
    tables: list[Table] = (),
    first_table_id: int = 1,
    code_at: set[int] = frozenset(),
    text_file: bool = False,
    sized_at: dict[int, int] | None = None,
) -> Iterable[_Unit]:
    """A page's units. ``text_file``: a text, Markdown or Office file, whose lines break at spaces (a PDF breaks a
    Korean word anywhere: "가리키" / "는데"; the Korean xz manual as text had "파일" / "무결성을" glued by Kiwi)."""
    paragraph: list[str] = []
    sized_at = sized_at or {}
    table_at = {table.start: table for table in tables}
    inside = {index for table in tables for index in range(table.start, table.end)}

    def flush() -> Iterable[_Unit]:
        if not paragraph:
            return
        # A line that ends a sentence with a short note ("… 정의자입니다. (v0.17.1부터 지원)") ends a list item: the
        # next line opens a paragraph of its own, so the note is never read as the next sentence's opening.
        ends = [index + 1 for index, line in enumerate(paragraph[:-1]) if _ENDS_WITH_NOTE.search(line)]
        for first, last in zip([0, *ends], [*ends, len(paragraph)], strict=True):
            lines = paragraph[first:last]
            text = " ".join(lines) if text_file else join_lines(lines)
            for position, sentence in enumerate(split_sentences(text)):
                yield _Unit(sentence, number, paragraph_start=position == 0)
        paragraph.clear()

    pending_title: _Unit | None = None  # a bare "Chapter 3" waiting for its name on the next line
    for position, line in enumerate(lines):
        if position in inside:
            # A table's rows are never headings ("5 Control" in a figure) nor part of a paragraph.
            if position in table_at:
                if pending_title is not None:
                    yield pending_title
                    pending_title = None
                yield from flush()
                table = table_at[position]
                units = _table_units(number, lines, table, first_table_id + tables.index(table))
                # A table the reader set as code (a Markdown file's HTML table: Node's key bindings) stays code:
                # its rows are never a key point nor a sentence to quote.
                if all(index in code_at for index in range(table.start, table.end) if lines[index]):
                    units = [replace(unit, code=True) for unit in units]
                yield from units
            continue
        if pending_title is not None:
            bare = _BARE_CHAPTER.match(pending_title.text)
            # A heading set large that wrapped: the next line is set as large ("KorQuAD 2.0: Korean QA Dataset for Web
            # Document Machine" / "Comprehension").
            same_size = position - 1 in sized_at and sized_at.get(position) == sized_at[position - 1]
            if (
                line
                and len(line) <= 60
                and not TERMINAL.search(line)
                and not heading_level(line, markdown=markdown)
                and (bare or same_size)
            ):
                pending_title = _Unit(
                    f"{pending_title.text} {line}", number, heading_level=pending_title.heading_level, paragraph_start=True
                )
                yield pending_title
                pending_title = None
                continue
            yield pending_title
            pending_title = None
        if not line:
            yield from flush()
            continue
        if position in code_at:  # a line of code: a line of its own, the next line of code under it
            yield from flush()
            yield _Unit(line, number, paragraph_start=position - 1 not in code_at, code=True)
            continue
        level = heading_level(line, markdown=markdown) or (
            position in sized_at and rules.applies(SIZED_HEADING, line) and sized_at[position]
        )
        if level:
            yield from flush()
            # A bare "Chapter 3" waits for its name on the next line, any other heading for the rest of it when it
            # wrapped ("2.6. RECOVERING DATA FROM DAMAGED" / "FILES").
            pending_title = _Unit(line.lstrip("#").strip(), number, heading_level=level, paragraph_start=True)
            continue
        if LIST_ITEM.match(line):
            yield from flush()  # an item of a list starts a paragraph of its own
        paragraph.append(line)
        # A short line that ends a sentence closes its paragraph (PDF text has no blank lines).
        if TERMINAL.search(line) and len(line) < PARAGRAPH_END_WIDTH * typical_width:
            yield from flush()
    if pending_title is not None:
        yield pending_title
    yield from flush()


def _split_long(unit: _Unit, limit: int) -> list[_Unit]:
    if unit.tokens <= limit:
        return [unit]
    words = unit.text.split(" ")
    pieces: list[_Unit] = []
    current: list[str] = []
    for word in words:
        candidate = " ".join([*current, word])
        if current and estimate_tokens(candidate) > limit:
            pieces.append(_Unit(" ".join(current), unit.page, paragraph_start=not pieces and unit.paragraph_start))
            current = [word]
        else:
            current.append(word)
    if current:
        pieces.append(_Unit(" ".join(current), unit.page, paragraph_start=not pieces and unit.paragraph_start))
    # A single "word" longer than the limit (Korean text without spaces): cut by characters.
    result: list[_Unit] = []
    for piece in pieces:
        if piece.tokens <= limit:
            result.append(piece)
            continue
        step = max(1, int(len(piece.text) * limit / piece.tokens))
        for start in range(0, len(piece.text), step):
            result.append(_Unit(piece.text[start : start + step], piece.page, paragraph_start=start == 0 and piece.paragraph_start))
    return result


def _join(units: list[_Unit]) -> str:
    return _join_with_pages(units)[0]


def _separator(previous: _Unit, unit: _Unit) -> str:
    if unit.table and unit.table == previous.table or unit.code and previous.code:
        return "\n"  # the next row of the same table, the next line of code
    if (
        unit.paragraph_start
        or unit.heading_level
        or previous.heading_level
        or previous.table
        or unit.note != previous.note
        or previous.code
    ):
        return "\n\n"
    return " "


def _join_with_pages(units: list[_Unit]) -> tuple[str, list[tuple[int, int]]]:
    """Join units into chunk text; return it with the offset where each page begins."""
    joined = _join_with_spans(units)
    return joined.content, joined.page_starts


@dataclass(frozen=True)
class _Joined:
    content: str
    page_starts: list[tuple[int, int]]  # (offset, page) where each page begins
    note_spans: list[tuple[int, int]]  # each footnote
    code_spans: list[tuple[int, int]]  # each block of code
    heading_spans: list[tuple[int, int, int]]  # each heading, with its level


def _join_with_spans(units: list[_Unit]) -> _Joined:
    """Join units into chunk text, with where each page begins and where each footnote, block of code and
    heading is."""
    parts: list[str] = []
    starts: list[tuple[int, int]] = []
    notes: list[tuple[int, int]] = []
    code: list[tuple[int, int]] = []
    headings: list[tuple[int, int, int]] = []
    length = 0
    for position, unit in enumerate(units):
        if position:
            separator = _separator(units[position - 1], unit)
            parts.append(separator)
            length += len(separator)
        if not starts or starts[-1][1] != unit.page:
            starts.append((length, unit.page))
        if unit.note:
            if notes and notes[-1][1] + 1 == length and units[position - 1].note and not unit.paragraph_start:
                notes[-1] = (notes[-1][0], length + len(unit.text))  # the next sentence of the same footnote
            else:
                notes.append((length, length + len(unit.text)))
        if unit.code:
            if code and position and units[position - 1].code:
                code[-1] = (code[-1][0], length + len(unit.text))  # the next line of the same block
            else:
                code.append((length, length + len(unit.text)))
        if unit.heading_level:
            headings.append((length, length + len(unit.text), unit.heading_level))
        parts.append(unit.text)
        length += len(unit.text)
    return _Joined("".join(parts), starts, notes, code, headings)


def _document_units(pages: list[PageText], *, target_tokens: int, markdown: bool, blank_lines_end_paragraphs: bool) -> list[_Unit]:
    """Every page's units in reading order: its body (tables whole), then its footnotes and side notes."""
    normalised = [[line for line in normalize_text(page.text).split("\n")] for page in pages]
    listings = frozenset(" ".join(normalize_text(line).split()) for page in pages for line in page.code)
    cleaned = strip_running_lines(normalised, keep_blank_lines=blank_lines_end_paragraphs, code=listings)
    widths = [len(line) for lines in cleaned for line in lines if line]
    typical_width = statistics.quantiles(widths, n=10)[7] if len(widths) >= 10 else DEFAULT_LINE_WIDTH  # the 80th percentile
    units: list[_Unit] = []
    table_id = 1
    for page, lines in zip(pages, cleaned, strict=True):
        body, notes = split_footnotes(lines) if not markdown else (lines, [])
        tables = find_tables(body, typical_width=typical_width, is_heading=heading_level, markdown=markdown)
        code = {" ".join(normalize_text(line).split()) for line in page.code}
        code_at = {position for position, line in enumerate(body) if line and " ".join(line.split()) in code}
        sized = dict(page.headings)
        sized_at = {position: sized[key] for position, line in enumerate(body) if line and (key := " ".join(line.split())) in sized}
        for unit in _page_units(
            page.number, body, typical_width, markdown, tables, table_id, code_at, blank_lines_end_paragraphs, sized_at
        ):
            units.extend([unit] if unit.table and unit.tokens <= target_tokens else _split_long(unit, target_tokens))
        table_id += len(tables)
        for note in [*footnote_paragraphs(notes), *(normalize_text(side) for side in page.notes)]:
            for position, sentence in enumerate(split_sentences(note)):
                units.append(_Unit(sentence, page.number, paragraph_start=position == 0, note=True))
    return units


def _items(units: list[_Unit]) -> Iterable[list[_Unit]]:
    """Group units into what packing places at once: a table's units together, any other unit alone."""
    group: list[_Unit] = []
    for unit in units:
        if group and (not unit.table or unit.table != group[0].table):
            yield group
            group = []
        group.append(unit)
        if not unit.table:
            yield group
            group = []
    if group:
        yield group


def _table_parts(rows: list[_Unit], target_tokens: int, used: int = 0) -> list[list[_Unit]]:
    """Cut a table longer than the budget between rows; every part after the first opens with the caption
    and the header rows again (and a caption printed under the table comes first too)."""
    header = [unit for unit in rows if unit.table_header]
    body = [unit for unit in rows if not unit.table_header]
    caption_below = [body[-1]] if body and is_caption(body[-1].text.split("\n")[-1]) and not header else []
    repeated = [
        _Unit(unit.text, unit.page, paragraph_start=position == 0, table=unit.table, table_header=True)
        for position, unit in enumerate(caption_below + header)
    ]
    parts: list[list[_Unit]] = [list(header)]
    tokens = used + sum(unit.tokens for unit in header)  # ``used``: what the chunk holds before the table
    repeated_tokens = sum(unit.tokens for unit in repeated)
    for unit in body:
        if len(parts[-1]) > len(header if len(parts) == 1 else repeated) and tokens + unit.tokens > target_tokens:
            parts.append(list(repeated))
            tokens = repeated_tokens
        if not parts[-1]:
            unit = _Unit(unit.text, unit.page, paragraph_start=True, table=unit.table)
        parts[-1].append(unit)
        tokens += unit.tokens
    return parts


def chunk_pages(
    pages: list[PageText],
    *,
    target_tokens: int = TARGET_TOKENS,
    overlap: float = OVERLAP,
    markdown: bool = False,
    breaks: frozenset[int] = frozenset(),
    blank_lines_end_paragraphs: bool = False,
) -> list[Chunk]:
    """Cut pages into chunks; see the module docstring. Never returns an empty chunk. A page in ``breaks``
    (where front matter ends or back matter begins) starts a new chunk, with no overlap carried into it.
    ``blank_lines_end_paragraphs``: a text, Markdown or Office file (a PDF's blank lines are layout), whose lines
    also break at spaces, never inside a word."""
    units = _document_units(pages, target_tokens=target_tokens, markdown=markdown, blank_lines_end_paragraphs=blank_lines_end_paragraphs)
    packer = _Packer(target_tokens=target_tokens, overlap=overlap)
    previous_page = None
    for item in _items(units):
        at_break = item[0].page in breaks and item[0].page != previous_page
        previous_page = item[-1].page
        packer.add(item, at_break=at_break)
    return packer.finish()


class _Packer:
    """Packs units into chunks in reading order: the chunk being filled (``current``), the overlap repeated at
    its head (``carried``), and the section in force."""

    def __init__(self, *, target_tokens: int, overlap: float):
        self.target_tokens = target_tokens
        self.overlap_budget = max(1, int(target_tokens * overlap))
        self.chunks: list[Chunk] = []
        self.current: list[_Unit] = []
        self.carried: list[_Unit] = []  # overlap units at the head of ``current``
        self.current_tokens = 0
        self.section_title = ""  # the heading in force
        self.chunk_section = ""  # the heading in force where the current chunk's own text begins
        self.opening_level = 0  # the level of a heading that opens the current chunk

    @property
    def own(self) -> list[_Unit]:
        """The current chunk's own units (after the overlap)."""
        return self.current[len(self.carried) :]

    def add(self, item: list[_Unit], *, at_break: bool) -> None:
        """Place one item (a unit, or a table's units): first end the current chunk if the item starts a new one."""
        unit = item[0]
        size = sum(part.tokens for part in item)
        if self.own and self._ends_before(unit, size, at_break):
            if not unit.table or at_break:
                self.emit()
            elif not all(own.heading_level for own in self.own):
                self.start_table()  # (a heading right above the table stays with it)
        if at_break:
            self.restart()  # front/back matter and the chapters share no text
        if unit.table:
            self._add_table(item, size)
        else:
            self.place(unit)

    def _ends_before(self, unit: _Unit, size: int, at_break: bool) -> bool:
        """Whether the current chunk ends before ``unit``: it would overflow, a chapter starts, a section
        starts once the chunk is reasonably full, or front or back matter begins or ends."""
        own_tokens = self.current_tokens - sum(carried.tokens for carried in self.carried)
        return (
            self.current_tokens + size > self.target_tokens
            or unit.heading_level == 1
            or bool(unit.heading_level and own_tokens >= HEADING_BREAK_FILL * self.target_tokens)
            or at_break
        )

    def _add_table(self, rows: list[_Unit], size: int) -> None:
        """Place a table whole, or cut between rows into parts (each its own chunk) when it exceeds the budget."""
        if self.carried and self.current_tokens + size > self.target_tokens:  # the overlap would push the table over: drop it
            self.current, self.carried, self.current_tokens = self.own, [], self.current_tokens - sum(unit.tokens for unit in self.carried)
        parts = _table_parts(rows, self.target_tokens, self.current_tokens) if size > self.target_tokens else [rows]
        for number, part in enumerate(parts):
            if number:
                self.emit()
                self.restart()
            for row in part:
                self.place(row)

    def place(self, unit: _Unit) -> None:
        """Append a unit to the current chunk; a heading sets the section (and, before any own text, starts clean)."""
        if unit.heading_level:
            self.section_title = unit.text
            if not self.own:
                self.restart()  # a new section starts clean
        if not self.own:
            self.chunk_section = self.section_title
            self.opening_level = unit.heading_level
        self.current.append(unit)
        self.current_tokens += unit.tokens

    def start_table(self) -> None:
        """Begin a chunk for a table: no overlap before it; a lead-in ("… as follows:") goes with it."""
        lead_in = self.current[-1] if len(self.own) > 1 and self.current[-1].text.rstrip().endswith(":") else None
        if lead_in is not None and (lead_in.heading_level or lead_in.table):
            lead_in = None
        if lead_in is not None:
            self.current.pop()
            self.current_tokens -= lead_in.tokens
        self.emit()
        self.restart()
        if lead_in is not None:
            self.place(lead_in)

    def emit(self) -> None:
        """Close the current chunk (unless it has no text of its own) and start the next with its overlap."""
        own = self.own
        if not own or not any(unit.text.strip() for unit in own):
            self.restart()
            return
        self.chunks.append(self._chunk(own))
        self.restart(*self._overlap_tail(own))

    def _chunk(self, own: list[_Unit]) -> Chunk:
        joined = _join_with_spans(self.current)
        content = joined.content
        carried = self.carried
        overlap_chars = len(_join(carried)) + len(_separator(carried[-1], own[0])) if carried else 0
        return Chunk(
            index=len(self.chunks),
            content=content,
            page_start=self.current[0].page,
            page_end=self.current[-1].page,
            token_count=estimate_tokens(content),
            overlap_chars=overlap_chars,
            section_title=self.chunk_section,
            section_level=self.opening_level,
            page_starts=joined.page_starts,
            note_spans=joined.note_spans,
            code_spans=joined.code_spans,
            heading_spans=joined.heading_spans,
        )

    def _overlap_tail(self, own: list[_Unit]) -> tuple[list[_Unit], int]:
        """The tail of a chunk to repeat at the head of the next, within the overlap budget (never a heading
        or a table's rows: a part opens with its header); a sentence too long to fit gives its last words."""
        tail: list[_Unit] = []
        tokens = 0
        for unit in reversed(own):
            if unit.heading_level or unit.table:
                break
            if tokens + unit.tokens > self.overlap_budget:
                words = unit.text.split(" ")
                take: list[str] = []
                while words and estimate_tokens(" ".join([words[-1], *take])) + tokens <= self.overlap_budget:
                    take.insert(0, words.pop())
                if take and words:
                    tail.insert(0, _Unit(" ".join(take), unit.page, note=unit.note))
                    tokens += tail[0].tokens
                break
            tail.insert(0, unit)
            tokens += unit.tokens
        return tail, tokens

    def restart(self, overlap: list[_Unit] | None = None, tokens: int = 0) -> None:
        """Start the next chunk, empty or opening with ``overlap``."""
        self.current, self.carried, self.current_tokens = list(overlap or []), list(overlap or []), tokens

    def finish(self) -> list[Chunk]:
        if self.current:
            self.emit()
        return self.chunks
