"""OCR of scanned pages (baeum.extraction.ocr): accuracy on generated Korean and English scans, real scans, limits.

Each OCR'd page costs seconds, so the suite reads few: one Korean page, one English page, one short page
next to one that runs out of CPU time, and the first page of each shared real scan.
"""

import re
import stat
from pathlib import Path

import pytest

from baeum.extraction import ocr
from baeum.extraction import readers as extract
from baeum.extraction.readers import ExtractedPage
from tests import ocrgen
from tests.pdfgen import make_pdf

# Readers run in child processes (PDFium, Tesseract, LibreOffice): not in the fast lane (make test-fast).
pytestmark = pytest.mark.children

SCANNED_SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "scanned"
TARGET_CER = 0.10  # the target for a clean 300 dpi scan
WORD_OF_LETTERS = re.compile(r"[A-Za-z]+(?:['’-][A-Za-z]+)*")
EDGE_PUNCTUATION = "\"'“”‘’.,;:!?()[]*"

needs_tesseract = pytest.mark.skipif(not ocr.ocr_available(), reason="Tesseract with kor and eng is not installed (tesseract-ocr-kor)")
needs_font = pytest.mark.skipif(ocrgen.find_cjk_font() is None, reason="no Noto CJK font to draw fixtures: install fonts-noto-cjk")


def _write(tmp_path, data: bytes, name: str = "scan.pdf") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# --- Pure parts ------------------------------------------------------------------------------


def test_character_error_rate_counts_edits_per_reference_character_ignoring_whitespace():
    assert ocr.character_error_rate("가나다 라", "가나 다라") == 0.0
    assert ocr.character_error_rate("abcd", "abXd") == 0.25
    assert ocr.character_error_rate("abcd", "ab") == 0.5
    assert ocr.character_error_rate("", "") == 0.0
    assert ocr.character_error_rate("", "x") == 1.0


def test_pages_without_text_picks_empty_and_nearly_empty_pages():
    pages = [
        ExtractedPage(1, "A real page of text. " * 5),
        ExtractedPage(2, ""),
        ExtractedPage(3, "  12 \n"),
        ExtractedPage(4, "Scanned with CamScanner"),
        ExtractedPage(5, "짧지만 충분히 긴 한국어 본문 한 줄이 여기에 있고 조금 더 이어집니다."),
    ]
    assert ocr.pages_without_text(pages) == [2, 3, 4]


def _word(text, left, confidence, *, top=100, width=80):
    return ocr.Word(text, left, top, left + width, top + 40, confidence)


def test_hangul_misread_as_latin_takes_the_korean_reading_and_real_english_stays():
    mixed = ocr.Reading(
        "물은 Be 끓는다. CPU GHz\n",
        (_word("물은", 0, 95), _word("Be", 100, 70), _word("끓는다.", 200, 90), _word("CPU", 300, 93), _word("GHz", 400, 92)),
    )
    korean = ocr.Reading(
        "",
        (_word("물은", 0, 95), _word("섭씨", 100, 90), _word("끓는다.", 200, 93), _word("62ㅁ", 300, 40), _word("아", 400, 49)),
    )
    assert ocr.correct_hangul_misreads(mixed, korean) == "물은 섭씨 끓는다. CPU GHz\n"
    assert ocr.needs_korean_reading(mixed)
    assert not ocr.needs_korean_reading(ocr.Reading("An English page with one stray 기 from a drawing.", ()))


def test_ocr_text_is_cleaned_of_page_breaks_and_space_runs():
    assert ocr.clean_ocr_text("gp           E went along  \n\n\n\nthe path\n\f") == "gp E went along\n\nthe path"


def test_stray_hangul_read_into_an_english_page_is_dropped_and_a_korean_page_keeps_its_own():
    # huckfinn_c02-22_scanned.pdf read with kor+eng: specks became "이" and "ㆍ" (a learner's walkthrough).
    english = "We went tiptoeing along a path amongst the trees back towards the end of the widow's garden. " * 3
    assert (
        ocr.clean_ocr_text(f"{english}\n이 7 the kitchen door, 800 ㆍ stood there")
        == f"{english.rstrip()}\n7 the kitchen door, 800 stood there"
    )
    korean = "레지스터는 CPU 안의 아주 빠른 저장 공간이다. 이 값은 곧 바뀐다. " * 6
    assert ocr.clean_ocr_text(korean) == korean.rstrip()


def test_tesseract_tsv_words_keep_their_boxes_and_confidence():
    tsv = (
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
        "4\t1\t1\t1\t1\t0\t10\t20\t300\t40\t-1\t\n"
        "5\t1\t1\t1\t1\t1\t10\t20\t120\t40\t91.5\t레지스터는\n"
    )
    assert ocr.parse_tsv(tsv) == (ocr.Word("레지스터는", 10, 20, 130, 60, 91.5),)


def test_huge_pages_are_drawn_at_a_lower_resolution():
    from baeum.extraction.ocrworker import render_dpi

    assert render_dpi(595, 842, dpi=300, max_pixels=36_000_000) == 300  # A4
    assert render_dpi(72 * 100, 72 * 100, dpi=300, max_pixels=36_000_000) == 60  # a 100-inch poster


def test_page_images_go_to_a_directory_only_this_user_can_enter():
    with ocr._private_directory() as directory:
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700
    assert not directory.exists()


# --- Errors before any OCR -------------------------------------------------------------------


def test_missing_tesseract_is_a_clear_error_naming_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(ocr, "TESSERACT", "baeum-no-such-tesseract")
    assert not ocr.ocr_available()
    with pytest.raises(extract.ExtractionError) as caught:
        ocr.ocr_pdf_pages(_write(tmp_path, make_pdf([""])), [1], filename="lecture-scan.pdf")
    assert caught.value.code == "ocr_unavailable"
    assert "lecture-scan.pdf" in caught.value.message
    assert "ocrmypdf" in caught.value.message


@needs_tesseract
def test_every_page_failing_is_a_clear_error(tmp_path):
    with pytest.raises(extract.ExtractionError) as caught:
        ocr.ocr_pdf_pages(_write(tmp_path, make_pdf([""])), [4, 5], filename="short.pdf")
    assert caught.value.code == "ocr_failed"
    assert "short.pdf" in caught.value.message


# --- Real OCR --------------------------------------------------------------------------------


@pytest.mark.slow
@needs_tesseract
@needs_font
def test_generated_korean_scan_reads_within_target(tmp_path):
    data, references = ocrgen.scanned_pdf(ocrgen.KOREAN_PAGES[1:2], scan_like=True)
    pages = ocr.ocr_pdf_pages(_write(tmp_path, data), [1], filename="korean-scan.pdf")
    assert pages.failed == {}
    assert ocr.character_error_rate(references[0], pages[0].text) <= TARGET_CER
    assert "기압이 낮기 때문에" in pages[0].text  # Korean word spacing survives


@pytest.mark.slow
@needs_tesseract
@needs_font
def test_only_the_scanned_page_of_a_mixed_pdf_is_read(tmp_path):
    scanned, references = ocrgen.scanned_pdf(ocrgen.ENGLISH_PAGES[:1])
    text_page = "Chapter 1. Variables\nThis page was typeset, so it has a text layer.\nThe next page is a scan."
    path = _write(tmp_path, ocrgen.join_pdfs(make_pdf([text_page]), scanned))
    layer = extract.extract_pdf_pages(path, filename="mixed.pdf", page_count=extract.probe_pdf(path, filename="mixed.pdf"))
    assert ocr.pages_without_text(layer) == [2]

    progress = []
    pages = ocr.ocr_pdf_pages(path, ocr.pages_without_text(layer), filename="mixed.pdf", on_page=lambda *call: progress.append(call))
    assert [page.number for page in pages] == [2]
    assert progress == [(1, 1)]
    assert ocr.character_error_rate(references[0], pages[0].text) <= TARGET_CER


@pytest.mark.slow
@needs_tesseract
@needs_font
def test_a_page_over_its_time_limit_loses_only_itself(tmp_path):
    short, _ = ocrgen.render_page("A short page. Two lines of English.")
    dense, _ = ocrgen.render_page(" ".join(ocrgen.ENGLISH_PAGES) * 3, points=6, line_spacing=1.2)  # ~70 lines: >2 s
    progress = []
    pages = ocr.ocr_pdf_pages(
        _write(tmp_path, ocrgen.images_to_pdf([dense, short])),
        [1, 2],
        filename="slow.pdf",
        on_page=lambda *call: progress.append(call),
        budget=ocr.OcrBudget(cpu_seconds_per_page=2),
    )
    assert pages.failed == {1: "too_slow"}
    assert [(page.number, page.text) for page in pages] == [(1, ""), (2, "A short page. Two lines of English.")]
    assert progress == [(1, 2), (2, 2)]


def _word_like_share(text: str) -> tuple[int, float]:
    """Return how many tokens there are and the share that are words of letters ("widow’s", "tip-toeing")."""
    tokens = [token.strip(EDGE_PUNCTUATION) for token in text.split()]
    tokens = [token for token in tokens if token]
    words = [token for token in tokens if WORD_OF_LETTERS.fullmatch(token)]
    return len(tokens), len(words) / len(tokens)


@pytest.mark.slow
@needs_tesseract
@pytest.mark.parametrize(
    ("name", "phrase"),
    [("huckfinn_c02-22_scanned.pdf", "tip-toeing along a path"), ("wikipedia_ocr_article_scanned.pdf", "Optical character recognition")],
)
def test_real_scans_read_as_english_words(name, phrase):
    path = SCANNED_SAMPLES / name
    if not path.exists():
        pytest.skip(f"{path} is not here (shared samples live beside the project)")
    pages = ocr.ocr_pdf_pages(path, [1], filename=name)
    count, share = _word_like_share(pages[0].text)
    assert count >= 150
    assert share >= 0.80
    assert phrase in pages[0].text
