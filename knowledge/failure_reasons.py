"""Ingestion failure reasons and upload errors in the learner's language, translated where they are shown.

The reasons are written in English where they happen (``baeum.extraction.readers``, ``baeum.extraction.office``, ``baeum.extraction.ocr``,
``knowledge.services``, ``knowledge.tasks``: machinery that knows no language) and stored with a stable
``error_code``. Translating at display keeps what is stored language-neutral: a learner who switches
language sees the reason again in the new one.

Each English sentence below is also a pattern: ``“%(name)s” is empty…`` matches the stored reason and gives
back the file name and numbers, which the translation reuses. A reason no pattern matches (its wording
changed, or it carries a detail such as a reader's error) falls back to a translated sentence for its code,
then to the English text itself.
"""

import re
from functools import cache

from django.utils.translation import get_language, gettext, gettext_noop

# Each entry is the exact English the producers write, with %(…)s where they put a value.
REASON_PATTERNS: tuple[str, ...] = (
    # baeum.extraction.readers
    gettext_noop("“%(name)s” is empty. Upload the file again; it may not have been saved fully."),
    gettext_noop("“%(name)s” is not a supported type. Upload a PDF, a .txt or .md file, slides (.pptx) or a document (.docx, .hwpx)."),
    gettext_noop("“%(name)s” is named .pdf but its content is not a PDF (text). Export it as a real PDF and upload it again."),
    gettext_noop(
        "“%(name)s” is named .pdf but its content is not a PDF (unknown binary data). Export it as a real PDF and upload it again."
    ),
    gettext_noop("“%(name)s” is named %(suffix)s but contains a PDF. Rename it to .pdf and upload it again."),
    gettext_noop("“%(name)s” is named %(suffix)s but contains binary data, not text. Upload it as UTF-8 text."),
    gettext_noop("“%(name)s” is not valid UTF-8 text. Save it as UTF-8 and upload it again."),
    gettext_noop("“%(name)s” took too long to open (over %(seconds)s s). It may be damaged; re-save it as a new PDF."),
    gettext_noop("“%(name)s” is protected with a password. Remove the password (print or save it as a new PDF) and upload it again."),
    gettext_noop(
        "“%(name)s” is not a readable PDF (%(detail)s). It may be truncated or damaged: download or export it again and re-upload."
    ),
    gettext_noop("“%(name)s” is not a readable PDF: it may be truncated or damaged. Download or export it again and re-upload."),
    gettext_noop("“%(name)s” contains no pages. Export it again and re-upload."),
    gettext_noop("“%(name)s” needs more memory to read than allowed; it may be a compressed 'PDF bomb'. Re-save it as a plain PDF."),
    gettext_noop(
        "“%(name)s” has pages that take too much work to read (a page's drawing instructions ran past its time limit). "
        "Re-save it as a plain PDF (print to PDF) and upload it again."
    ),
    gettext_noop("Baeum is checking other uploads right now; upload “%(name)s” again in a minute."),
    gettext_noop("“%(name)s” could not be read as a PDF. It may be damaged: export it again and re-upload."),
    gettext_noop("“%(name)s” has %(pages)s pages; the limit is %(limit)s. Split it into smaller files."),
    gettext_noop("“%(name)s” took too long to read. Re-save it as a simpler PDF or split it into parts."),
    gettext_noop("“%(name)s” holds more than %(limit)s characters of text; split it into smaller files."),
    gettext_noop("“%(name)s”: only %(done)s of %(total)s pages could be read. Export it again and re-upload."),
    gettext_noop("“%(name)s”: no page could be read. It may be damaged: export it again and re-upload."),
    gettext_noop(
        "“%(name)s” has no text layer: its %(pages)s page(s) look like scanned images. "
        "Run OCR on it first (for example `ocrmypdf in.pdf out.pdf`) and upload the result."
    ),
    # baeum.extraction.office
    gettext_noop(
        "“%(name)s” contains no text to study from. If its content is pictures, "
        "export it as a PDF, run OCR on it (for example `ocrmypdf in.pdf out.pdf`) and upload the result."
    ),
    gettext_noop("“%(name)s” is protected with a password. Open it, remove the password, save it, and upload it again."),
    gettext_noop("“%(name)s” took too long to read (over %(seconds)s s). Save it again from its program or split it into parts."),
    gettext_noop("“%(name)s” holds too much text to read; split it into smaller files."),
    # baeum.extraction.ocr
    gettext_noop(
        "“%(name)s” has %(pages)s scanned pages; text recognition reads at most %(limit)s per file. "
        "Split it into smaller files and upload them one by one."
    ),
    # knowledge.services (ingest, ocr, materials)
    gettext_noop("The stored file of “%(name)s” is missing. Upload it again."),
    gettext_noop("“%(name)s” is too long; split it into smaller files."),
    gettext_noop("“%(name)s” contains no readable text. Check the file and upload it again."),
    gettext_noop("Text recognition found no text in “%(name)s”. Check that the scan is readable (300 dpi or more) and upload it again."),
    gettext_noop(
        "“%(name)s” has no text layer: its pages look like scanned images, and text recognition (Tesseract) is not installed on "
        "this server. Run OCR on it first (for example `ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result."
    ),
    gettext_noop(
        "“%(name)s” has %(pages)s scanned pages; text recognition reads at most %(limit)s per file here. "
        "Split it into smaller files, or run OCR on it yourself (`ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result."
    ),
    gettext_noop("“%(name)s” is %(size)s MB; the limit is %(limit)s MB. Split or compress it."),
    # knowledge.tasks
    gettext_noop("“%(name)s” took too long to process. Split it into smaller files and upload them."),
)

# When no pattern matches: one sentence per code, naming the file (the detail stays in the English reason).
REASONS_BY_CODE: dict[str, str] = {
    "empty_file": gettext_noop("“%(name)s” is empty. Upload the file again; it may not have been saved fully."),
    "unsupported_type": gettext_noop("“%(name)s” is not a supported type."),
    "content_mismatch": gettext_noop(
        "The content of “%(name)s” does not match its file name. Save it again in its program and upload it again."
    ),
    "bad_encoding": gettext_noop("“%(name)s” is not valid UTF-8 text. Save it as UTF-8 and upload it again."),
    "encrypted": gettext_noop("“%(name)s” is protected with a password. Remove the password and upload it again."),
    "malformed": gettext_noop("“%(name)s” could not be read. It may be damaged: export it again and re-upload."),
    "no_pages": gettext_noop("“%(name)s” contains no pages. Export it again and re-upload."),
    "too_complex": gettext_noop("“%(name)s” is too large or too complex to read safely. Save it again, or split it into smaller files."),
    "too_slow": gettext_noop("“%(name)s” took too long to read. Save it again or split it into parts."),
    "busy": gettext_noop("Baeum is checking other uploads right now; upload “%(name)s” again in a minute."),
    "too_many_pages": gettext_noop("“%(name)s” has too many pages. Split it into smaller files."),
    "too_many_scanned_pages": gettext_noop("“%(name)s” has too many scanned pages. Split it into smaller files."),
    "too_much_text": gettext_noop("“%(name)s” holds too much text; split it into smaller files."),
    "no_text": gettext_noop("“%(name)s” contains no readable text. Check the file and upload it again."),
    "no_text_layer": gettext_noop(
        "“%(name)s” has no text layer: its pages look like scanned images. Run OCR on it first and upload the result."
    ),
    "ocr_unavailable": gettext_noop(
        "“%(name)s” is a scan without a text layer, and text recognition (OCR) is not available here. "
        "Run OCR on it yourself (for example `ocrmypdf -l kor+eng in.pdf out.pdf`) and upload the result."
    ),
    "ocr_failed": gettext_noop(
        "Text recognition could not read “%(name)s”. Scan it again at 300 dpi, or run OCR on it yourself and upload the result."
    ),
    "file_missing": gettext_noop("The stored file of “%(name)s” is missing. Upload it again."),
    "file_too_large": gettext_noop("“%(name)s” is larger than the upload limit. Split or compress it."),
    "reader_unavailable": gettext_noop("“%(name)s” could not be read on this server. Ask an administrator."),
    "embedding_failed": gettext_noop("Indexing “%(name)s” failed. Ask an administrator to check the embedding settings."),
    "embedding_unavailable": gettext_noop(
        "The indexing service did not answer while “%(name)s” was processed. Nothing was lost: press Retry later and it resumes where it stopped."
    ),
    "database_crashed": gettext_noop(
        "The database stopped while “%(name)s” was being processed. Your other materials are safe. Press Retry; if it fails again, tell an administrator."
    ),
    "timeout": gettext_noop("“%(name)s” took too long to process. Split it into smaller files and upload them."),
}

_PLACEHOLDER = re.compile(r"%\\\((\w+)\\\)s")
_QUOTED_NAME = re.compile(r"“(.+?)”")


@cache
def _compiled() -> tuple[tuple[re.Pattern, str], ...]:
    """Each pattern as a regex capturing its values; a name may hold anything, a value no newline."""
    compiled = []
    for template in REASON_PATTERNS:
        source = _PLACEHOLDER.sub(lambda match: f"(?P<{match.group(1)}>.+?)", re.escape(template))
        compiled.append((re.compile(source, re.DOTALL), template))
    return tuple(compiled)


def reason_translate(*, message: str, code: str = "", filename: str = "") -> str:
    """Return ``message`` (an English failure reason or upload error) in the active language."""
    if not message:
        return ""
    for pattern, template in _compiled():
        match = pattern.fullmatch(message.strip())
        if match:
            return gettext(template) % match.groupdict()
    generic = REASONS_BY_CODE.get(code)
    if generic is None or (get_language() or "en").startswith("en"):
        return message  # English is the original wording, with its detail
    name = filename or next(iter(_QUOTED_NAME.findall(message)), "")
    return gettext(generic) % {"name": name}


def reason_patterns_translated() -> list[dict[str, str]]:
    """The patterns with their translation in the active language, for the browser's upload errors."""
    return [{"pattern": template, "text": gettext(template)} for template in REASON_PATTERNS if gettext(template) != template]
