"""Child process that reads a PDF for ``baeum.extract`` (run as ``python -m baeum.pdfworker``).

``probe PATH`` prints ``{"pages": n}`` or ``{"error": code, "detail": ...}``.
``pages PATH FIRST LAST`` prints one ``{"page": n, "text": ...}`` line per page, as it goes.
It runs under a memory limit set by the parent; a crash here is reported, never propagated.
"""

import json
import logging
import sys
import warnings


def _open(path: str):
    from pypdf import PdfReader

    reader = PdfReader(path, strict=False)
    if reader.is_encrypted:
        try:
            opened = reader.decrypt("")
        except Exception:  # noqa: BLE001 - pypdf raises several types for unsupported crypto
            opened = 0
        if not opened:
            return None
    return reader


def probe(path: str) -> dict:
    try:
        reader = _open(path)
        if reader is None:
            return {"error": "encrypted"}
        pages = len(reader.pages)
    except Exception as error:  # noqa: BLE001 - any parser failure means "not a readable PDF"
        return {"error": "malformed", "detail": type(error).__name__ + (f": {error}" if str(error) else "")[:200]}
    if pages == 0:
        return {"error": "no_pages"}
    return {"pages": pages}


def pages(path: str, first: int, last: int) -> None:
    reader = _open(path)
    for number in range(first, last + 1):
        try:
            text = reader.pages[number - 1].extract_text() or ""
            record = {"page": number, "text": text}
        except Exception as error:  # noqa: BLE001 - one bad page must not lose the others
            record = {"page": number, "error": type(error).__name__}
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def main(argv: list[str]) -> None:
    logging.disable(logging.CRITICAL)
    warnings.simplefilter("ignore")
    sys.setrecursionlimit(5000)
    if argv[0] == "probe":
        print(json.dumps(probe(argv[1])))
    else:
        pages(argv[1], int(argv[2]), int(argv[3]))


if __name__ == "__main__":
    main(sys.argv[1:])
