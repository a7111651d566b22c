import pytest

from baeum import extract
from tests.pdfgen import encrypt_pdf, make_pdf


def test_sniff_kind_reads_content_not_names():
    assert extract.sniff_kind(b"%PDF-1.7 ...") == "pdf"
    assert extract.sniff_kind("한국어 텍스트".encode()) == "text"
    assert extract.sniff_kind(b"\x89PNG\r\n\x1a\n\x00\x00") == "binary"
    assert extract.sniff_kind(b"  \n ") == "empty"


@pytest.mark.parametrize(
    ("name", "head", "code"),
    [
        ("notes.pdf", b"just some text", "content_mismatch"),
        ("notes.txt", b"%PDF-1.4 binary", "content_mismatch"),
        ("photo.md", b"\x89PNG\x00\x00", "content_mismatch"),
        ("notes.pdf", b"", "empty_file"),
        ("slides.pptx", b"PK\x03\x04", "unsupported_type"),
    ],
)
def test_check_kind_names_the_problem(name, head, code):
    with pytest.raises(extract.ExtractionError) as caught:
        extract.check_kind(filename=name, head=head)
    assert caught.value.code == code
    assert name in caught.value.message


def test_pdf_pages_are_extracted_in_order_with_one_based_numbers(tmp_path):
    path = tmp_path / "book.pdf"
    path.write_bytes(make_pdf([f"Page {number} text about topic {number}." for number in range(1, 21)]))
    count = extract.probe_pdf(path, filename="book.pdf")
    seen = []
    pages = extract.extract_pdf_pages(path, filename="book.pdf", page_count=count, workers=2, on_page=seen.append)
    assert [page.number for page in pages] == list(range(1, 21))
    assert "Page 7 text" in pages[6].text
    assert seen[-1] == 20


@pytest.mark.parametrize(
    ("data", "code"),
    [
        (encrypt_pdf(make_pdf(["secret text here"]), user_password="hunter2"), "encrypted"),
        (make_pdf(["Some text that is long enough."])[:300], "malformed"),
        (b"%PDF-1.7\n", "malformed"),
    ],
)
def test_unreadable_pdfs_fail_with_a_reason(tmp_path, data, code):
    path = tmp_path / "bad.pdf"
    path.write_bytes(data)
    with pytest.raises(extract.ExtractionError) as caught:
        extract.probe_pdf(path, filename="bad.pdf")
    assert caught.value.code == code
    assert "bad.pdf" in caught.value.message


def test_scanned_pdf_is_recognised_and_the_message_says_what_to_do(tmp_path):
    path = tmp_path / "scan.pdf"
    path.write_bytes(make_pdf([], blank_pages=3))
    with pytest.raises(extract.ExtractionError) as caught:
        extract.extract_pdf_pages(path, filename="scan.pdf", page_count=extract.probe_pdf(path, filename="scan.pdf"))
    assert caught.value.code == "no_text_layer"
    assert "OCR" in caught.value.message


def test_page_limit_is_enforced(tmp_path):
    path = tmp_path / "long.pdf"
    path.write_bytes(make_pdf(["x"] * 5))
    with pytest.raises(extract.ExtractionError) as caught:
        extract.extract_pdf_pages(path, filename="long.pdf", page_count=5, budget=extract.Budget(max_pages=3))
    assert caught.value.code == "too_many_pages"


def test_text_files_become_virtual_pages():
    pages = extract.split_text_pages("\n\n".join(["paragraph " * 50] * 30), page_chars=2000)
    assert len(pages) > 3
    assert [page.number for page in pages] == list(range(1, len(pages) + 1))
