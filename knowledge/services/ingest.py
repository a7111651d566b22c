"""The ingestion pipeline: PENDING → EXTRACTING → CHUNKING → EMBEDDING → READY (or FAILED).

Safe to run twice and after a crash: a per-material advisory lock keeps runs from overlapping, and
the material's pages, chunks and vectors are replaced in one transaction at the end, so readers see
either the previous complete set or the new complete set, never a mix. Progress is written outside
that transaction so the UI and API can watch it move.
"""

from __future__ import annotations

import contextlib
import logging
from dataclasses import replace
from pathlib import Path

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from baeum.extraction import readers as extract
from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.lines import heading_level, printed_page_numbers
from baeum.extraction.outline import apply_outline, chapter_pages, outline_entries
from baeum.extraction.pdflayout import body_size, sized_headings
from baeum.extraction.structure import matter_breaks, page_matter
from baeum.language.text import normalize_text, written_in_korean
from baeum.retrieval.embeddings import EmbeddingError
from core.providers import active_embedder

from ..models import Chunk, Material, MaterialPage
from ..signals import material_ready
from .embedding import chunk_embeddings_store, content_hash, embeddings_compute
from .lexical import chunk_terms_write, vocabulary_write_later
from .ocr import OcrNeeded, ocr_cached, ocr_check, pages_to_read
from .reembed import material_upgrade_start
from .vector_indexes import vector_indexes_sync_later

logger = logging.getLogger(__name__)
Status = Material.Status
_LOCK_NAMESPACE = 7201  # advisory-lock namespace for material ingestion
# Bump when extraction or chunking changes what is stored, so `manage.py reextract` re-reads older
# materials. "pdfium-2": PDF text by PDFium, chunks with page offsets (pypdf's had neither: "").
# "pdfium-3": tables kept whole (cut only between rows, header repeated), footnotes out of sentences.
# "pdfium-4": side notes kept apart, sub- and superscripts, code lines, running heads by printed page number
# and footers repeated digits and all, printed page numbers read from the pages. "pdfium-5": a link printed atop
# every page ("Index" on each page of Corning's 10-K) no longer makes the pages after it back matter; a GNU
# manual's licence appendix ("Appendix A Copying Information") is back matter. "pdfium-6": each item of a list a
# paragraph of its own, and where every heading inside a chunk stands (a section opening mid-chunk is evidence).
# "pdfium-7": a line break between two Korean words keeps its space when the words around it say so ("해제한 후" /
# "장치"), Markdown's bullets read "•", its escapes ("\\[") as the marks they escape, its inline code as written
# and its HTML tables as rows of cells (code, never a sentence), and a text, Markdown or Office file keeps its blank
# lines, which end its paragraphs, and breaks its lines at spaces, never inside a word; a plain-text title at the
# margin over an indented body (a manual page's "설명") is a paragraph of its own. "pdfium-8": a line the PDF sets
# larger than its body text is a heading, numbered or not; a "?" or "!"
# that is a token of its own ("? 연산자") ends no sentence.
# "pdfium-9": the letters PDFium returns as boxes of their own where a justified line spreads them are read as
# that line, not as a side note beside the text column (a Korean page printed from HTML had "분석 결 / 과들이" read
# "분과들이", its cut letters shown as a scrambled note); a note of a word or two in brackets that closes a line after
# a full stop is that sentence's ("… 정의자입니다. (v0.17.1부터 지원)"), not the next one's.
# "pdfium-10": a first chapter that opens on the page its contents end on ("1 Definition of CRC" halfway down a
# paper's page 2) starts the body there: that page is no longer front matter.
EXTRACTOR = "pdfium-10"
# What re-reading fixes in a material made by each older extractor (``reextract --check`` says it).
EXTRACTOR_FIXES = {
    "": "citations may point one page early and Korean text may run together",
    "pdfium-2": "tables may be cut mid-row and footnotes glued into sentences",
    "pdfium-3": "margin notes may be glued into sentences, subscripts and code flattened, running heads and footers left in the text",
    "pdfium-4": "a document printing a link such as 'Index' atop every page may have its last third read as back matter (the tutor "
    "reads it last), and a manual's licence appendix may be taught as study sessions",
    "pdfium-5": "list items may run together into one sentence, and a section opening inside a passage is not found by its title",
    "pdfium-6": "two Korean words on either side of a line break may read as one ('후장치'); Markdown may show '* ' and '\\[', "
    "lose brackets inside inline code and run an HTML table's cells into one sentence; in a text, Markdown or Office file, "
    "a line with no full stop (a list item, a label) may run into the paragraph after it",
    "pdfium-7": "a heading without a number ('Validations') may be glued to its section's first sentence, "
    "and a Korean sentence cut at a '?' that is an operator ('? 연산자')",
    "pdfium-8": "on a justified page, letters may be cut out of their sentences and shown as a scrambled side note "
    "('분과들이' for '분석 결과들이'), and a short note closing a line ('(v0.17.1부터 지원)') may open the next sentence",
    "pdfium-9": "a first chapter opening on the page where the contents end may be read as front matter: never a study "
    "session, and read last by the tutor",
}


@contextlib.contextmanager
def _material_lock(material_id: int):
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [_LOCK_NAMESPACE, material_id])
        acquired = cursor.fetchone()[0]
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [_LOCK_NAMESPACE, material_id])


def _update(material: Material, **fields) -> None:
    for name, value in fields.items():
        setattr(material, name, value)
    Material.objects.unscoped().filter(pk=material.pk).update(updated_at=timezone.now(), **fields)


def material_fail(*, material: Material, code: str, message: str) -> None:
    """Mark a material FAILED with a reason a learner can act on. Its file and other materials stay."""
    logger.info("material %s failed: %s", material.ref_id, code)
    _update(material, status=Status.FAILED, error_code=code, error_message=message)


def _budget() -> extract.Budget:
    config = settings.BAEUM
    return extract.Budget(max_pages=config["MAX_PAGES"], max_chars=config["MAX_EXTRACTED_CHARS"])


# A document whose text numbers this many of its headings ("1.2 Loops", "Chapter 3", "제2장") is read by them alone.
NUMBERED_HEADINGS = 5


def page_headings(pages: list, *, chapters: bool) -> list[tuple[tuple[str, int], ...]]:
    """Each page's lines set as headings by their size (``pdflayout.sized_headings``) against the document's body
    text size; none of them a chapter where the PDF's outline says what the chapters are (``chapters`` False). Only
    in a document that numbers fewer than ``NUMBERED_HEADINGS`` of its headings: where the text numbers them, its
    larger unnumbered lines are run-in subsections ("Implementation" under "2.3 Sorting") that cut its sections
    into passages too small to answer follow-ups (the handbook's follow-ups fell 0.833 → 0.683 with them)."""
    if not any(page.sizes for page in pages):
        return [() for _ in pages]  # no line set in another size (a text or Office file, a scan, a PDF of one size)
    numbered = sum(bool(heading_level(line.strip())) for page in pages for line in page.text.split("\n") if line.strip())
    if numbered >= NUMBERED_HEADINGS:
        return [() for _ in pages]
    body = body_size([dict(page.letters) for page in pages])
    found = [sized_headings(dict(page.sizes), body) for page in pages]
    return [tuple((line, level if chapters else max(2, level)) for line, level in headings.items()) for headings in found]


def _extract_pages(material: Material) -> tuple[list[extract.ExtractedPage], set[int]]:
    """Return the material's pages and the numbers of those whose text came from OCR.

    Raise ``OcrNeeded`` when scanned pages must be read first (the caller queues that).
    """
    path = Path(material.file.path)
    if not path.exists():
        raise extract.ExtractionError("file_missing", f"The stored file of “{material.original_filename}” is missing. Upload it again.")
    with path.open("rb") as handle:
        head = handle.read(4096)
    kind = extract.check_kind(filename=material.original_filename, head=head)
    if kind == extract.PDF:
        return _pdf_pages(material, path)
    if kind in extract.OFFICE_EXTENSIONS.values():
        pages = _office_pages(material, path, kind)
    else:
        data = path.read_bytes()
        text = extract.decode_text(data, filename=material.original_filename)
        if len(text) > settings.BAEUM["MAX_EXTRACTED_CHARS"]:
            raise extract.ExtractionError("too_much_text", f"“{material.original_filename}” is too long; split it into smaller files.")
        pages = extract.split_text_pages(text, markdown=material.extension in extract.MARKDOWN_EXTENSIONS)
    _update(material, progress_done=len(pages), progress_total=len(pages), page_count=len(pages))
    return pages, set()


def _pdf_pages(material: Material, path: Path) -> tuple[list[extract.ExtractedPage], set[int]]:
    page_count, metadata_title, labels, outline = extract.probe_pdf_details(path, filename=material.original_filename, budget=_budget())
    _update(material, progress_done=0, progress_total=page_count, page_count=page_count, outline=outline)
    pages = extract.extract_pdf_pages(
        path,
        filename=material.original_filename,
        page_count=page_count,
        workers=settings.BAEUM["EXTRACT_WORKERS"],
        budget=_budget(),
        on_page=lambda done: _update(material, progress_done=done) if done % 10 == 0 or done == page_count else None,
        scanned_ok=True,
    )
    _title_from_metadata(material, metadata_title, pages)
    pages = _labelled(pages, labels) if any(labels) else _numbered_from_text(pages)
    scanned = pages_to_read(pages)
    if not scanned:
        return pages, set()
    recognised = ocr_cached(material, scanned)
    if len(recognised) < len(scanned):
        ocr_check(material, scanned)
        raise OcrNeeded(scanned)
    merged = [
        replace(page, text=recognised[page.number], notes=(), code=(), sizes=())
        if len(recognised.get(page.number, "")) > len(page.text)
        else page
        for page in pages
    ]
    if not any(page.text.strip() for page in merged):
        raise extract.ExtractionError(
            "ocr_failed",
            f"Text recognition found no text in “{material.original_filename}”. Check that the scan is readable (300 dpi or more) and upload it again.",
        )
    return merged, {number for number in scanned if recognised.get(number, "").strip()}


def _labelled(pages: list[extract.ExtractedPage], labels: list[str]) -> list[extract.ExtractedPage]:
    """Each page with the number the book prints on it, where that differs from its position (p. 7 is the 17th page)."""
    if len(labels) < len(pages):
        return pages
    return [replace(page, label=labels[page.number - 1] if labels[page.number - 1] != str(page.number) else "") for page in pages]


def _numbered_from_text(pages: list[extract.ExtractedPage]) -> list[extract.ExtractedPage]:
    """A PDF without page labels whose pages print their numbers ("- 39 -" on the 51st page): those numbers
    as the pages' labels (``baeum.extraction.lines.printed_page_numbers``)."""
    printed = printed_page_numbers([normalize_text(page.text).split("\n") for page in pages])
    return [
        replace(page, label=printed[index]) if printed.get(index, str(page.number)) != str(page.number) else page
        for index, page in enumerate(pages)
    ]


TITLE_PAGES = 3  # a document's title is on its first pages (a cover, a title page, a paper's first page)


def _title_from_metadata(material: Material, metadata_title: str, pages: list[extract.ExtractedPage]) -> None:
    """Title a material named after its file ("pcasm-book-korean") by its metadata ("PC 어셈블리 언어") when the
    opening pages show that title; a title the learner gave is kept."""
    if material.title != Path(material.original_filename).stem[:300]:
        return
    title = extract.meaningful_title(metadata_title, "\n".join(page.text for page in pages[:TITLE_PAGES]))
    if title:
        _update(material, title=title[:300])


def _office_pages(material: Material, path: Path, kind: str) -> list[extract.ExtractedPage]:
    from baeum.extraction import office

    try:
        return office.read_office(
            path,
            kind=kind,
            filename=material.original_filename,
            budget=office.OfficeBudget(max_pages=settings.BAEUM["MAX_PAGES"], max_chars=settings.BAEUM["MAX_EXTRACTED_CHARS"]),
        )
    except office.ReaderUnavailable as error:
        raise extract.ExtractionError(
            "reader_unavailable", f"“{material.original_filename}” could not be read on this server ({error}). Ask an administrator."
        ) from error


def material_ingest(*, material_id: int, upgrade: bool = True) -> Material | None:
    """Run the whole pipeline for one material; return it, or None if another run holds it.

    With ``upgrade``, a READY material is queued for the quality embedder (``BAEUM_QUALITY_EMBEDDER``).
    """
    with _material_lock(material_id) as acquired:
        if not acquired:
            logger.info("material %s is being ingested by another run", material_id)
            return None
        # System task: the id comes from the owner's own upload; the row is re-fetched here.
        material = Material.objects.unscoped().filter(pk=material_id).first()
        if material is None or material.status == Status.READY:
            return material
        _update(
            material,
            status=Status.EXTRACTING,
            progress_done=0,
            progress_total=0,
            error_code="",
            error_message="",
            attempts=material.attempts + 1,
        )
        try:
            try:
                pages, ocr_pages = _extract_pages(material)
            except OcrNeeded as needed:
                _ocr_start(material, needed.page_numbers)
                return material
            extract.check_cap(material.original_filename)  # every stage of a capped run (the quick queue) checks
            _update(material, status=Status.CHUNKING, progress_done=0, progress_total=len(pages))
            config = settings.BAEUM
            markdown = material.extension in extract.HASH_HEADING_EXTENSIONS
            matter = page_matter([page.text for page in pages], markdown=markdown)
            # The PDF's own outline, where it has one, starts a chunk at each chapter and titles the sections.
            outline = outline_entries(material.outline, len(pages))
            page_texts = [
                PageText(page.number, page.text, page.notes, page.code, headings)
                for page, headings in zip(pages, page_headings(pages, chapters=not outline), strict=True)
            ]
            chunks = chunk_pages(
                page_texts,
                target_tokens=config["CHUNK_TOKENS"],
                overlap=config["CHUNK_OVERLAP"],
                markdown=markdown,
                breaks=matter_breaks(matter, len(pages)) | chapter_pages(outline),
                blank_lines_end_paragraphs=material.extension != ".pdf",
            )
            chunks = apply_outline(chunks, outline)
            if not chunks:
                raise extract.ExtractionError(
                    "no_text", f"“{material.original_filename}” contains no readable text. Check the file and upload it again."
                )
            extract.check_cap(material.original_filename, chunks=len(chunks))
            embedder = active_embedder()
            _update(material, status=Status.EMBEDDING, progress_done=0, progress_total=len(chunks), pending_embedding_model="")

            def embedded(done: int) -> None:
                _update(material, progress_done=done)
                extract.check_cap(material.original_filename)  # the vectors made so far are cached: nothing is lost

            vectors = embeddings_compute(
                texts=[chunk.content for chunk in chunks], embedder=embedder, owner_id=material.owner_id, on_progress=embedded
            )
            _store(material, pages, chunks, vectors, embedder, ocr_pages=ocr_pages, matter=matter)
            if upgrade:
                material_upgrade_start(material=material)
            vector_indexes_sync_later(owner_id=material.owner_id)
        except extract.ExtractionError as error:
            material_fail(material=material, code=error.code, message=error.message)
        except EmbeddingError as error:
            if error.transient:
                raise  # the task retries with backoff, then fails the material
            material_fail(
                material=material,
                code="embedding_failed",
                message=f"Embedding failed: {error}. Ask an administrator to check the embedding settings.",
            )
        return material


def _ocr_start(material: Material, page_numbers: list[int]) -> None:
    """Stop at the OCR stage and queue the background reading of the scanned pages."""
    from ..tasks import ocr_material  # tasks import services

    done = len(ocr_cached(material, page_numbers))
    _update(material, status=Status.OCR, ocr_pages=page_numbers, progress_done=done, progress_total=len(page_numbers))
    transaction.on_commit(lambda: ocr_material.delay(material.pk))


def _chunk_matter(chunk, matter: dict[int, str]) -> str:
    kinds = {matter.get(number, "") for number in range(chunk.page_start, chunk.page_end + 1)}
    return kinds.pop() if len(kinds) == 1 else ""


@transaction.atomic
def _store(material, pages, chunks, vectors, embedder, *, ocr_pages: set[int], matter: dict[int, str]) -> None:
    MaterialPage.objects.unscoped().filter(material=material).delete()
    Chunk.objects.unscoped().filter(material=material).delete()  # cascades to their embeddings
    MaterialPage.objects.bulk_create(
        [
            MaterialPage(
                material=material,
                owner_id=material.owner_id,
                number=page.number,
                text=normalize_text(page.full_text, indented={" ".join(line.split()) for line in page.code}),
                ocr=page.number in ocr_pages,
                label=page.label,
                matter=matter.get(page.number, ""),
            )
            for page in pages
        ],
        batch_size=500,
    )
    rows = Chunk.objects.bulk_create(
        [
            Chunk(
                material=material,
                owner_id=material.owner_id,
                chunk_index=chunk.index,
                page_number=chunk.page_start,
                page_end=chunk.page_end,
                type=material.type,
                content=chunk.content,
                token_count=chunk.token_count,
                overlap_chars=chunk.overlap_chars,
                section_title=chunk.section_title[:300],
                section_level=chunk.section_level,
                page_starts=[list(start) for start in chunk.page_starts],
                note_spans=[list(span) for span in chunk.note_spans],
                code_spans=[list(span) for span in chunk.code_spans],
                heading_spans=[list(span) for span in chunk.heading_spans],
                matter=_chunk_matter(chunk, matter),
                content_hash=content_hash(chunk.content),
            )
            for chunk in chunks
        ],
        batch_size=500,
    )
    chunk_terms_write(chunks=rows)
    vocabulary_write_later(material_id=material.pk)
    chunk_embeddings_store(material=material, chunks=rows, vectors=vectors, embedder=embedder)
    _update(
        material,
        status=Status.READY,
        page_count=len(pages),
        chunk_count=len(rows),
        korean=written_in_korean([row.content for row in rows]),
        progress_done=len(rows),
        progress_total=len(rows),
        embedding_model=embedder.model,
        embedding_dimension=embedder.dimension,
        extractor=EXTRACTOR,
        ready_at=timezone.now(),
    )
    material_ready.send(sender=Material, material=material)


def material_ingest_in_process(*, material_id: int, upgrade: bool = True) -> Material | None:
    """Run the whole pipeline here, the OCR stage of a scan included (the command line without a worker,
    and tests): what the ``celery`` and ``background`` workers do in turn."""
    from .ocr import material_ocr

    material = material_ingest(material_id=material_id, upgrade=upgrade)
    if material is not None and material.status == Status.OCR:
        material_ocr(material_id=material_id, time_budget=None)
        Material.objects.unscoped().filter(pk=material_id, status=Status.OCR).update(status=Status.PENDING)  # system task
        material = material_ingest(material_id=material_id, upgrade=upgrade)
    return material
