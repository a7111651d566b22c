"""Failure reasons and upload errors, produced by the real readers and services, read in the learner's language."""

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import translation

from baeum.extraction import readers as extract
from knowledge.failure_reasons import REASON_PATTERNS, REASONS_BY_CODE, reason_patterns_translated, reason_translate
from knowledge.services.materials import UploadRejected, material_create
from tests.pdfgen import encrypt_pdf, make_pdf

PLACEHOLDER = re.compile(r"%\((\w+)\)s")
ENGLISH_WORDS = re.compile(r"\b(?:the|Upload|upload|again|it|is|file|Split|Export)\b")


def _refusal(call) -> extract.ExtractionError:
    with pytest.raises(extract.ExtractionError) as caught:
        call()
    return caught.value


def _korean(error, filename: str) -> str:
    with translation.override("ko"):
        korean = reason_translate(message=error.message if hasattr(error, "message") else str(error), code=error.code, filename=filename)
    assert filename in korean
    assert not ENGLISH_WORDS.search(korean.replace(filename, "")), korean  # translated, not the English reason
    return korean


def test_every_reason_and_code_has_korean_with_the_same_values():
    with translation.override("ko"):
        for template in (*REASON_PATTERNS, *REASONS_BY_CODE.values()):
            korean = translation.gettext(template)
            assert korean != template, template
            assert set(PLACEHOLDER.findall(korean)) == set(PLACEHOLDER.findall(template)), template


def test_the_readers_refusals_read_in_korean(tmp_path):
    locked, broken = tmp_path / "locked.pdf", tmp_path / "broken.pdf"
    locked.write_bytes(encrypt_pdf(make_pdf(["Chapter 1 Secret\nLocked text."]), user_password="secret"))
    broken.write_bytes(b"%PDF-1.7\n" + b"garbage" * 50)
    cases = [
        (lambda: extract.check_kind(filename="notes.pdf", head=b""), "notes.pdf", "비어 있습니다"),
        (lambda: extract.check_kind(filename="slides.key", head=b"hello"), "slides.key", "지원하지 않는 형식"),
        (lambda: extract.check_kind(filename="notes.pdf", head=b"plain words"), "notes.pdf", "PDF가 아닌 텍스트"),
        (lambda: extract.check_kind(filename="notes.txt", head=b"%PDF-1.7\n"), "notes.txt", "확장자를 .pdf로"),
        (lambda: extract.decode_text(b"\xff" * 100, filename="notes.txt"), "notes.txt", "UTF-8로 저장해"),
        (lambda: extract.probe_pdf(locked, filename="locked.pdf"), "locked.pdf", "비밀번호로 보호"),
        (lambda: extract.probe_pdf(broken, filename="broken.pdf"), "broken.pdf", "다시 내려받거나 내보낸 뒤"),
    ]
    for call, filename, expected in cases:
        error = _refusal(call)
        assert expected in _korean(error, filename)
        with translation.override("en"):
            assert reason_translate(message=error.message, code=error.code, filename=filename) == error.message  # as written


@pytest.mark.django_db
def test_upload_refusals_read_in_korean(user, settings):
    settings.BAEUM = {**settings.BAEUM, "MAX_UPLOAD_BYTES": 1024}
    with pytest.raises(UploadRejected) as caught:
        material_create(owner=user, upload=SimpleUploadedFile("big notes.txt", b"x" * 4096), enqueue=False)
    korean = _korean(caught.value, "big notes.txt")
    assert "MB" in korean and "나누거나 압축해" in korean
    with pytest.raises(UploadRejected) as caught:
        material_create(owner=user, upload=SimpleUploadedFile("virus.exe", b"MZ"), enqueue=False)
    assert "지원하지 않는 형식" in _korean(caught.value, "virus.exe")


def test_a_reason_no_pattern_matches_falls_back_to_its_code_in_korean_and_stays_as_written_in_english():
    message = "“scan.pdf” is a scan without a text layer, and text recognition (OCR) cannot read kor here. Run OCR on it yourself."
    with translation.override("ko"):
        korean = reason_translate(message=message, code="ocr_unavailable", filename="scan.pdf")
        assert korean.startswith("“scan.pdf”은(는) 텍스트 층이 없는 스캔 파일")
        assert reason_translate(message="Something new went wrong.", code="brand_new_code") == "Something new went wrong."
    with translation.override("en"):
        assert reason_translate(message=message, code="ocr_unavailable", filename="scan.pdf") == message


def test_the_browsers_catalogue_is_empty_in_english_and_full_in_korean():
    with translation.override("en"):
        assert reason_patterns_translated() == []
    with translation.override("ko"):
        catalogue = reason_patterns_translated()
    assert len(catalogue) == len(REASON_PATTERNS)
    assert all("%(name)s" in entry["text"] or "%(name)s" not in entry["pattern"] for entry in catalogue)
