"""Text recognition for scanned PDFs: a resumable stage of ingestion on the ``background`` queue.

A PDF without a text layer (or with many pages without one) is not refused: its ingestion stops at
the OCR stage, a background task reads the scanned pages with Tesseract one by one (``baeum.extraction.ocr``, at
low CPU priority), keeps each page's text beside the original file as it goes -- so a worker that dies
loses at most the page it was reading -- and then runs the rest of the pipeline, which takes the
recognised text for those pages. Pages read this way are flagged (``MaterialPage.ocr``).
"""

from __future__ import annotations

import logging
import os
import time
from pathlib import Path

from django.conf import settings
from django.utils import timezone

from baeum.extraction import ocr
from baeum.extraction import readers as extract

from ..models import Material

logger = logging.getLogger(__name__)

OCR_DIRECTORY = "ocr"  # beside the kept original: materials/<owner>/<refId>/ocr/page-0001.txt
# One task reads pages for about this long, then re-queues the rest (like re-embedding): another learner's
# one-page scan queued meanwhile is read before the rest of a long scan.
OCR_SLICE_SECONDS = 20
# A text PDF has a few empty pages (blank, full-page figures); a scan with some typed pages has many.
MIXED_SCAN_SHARE = 0.2


class OcrNeeded(Exception):
    """Ingestion cannot go on before these pages are read by OCR (they are queued)."""

    def __init__(self, page_numbers: list[int]):
        super().__init__(f"{len(page_numbers)} page(s) need OCR")
        self.page_numbers = page_numbers


def pages_to_read(pages: list[extract.ExtractedPage]) -> list[int]:
    """The pages OCR should read: every textless page of a scan, none of a text PDF's few blank ones."""
    missing = ocr.pages_without_text(pages)
    scanned = sum(len(page.text.strip()) for page in pages) < extract.SCANNED_CHARS_PER_PAGE * len(pages)
    return missing if scanned or len(missing) > MIXED_SCAN_SHARE * len(pages) else []


def _directory(material: Material) -> Path:
    return Path(material.file.path).parent / OCR_DIRECTORY


def _page_file(material: Material, number: int) -> Path:
    return _directory(material) / f"page-{number:04d}.txt"


def ocr_cached(material: Material, page_numbers: list[int]) -> dict[int, str]:
    """The recognised text of those pages already read (a page that could not be read is cached empty)."""
    found = {}
    for number in page_numbers:
        path = _page_file(material, number)
        if path.exists():
            found[number] = path.read_text(encoding="utf-8")
    return found


def ocr_check(material: Material, page_numbers: list[int]) -> None:
    """Refuse what OCR cannot do here, with what to do instead."""
    name = material.original_filename
    if not ocr.ocr_available():
        raise extract.ExtractionError(
            "no_text_layer",
            f"“{name}” has no text layer: its pages look like scanned images, and text recognition (Tesseract) is not installed on "
            "this server. Run OCR on it first (for example `ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result.",
        )
    limit = settings.BAEUM["MAX_OCR_PAGES"]
    if len(page_numbers) > limit:
        raise extract.ExtractionError(
            "too_many_scanned_pages",
            f"“{name}” has {len(page_numbers)} scanned pages; text recognition reads at most {limit} per file here. "
            "Split it into smaller files, or run OCR on it yourself (`ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result.",
        )


def material_ocr(*, material_id: int, time_budget: float | None = OCR_SLICE_SECONDS) -> tuple[Material | None, bool]:
    """Read the material's scanned pages that are not read yet, for up to ``time_budget`` seconds, caching each
    page as it is done; return the material and whether every page is read. Progress: pages read / to read."""
    material = Material.objects.unscoped().filter(pk=material_id, status=Material.Status.OCR).first()  # system task
    if material is None:
        return None, True
    wanted = list(material.ocr_pages)
    directory = _directory(material)
    directory.mkdir(mode=0o700, exist_ok=True)
    started = time.monotonic()
    remaining = [number for number in wanted if not _page_file(material, number).exists()]
    for position, number in enumerate(remaining):
        result = ocr.ocr_pdf_pages(Path(material.file.path), [number], filename=material.original_filename)
        _write(_page_file(material, number), result[0].text if result else "")
        done = len(wanted) - len(remaining) + position + 1
        Material.objects.unscoped().filter(pk=material.pk).update(progress_done=done, progress_total=len(wanted), updated_at=timezone.now())
        if time_budget is not None and position + 1 < len(remaining) and time.monotonic() - started > time_budget:
            return material, False  # at least one page per slice, so every slice makes progress
    return material, True


def _write(path: Path, text: str) -> None:
    temporary = path.with_suffix(".part")
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)  # a page is cached whole or not at all
