"""Benchmark OCR (baeum.extraction.ocr): seconds per page and character error rate, printed as JSON.

    .venv/bin/python scripts/bench_ocr.py [--samples ../shared/samples] [--without-korean-reading] [--generated-pages N]

Reads 3 generated Korean and 3 generated English scans (tests/ocrgen.py: 11 pt A4 at 300 dpi, tilted, blurred
and specked like a flatbed scan) against the text drawn on them, the first 3 pages of each shared real scan
(no reference: the share of tokens that are words of letters instead), and page 15 of pcasm-book-korean.pdf drawn
as an image, against its own text layer (a real typeset Korean page: margin note, English terms).
``--without-korean-reading`` skips the kor-only second pass, to see what it is worth. Pages are read one
after another on one core, as the ingestion task does; run it on a quiet machine, once.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baeum.extraction import ocr  # noqa: E402
from tests import ocrgen  # noqa: E402

FIRST_PAGES = 3
BOOK_PAGE = ("text/pcasm-book-korean.pdf", 15)  # prose, a margin note and English terms (CPU, GHz)
WORD_OF_LETTERS = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
EDGE_PUNCTUATION = "\"'“”‘’.,;:!?()[]*"


def _timed_ocr(path: Path, numbers: list[int]) -> tuple[ocr.OcrPages, float]:
    """OCR ``numbers`` of ``path``; return the pages and the wall-clock seconds per page."""
    started = time.monotonic()
    pages = ocr.ocr_pdf_pages(path, numbers, filename=path.name)
    return pages, (time.monotonic() - started) / len(numbers)


def _score(pages: ocr.OcrPages, references: list[str], seconds: float) -> dict:
    rates = [ocr.character_error_rate(reference, page.text) for reference, page in zip(references, pages, strict=True)]
    return {
        "pages": len(pages),
        "seconds_per_page": round(seconds, 2),
        "cer": [round(rate, 4) for rate in rates],
        "mean_cer": round(sum(rates) / len(rates), 4),
        "failed": pages.failed,
    }


def generated(texts: list[str], directory: Path, name: str) -> dict:
    data, references = ocrgen.scanned_pdf(texts, scan_like=True)
    path = directory / f"{name}.pdf"
    path.write_bytes(data)
    pages, seconds = _timed_ocr(path, list(range(1, len(texts) + 1)))
    return _score(pages, references, seconds)


def _page_count(path: Path) -> int:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(str(path))
    try:
        return len(document)
    finally:
        document.close()


def _word_like_share(text: str) -> float:
    tokens = [token.strip(EDGE_PUNCTUATION) for token in text.split()]
    tokens = [token for token in tokens if token]
    return sum(bool(WORD_OF_LETTERS.fullmatch(token)) for token in tokens) / max(1, len(tokens))


def real_scan(path: Path) -> dict:
    numbers = list(range(1, min(FIRST_PAGES, _page_count(path)) + 1))
    pages, seconds = _timed_ocr(path, numbers)
    return {
        "pages": len(numbers),
        "seconds_per_page": round(seconds, 2),
        "words": [len(page.text.split()) for page in pages],
        "word_like_share": [round(_word_like_share(page.text), 3) for page in pages],
        "failed": pages.failed,
    }


def book_page(samples: Path, directory: Path) -> dict:
    """Draw a real typeset page as a 300 dpi image-only PDF and score OCR against its own text layer."""
    import pypdfium2 as pdfium

    name, number = BOOK_PAGE
    document = pdfium.PdfDocument(str(samples / name))
    try:
        page = document[number - 1]
        reference = page.get_textpage().get_text_range()
        image = page.render(scale=ocrgen.DPI / 72, grayscale=True).to_pil()
    finally:
        document.close()
    path = directory / "book-page.pdf"
    path.write_bytes(ocrgen.images_to_pdf([image]))
    pages, seconds = _timed_ocr(path, [1])
    return {"source": f"{name} p.{number}", **_score(pages, [reference], seconds)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=Path, default=ROOT.parent / "shared" / "samples")
    parser.add_argument("--without-korean-reading", action="store_true")
    parser.add_argument(
        "--generated-pages", type=int, default=len(ocrgen.KOREAN_PAGES), help="generated pages per language (fewer: a quick smoke run)"
    )
    options = parser.parse_args()
    if not ocr.ocr_available():
        raise SystemExit("Tesseract with kor and eng is not installed (apt-get install tesseract-ocr-kor)")
    if options.without_korean_reading:
        ocr.needs_korean_reading = lambda reading: False
    version = subprocess.run([ocr.TESSERACT, "--version"], capture_output=True, text=True).stdout.split("\n")[0]
    report: dict = {"tesseract": version, "languages": "kor+eng", "psm": ocr.PAGE_SEGMENTATION_MODE, "dpi": 300}
    report["korean_reading"] = not options.without_korean_reading
    with tempfile.TemporaryDirectory(prefix="baeum-bench-ocr-") as name:
        directory = Path(name)
        report["generated_korean"] = generated(ocrgen.KOREAN_PAGES[: options.generated_pages], directory, "korean")
        report["generated_english"] = generated(ocrgen.ENGLISH_PAGES[: options.generated_pages], directory, "english")
        report["scanned_samples"] = {path.name: real_scan(path) for path in sorted((options.samples / "scanned").glob("*.pdf"))}
        if (options.samples / BOOK_PAGE[0]).exists():
            report["book_page_korean"] = book_page(options.samples, directory)
    print(json.dumps(report, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
