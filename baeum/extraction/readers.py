"""Turn an uploaded file into per-page text, safely.

PDFs are opened and read by child processes (``python -m baeum.extraction.pdfworker``) with a time and memory
budget, so a decompression bomb, a pathological object graph or a PDFium crash kills a child, not the
web or worker process, and ends as a readable error. Pages are split between children to use both
cores. Plain text and Markdown are decoded here and cut into virtual pages.
No Django imports.
"""

from __future__ import annotations

import html
import json
import logging
import queue
import re
import subprocess
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from baeum.extraction.children import CPU_LIMIT_RETURNCODES, spawn_reader

logger = logging.getLogger(__name__)

PDF = "pdf"
TEXT = "text"
MARKDOWN = "markdown"
TEXT_EXTENSIONS = {".txt": TEXT, ".text": TEXT, ".md": MARKDOWN, ".markdown": MARKDOWN}
MARKDOWN_EXTENSIONS = frozenset(extension for extension, kind in TEXT_EXTENSIONS.items() if kind == MARKDOWN)
# Slides and documents (read by ``baeum.extraction.office``, which checks their content itself).
OFFICE_EXTENSIONS = {".docx": "docx", ".pptx": "pptx", ".hwpx": "hwpx"}
SUPPORTED_EXTENSIONS = {".pdf": PDF, **TEXT_EXTENSIONS, **OFFICE_EXTENSIONS}
# Formats whose pages mark a heading as Markdown does ("## Object mode"): Markdown, and Office documents as read.
HASH_HEADING_EXTENSIONS = MARKDOWN_EXTENSIONS | set(OFFICE_EXTENSIONS)
_HEADING_MARKS = re.compile(r"^[ \t]*#{1,6}[ \t]+", re.MULTILINE)


def without_heading_marks(text: str) -> str:
    """A page of such a format as a reader sees it: "#### Two reading modes" is the heading "Two reading modes"."""
    return _HEADING_MARKS.sub("", text)


SUPPORTED_NAMES = "a PDF, a .txt or .md file, slides (.pptx) or a document (.docx, .hwpx)"
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
    label: str = ""  # the number the book prints on the page, when the PDF gives it and it differs from ``number``
    notes: tuple[str, ...] = ()  # side notes set in the margin, cut out of ``text`` (``baeum.extraction.pdflayout``)
    code: tuple[str, ...] = ()  # the lines of ``text`` set in a fixed-pitch font
    letters: tuple[tuple[float, int], ...] = ()  # a PDF page's letters by the size they are set in (``pdflayout``)
    sizes: tuple[tuple[str, float], ...] = ()  # its lines set in another size than most letters (a heading: larger)

    @property
    def full_text(self) -> str:
        """The page as a learner reads it: its text, then its side notes."""
        return "".join([self.text, *("\n" + note for note in self.notes)])


@dataclass(frozen=True)
class Budget:
    seconds_per_page: float = 5.0
    # CPU seconds one page may take in its child, whatever the file's page count: a page past it kills the
    # child (the page is left empty and the next child starts after it, MAX_RESTARTS at most), so one
    # content stream of millions of operators costs seconds, not the file's whole deadline. Ordinary
    # pages take milliseconds; the densest here (the financebench tables) well under a second.
    page_cpu_seconds: float = 3.0
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
        raise ExtractionError("unsupported_type", f"“{filename}” is not a supported type. Upload {SUPPORTED_NAMES}.")
    if declared in OFFICE_EXTENSIONS.values():
        return declared  # zip archives: baeum.extraction.office tells a real one from a renamed or encrypted file
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


# What a terminal draws, not text: escape sequences ("\x1b[1mman\x1b[22m", a manual page saved with its bold
# and underline) and overstrikes ("m\bma\ban": bold as a character, backspace, the character again; "_\bx": underlined).
_TERMINAL_ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b[()][A-Za-z0-9]")
_OVERSTRIKE = re.compile(r"[^\b\n]\x08(?=[^\b\n])")
# A troff font change whose backslash a translation lost ("fI이름", "-fI시그널로", "fB파일을": \fI, \fB, \fR, \fP):
# only before Hangul, where "fI" is never a word; the Korean fuser and killall pages had put it in answers.
_TROFF_FONT = re.compile(r"(?<![A-Za-z])\\?f[BIRP](?=[\uac00-\ud7a3])")


def decode_text(data: bytes, *, filename: str) -> str:
    """The file's text (UTF-8, UTF-16 with its byte order mark, or CP949), without a terminal's escape sequences
    and overstrikes, or troff font changes left in Korean text: a manual page saved from ``man`` reads as its words."""
    for encoding in ("utf-8-sig", "utf-16", "cp949"):
        if encoding == "utf-16" and not data.startswith((b"\xff\xfe", b"\xfe\xff")):
            continue
        try:
            text = data.decode(encoding)
        except UnicodeDecodeError:
            continue
        return _TROFF_FONT.sub("", _OVERSTRIKE.sub("", _TERMINAL_ESCAPE.sub("", text)))
    raise ExtractionError("bad_encoding", f"“{filename}” is not valid UTF-8 text. Save it as UTF-8 and upload it again.")


# A plain-text ruler: a line of one repeated symbol ("~~~~", "=====", "-----", "* * *") drawn between sections.
_RULER = re.compile(r"^[ \t]*([^\w\s])(?:[ \t]*\1){3,}[ \t]*$", re.MULTILINE)


# Markdown's syntax, which a reader of the rendered page never sees: fences around code, blockquote markers,
# emphasis, inline code marks, links and images (their text stays), HTML comments and tags, link definitions.
# Read a paragraph at a time: Node's docs set "**Never pass unsanitized user input … command execution.**" and
# "See caveat at [`maxBuffer` and Unicode][]." over two lines, and their marks had reached answers and key points.
_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_MARKDOWN_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_MARKDOWN_LINE = (  # applied to every paragraph but a code block's (a regex there is code: "*.txt")
    (re.compile(r"^[ \t]*\[[^\]\n]+\]:[ \t]*\S+.*$", re.MULTILINE), ""),  # [id]: https://…
    (re.compile(r"^[ \t]*(?:>[ \t]?)+", re.MULTILINE), ""),  # > a quoted paragraph
    (re.compile(r"!\[([^\[\]]*)\]\([^)\n]*\)"), r"\1"),  # ![alt](image.png)
    (re.compile(r"\[([^\[\]]+)\]\([^)\n]*\)"), r"\1"),  # [text](https://…), the text over lines too
    (re.compile(r"\[([^\[\]]+)\]\[[^\]\n]*\]"), r"\1"),  # [text][id], [text][]
    (re.compile(r"<(https?://[^>\s]+)>"), r"\1"),
    (re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>\n]*)?/?>"), ""),  # <br>, <a id="x"></a>
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", re.DOTALL), r"\2"),  # **bold**, __bold__, over lines too
    (re.compile(r"(?<![\w*\\])\*(?=[^\s*])([^*\n]+?)(?<=[^\s*])\*(?![\w*])"), r"\1"),  # *emphasis*
    (re.compile(r"(?<![\w\\])_(?=[^\s_])([^_\n]+?)(?<=[^\s_])_(?!\w)"), r"\1"),  # _emphasis_, never snake_case
    (re.compile(r"\\([\\`*_{}\[\]()#+\-.!|<>~])"), r"\1"),  # {Function\[]}: an escaped mark is the mark, last
)


_HTML_TABLE = re.compile(r"^[ \t]*<table\b.*?</table>[ \t]*$", re.IGNORECASE | re.DOTALL | re.MULTILINE)
_HTML_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.IGNORECASE | re.DOTALL)
_HTML_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.IGNORECASE | re.DOTALL)
_HTML_TAG = re.compile(r"<[^>]+>")


def _table_rows(table: str) -> list[str]:
    """An HTML table in Markdown as rows, one line each, its cells apart ("Ctrl+6 | Redo previous change | Many
    terminals …"): its tags stripped, Node's key bindings had read "Ctrl+6 Redo previous change Many terminals
    don't have a default redo keystroke." as a sentence."""
    rows = []
    for row in _HTML_ROW.findall(table):
        cells = [" ".join(html.unescape(_HTML_TAG.sub("", cell)).split()) for cell in _HTML_CELL.findall(row)]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            rows.append(" | ".join(cells))
    return rows


def markdown_text(text: str) -> tuple[str, frozenset[str]]:
    """Markdown as its rendered page reads, and the lines of its fenced code blocks and HTML tables (code, never a
    sentence)."""
    lines, code, fenced = [], set(), False

    def table(match: re.Match) -> str:
        rows = _table_rows(match.group(0))
        code.update(" ".join(row.split()) for row in rows)  # code: never rendered, never a sentence
        return "\n".join(rows)

    text = _HTML_TABLE.sub(table, text)
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
            lines.append("")
            continue
        if fenced:
            lines.append(line)
            if line.strip():
                code.add(" ".join(line.split()))
            continue
        lines.append(line)
    rendered, paragraph = [], []

    def flush() -> None:
        if paragraph:
            rendered.extend(_rendered_paragraph("\n".join(paragraph)).split("\n"))
            paragraph.clear()

    for line in _MARKDOWN_COMMENT.sub("", "\n".join(lines)).split("\n"):
        if line.strip() and " ".join(line.split()) not in code:
            paragraph.append(line)
            continue
        flush()
        rendered.append(line)
    flush()
    return "\n".join(rendered), frozenset(code)


_INLINE_CODE = re.compile(r"(`+)(?=\S)(.+?)(?<=\S)\1")
_CODE_HELD = re.compile("\ue000(\\d+)\ue001")  # an inline code span, held out while the marks around it are read
_BULLET = re.compile(r"^([ \t]*)[*+-][ \t]+(?=\S)", re.MULTILINE)


def _rendered_paragraph(text: str) -> str:
    """One paragraph of Markdown as it renders, its line breaks kept: its inline code as written, marks and all
    (`rl[Symbol.asyncIterator]()` is no link, `cursorTo(stream, x[, y][, callback])` no reference), the rest without
    Markdown's syntax, a mark that spans lines included; a link around code is its code ([`fs.ReadStream`][])."""
    held: list[str] = []

    def hold(match: re.Match) -> str:
        held.append(match.group(2))
        return f"\ue000{len(held) - 1}\ue001"

    text = _INLINE_CODE.sub(hold, _BULLET.sub(r"\1• ", text))  # * an item as a bullet
    for pattern, replacement in _MARKDOWN_LINE:
        text = pattern.sub(replacement, text)
    return _CODE_HELD.sub(lambda match: held[int(match.group(1))], text)


# A plain-text title set left of its indented body, as a manual page sets its sections and subsections ("설명"
# over "       xz는 gzip(1) 과 …", "   VALID SHELLS" over "       chsh 명령에서는 …"): a paragraph of its own, never
# the first words of the sentence under it ("설명 xz는 …", "VALID SHELLS chsh 명령에서는 …" in key points). Up to
# four words, no closing punctuation, no option or mark first ("-s, --shell" over its description stays with it).
_TITLE_LINE = re.compile(r"^([ \t]*)([^\s\-=>*#~|+•][^\s]*(?:[ ][^\s]+){0,3})(?<![.!?:;,])[ \t]*$")
TITLE_INDENT_STEP = 2  # the body under a title is set at least this much further right
# A manual page's bullet, "o" set apart from its item ("       o      @localhost 문자열은 …"): a bullet, never a word.
_MANUAL_BULLET = re.compile(r"^([ \t]*)o(?=\t|[ ]{2,})", re.MULTILINE)


def _indent(line: str) -> int:
    return len(line.expandtabs(8)) - len(line.expandtabs(8).lstrip())


def _outdented_titles(text: str) -> str:
    """``text`` with each title set left of its indented body made a paragraph of its own."""
    lines = text.split("\n")
    out: list[str] = []
    for index, line in enumerate(lines):
        title = _TITLE_LINE.match(line)
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if title and following.strip() and _indent(following) >= _indent(line) + TITLE_INDENT_STEP and (not out or not out[-1].strip()):
            out += ["", title.group(2), ""]
            continue
        out.append(line)
    return "\n".join(out)


def split_text_pages(text: str, *, page_chars: int = TEXT_PAGE_CHARS, markdown: bool = False) -> list[ExtractedPage]:
    """Cut plain text into virtual pages at paragraph boundaries near ``page_chars``. A ruler line between
    sections is a paragraph break, never text (the Vim tutor's "~~~~" lines opened answers and highlights).
    Markdown is read as it renders (``markdown_text``); its fenced code is each page's code."""
    code: frozenset[str] = frozenset()
    if markdown:
        text, code = markdown_text(text)
    else:
        text = _outdented_titles(_MANUAL_BULLET.sub(r"\1•", text))
    text = _RULER.sub("\n", text)
    pages: list[ExtractedPage] = []
    current: list[str] = []
    size = 0
    for paragraph in text.split("\n\n"):
        if size and size + len(paragraph) > page_chars:
            pages.append(_text_page(len(pages) + 1, "\n\n".join(current), code))
            current, size = [], 0
        current.append(paragraph)
        size += len(paragraph) + 2
    if current:
        pages.append(_text_page(len(pages) + 1, "\n\n".join(current), code))
    return pages


def _text_page(number: int, text: str, code: frozenset[str]) -> ExtractedPage:
    lines = tuple(dict.fromkeys(line for line in text.split("\n") if line.strip() and " ".join(line.split()) in code))
    return ExtractedPage(number, text, code=lines)


class Preempted(Exception):  # noqa: N818 - not an error: the caller moves the work elsewhere
    """Reading stopped at the caller's time cap (``time_cap``); nothing is wrong with the file."""


_time_cap: ContextVar[float | None] = ContextVar("baeum_extract_time_cap", default=None)
_chunk_cap: ContextVar[int | None] = ContextVar("baeum_chunk_cap", default=None)


@contextmanager
def time_cap(seconds: float, *, max_chunks: int | None = None):
    """Stop the work inside with ``Preempted`` once ``seconds`` have passed, or once it makes more than
    ``max_chunks`` chunks: ``extract_pdf_pages`` checks while it reads, the pipeline at each stage
    (``check_cap``). The quick queue hands a file that turns out costly back to the main queue instead of
    holding others' small files."""
    tokens = (_time_cap.set(time.monotonic() + seconds), _chunk_cap.set(max_chunks))
    try:
        yield
    finally:
        _time_cap.reset(tokens[0])
        _chunk_cap.reset(tokens[1])


def check_cap(filename: str, *, chunks: int | None = None) -> None:
    """``Preempted`` when the work of ``filename`` is past the caller's time cap or makes more chunks than its
    chunk cap (see ``time_cap``); nothing without a cap."""
    cap = _time_cap.get()
    if cap is not None and time.monotonic() > cap:
        raise Preempted(f"“{filename}” is taking longer than the time cap")
    limit = _chunk_cap.get()
    if limit is not None and chunks is not None and chunks > limit:
        raise Preempted(f"“{filename}” makes {chunks} chunks, more than the cap of {limit}")


def _run_worker(args: list[str], budget: Budget, path: Path, *, cpu_seconds: float) -> subprocess.Popen:
    return spawn_reader("baeum.extraction.pdfworker", args, memory_bytes=budget.memory_bytes, cpu_seconds=cpu_seconds, input_path=path)


# Counting a PDF's pages happens while an upload waits (the page limit is checked before the file is
# accepted): bounded in time and in how many run at once, so a burst of huge or hostile PDFs holds a few
# seconds of a few web threads, not all of them for minutes. A real 2,000-page book opens in well under
# a second here. Both refusals are final answers (PROBE_REFUSALS): the file is refused, never accepted
# unchecked.
PROBE_SECONDS = 15.0
PROBES_AT_ONCE = 2  # per process
PROBE_WAIT_SECONDS = 5.0
PROBE_REFUSALS = ("busy", "too_slow")
_probe_slots = threading.BoundedSemaphore(PROBES_AT_ONCE)


class Probe(NamedTuple):
    pages: int
    title: str  # the document's metadata title ("" when none)
    labels: list[str]  # the printed page number of each page, by position ([] when the PDF gives none)
    outline: list[dict] = []  # the PDF's bookmarks: [{"level", "title", "page"}] ([] when it has none)


def probe_pdf(path: Path, *, filename: str, budget: Budget = Budget()) -> int:
    """Open the PDF in a child process; return its page count or raise a readable error."""
    return probe_pdf_details(path, filename=filename, budget=budget).pages


def probe_pdf_details(path: Path, *, filename: str, budget: Budget = Budget()) -> Probe:
    """``probe_pdf``, with the title the document's metadata gives, its page labels and its outline."""
    if not _probe_slots.acquire(timeout=PROBE_WAIT_SECONDS):
        raise ExtractionError("busy", f"Baeum is checking other uploads right now; upload “{filename}” again in a minute.")
    try:
        return _probe(path, filename=filename, budget=budget)
    finally:
        _probe_slots.release()


_VERSION_TITLE = re.compile(r"^(?:version|ver\.?|v\.?|rev(?:ision)?\.?|draft|release|버전|판)\s*[\d.]+\s*$", re.IGNORECASE)


def meaningful_title(metadata_title: str, opening: str) -> str:
    """The metadata's title when the document's opening pages show it ("PC 어셈블리 언어" on the title page), else
    "": a title the text never shows is a template's or a program's ("한국정보과학회 학술대회 논문작성양식",
    "Microsoft Word - draft3.docx"), not the document's."""
    title = " ".join(metadata_title.split())
    squeezed = "".join(title.casefold().split())
    if not 2 <= len(squeezed) <= 200 or sum(character.isalpha() for character in squeezed) < 4 or _VERSION_TITLE.match(title):
        return ""  # "1", "Version 0.97.1", "Draft 3": a revision, not a title
    shown = "".join(opening.casefold().split())
    if squeezed in shown:
        return title
    # What a title calls the document ("Kiwipiepy 문서" over a first page that reads "Kiwipiepy"; walkthrough 22's
    # library had named it by its file, "kiwipiepy-ko"): the rest must be shown, and be a name, not a word or two.
    named = " ".join(_DOCUMENT_WORDS.sub(" ", title).casefold().split())
    if "".join(named.split()) == squeezed or sum(character.isalnum() for character in named) < 4:
        return ""
    return title if re.search(rf"(?<!\w){re.escape(named)}", " ".join(opening.casefold().split())) else ""


_DOCUMENT_WORDS = re.compile(
    r"(?:^|\s)(?:documentation|docs|manual|user'?s? guide|guide|reference|handbook|문서|설명서|사용 ?설명서|매뉴얼|안내서|가이드|레퍼런스)(?=\s|$)",
    re.IGNORECASE,
)


def _probe(path: Path, *, filename: str, budget: Budget) -> Probe:
    seconds = min(budget.min_seconds, PROBE_SECONDS)
    process = _run_worker(["probe", str(path)], budget, path, cpu_seconds=seconds)
    try:
        out, err = process.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise ExtractionError(
            "too_slow",
            f"“{filename}” took too long to open (over {seconds:.0f} s). It may be damaged; re-save it as a new PDF.",
        ) from None
    result = _last_json(out)
    if result is None:
        raise _crash_error(filename, process.returncode, err)
    if "error" in result:
        if result.get("detail"):
            logger.info("%s: %s (%s)", filename, result["error"], result["detail"])
        raise ExtractionError(result["error"], _PROBE_MESSAGES[result["error"]].format(name=filename, detail=result.get("detail", "")))
    outline = [entry for entry in result.get("outline") or [] if isinstance(entry, dict)]
    return Probe(int(result["pages"]), str(result.get("title") or ""), [str(label) for label in result.get("labels") or []], outline)


# Failures the same bytes meet again however often they are read: retrying is pointless; the reason says
# what to do with the file instead (remove the password, export it again, upload it as another type).
PERMANENT_FAILURES = frozenset(
    {
        "encrypted",
        "malformed",
        "no_pages",
        "empty_file",
        "unsupported_type",
        "content_mismatch",
        "bad_encoding",
        "too_much_text",
        "no_text",
        "file_missing",
    }
)
_PROBE_MESSAGES = {
    "encrypted": "“{name}” is protected with a password. Remove the password (print or save it as a new PDF) and upload it again.",
    # The reader's own words ("PDFium: Data format error") go to the log, not to the learner.
    "malformed": "“{name}” is not a readable PDF: it may be truncated or damaged. Download or export it again and re-upload.",
    "no_pages": "“{name}” contains no pages. Export it again and re-upload.",
}
# How a child that died reading a PDF died, as seen by the parent. RLIMIT_AS makes Python raise MemoryError
# and PDFium abort() (SIGABRT: it terminates on a failed allocation; a 1 GiB flate bomb does this here).
_OUT_OF_MEMORY_RETURNCODES = (-9, 137, -6)
# Children restarted past a page that killed one, per file: a few bad pages lose only themselves, while a
# file whose every page kills its reader fails fast instead of starting a child per page.
MAX_RESTARTS = 3
# Pages that ran past their CPU budget, per file, before the file fails: such a page is hostile or
# broken far more often than dense, and each costs its budget in full (two: ~8 s of one core at most).
MAX_CPU_LIMIT_PAGES = 2


def _crash_error(filename: str, returncode: int | None, stderr: str) -> ExtractionError:
    if returncode in CPU_LIMIT_RETURNCODES:
        return ExtractionError(
            "too_complex",
            f"“{filename}” has pages that take too much work to read (a page's drawing instructions ran past its "
            "time limit). Re-save it as a plain PDF (print to PDF) and upload it again.",
        )
    if "MemoryError" in stderr or returncode in _OUT_OF_MEMORY_RETURNCODES:
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


@dataclass
class _Shard:
    """One child's run of pages; ``next_page`` is the first it has not reported, so a crash names its page."""

    next_page: int
    last_page: int
    process: subprocess.Popen | None = None

    @property
    def unfinished(self) -> bool:
        return self.next_page <= self.last_page


def _start_shard(shard: _Shard, path: Path, budget: Budget, lines: queue.Queue, started: list[subprocess.Popen]) -> None:
    """Start a child for the shard's remaining pages; a thread forwards its lines, then ``None`` at its end."""
    pages = shard.last_page - shard.next_page + 1
    cpu_seconds = max(budget.min_seconds, budget.seconds_per_page * pages)
    args = ["pages", str(path), str(shard.next_page), str(shard.last_page), str(budget.page_cpu_seconds)]
    shard.process = _run_worker(args, budget, path, cpu_seconds=cpu_seconds)
    started.append(shard.process)

    def pump(stream) -> None:
        for line in stream:
            lines.put((shard, line))
        lines.put((shard, None))

    threading.Thread(target=pump, args=(shard.process.stdout,), daemon=True).start()


def _crashed(shard: _Shard, filename: str, deadline: float) -> ExtractionError | None:
    """Wait for the shard's child to exit; return why it died if it left pages unread."""
    process = shard.process
    process.wait(timeout=max(1.0, deadline - time.monotonic()))
    if process.returncode == 0 or not shard.unfinished:
        return None
    return _crash_error(filename, process.returncode, process.stderr.read())


def _stop(processes: list[subprocess.Popen]) -> None:
    for process in processes:
        if process.poll() is None:
            process.kill()
            process.wait()
        for stream in (process.stdout, process.stderr):
            stream.close()


@dataclass
class _Collected:
    """Page texts as they arrive from the children, with the pages that failed and the running size."""

    texts: dict[int, str] = field(default_factory=dict)
    notes: dict[int, tuple[str, ...]] = field(default_factory=dict)
    code: dict[int, tuple[str, ...]] = field(default_factory=dict)
    sizes: dict[int, tuple[tuple[tuple[float, int], ...], tuple[tuple[str, float], ...]]] = field(default_factory=dict)
    failed_pages: list[int] = field(default_factory=list)
    total_chars: int = 0

    def add(
        self,
        number: int,
        text: str,
        notes: tuple[str, ...] = (),
        code: tuple[str, ...] = (),
        sizes: tuple[tuple[tuple[float, int], ...], tuple[tuple[str, float], ...]] = ((), ()),
    ) -> None:
        self.texts[number] = text
        if notes:
            self.notes[number] = notes
        if code:
            self.code[number] = code
        if sizes[0]:
            self.sizes[number] = sizes
        self.total_chars += len(text) + sum(len(note) for note in notes)

    def fail(self, number: int) -> None:
        self.failed_pages.append(number)
        self.texts[number] = ""


def extract_pdf_pages(
    path: Path,
    *,
    filename: str,
    page_count: int,
    workers: int = 2,
    budget: Budget = Budget(),
    on_page: Callable[[int], None] | None = None,
    scanned_ok: bool = False,
) -> list[ExtractedPage]:
    """Extract every page's text with ``workers`` child processes; call ``on_page(done)`` as pages arrive.
    ``scanned_ok``: return the (empty) pages of a PDF without a text layer instead of refusing it (OCR follows).

    A page that fails, even by killing its child (PDFium aborts when out of memory), is left empty and a new
    child carries on after it, up to ``MAX_RESTARTS`` times per file.
    """
    _refuse_over_page_limit(filename, page_count, budget)
    readers = _PageReaders(path, filename=filename, budget=budget, deadline=time.monotonic() + _seconds_for(page_count, budget))
    try:
        readers.start(_shards(page_count, workers))
        while readers.running:
            arrived = readers.next_line()
            if arrived is None:
                continue
            shard, line = arrived
            if line is None:  # the child ended
                if not readers.child_ended(shard):
                    continue
            elif not _take_record(line, shard, readers.collected):
                continue
            readers.refuse_over_text_limit()
            if on_page:
                on_page(len(readers.collected.texts))
    finally:
        readers.stop()
    return _finish(readers.collected, readers.crashes, filename=filename, page_count=page_count, scanned_ok=scanned_ok)


def _refuse_over_page_limit(filename: str, page_count: int, budget: Budget) -> None:
    if page_count > budget.max_pages:
        raise ExtractionError(
            "too_many_pages", f"“{filename}” has {page_count} pages; the limit is {budget.max_pages}. Split it into smaller files."
        )


def _seconds_for(page_count: int, budget: Budget) -> float:
    """The wall-clock time a whole file may take to read."""
    return max(budget.min_seconds, budget.seconds_per_page * page_count)


def _shards(page_count: int, workers: int) -> list[_Shard]:
    """Split the pages into contiguous runs, one per child; a child gets at least 8 pages (starting one costs more)."""
    workers = max(1, min(workers, page_count // 8 or 1))
    bounds = [round(i * page_count / workers) for i in range(workers + 1)]
    return [_Shard(bounds[i] + 1, bounds[i + 1]) for i in range(workers)]


class _PageReaders:
    """The children reading one PDF, the lines they send, and what they reported and how they died."""

    def __init__(self, path: Path, *, filename: str, budget: Budget, deadline: float):
        self.path, self.filename, self.budget, self.deadline = path, filename, budget, deadline
        self.collected = _Collected()
        self.crashes: list[ExtractionError] = []
        self.cpu_limited = 0  # pages whose child ran past its CPU budget
        self.running = 0
        self._lines: queue.Queue = queue.Queue()
        self._started: list[subprocess.Popen] = []

    def start(self, shards: list[_Shard]) -> None:
        for shard in shards:
            self._start(shard)

    def _start(self, shard: _Shard) -> None:
        _start_shard(shard, self.path, self.budget, self._lines, self._started)
        self.running += 1

    def next_line(self) -> tuple[_Shard, str | None] | None:
        """Wait (at most half a second) for a child's next line; None when none came. Refuse a file past its time."""
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise ExtractionError(
                "too_slow", f"“{self.filename}” took too long to read. Re-save it as a simpler PDF or split it into parts."
            )
        check_cap(self.filename)
        try:
            return self._lines.get(timeout=min(remaining, 0.5))
        except queue.Empty:
            return None

    def child_ended(self, shard: _Shard) -> bool:
        """Note a child's end; when it died on a page, record the page as failed and restart after it.

        Return whether a page was lost; raise once a file has killed too many children.
        """
        self.running -= 1
        crash = _crashed(shard, self.filename, self.deadline)
        if crash is None:
            return False
        self.crashes.append(crash)
        if shard.process.returncode in CPU_LIMIT_RETURNCODES:
            self.cpu_limited += 1
        if len(self.crashes) > MAX_RESTARTS or self.cpu_limited >= MAX_CPU_LIMIT_PAGES:
            raise crash
        self.collected.fail(shard.next_page)  # the page it was reading when it died
        shard.next_page += 1
        if shard.unfinished:
            self._start(shard)
        return True

    def refuse_over_text_limit(self) -> None:
        if self.collected.total_chars > self.budget.max_chars:
            raise ExtractionError(
                "too_much_text",
                f"“{self.filename}” holds more than {self.budget.max_chars:,} characters of text; split it into smaller files.",
            )

    def stop(self) -> None:
        _stop(self._started)


def _take_record(line: str, shard: _Shard, collected: _Collected) -> bool:
    """Store one page record from a child; False for a line cut short by a dying child (its end reports the page)."""
    try:
        record = json.loads(line)
    except json.JSONDecodeError:
        return False
    number = record["page"]
    shard.next_page = number + 1
    if "error" in record:
        collected.fail(number)
    else:
        sizes = (
            tuple((float(size), int(count)) for size, count in record.get("letters", ())),
            tuple(record.get("sizes", {}).items()),
        )
        collected.add(number, record["text"], tuple(record.get("notes", ())), tuple(record.get("code", ())), sizes)
    return True


def _finish(
    collected: _Collected, crashes: list[ExtractionError], *, filename: str, page_count: int, scanned_ok: bool = False
) -> list[ExtractedPage]:
    """Turn what the children reported into pages, or the error that explains why there are none."""
    texts, failed_pages = collected.texts, collected.failed_pages
    if crashes and len(failed_pages) == page_count:
        raise crashes[-1]
    if len(texts) < page_count:
        raise ExtractionError(
            "malformed", f"“{filename}”: only {len(texts)} of {page_count} pages could be read. Export it again and re-upload."
        )
    if failed_pages and len(failed_pages) == page_count:
        raise ExtractionError("malformed", f"“{filename}”: no page could be read. It may be damaged: export it again and re-upload.")
    pages = [
        ExtractedPage(
            number,
            texts[number],
            notes=collected.notes.get(number, ()),
            code=collected.code.get(number, ()),
            **dict(zip(("letters", "sizes"), collected.sizes.get(number, ((), ())), strict=True)),
        )
        for number in range(1, page_count + 1)
    ]
    if not scanned_ok and sum(len(page.text.strip()) for page in pages) < SCANNED_CHARS_PER_PAGE * page_count:
        raise ExtractionError(
            "no_text_layer",
            f"“{filename}” has no text layer: its {page_count} page(s) look like scanned images. "
            "Run OCR on it first (for example `ocrmypdf in.pdf out.pdf`) and upload the result.",
        )
    return pages
