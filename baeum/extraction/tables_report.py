"""How chunking treated one document's tables and footnotes, from the command line (no Django imports):

    python -m baeum.extraction.tables_report PDF...

prints, per file, the chunks that end inside a table row, the footnotes glued into a sentence and the table
rows taken for headings (the tables and footnotes as ``find_tables``/``split_footnotes`` see them). Kept apart
from ``tables`` so that chunking, which reads ``tables``, is not imported back by it.
"""

from __future__ import annotations

import json
import statistics
import sys

import pypdfium2 as pdfium

from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.lines import heading_level, strip_running_lines
from baeum.extraction.pdfworker import page_text
from baeum.extraction.structure import matter_breaks, page_matter
from baeum.extraction.tables import find_tables, footnote_paragraphs, split_footnotes
from baeum.language.text import normalize_text, split_sentences


def _squeezed_with_lines(lines: list[str]) -> tuple[str, list[int]]:
    """The lines without whitespace, one string, and for each of its characters the line it came from."""
    characters: list[str] = []
    owners: list[int] = []
    for index, line in enumerate(lines):
        for character in line:
            if not character.isspace():
                characters.append(character)
                owners.append(index)
    return "".join(characters), owners


def structure_report(page_texts: list[str], chunks: list) -> dict:
    """Count, on one document, chunks that end inside a table row, footnotes glued into a sentence and
    table rows taken for headings (the tables and footnotes as ``find_tables``/``split_footnotes`` see them)."""
    cleaned = strip_running_lines([normalize_text(text).split("\n") for text in page_texts])
    widths = [len(line) for lines in cleaned for line in lines if line]
    typical_width = statistics.quantiles(widths, n=10)[7] if len(widths) >= 10 else 80.0  # as chunking measures it
    pages: dict[int, dict] = {}
    for number, lines in enumerate(cleaned, start=1):
        lines = [line for line in lines if line]
        body, notes = split_footnotes(lines)
        squeezed, owners = _squeezed_with_lines(body)
        tables = find_tables(body, typical_width=typical_width, is_heading=heading_level)
        pages[number] = {"body": body, "tables": tables, "squeezed": squeezed, "owners": owners,
                         "notes": ["".join(note.split())[:24] for note in footnote_paragraphs(notes)]}  # fmt: skip
    mid_row = 0
    for chunk in chunks[:-1]:
        page = pages[chunk.page_end]
        tail = "".join(chunk.content.split())[-40:]
        found = page["squeezed"].find(tail)
        if found < 0:
            continue
        end = found + len(tail) - 1
        line = page["owners"][end]
        at_line_end = end + 1 == len(page["owners"]) or page["owners"][end + 1] != line
        for table in page["tables"]:
            if line in table and (not at_line_end or line not in table.breaks):
                mid_row += 1
    sentences = {"".join(sentence.split()) for chunk in chunks for sentence in split_sentences(chunk.content)}
    notes = [(number, note) for number, page in pages.items() for note in page["notes"]]
    glued = sum(1 for _, note in notes if any(note in sentence and not sentence.startswith(note) for sentence in sentences))
    rows = {
        (number, page["body"][index])
        for number, page in pages.items()
        for table in page["tables"]
        for index in range(table.start, table.end)
    }
    headings = sum(1 for chunk in chunks if chunk.section_level and (chunk.page_start, chunk.section_title) in rows)
    return {
        "chunks": len(chunks),
        "tables": sum(len(page["tables"]) for page in pages.values()),
        "chunks_ending_mid_row": mid_row,
        "footnotes": len(notes),
        "footnotes_glued_into_sentences": glued,
        "table_rows_taken_for_headings": headings,
    }


def main(paths: list[str]) -> None:
    for path in paths:
        document = pdfium.PdfDocument(path)
        try:
            read = [page_text(document, number) for number in range(1, len(document) + 1)]
        finally:
            document.close()
        texts = [page.text for page in read]
        matter = page_matter(texts)
        chunks = chunk_pages(
            [PageText(number, page.text, tuple(page.notes), tuple(page.code)) for number, page in enumerate(read, start=1)],
            breaks=matter_breaks(matter, len(texts)),
        )
        sys.stdout.write(json.dumps({"file": path.rsplit("/", 1)[-1], **structure_report(texts, chunks)}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
