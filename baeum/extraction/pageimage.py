"""A picture of one original PDF page for the page viewer: figures, formulas and tables the text view loses.

The page is drawn by the OCR worker's child (``python -m baeum.extraction.ocrworker render … color``, PDFium) started with
``baeum.extraction.children.spawn_reader``: PDFium runs on an untrusted file, so a hostile page kills a child with a memory
limit and a time budget, never the web process.
"""

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from baeum.extraction.children import spawn_reader

# 130 dpi draws an A4 page 1075 px wide: sharp in the viewer's column (about 660 px beside the text at 1366 px,
# 1070 px alone) and on a phone's 2x screen, at 90-200 KB a page (WebP, see baeum.extraction.ocrworker).
VIEWER_DPI = 130


@dataclass(frozen=True)
class PageImageBudget:
    seconds: float = 20.0  # a dense book page draws in 0.1-0.3 s here; a page that needs 20 s is hostile
    memory_bytes: int = 768 * 1024 * 1024  # PDFium plus one bitmap of max_pixels RGB (12 MB)
    max_pixels: int = 4_000_000  # a poster-sized page is drawn at a lower resolution, never refused
    nice: int = 10  # a picture waits for the pages' own requests: other learners' answers come first


class PageImageFailed(Exception):
    """The page could not be drawn; ``code`` says why (no_such_page, unreadable, render_failed, too_slow)."""

    def __init__(self, code: str):
        super().__init__(code)
        self.code = code


def render_page_image(path: Path, number: int, out: Path, *, dpi: int = VIEWER_DPI, budget: PageImageBudget = PageImageBudget()) -> Path:
    """Draw page ``number`` of the PDF at ``path`` into ``out`` (WebP), atomically; return ``out``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(f".{out.name}.{os.getpid()}.partial")
    args = ["render", str(path), str(number), str(dpi), str(budget.max_pixels), str(partial), "color"]
    # The CPU limit ends a child that spins; the wall-clock time-out below one that waits.
    process = spawn_reader(
        "baeum.extraction.ocrworker", args, memory_bytes=budget.memory_bytes, cpu_seconds=budget.seconds, nice=budget.nice
    )
    try:
        stdout, _ = process.communicate(timeout=budget.seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        partial.unlink(missing_ok=True)
        raise PageImageFailed("too_slow") from None
    lines = stdout.strip().splitlines()
    record = json.loads(lines[-1]) if process.returncode == 0 and lines else {"error": "render_failed"}
    if "error" in record or not partial.exists():
        partial.unlink(missing_ok=True)
        raise PageImageFailed(record.get("error", "render_failed"))
    os.replace(partial, out)  # readers never see half a file; two requests racing write the same picture
    return out
