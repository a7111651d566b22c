"""Read the text of scanned PDF pages with Tesseract OCR, safely and page by page.

Each page is drawn as a grayscale PNG by a child process (``python -m baeum.extraction.ocrworker``, PDFium) into a private
temp dir, then read by ``tesseract`` under ``nice``; every child runs under a memory limit, a CPU-time limit and
a wall-clock limit per page, so a hostile or huge page loses itself, never the other pages or the worker.
No Django imports: the ingestion task calls :func:`ocr_pdf_pages` for :func:`pages_without_text` and reports
progress through ``on_page``.

Measured with ``scripts/bench_ocr.py`` (Tesseract 5.3.0, one core, machine under load): generated A4 scans at
300 dpi read at 0.5 % CER in Korean (5.0 s a page, two passes) and 0 % in English (1.8 s); the shared real scans
took 2.0-3.5 s a page; a real typeset Korean book page (pcasm-book-korean p. 15) 11 % CER in 9 s.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from baeum.extraction.readers import ExtractedPage, ExtractionError

TESSERACT = "tesseract"
REQUIRED_LANGUAGES = ("kor", "eng")
LANGUAGES_PATTERN = re.compile(r"[a-z_]+(\+[a-z_]+)*")  # Tesseract's "kor+eng" form; anything else is refused
LIST_LANGUAGES_SECONDS = 10.0  # `tesseract --list-langs` only reads a directory
# Tesseract's page segmentation: 4 = "a single column of text of variable sizes". The default, 3 (full layout
# analysis), drops whole blocks of Korean: it read 28-77 % CER on generated Korean pages (lines at 1.7x) and
# 72 % on page 15 of pcasm-book-korean.pdf, against 2-10 % and 12 % with 4; English pages read the same with
# both. The price: a page in two columns is read across the columns, line by line.
PAGE_SEGMENTATION_MODE = 4
# OpenMP threads per Tesseract: with 1 a page took 1.6 s, with 2 4.9 s on this 2-core machine shared with
# the web and other workers (threads wait for each other); pages are read one after another anyway.
TESSERACT_THREADS = "1"
NICENESS = 10  # OCR is background work: the web process and text-layer extraction (nice 5) come first
# Fewer non-space characters than this on a page means it has no usable text layer: a scan's stray text (a page
# number, a scanner's "Scanned with CamScanner" stamp: 21) is shorter than one line of body text (Korean 35-40
# syllables, English 60-80 letters). On the shared sample books only blank pages fall below it (12 of thinkpython2's
# 264, 1 of pcasm-book-korean's 168) and pages holding only a running head (3 of pcasm-book-english's 190 and
# 1 of thinkpython2's, 11-22 characters): OCR gives those their head back, so keep the longer text of the two.
MIN_TEXT_LAYER_CHARS = 24


@dataclass(frozen=True)
class OcrBudget:
    """Limits for each page: each child (render, each Tesseract pass) gets the memory and CPU time below."""

    seconds_per_page: float = 120.0  # wall clock for the whole page; a dense Korean book page took 9-20 s here, niced
    cpu_seconds_per_page: int = 60  # per child; Tesseract spent at most 12 s on a dense Korean book page
    memory_bytes: int = 1024 * 1024 * 1024  # Tesseract kor+eng ran in 200 MiB of address space on an A4 page
    max_pages: int = 500  # 15-45 minutes of one core at 2-5 s a page: bigger scans are split by the learner
    max_page_pixels: int = 36_000_000  # A2 at 300 dpi; bigger pages are drawn at a lower resolution


class OcrPages(list[ExtractedPage]):
    """The recognised pages in the order asked. ``failed`` maps each page that failed to why; its text is empty."""

    def __init__(self, pages: Iterable[ExtractedPage] = (), failed: dict[int, str] | None = None):
        super().__init__(pages)
        self.failed = dict(failed or {})


# Why a page failed, in words for the learner-facing message when every page fails.
FAILURE_REASONS = {
    "too_slow": "took too long",
    "out_of_memory": "needed too much memory",
    "render_failed": "could not be drawn",
    "unreadable": "the PDF could not be opened",
    "no_such_page": "no such page",
    "ocr_failed": "text recognition stopped with an error",
}


# --- Which pages, which languages ------------------------------------------------------------


def ocr_languages() -> list[str]:
    """Return the languages the installed Tesseract can read, or [] when it is not installed."""
    command = shutil.which(TESSERACT)
    if command is None:
        return []
    try:
        result = subprocess.run([command, "--list-langs"], capture_output=True, text=True, timeout=LIST_LANGUAGES_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return []
    names = (line.strip() for line in result.stdout.splitlines())
    return sorted(name for name in names if name and LANGUAGES_PATTERN.fullmatch(name))


def ocr_available() -> bool:
    """Say whether scanned pages can be read here: Tesseract with Korean and English installed."""
    return set(REQUIRED_LANGUAGES) <= set(ocr_languages())


def pages_without_text(pages: list[ExtractedPage]) -> list[int]:
    """Return the numbers of the pages whose text layer is empty or nearly so: the ones to OCR."""
    return [page.number for page in pages if len("".join(page.text.split())) < MIN_TEXT_LAYER_CHARS]


def _check_ready(filename: str, languages: str) -> None:
    """Raise the learner-facing error when this server cannot OCR ``languages``."""
    if not LANGUAGES_PATTERN.fullmatch(languages):
        raise ValueError(f"languages must look like 'kor+eng', not {languages!r}")
    installed = set(ocr_languages())
    missing = [name for name in languages.split("+") if name not in installed]
    if not installed or missing:
        what = "is not installed" if not installed else f"cannot read {', '.join(missing)} here"
        raise ExtractionError(
            "ocr_unavailable",
            f"“{filename}” is a scan without a text layer, and text recognition (OCR) {what}. "
            "Run OCR on it yourself (for example `ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result.",
        )


# --- Korean post-processing ------------------------------------------------------------------

HANGUL_SYLLABLE = re.compile(r"[\uac00-\ud7a3]")
LATIN_LETTER = re.compile(r"[A-Za-z]")
# A word the Korean model read as Hangul syllables, maybe with punctuation around it ("끓는다.", "(수)").
KOREAN_WORD = re.compile(r"[(\[\"'‘“]*[\uac00-\ud7a3]+[.,:;!?)\]\"'’”]*")
# With kor+eng, Tesseract reads some Hangul words as Latin letters ("물은" -> "Be", "끓는다." -> "SEC."): 5-10 %
# CER on generated Korean pages. A second pass with kor alone reads Hangul almost perfectly (0-1 %) but turns
# every Latin word into digits ("CPU" -> "620"), so only the Latin-looking words are taken from it. Pages with
# less Hangul than this share of their letters are not Korean text (a drawing read as "기" on an English scan).
HANGUL_PAGE_SHARE = 0.25
# Take the Korean reading only if Tesseract is not much less sure of it than of the Latin one. A real "GHz"
# (92) read by kor as "아" (49) stays; Latin misreads of Hangul had 0-91 with Korean readings mostly above.
KOREAN_READING_CONFIDENCE_MARGIN = 30


@dataclass(frozen=True)
class Word:
    """One word of a Tesseract pass, with its box in pixels and Tesseract's confidence (0-100)."""

    text: str
    left: int
    top: int
    right: int
    bottom: int
    confidence: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.left + self.right) / 2, (self.top + self.bottom) / 2


@dataclass(frozen=True)
class Reading:
    """What one Tesseract pass read on a page: the text with Tesseract's spacing, and the words with boxes."""

    text: str
    words: tuple[Word, ...]


def parse_tsv(tsv: str) -> tuple[Word, ...]:
    """Return the words of Tesseract's TSV output (level 5 rows), in reading order."""
    words = []
    for line in tsv.splitlines()[1:]:
        fields = line.split("\t", 11)
        if len(fields) == 12 and fields[0] == "5" and fields[11].strip():
            left, top, width, height = (int(value) for value in fields[6:10])
            words.append(Word(fields[11].strip(), left, top, left + width, top + height, float(fields[10])))
    return tuple(words)


def hangul_share(text: str) -> float:
    """Return the share of Hangul syllables among the page's letters (Hangul and Latin)."""
    hangul = len(HANGUL_SYLLABLE.findall(text))
    letters = hangul + len(LATIN_LETTER.findall(text))
    return hangul / letters if letters else 0.0


def _is_latin_misread_candidate(token: str) -> bool:
    return bool(LATIN_LETTER.search(token)) and not HANGUL_SYLLABLE.search(token)


def needs_korean_reading(mixed: Reading) -> bool:
    """Say whether a kor+eng reading is Korean text with Latin-looking words the Korean model should re-read."""
    if hangul_share(mixed.text) < HANGUL_PAGE_SHARE:
        return False
    return any(_is_latin_misread_candidate(token) for token in mixed.text.split())


def _token_words(reading: Reading) -> list[tuple[re.Match, list[Word]]] | None:
    """Pair each whitespace-separated token of the text with the TSV words it came from (None if they disagree).

    The text carries Tesseract's word spacing (TSV splits Korean words into pieces); the TSV carries the boxes.
    """
    owners: list[tuple[str, int]] = [(char, index) for index, word in enumerate(reading.words) for char in "".join(word.text.split())]
    tokens = []
    position = 0
    for match in re.finditer(r"\S+", reading.text):
        chars = owners[position : position + len(match.group())]
        if "".join(char for char, _ in chars) != match.group():
            return None
        position += len(chars)
        tokens.append((match, [reading.words[index] for index in sorted({index for _, index in chars})]))
    return tokens if position == len(owners) else None


def _korean_reading_of(words: list[Word], korean: tuple[Word, ...]) -> tuple[str, float]:
    """Return what the Korean pass read inside the box of ``words``, and its lowest confidence."""
    left, top = min(word.left for word in words), min(word.top for word in words)
    right, bottom = max(word.right for word in words), max(word.bottom for word in words)
    inside = sorted(
        (word for word in korean if left <= word.center[0] <= right and top <= word.center[1] <= bottom), key=lambda word: word.left
    )
    return "".join(word.text for word in inside), min((word.confidence for word in inside), default=0.0)


def correct_hangul_misreads(mixed: Reading, korean: Reading) -> str:
    """Return the kor+eng text with its Latin-looking misreads of Hangul replaced by what kor alone read there.

    A token is replaced only when the Korean pass read Hangul syllables in the same box (real English words come
    out of it as digits and jamo, "CPU" -> "620") and was not much less confident (see the constants above).
    Pure: the two readings in, the corrected text out.
    """
    tokens = _token_words(mixed)
    if tokens is None:
        return mixed.text
    text = mixed.text
    for match, words in reversed(tokens):
        if not _is_latin_misread_candidate(match.group()):
            continue
        reading, confidence = _korean_reading_of(words, korean.words)
        latin_confidence = min(word.confidence for word in words)
        if KOREAN_WORD.fullmatch(reading) and confidence >= latin_confidence - KOREAN_READING_CONFIDENCE_MARGIN:
            text = text[: match.start()] + reading + text[match.end() :]
    return text


# On an English page read with Korean and English together, Tesseract turns specks and broken letters into
# a stray syllable or jamo ("이 7", "800 ㆍ stood", huckfinn_c02-22_scanned.pdf). A page this Latin is English:
# its one- and two-syllable Hangul tokens and lone jamo are dropped.
ENGLISH_PAGE_MAX_HANGUL = 0.02
ENGLISH_PAGE_MIN_LETTERS = 200
_STRAY_HANGUL = re.compile(r"(?<!\S)[\uac00-\ud7a3\u3130-\u318f]{1,2}(?:[ \t]+|(?!\S))|[\u3130-\u318f]")


def clean_ocr_text(text: str) -> str:
    """Drop Tesseract's page-end form feed, the runs of spaces it leaves where a picture was, extra blank
    lines, and on an English page the stray Hangul it reads into specks."""
    text = text.replace("\f", "")
    latin = len(LATIN_LETTER.findall(text))
    if latin >= ENGLISH_PAGE_MIN_LETTERS and hangul_share(text) < ENGLISH_PAGE_MAX_HANGUL:
        text = _STRAY_HANGUL.sub("", text)
    lines = [re.sub(r"[ \t]{2,}", " ", line).rstrip() for line in text.splitlines()]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


# --- Measuring -------------------------------------------------------------------------------


def character_error_rate(reference: str, hypothesis: str) -> float:
    """Return the edit distance between the texts over characters, whitespace removed, per reference character.

    Whitespace is left out so a line broken differently is not an error; 0.0 is perfect, above 1.0 is possible.
    """
    expected, actual = "".join(reference.split()), "".join(hypothesis.split())
    if not expected:
        return 0.0 if not actual else 1.0
    previous = list(range(len(actual) + 1))
    for row, expected_char in enumerate(expected, start=1):
        current = [row]
        for column, actual_char in enumerate(actual, start=1):
            current.append(min(previous[column] + 1, current[column - 1] + 1, previous[column - 1] + (expected_char != actual_char)))
        previous = current
    return previous[-1] / len(expected)


# --- Running the children --------------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
# How a child that hit a limit ends: RLIMIT_CPU sends SIGXCPU at the soft limit, SIGKILL at the hard one;
# RLIMIT_AS makes Python raise MemoryError, and C++ (Tesseract, PDFium) abort on std::bad_alloc.
_CPU_SIGNALS = (-signal.SIGXCPU, -signal.SIGKILL)
_MEMORY_SIGNALS = (-signal.SIGABRT, -signal.SIGSEGV)


class PageFailed(Exception):
    """One page could not be read; ``reason`` is a key of ``FAILURE_REASONS``."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _limits(budget: OcrBudget) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (budget.memory_bytes, budget.memory_bytes))
        resource.setrlimit(resource.RLIMIT_CPU, (budget.cpu_seconds_per_page, budget.cpu_seconds_per_page + 1))
        os.nice(NICENESS)

    return apply


def _run(args: list[str], *, deadline: float, budget: OcrBudget) -> subprocess.CompletedProcess:
    """Run one child under the page's limits; raise ``PageFailed`` when it is over time or memory."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise PageFailed("too_slow")
    environment = {**os.environ, "OMP_THREAD_LIMIT": TESSERACT_THREADS}
    try:
        result = subprocess.run(
            args, capture_output=True, text=True, timeout=remaining, preexec_fn=_limits(budget), env=environment, cwd=str(ROOT)
        )
    except subprocess.TimeoutExpired:
        raise PageFailed("too_slow") from None
    if result.returncode in _CPU_SIGNALS:
        raise PageFailed("too_slow")
    if result.returncode in _MEMORY_SIGNALS or "MemoryError" in result.stderr or "bad_alloc" in result.stderr:
        raise PageFailed("out_of_memory")
    return result


def _render(path: Path, number: int, png: Path, *, dpi: int, deadline: float, budget: OcrBudget) -> int:
    """Draw page ``number`` into ``png`` in a child process; return the resolution it used."""
    args = [
        sys.executable,
        "-m",
        "baeum.extraction.ocrworker",
        "render",
        str(path),
        str(number),
        str(dpi),
        str(budget.max_page_pixels),
        str(png),
    ]
    result = _run(args, deadline=deadline, budget=budget)
    lines = result.stdout.strip().splitlines()
    record = json.loads(lines[-1]) if result.returncode == 0 and lines else {"error": "render_failed"}
    if "error" in record:
        raise PageFailed(record["error"] if record["error"] in FAILURE_REASONS else "render_failed")
    return int(record["dpi"])


def _recognise(png: Path, *, languages: str, dpi: int, deadline: float, budget: OcrBudget) -> Reading:
    """Read ``png`` with Tesseract in ``languages``: text and word boxes from one recognition."""
    base = png.with_name(f"{png.stem}-{languages.replace('+', '-')}")
    args = [TESSERACT, str(png), str(base), "-l", languages, "--psm", str(PAGE_SEGMENTATION_MODE), "--dpi", str(dpi), "txt", "tsv"]
    try:
        result = _run(args, deadline=deadline, budget=budget)
        text, tsv = base.with_suffix(".txt"), base.with_suffix(".tsv")
        if result.returncode != 0 or not text.exists() or not tsv.exists():
            raise PageFailed("ocr_failed")
        return Reading(text.read_text(encoding="utf-8"), parse_tsv(tsv.read_text(encoding="utf-8")))
    finally:
        for suffix in (".txt", ".tsv"):
            base.with_suffix(suffix).unlink(missing_ok=True)


def _read_page(path: Path, number: int, *, directory: Path, languages: str, dpi: int, budget: OcrBudget) -> str:
    """Return the recognised text of one page, or raise ``PageFailed``."""
    deadline = time.monotonic() + budget.seconds_per_page
    png = directory / f"page-{number}.png"
    try:
        used_dpi = _render(path, number, png, dpi=dpi, deadline=deadline, budget=budget)
        mixed = _recognise(png, languages=languages, dpi=used_dpi, deadline=deadline, budget=budget)
        text = mixed.text
        if "kor" in languages.split("+") and languages != "kor" and needs_korean_reading(mixed):
            try:
                korean = _recognise(png, languages="kor", dpi=used_dpi, deadline=deadline, budget=budget)
            except PageFailed:
                pass  # the kor+eng reading stands: a second opinion that failed loses nothing
            else:
                text = correct_hangul_misreads(mixed, korean)
        return clean_ocr_text(text)
    finally:
        png.unlink(missing_ok=True)


@contextmanager
def _private_directory() -> Iterator[Path]:
    """Yield a temp dir only this user can enter (mkdtemp makes it 0700): page images are the learner's content."""
    with tempfile.TemporaryDirectory(prefix="baeum-ocr-") as name:
        directory = Path(name)
        os.chmod(directory, 0o700)
        yield directory


def ocr_pdf_pages(
    path: Path,
    page_numbers: list[int],
    *,
    filename: str,
    languages: str = "kor+eng",
    dpi: int = 300,
    on_page: Callable[[int, int], None] | None = None,
    budget: OcrBudget = OcrBudget(),
) -> OcrPages:
    """OCR ``page_numbers`` (1-based) of the PDF at ``path``, one after another; call ``on_page(done, total)`` after each.

    A page that fails (too slow, too big, unreadable) comes back with empty text and is listed in the result's
    ``failed``; the others are kept. Raise ``ExtractionError`` when OCR is not installed here, the scan has more
    than ``budget.max_pages`` pages to read, or no page could be read.
    """
    _check_ready(filename, languages)
    if len(page_numbers) > budget.max_pages:
        raise ExtractionError(
            "too_many_pages",
            f"“{filename}” has {len(page_numbers)} scanned pages; text recognition reads at most {budget.max_pages} per file. "
            "Split it into smaller files and upload them one by one.",
        )
    pages: list[ExtractedPage] = []
    failed: dict[int, str] = {}
    with _private_directory() as directory:
        for done, number in enumerate(page_numbers, start=1):
            try:
                text = _read_page(path, number, directory=directory, languages=languages, dpi=dpi, budget=budget)
            except PageFailed as failure:
                text, failed[number] = "", failure.reason
            pages.append(ExtractedPage(number, text))
            if on_page:
                on_page(done, len(page_numbers))
    if page_numbers and len(failed) == len(page_numbers):
        reasons = ", ".join(sorted({FAILURE_REASONS[reason] for reason in failed.values()}))
        raise ExtractionError(
            "ocr_failed",
            f"Text recognition could not read any page of “{filename}” ({reasons}). If the scan is very large or damaged, "
            "scan it again at 300 dpi, or run OCR on it yourself (for example `ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result.",
        )
    return OcrPages(pages, failed)
