"""Turn an uploaded file into per-page text, safely.

PDFs are opened and read by child processes (``python -m baeum.pdfworker``) with a time and memory
budget, so a decompression bomb, a pathological object graph or a pypdf crash kills a child, not the
web or worker process, and ends as a readable error. Pages are split between children to use both
cores. Plain text and Markdown are decoded here and cut into virtual pages.
No Django imports.
"""

from __future__ import annotations

import json
import os
import queue
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

PDF = "pdf"
TEXT = "text"
MARKDOWN = "markdown"

TEXT_EXTENSIONS = {".txt": TEXT, ".text": TEXT, ".md": MARKDOWN, ".markdown": MARKDOWN}
SUPPORTED_EXTENSIONS = {".pdf": PDF, **TEXT_EXTENSIONS}
TEXT_PAGE_CHARS = 4000  # virtual page size for .txt/.md, so citations and the viewer stay useful
SCANNED_CHARS_PER_PAGE = 20  # below this on average, a PDF has no usable text layer


class ExtractionError(Exception):
    """A file that cannot be ingested. ``message`` is written for the learner and says what to do."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ExtractedPage:
    number: int  # 1-based
    text: str


@dataclass(frozen=True)
class Budget:
    seconds_per_page: float = 5.0
    min_seconds: float = 60.0
    memory_bytes: int = 1536 * 1024 * 1024
    max_pages: int = 2000
    max_chars: int = 5_000_000


def sniff_kind(head: bytes) -> str:
    """Tell what a file really is from its first bytes: "pdf", "text", "empty" or "binary"."""
    if not head.strip():
        return "empty"
    if b"%PDF-" in head[:1024]:
        return PDF
    if head.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
        return TEXT
    if b"\x00" in head:
        return "binary"
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as error:
        # A multi-byte character cut at the end of the sample is still text.
        if error.start < len(head) - 4:
            try:
                head.decode("cp949")
            except UnicodeDecodeError:
                return "binary"
    return TEXT


def expected_kind(filename: str) -> str | None:
    return SUPPORTED_EXTENSIONS.get(Path(filename).suffix.lower())


def check_kind(*, filename: str, head: bytes) -> str:
    """Return the kind to ingest ``filename`` as, or raise if its content is not what its name says."""
    declared = expected_kind(filename)
    actual = sniff_kind(head)
    if actual == "empty":
        raise ExtractionError("empty_file", f"“{filename}” is empty. Upload the file again; it may not have been saved fully.")
    if declared is None:
        raise ExtractionError("unsupported_type", f"“{filename}” is not a supported type. Upload a PDF, a .txt or a .md file.")
    if declared == PDF and actual != PDF:
        raise ExtractionError(
            "content_mismatch",
            f"“{filename}” is named .pdf but its content is not a PDF ({'text' if actual == TEXT else 'unknown binary data'}). "
            "Export it as a real PDF and upload it again.",
        )
    if declared in (TEXT, MARKDOWN) and actual != TEXT:
        what = "a PDF" if actual == PDF else "binary data, not text"
        hint = "Rename it to .pdf and upload it again." if actual == PDF else "Upload it as UTF-8 text."
        raise ExtractionError("content_mismatch", f"“{filename}” is named {Path(filename).suffix} but contains {what}. {hint}")
    return declared


# --- Plain text ------------------------------------------------------------------------------


def decode_text(data: bytes, *, filename: str) -> str:
    for encoding in ("utf-8-sig", "utf-16", "cp949"):
        if encoding == "utf-16" and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            continue
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise ExtractionError("bad_encoding", f"“{filename}” is not valid UTF-8 text. Save it as UTF-8 and upload it again.")


def split_text_pages(text: str, *, page_chars: int = TEXT_PAGE_CHARS) -> list[ExtractedPage]:
    """Cut plain text into virtual pages at paragraph boundaries near ``page_chars``."""
    pages: list[ExtractedPage] = []
    current: list[str] = []
    size = 0
    for paragraph in text.split("\n\n"):
        if size and size + len(paragraph) > page_chars:
            pages.append(ExtractedPage(len(pages) + 1, "\n\n".join(current)))
            current, size = [], 0
        current.append(paragraph)
        size += len(paragraph) + 2
    if current:
        pages.append(ExtractedPage(len(pages) + 1, "\n\n".join(current)))
    return pages


# --- PDF -------------------------------------------------------------------------------------


def _limit_memory(memory_bytes: int) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        os.nice(5)

    return apply


def _run_worker(args: list[str], budget: Budget) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "baeum.pdfworker", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limit_memory(budget.memory_bytes),
        cwd=str(Path(__file__).resolve().parent.parent),
        text=True,
    )


def probe_pdf(path: Path, *, filename: str, budget: Budget = Budget()) -> int:
    """Open the PDF in a child process; return its page count or raise a readable error."""
    process = _run_worker(["probe", str(path)], budget)
    try:
        out, err = process.communicate(timeout=budget.min_seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise ExtractionError(
            "too_complex",
            f"“{filename}” took too long to open (over {budget.min_seconds:.0f} s). It may be damaged; re-save it as a new PDF.",
        ) from None
    result = _last_json(out)
    if result is None:
        raise _crash_error(filename, process.returncode, err)
    if "error" in result:
        raise ExtractionError(result["error"], _PROBE_MESSAGES[result["error"]].format(name=filename, detail=result.get("detail", "")))
    return int(result["pages"])


_PROBE_MESSAGES = {
    "encrypted": "“{name}” is protected with a password. Remove the password (print or save it as a new PDF) and upload it again.",
    "malformed": "“{name}” is not a readable PDF ({detail}). It may be truncated or damaged: download or export it again and re-upload.",
    "no_pages": "“{name}” contains no pages. Export it again and re-upload.",
}


def _crash_error(filename: str, returncode: int | None, stderr: str) -> ExtractionError:
    if "MemoryError" in stderr or returncode in (-9, 137):
        return ExtractionError(
            "too_complex",
            f"“{filename}” needs more memory to read than allowed; it may be a compressed 'PDF bomb'. Re-save it as a plain PDF.",
        )
    return ExtractionError("malformed", f"“{filename}” could not be read as a PDF. It may be damaged: export it again and re-upload.")


def _last_json(out: str) -> dict | None:
    for line in reversed(out.strip().splitlines()):
        try:
            return json.loads(line)
        except json.JSONDecodeError:
            continue
    return None


def extract_pdf_pages(
    path: Path,
    *,
    filename: str,
    page_count: int,
    workers: int = 2,
    budget: Budget = Budget(),
    on_page: Callable[[int], None] | None = None,
) -> list[ExtractedPage]:
    """Extract every page's text with ``workers`` child processes; call ``on_page(done)`` as pages arrive."""
    if page_count > budget.max_pages:
        raise ExtractionError(
            "too_many_pages", f"“{filename}” has {page_count} pages; the limit is {budget.max_pages}. Split it into smaller files."
        )
    workers = max(1, min(workers, page_count // 8 or 1))
    bounds = [round(i * page_count / workers) for i in range(workers + 1)]
    processes = [_run_worker(["pages", str(path), str(bounds[i] + 1), str(bounds[i + 1])], budget) for i in range(workers)]
    deadline = time.monotonic() + max(budget.min_seconds, budget.seconds_per_page * page_count)
    texts: dict[int, str] = {}
    failed_pages: list[int] = []
    total_chars = 0
    lines: queue.Queue = queue.Queue()

    def pump(stream) -> None:
        for line in stream:
            lines.put(line)
        lines.put(None)

    readers = [threading.Thread(target=pump, args=(process.stdout,), daemon=True) for process in processes]
    try:
        for reader in readers:
            reader.start()
        open_streams = len(processes)
        while open_streams:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ExtractionError(
                    "too_slow", f"“{filename}” took too long to read. Re-save it as a simpler PDF or split it into parts."
                )
            try:
                line = lines.get(timeout=min(remaining, 1.0))
            except queue.Empty:
                continue
            if line is None:
                open_streams -= 1
                continue
            record = json.loads(line)
            number = record["page"]
            if "error" in record:
                failed_pages.append(number)
                texts[number] = ""
            else:
                texts[number] = record["text"]
                total_chars += len(record["text"])
            if total_chars > budget.max_chars:
                raise ExtractionError(
                    "too_much_text",
                    f"“{filename}” holds more than {budget.max_chars:,} characters of text; split it into smaller files.",
                )
            if on_page:
                on_page(len(texts))
        for process in processes:
            process.wait(timeout=max(1.0, deadline - time.monotonic()))
            if process.returncode != 0 and len(texts) < page_count:
                raise _crash_error(filename, process.returncode, process.stderr.read())
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
            for stream in (process.stdout, process.stderr):
                stream.close()
    if len(texts) < page_count:
        raise ExtractionError(
            "malformed", f"“{filename}”: only {len(texts)} of {page_count} pages could be read. Export it again and re-upload."
        )
    if failed_pages and len(failed_pages) == page_count:
        raise ExtractionError("malformed", f"“{filename}”: no page could be read. It may be damaged: export it again and re-upload.")
    pages = [ExtractedPage(number, texts[number]) for number in range(1, page_count + 1)]
    if sum(len(page.text.strip()) for page in pages) < SCANNED_CHARS_PER_PAGE * page_count:
        raise ExtractionError(
            "no_text_layer",
            f"“{filename}” has no text layer: its {page_count} page(s) look like scanned images. "
            "Run OCR on it first (for example `ocrmypdf in.pdf out.pdf`) and upload the result.",
        )
    return pages
