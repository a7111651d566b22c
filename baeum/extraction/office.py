"""Read lecture slides (.pptx), Word documents (.docx) and Hancom documents (.hwpx) into per-page text, safely.

All three are zip archives of XML: carriers for zip bombs and XML entity tricks, parsed by native code (lxml).
So, like PDFs, they are read by a child process (``python -m baeum.extraction.officeworker``, which also checks the
archive before parsing it) under a memory and time budget: a hostile file kills a child, never the worker.
This module looks at the first bytes (a password-protected .docx/.pptx is not a zip at all but an OLE2
compound file holding an ``EncryptedPackage`` stream), runs the child and turns its report into pages or an
``ExtractionError`` whose message names the file and says what to do.

A slide is a page (page number = slide number). Documents are cut into virtual pages of about
``extract.TEXT_PAGE_CHARS`` at paragraph boundaries; an explicit page break starts a new one. Headings come out
as Markdown ``#`` lines, so chunk them with ``markdown=True``.
No Django imports.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from baeum.extraction.children import spawn_reader
from baeum.extraction.office_archive import DOCX, HWPX, PPTX
from baeum.extraction.readers import Budget, ExtractedPage, ExtractionError, sniff_kind

OFFICE_EXTENSIONS = {".docx": DOCX, ".pptx": PPTX, ".hwpx": HWPX}

ZIP_MAGIC = b"PK\x03\x04"  # a local file header: every .docx, .pptx and .hwpx starts with one
OLE2_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"  # compound file: legacy .doc/.ppt/.hwp, or an encrypted .docx/.pptx
# The stream an encrypted OOXML file keeps its zip in; directory entry names are stored as UTF-16LE.
_ENCRYPTED_PACKAGE = "EncryptedPackage".encode("utf-16-le")
SCAN_CHUNK_BYTES = 1024 * 1024  # look for that name piece by piece, never reading a whole upload at once
HEAD_BYTES = 4096  # enough to tell zip, OLE2, PDF and text apart

# How a child that died reading a file died, as seen by the parent: RLIMIT_AS makes Python raise MemoryError,
# lxml or zlib may abort (SIGABRT) on a failed allocation, and the kernel's OOM killer sends SIGKILL.
_OUT_OF_MEMORY_RETURNCODES = (-9, 137, -6)


class ReaderUnavailable(RuntimeError):
    """The reader itself could not start (a missing package, a memory budget too small to import it): not the file's fault."""


@dataclass(frozen=True)
class OfficeBudget:
    """What one file may cost to read. Page and text limits are the PDF ones, so every upload meets the same caps."""

    seconds: float = 60.0  # a 40,000-paragraph .docx parses in ~0.3 s; a minute is only ever reached by a hostile file
    memory_bytes: int = Budget().memory_bytes
    max_pages: int = Budget().max_pages
    max_chars: int = Budget().max_chars


_NAMES = {
    DOCX: "a Word document (.docx)",
    PPTX: "a PowerPoint presentation (.pptx)",
    HWPX: "a Hancom document (.hwpx)",
    "word-variant": "a macro-enabled or template Word file",
    "powerpoint-variant": "a slide show or template PowerPoint file",
    "xlsx": "an Excel workbook",
    "odf": "an OpenDocument file",
    "zip": "a ZIP archive",
    "legacy": "an older binary Office or Hangul file (.doc, .ppt or .hwp)",
    "pdf": "a PDF",
    "text": "plain text",
    "binary": "unknown binary data",
}
_SUFFIXES = {DOCX: ".docx", PPTX: ".pptx", HWPX: ".hwpx"}
_RENAME_TO = {**_SUFFIXES, "pdf": ".pdf", "text": ".txt"}  # what the file really is, when Baeum reads that too


def sniff_office(head: bytes) -> str | None:
    """Tell a zip container ("zip") or an OLE2 compound file ("ole2") from the first bytes, else None."""
    if head.startswith(ZIP_MAGIC):
        return "zip"
    if head.startswith(OLE2_MAGIC):
        return "ole2"
    return None


def read_pptx(path: Path, *, filename: str, budget: OfficeBudget = OfficeBudget()) -> list[ExtractedPage]:
    """Return one page per slide: "# Title", body text in reading order ("- " bullets, "a | b" table rows), "Notes:"."""
    return read_office(path, kind=PPTX, filename=filename, budget=budget)


def read_docx(path: Path, *, filename: str, budget: OfficeBudget = OfficeBudget()) -> list[ExtractedPage]:
    """Return virtual pages of a Word document with Markdown headings, "- " list items and "a | b" table rows."""
    return read_office(path, kind=DOCX, filename=filename, budget=budget)


def read_hwpx(path: Path, *, filename: str, budget: OfficeBudget = OfficeBudget()) -> list[ExtractedPage]:
    """Return virtual pages of a Hancom HWPX document, with outline paragraphs as Markdown headings."""
    return read_office(path, kind=HWPX, filename=filename, budget=budget)


def read_office(path: Path, *, kind: str, filename: str, budget: OfficeBudget = OfficeBudget()) -> list[ExtractedPage]:
    """Check what the file really is, read it in a child process, and return its pages or raise a readable error."""
    _check_container(path, kind=kind, filename=filename)
    pages = _run_child(path, kind=kind, filename=filename, budget=budget)
    if len(pages) > budget.max_pages:
        raise ExtractionError(
            "too_many_pages", f"“{filename}” has {len(pages)} pages; the limit is {budget.max_pages}. Split it into smaller files."
        )
    if sum(len(page.text) for page in pages) > budget.max_chars:
        raise ExtractionError(
            "too_much_text", f"“{filename}” holds more than {budget.max_chars:,} characters of text; split it into smaller files."
        )
    if not any(page.text.strip() for page in pages):
        raise ExtractionError(
            "no_text",
            f"“{filename}” contains no text to study from. If its content is pictures, "
            "export it as a PDF, run OCR on it (for example `ocrmypdf in.pdf out.pdf`) and upload the result.",
        )
    return pages


def _check_container(path: Path, *, kind: str, filename: str) -> None:
    """Refuse before starting a child what is plainly not a zip: an empty file, an encrypted or legacy Office file, text."""
    with path.open("rb") as stream:
        head = stream.read(HEAD_BYTES)
    container = sniff_office(head)
    if container == "zip":
        return
    if container == "ole2":
        if _holds_encrypted_package(path):
            raise ExtractionError(
                "encrypted",
                f"“{filename}” is protected with a password. Open it, remove the password, save it, and upload it again.",
            )
        raise _mismatch(filename, kind, "legacy")
    actual = sniff_kind(head)
    if actual == "empty":
        raise ExtractionError("empty_file", f"“{filename}” is empty. Upload the file again; it may not have been saved fully.")
    raise _mismatch(filename, kind, actual)


def _holds_encrypted_package(path: Path) -> bool:
    """Tell an encrypted .docx/.pptx from a legacy .doc/.ppt: only the former has an "EncryptedPackage" stream."""
    overlap = len(_ENCRYPTED_PACKAGE)
    tail = b""
    with path.open("rb") as stream:
        while chunk := stream.read(SCAN_CHUNK_BYTES):
            window = tail + chunk
            if _ENCRYPTED_PACKAGE in window:
                return True
            tail = window[-overlap:]
    return False


def _mismatch(filename: str, kind: str, actual: str) -> ExtractionError:
    expected = _SUFFIXES[kind]
    if actual in _RENAME_TO:
        hint = f"Rename it to {_RENAME_TO[actual]} and upload it again."
    else:
        hint = f"Open it in its program, save it as {expected}, and upload it again."
    what = _NAMES.get(actual, _NAMES["binary"])
    return ExtractionError("content_mismatch", f"“{filename}” is named {expected} but is {what}. {hint}")


# --- The child -------------------------------------------------------------------------------


def _run_child(path: Path, *, kind: str, filename: str, budget: OfficeBudget) -> list[ExtractedPage]:
    process = spawn_reader("baeum.extraction.officeworker", [kind, str(path), str(budget.max_chars)], memory_bytes=budget.memory_bytes)
    try:
        out, err = process.communicate(timeout=budget.seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise ExtractionError(
            "too_slow",
            f"“{filename}” took too long to read (over {budget.seconds:.0f} s). Save it again from its program or split it into parts.",
        ) from None
    return _pages_from(_records(out), kind=kind, filename=filename, returncode=process.returncode, stderr=err)


def _records(out: str) -> list[dict]:
    records = []
    for line in out.splitlines():
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a line cut short by a dying child; its missing "done" reports the crash
    return records


def _pages_from(records: list[dict], *, kind: str, filename: str, returncode: int | None, stderr: str) -> list[ExtractedPage]:
    """Turn the child's report into pages, or the error it reported, or the way it died."""
    last = records[-1] if records else {}
    if last.get("error") == "unavailable":
        raise ReaderUnavailable(f"the {kind} reader could not start: {last.get('detail', '')}")
    if "error" in last:
        raise _child_error(last["error"], last.get("detail", ""), kind=kind, filename=filename)
    if "done" not in last:
        if "MemoryError" in stderr or returncode in _OUT_OF_MEMORY_RETURNCODES:
            raise _child_error("too_complex", "it needs more memory than allowed", kind=kind, filename=filename)
        raise _child_error("malformed", "the reader stopped unexpectedly", kind=kind, filename=filename)
    return [ExtractedPage(record["page"], record["text"]) for record in records if "page" in record]


def _child_error(code: str, detail: str, *, kind: str, filename: str) -> ExtractionError:
    what = _NAMES[kind]
    if code == "content_mismatch":
        return _mismatch(filename, kind, detail)
    if code == "encrypted":
        return ExtractionError(
            "encrypted", f"“{filename}” is protected with a password. Open it, remove the password, save it, and upload it again."
        )
    if code == "too_complex":
        return ExtractionError(
            "too_complex",
            f"“{filename}” is too large or too complex to read safely ({detail}); it may be a 'zip bomb'. "
            "Save it again from its program, or split it into smaller files.",
        )
    if code == "too_much_text":
        return ExtractionError("too_much_text", f"“{filename}” holds too much text to read; split it into smaller files.")
    return ExtractionError(
        "malformed",
        f"“{filename}” could not be read as {what} ({detail}). It may be truncated or damaged: save or export it again and re-upload.",
    )
