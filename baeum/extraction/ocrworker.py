"""Child process that draws one PDF page as a picture for ``baeum.extraction.ocr`` (run as ``python -m baeum.extraction.ocrworker``).

``render PATH PAGE DPI MAX_PIXELS OUT [color]`` writes the page as an 8-bit grayscale PNG (with ``color``: a
colour WebP, the page viewer's picture of the original) and prints ``{"page": n, "dpi": d}`` (the resolution
actually used), or ``{"page": n, "error": code}``.
Rendering runs PDFium on an untrusted file and allocates a page-sized bitmap, so it happens here, under the
memory, CPU and time limits the parent sets: a hostile page kills this child, never the Celery worker.
"""

import json
import logging
import math
import sys
import warnings

POINTS_PER_INCH = 72  # PDF user space unit
PNG_COMPRESS_LEVEL = 1  # the file lives for one page in a private temp dir: favour speed over size
# The viewer's picture is kept and sent to phones: lossy WebP at 85 keeps 130-dpi text sharp at a third to a
# tenth of a PNG (thinkpython2 p.40: 126 KB, PNG 256 KB; a scanned Huckleberry Finn page: 91 KB, PNG 841 KB).
COLOR_WEBP_QUALITY = 85


def render_dpi(width_points: float, height_points: float, *, dpi: int, max_pixels: int) -> int:
    """Return ``dpi``, lowered so the page fits in ``max_pixels`` (a poster-sized page is read, not refused)."""
    pixels = (width_points * dpi / POINTS_PER_INCH) * (height_points * dpi / POINTS_PER_INCH)
    if pixels <= max_pixels:
        return dpi
    return max(1, math.floor(dpi * math.sqrt(max_pixels / pixels)))


def render(path: str, number: int, dpi: int, max_pixels: int, out: str, *, color: bool = False) -> dict:
    import pypdfium2 as pdfium

    try:
        document = pdfium.PdfDocument(path, password="")
    except Exception:  # noqa: BLE001 - any parser failure means "not a readable PDF"
        return {"page": number, "error": "unreadable"}
    try:
        if not 1 <= number <= len(document):
            return {"page": number, "error": "no_such_page"}
        page = document[number - 1]
        try:
            used = render_dpi(*page.get_size(), dpi=dpi, max_pixels=max_pixels)
            bitmap = page.render(scale=used / POINTS_PER_INCH, grayscale=not color)
            if color:
                bitmap.to_pil().save(out, format="WEBP", quality=COLOR_WEBP_QUALITY)
            else:
                bitmap.to_pil().save(out, format="PNG", dpi=(used, used), compress_level=PNG_COMPRESS_LEVEL)
        finally:
            page.close()
    except Exception as error:  # noqa: BLE001 - reported to the parent as this page's failure
        return {"page": number, "error": "render_failed", "detail": type(error).__name__}
    finally:
        document.close()
    return {"page": number, "dpi": used}


def main(argv: list[str]) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    if argv[0] != "render":
        raise SystemExit(f"unknown command {argv[0]!r}")
    path, number, dpi, max_pixels, out = argv[1], int(argv[2]), int(argv[3]), int(argv[4]), argv[5]
    print(json.dumps(render(path, number, dpi, max_pixels, out, color=argv[6:7] == ["color"])))


if __name__ == "__main__":
    main(sys.argv[1:])
