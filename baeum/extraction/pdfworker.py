"""Child process that reads a PDF for ``baeum.extraction.readers`` (run as ``python -m baeum.extraction.pdfworker``).

``probe PATH`` prints ``{"pages": n, "title", "labels", "outline"}`` or ``{"error": code, "detail": ...}``.
``pages PATH FIRST LAST [PAGE_CPU_SECONDS]`` prints one ``{"page": n, "text": ...}`` line per page, as it goes.
PATH may be ``fd:N``: the file, opened by the parent and handed over (the child may run as a user who
cannot open it). It runs under memory and CPU-time limits set by the parent, and gives each page at most
PAGE_CPU_SECONDS of CPU (its soft CPU limit moves up page by page): a page whose content stream runs past
it ends this child by SIGXCPU, the parent records the page as failed and starts a child after it.
A crash here is reported, never propagated.

Text comes from PDFium (pypdfium2): it places word gaps from glyph positions, so Korean keeps its spaces
(pypdf ran 45% of pcasm-book-korean.pdf's Hangul together, PDFium 0.1%), ligatures come out spelled, and
it is ~10x faster. On the shared sample books pypdf did better nowhere; it is kept only for writing test
fixtures (``tests/pdfgen.encrypt_pdf``). The raw text keeps PDFium's ``\\r\\n`` and hyphenation marks;
``baeum.language.text.normalize_text`` turns them into plain text.
"""

import ctypes
import json
import logging
import math
import os
import re
import resource
import sys
import warnings
from typing import NamedTuple

from baeum.extraction.pdflayout import MONO_FONT, Box, code_lines, line_sizes, margin_notes, remove_spans, script_runs

FIXED_PITCH = 1  # PDF font descriptor flag 1: all glyphs have the same width

# PDFium's load errors that mean "locked": a wrong (here: empty) password, or a security handler it cannot open.
_LOCKED_ERRORS = {4, 6}  # FPDF_ERR_PASSWORD, FPDF_ERR_SECURITY
# PDFium refuses a file it parsed but found no page tree in (no /Root, no /Pages, /Count 0) with "no error".
_NO_PAGE_TREE = 0  # FPDF_ERR_SUCCESS
MAX_DETAIL_CHARS = 200  # the parser's own words go into a learner-facing message; keep them short


class Locked(Exception):
    """The PDF needs a password other than the empty one."""


class NoPages(Exception):
    """The PDF parsed but holds no pages."""


def _open(path: str):
    """Open ``path`` with the empty password (what a viewer does for owner-password-only files)."""
    import pypdfium2 as pdfium

    source = os.fdopen(int(path[3:]), "rb") if path.startswith("fd:") else path
    try:
        return pdfium.PdfDocument(source, password="", autoclose=not isinstance(source, str))
    except pdfium.PdfiumError as error:
        code = getattr(error, "err_code", None)
        if code in _LOCKED_ERRORS:
            raise Locked from error
        if code == _NO_PAGE_TREE:
            raise NoPages from error
        raise


def _describe(error: Exception) -> str:
    """Say what the parser objected to in a few words ("PDFium: Data format error"), for the learner's message."""
    text = str(error).strip().rstrip(".")
    reason = re.search(r"\((PDFium: [^)]+)\)", text)
    if reason:
        return reason.group(1)[:MAX_DETAIL_CHARS]
    return (type(error).__name__ + (f": {text}" if text else ""))[:MAX_DETAIL_CHARS]


def probe(path: str) -> dict:
    try:
        document = _open(path)
    except Locked:
        return {"error": "encrypted"}
    except NoPages:
        return {"error": "no_pages"}
    except Exception as error:  # noqa: BLE001 - any parser failure means "not a readable PDF"
        return {"error": "malformed", "detail": _describe(error)}
    try:
        count = len(document)
        try:
            title = str(document.get_metadata_value("Title") or "")[:300]
        except Exception:  # noqa: BLE001 - metadata is optional: a document without a readable title has none
            title = ""
        labels = _page_labels(document, count)
        outline = _outline(document)
    finally:
        document.close()
    if count == 0:
        return {"error": "no_pages"}
    return {"pages": count, "title": title, "labels": labels, "outline": outline}


MAX_LABEL_CHARS = 32


def _page_labels(document, count: int) -> list[str]:
    """The page numbers the book prints ("i", "vii", "1", "7"), by position; [] when the PDF gives none."""
    try:
        labels = [str(document.get_page_label(index) or "")[:MAX_LABEL_CHARS] for index in range(count)]
    except Exception:  # noqa: BLE001 - page labels are optional
        return []
    return labels if any(labels) else []


MAX_OUTLINE_ENTRIES = 2000


def _outline(document) -> list[dict]:
    """The PDF's bookmarks that point at a page: ``[{"level", "title", "page"}]`` (1-based pages); [] when
    it has none or they cannot be read."""
    entries = []
    try:
        for bookmark in document.get_toc(max_depth=8):
            destination = bookmark.get_dest()
            index = destination.get_index() if destination is not None else None
            if index is not None:
                entries.append({"level": bookmark.level, "title": (bookmark.get_title() or "")[:300], "page": index + 1})
            if len(entries) >= MAX_OUTLINE_ENTRIES:
                break
    except Exception:  # noqa: BLE001 - an outline is optional: a broken one is no outline
        return []
    return entries


class PageRead(NamedTuple):
    text: str
    notes: list[str]  # side notes cut out of the text
    code: list[str]  # the text's lines set in a fixed-pitch font
    letters: dict[float, int] = {}  # how many letters are set in each size (``pdflayout.line_sizes``)
    sizes: dict[str, float] = {}  # the lines set in another size than most letters: a heading is larger


def page_text(document, number: int) -> PageRead:
    """Return the text of 1-based page ``number`` with its side notes and code lines
    (``baeum.extraction.pdflayout``: notes in the margin cut out of the lines they sit beside, sub- and
    superscripts written as such), freeing PDFium's page objects before the next page."""
    page = document[number - 1]
    try:
        textpage = page.get_textpage()
        try:
            return _laid_out(textpage)
        finally:
            textpage.close()
    finally:
        page.close()


def _laid_out(textpage) -> PageRead:
    import pypdfium2.raw as raw

    text = textpage.get_text_range()
    count = raw.FPDFText_CountChars(textpage)
    if len(text) != count:  # characters outside the BMP: positions no longer match the text, read it as it is
        return PageRead(text, [], [])
    boxes = [Box(*textpage.get_rect(index)) for index in range(textpage.count_rects())]
    boxes = [(box, textpage.get_text_bounded(box.left, box.bottom, box.right, box.top)) for box in boxes]
    note_spans = [spans for note in margin_notes(boxes) if all(spans := [_span_of(textpage, text, boxes[index]) for index in note])]
    sizes = [raw.FPDFText_GetFontSize(textpage, index) for index in range(count)]
    x, y = ctypes.c_double(), ctypes.c_double()

    def baseline(index: int) -> float:
        raw.FPDFText_GetCharOrigin(textpage, index, ctypes.byref(x), ctypes.byref(y))
        return y.value

    name, flags = ctypes.create_string_buffer(128), ctypes.c_int()

    def is_mono(index: int) -> bool:
        raw.FPDFText_GetFontInfo(textpage, index, name, len(name), ctypes.byref(flags))
        return bool(flags.value & FIXED_PITCH) or bool(MONO_FONT.search(name.value.decode("latin-1")))

    forms = script_runs(text, sizes, baseline)
    if forms:
        text = "".join(forms.get(index, char) for index, char in enumerate(text))
    notes = [" ".join(" ".join(text[start:end] for start, end in spans).split()) for spans in note_spans]
    removed = {position for spans in note_spans for start, end in spans for position in range(start, end)}
    code = code_lines(text, is_mono, removed)
    letters, sized = line_sizes(text, sizes, removed)
    return PageRead(remove_spans(text, removed) if removed else text, notes, code, letters, sized)


def _span_of(textpage, text: str, entry: tuple[Box, str]) -> tuple[int, int] | None:
    """Where in ``text`` the line box's own text stands: the occurrence whose first character is in the box."""
    import pypdfium2.raw as raw

    box, words = entry
    words = words.strip()
    if not words:
        return None
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    start = text.find(words)
    while start >= 0:
        raw.FPDFText_GetCharBox(textpage, start, ctypes.byref(left), ctypes.byref(right), ctypes.byref(bottom), ctypes.byref(top))
        middle_x, middle_y = (left.value + right.value) / 2, (bottom.value + top.value) / 2
        if box.left - 1 <= middle_x <= box.right + 1 and box.bottom - 1 <= middle_y <= box.top + 1:
            return start, start + len(words)
        start = text.find(words, start + 1)
    return None


def _allow_cpu(seconds: float | None) -> None:
    """Let the next page use at most ``seconds`` more CPU time (within the hard limit the parent set)."""
    if not seconds:
        return
    usage = resource.getrusage(resource.RUSAGE_SELF)
    soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    wanted = math.ceil(usage.ru_utime + usage.ru_stime + seconds)
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (wanted, hard))


def pages(path: str, first: int, last: int, page_cpu_seconds: float | None = None) -> None:
    document = _open(path)
    try:
        for number in range(first, last + 1):
            _allow_cpu(page_cpu_seconds)
            try:
                read = page_text(document, number)
                record = {
                    "page": number,
                    "text": read.text,
                    "notes": read.notes,
                    "code": read.code,
                    "letters": [[size, count] for size, count in read.letters.items()],
                    "sizes": read.sizes,
                }
            except Exception as error:  # noqa: BLE001 - one bad page must not lose the others
                record = {"page": number, "error": type(error).__name__}
            sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
            sys.stdout.flush()
    finally:
        document.close()


def main(argv: list[str]) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    if argv[0] == "probe":
        print(json.dumps(probe(argv[1])))
    else:
        pages(argv[1], int(argv[2]), int(argv[3]), float(argv[4]) if len(argv) > 4 else None)


if __name__ == "__main__":
    main(sys.argv[1:])
