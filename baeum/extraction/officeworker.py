"""Child process that reads a .docx, .pptx or .hwpx file for ``baeum.extraction.office`` (run as ``python -m baeum.extraction.officeworker``).

``KIND PATH [MAX_CHARS]`` (KIND: docx, pptx or hwpx) prints one ``{"page": n, "text": ...}`` line per page, then
``{"done": count}``; or ``{"error": code, "detail": ...}``. It runs under a memory limit set by the parent; a crash
here is reported, never propagated.

These formats are zip archives of XML, so the archive is checked before any part is parsed: too many entries,
too much uncompressed data or an entry compressed like a bomb is refused, and so is any XML part that declares a
DTD (the door to entity expansion and external entities; Office and Hancom never write one). python-docx and
python-pptx parse with lxml without resolving entities; HWPX is parsed here with ElementTree under the same rule.

Pages: a slide is a page; a document is cut into virtual pages of about ``TEXT_PAGE_CHARS`` at paragraph
boundaries, and an explicit page break starts a new one. Headings become Markdown ``#`` lines, list items
``- `` lines (two spaces per level), table rows ``cell | cell`` lines, header row first.
"""

from __future__ import annotations

import importlib
import json
import logging
import re
import sys
import warnings
import zipfile
from pathlib import Path
from xml.etree import ElementTree

from baeum.extraction.office_archive import DOCX, HWPX, PPTX, Refused, check_archive, classify
from baeum.extraction.office_formats import docx_sections, hwpx_sections, paginate, pptx_pages
from baeum.extraction.readers import Budget

MAX_DETAIL_CHARS = 200  # the parser's own words go into a learner-facing message; keep them short


def read_pages(kind: str, path: str) -> list[str]:
    """Check the archive, make sure it is the kind its name says, and return its pages' text."""
    with zipfile.ZipFile(path) as archive:
        check_archive(archive)
        actual = classify(archive)
        if actual != kind:
            raise Refused("content_mismatch", actual)
        if kind == HWPX:
            return paginate(hwpx_sections(archive))
    if kind == DOCX:
        return paginate(docx_sections(path))
    return pptx_pages(path)


_READER_MODULES = {
    DOCX: ("docx", "docx.enum.style"),
    PPTX: ("pptx", "pptx.enum.shapes", "pptx.oxml.ns", "pptx.shapes.group"),
    HWPX: (),
}
_SERVER_PATH = re.compile(r"(?:/[\w.+-]+){2,}")  # file-system paths in a parser's message say nothing to a learner


def _load_reader(kind: str) -> None:
    """Import the parser before touching the file, so a reader that cannot start is never blamed on the file."""
    for module in _READER_MODULES[kind]:
        importlib.import_module(module)


def _describe(error: BaseException, path: str) -> str:
    """Say what went wrong in a few words, without server-side paths."""
    text = _SERVER_PATH.sub("…", str(error).strip().replace(path, "the file").replace(Path(path).name, "the file"))
    return (type(error).__name__ + (f": {text}" if text else ""))[:MAX_DETAIL_CHARS]


# How the parsers report a failed allocation under the memory limit: libxml2 (lxml) as an XMLSyntaxError with
# XML_ERR_NO_MEMORY ("unknown error"), expat as a ParseError with XML_ERROR_NO_MEMORY.
_LIBXML2_NO_MEMORY = 2
_EXPAT_NO_MEMORY = 1


def _out_of_memory(error: Exception) -> bool:
    if isinstance(error, MemoryError):
        return True
    if isinstance(error, ElementTree.ParseError):
        return error.code == _EXPAT_NO_MEMORY
    return type(error).__name__ == "XMLSyntaxError" and getattr(error, "code", None) == _LIBXML2_NO_MEMORY


def _emit(record: dict) -> None:
    sys.stdout.write(json.dumps(record) + "\n")  # ASCII escapes: no dependence on the child's locale
    sys.stdout.flush()


def main(argv: list[str]) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    kind, path = argv[0], argv[1]
    max_chars = int(argv[2]) if len(argv) > 2 else Budget().max_chars
    try:
        _load_reader(kind)
    except Exception as error:  # noqa: BLE001 - the deployment's problem, reported as such
        return _emit({"error": "unavailable", "detail": _describe(error, path)})
    try:
        pages = read_pages(kind, path)
    except Refused as refusal:
        return _emit({"error": refusal.code, "detail": refusal.detail})
    except Exception as error:  # noqa: BLE001 - any parser failure means "not a readable file"
        if _out_of_memory(error):
            return _emit({"error": "too_complex", "detail": "it needs more memory than allowed"})
        return _emit({"error": "malformed", "detail": _describe(error, path)})
    total = 0
    for number, text in enumerate(pages, start=1):
        total += len(text)
        if total > max_chars:
            return _emit({"error": "too_much_text", "detail": ""})
        _emit({"page": number, "text": text})
    _emit({"done": len(pages)})


if __name__ == "__main__":
    main(sys.argv[1:])
