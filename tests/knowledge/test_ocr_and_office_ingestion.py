"""Scanned PDFs and Office files through the real pipeline: OCR on the background stage with progress,
resumable; slides and documents with their headings; hostile Office files fail alone."""

import io
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Chunk, Material, MaterialPage
from knowledge.services.ingest import material_ingest
from knowledge.services.materials import material_create
from knowledge.services.ocr import material_ocr
from knowledge.tasks import ocr_material

pytestmark = pytest.mark.django_db

KOREAN_LINES = [
    "레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다.",
    "스택은 마지막에 넣은 값을 먼저 꺼내는 구조이다.",
    "인터럽트는 프로그램의 흐름을 잠시 멈춘다.",
]
ENGLISH_LINES = [
    "A register is a very fast storage location inside the CPU.",
    "The stack is a last in first out structure.",
    "An interrupt stops the normal flow of a program.",
]


def _create(owner, name: str, data: bytes) -> Material:
    return material_create(owner=owner, upload=SimpleUploadedFile(name, data), enqueue=False)


@pytest.mark.slow
def test_a_scanned_pdf_is_read_by_ocr_in_the_background_and_becomes_searchable(user, other_user, django_capture_on_commit_callbacks):
    from knowledge.selectors import chunk_search
    from tests.ocrgen import scanned_pdf

    data, _ = scanned_pdf([" ".join(ENGLISH_LINES), " ".join(KOREAN_LINES)])
    material = _create(user, "scan.pdf", data)

    with django_capture_on_commit_callbacks(execute=False) as queued:
        material_ingest(material_id=material.pk)
    material.refresh_from_db()
    assert material.status == Material.Status.OCR  # stopped at the OCR stage, work queued for the background
    assert material.ocr_pages == [1, 2] and (material.progress_done, material.progress_total) == (0, 2)
    assert len(queued) == 1

    _, finished = material_ocr(material_id=material.pk, time_budget=0)
    material.refresh_from_db()
    assert not finished and material.progress_done == 1  # one page per slice when the budget is spent: resumable

    with django_capture_on_commit_callbacks(execute=True):
        ocr_material.apply(args=[material.pk], throw=True)
    material.refresh_from_db()
    assert material.status == Material.Status.READY, material.error_message
    pages = list(MaterialPage.objects.for_user(user).filter(material=material).order_by("number"))
    assert [page.ocr for page in pages] == [True, True]
    assert "register" in pages[0].text.lower() and "레지스터" in pages[1].text
    hits = chunk_search(user=user, query="스택은 어떤 구조인가?", ref_ids=[material.ref_id], k=1)
    position = hits[0].chunk.content.find("스택")
    assert position >= 0 and hits[0].chunk.pages_between(position, position + 2)[0] == 2  # cited on the scanned page it is on
    assert chunk_search(user=other_user, query="register", k=3) == []


def test_ocr_refuses_more_scanned_pages_than_the_limit_with_a_reason(user, settings):
    from tests.ocrgen import scanned_pdf

    settings.BAEUM = {**settings.BAEUM, "MAX_OCR_PAGES": 1}
    material = _create(user, "long-scan.pdf", scanned_pdf([" ".join(ENGLISH_LINES), " ".join(ENGLISH_LINES)])[0])

    material_ingest(material_id=material.pk)

    material.refresh_from_db()
    assert material.status == Material.Status.FAILED and material.error_code == "too_many_scanned_pages"
    assert "long-scan.pdf" in material.error_message and "ocrmypdf" in material.error_message


def test_slides_and_documents_are_ingested_with_their_headings(user):
    from docx import Document
    from pptx import Presentation

    deck = Presentation()
    for title, body in [
        ("Registers", "A register is a very fast storage location inside the CPU."),
        ("The Stack", "The stack grows down in memory."),
    ]:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
        slide.notes_slide.notes_text_frame.text = f"Speaker notes about {title.lower()}."
    buffer = io.BytesIO()
    deck.save(buffer)
    slides = _create(user, "lecture.pptx", buffer.getvalue())
    material_ingest(material_id=slides.pk)
    slides.refresh_from_db()
    assert slides.status == Material.Status.READY, slides.error_message
    assert slides.page_count == 2
    chunks = list(Chunk.objects.for_user(user).filter(material=slides).order_by("chunk_index"))
    assert {chunk.section_title for chunk in chunks} >= {"Registers", "The Stack"}
    assert any("Speaker notes about the stack" in chunk.content for chunk in chunks)

    document = Document()
    document.add_heading("제1장 레지스터", level=1)
    document.add_paragraph("레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다.")
    buffer = io.BytesIO()
    document.save(buffer)
    notes = _create(user, "notes.docx", buffer.getvalue())
    material_ingest(material_id=notes.pk)
    notes.refresh_from_db()
    assert notes.status == Material.Status.READY, notes.error_message
    assert Chunk.objects.for_user(user).filter(material=notes, section_title="제1장 레지스터").exists()


def test_a_hostile_office_file_fails_with_a_reason_and_touches_nothing_else(user, ingest, english_pdf):
    good = ingest(user, english_pdf, "good.pdf")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("word/document.xml", b"\0" * (40 * 1024 * 1024))  # a zip bomb: 40 MB of zeros in ~40 KB
    bomb = _create(user, "bomb.docx", buffer.getvalue())

    material_ingest(material_id=bomb.pk)

    bomb.refresh_from_db()
    good.refresh_from_db()
    assert bomb.status == Material.Status.FAILED and bomb.error_code == "too_complex", bomb.error_message
    assert "bomb.docx" in bomb.error_message
    assert good.status == Material.Status.READY
    assert bomb.file.storage.exists(bomb.file.name)  # the original is kept
