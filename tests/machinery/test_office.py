"""Slides (.pptx), Word (.docx) and Hancom (.hwpx) files become pages; hostile or wrong ones fail with a reason.

Every fixture is written here, in memory (python-docx and python-pptx write real files; HWPX is assembled as
a zip of OWPML parts), so no binary file is committed.
"""

import io
import random
import time
import zipfile

import docx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from docx.shared import Pt
from pptx import Presentation
from pptx.util import Inches

from baeum.extraction import office, office_archive
from baeum.extraction.lines import heading_level
from baeum.extraction.readers import ExtractionError

# Readers run in child processes (PDFium, Tesseract, LibreOffice): not in the fast lane (make test-fast).
pytestmark = pytest.mark.children

KOREAN_SENTENCE = "레지스터는 프로세서 안에 있는 작은 저장 공간이다."

# --- Fixtures --------------------------------------------------------------------------------


def _pptx_bytes(presentation) -> bytes:
    out = io.BytesIO()
    presentation.save(out)
    return out.getvalue()


def _deck() -> bytes:
    """Three slides: a title slide, bullets with two text boxes side by side, and a table; each with notes."""
    presentation = Presentation()
    title_slide = presentation.slides.add_slide(presentation.slide_layouts[0])
    title_slide.shapes.title.text = "레지스터와 메모리"
    title_slide.placeholders[1].text = "컴퓨터 구조 1주차"
    title_slide.notes_slide.notes_text_frame.text = "Introduce the course."

    bullets = presentation.slides.add_slide(presentation.slide_layouts[1])
    bullets.shapes.title.text = "Registers"
    body = bullets.placeholders[1].text_frame
    body.text = "General-purpose registers"
    for text in ("EAX holds results", "ESP points to the stack"):
        paragraph = body.add_paragraph()
        paragraph.text, paragraph.level = text, 1
    bullets.shapes.add_textbox(Inches(5), Inches(6), Inches(3), Inches(1)).text_frame.text = "Right box"
    bullets.shapes.add_textbox(Inches(1), Inches(6.1), Inches(3), Inches(1)).text_frame.text = "Left box"
    bullets.notes_slide.notes_text_frame.text = "Mention that EAX is the accumulator."

    table_slide = presentation.slides.add_slide(presentation.slide_layouts[5])
    table_slide.shapes.title.text = "Instructions"
    table = table_slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for row, cells in enumerate([("Instruction", "Meaning"), ("MOV", "copy a value"), ("ADD", "add two values")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    table_slide.notes_slide.notes_text_frame.text = "Ask what MOV does."
    return _pptx_bytes(presentation)


def _docx_bytes(document) -> bytes:
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _document() -> bytes:
    """Headings, Korean text, a nested list, a table, a page break, and a Korean-named heading style."""
    document = docx.Document()
    document.add_heading("제1장 레지스터", level=1)
    document.add_paragraph(KOREAN_SENTENCE)
    document.add_heading("1.1 범용 레지스터", level=2)
    document.add_paragraph("EAX는 누산기이다", style="List Bullet")
    document.add_paragraph("AX는 하위 16비트이다", style="List Bullet 2")
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("레지스터", "용도"), ("EAX", "누산기"), ("ESP", "스택 포인터")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    document.add_paragraph("표 다음 문단이다.")
    document.add_page_break()
    korean_heading = document.styles.add_style("제목 1", WD_STYLE_TYPE.PARAGRAPH)
    korean_heading.font.size = Pt(16)
    document.add_paragraph("제2장 메모리", style=korean_heading)
    document.add_paragraph("메모리는 바이트 단위로 주소가 매겨진다.")
    return _docx_bytes(document)


OWPML = (
    'xmlns:hp="http://www.hancom.co.kr/hwpml/2011/paragraph" xmlns:hs="http://www.hancom.co.kr/hwpml/2011/section" '
    'xmlns:hh="http://www.hancom.co.kr/hwpml/2011/head"'
)
HWPX_HEADER = (
    f'<?xml version="1.0" encoding="UTF-8"?><hh:head {OWPML} version="1.4"><hh:refList><hh:paraProperties>'
    '<hh:paraPr id="0"><hh:heading type="NONE" idRef="0" level="0"/></hh:paraPr>'
    '<hh:paraPr id="1"><hh:heading type="OUTLINE" idRef="0" level="0"/></hh:paraPr>'
    '<hh:paraPr id="2"><hh:heading type="BULLET" idRef="1" level="0"/></hh:paraPr>'
    "</hh:paraProperties></hh:refList></hh:head>"
)
CONTENT_HPF = (
    '<?xml version="1.0" encoding="UTF-8"?><opf:package xmlns:opf="http://www.idpf.org/2007/opf/" version="" unique-identifier="">'
    '<opf:manifest><opf:item id="header" href="Contents/header.xml" media-type="application/xml"/>'
    '<opf:item id="section0" href="Contents/section0.xml" media-type="application/xml"/>'
    '<opf:item id="section1" href="Contents/section1.xml" media-type="application/xml"/></opf:manifest>'
    '<opf:spine><opf:itemref idref="header" linear="yes"/><opf:itemref idref="section0" linear="yes"/>'
    '<opf:itemref idref="section1" linear="yes"/></opf:spine></opf:package>'
)


def _hwpx_paragraph(inner: str, *, shape: str = "0", page_break: bool = False) -> str:
    return f'<hp:p id="0" paraPrIDRef="{shape}" styleIDRef="0" pageBreak="{int(page_break)}" columnBreak="0" merged="0">{inner}</hp:p>'


def _run(text: str) -> str:
    return f'<hp:run charPrIDRef="0"><hp:t>{text}</hp:t></hp:run>'


def _hwpx_cell(text: str) -> str:
    return f"<hp:tc><hp:subList>{_hwpx_paragraph(_run(text))}</hp:subList></hp:tc>"


def _section(*paragraphs: str) -> str:
    return f'<?xml version="1.0" encoding="UTF-8"?><hs:sec {OWPML}>{"".join(paragraphs)}</hs:sec>'


def _hwpx(sections: list[str] | None = None, *, extra: dict[str, str] | None = None) -> bytes:
    """A minimal HWPX: the stored mimetype first, content.hpf, header.xml and the sections, as Hangul writes them."""
    if sections is None:
        table = (
            '<hp:run charPrIDRef="0"><hp:tbl rowCnt="2" colCnt="2">'
            f"<hp:tr>{_hwpx_cell('명령')}{_hwpx_cell('뜻')}</hp:tr><hp:tr>{_hwpx_cell('MOV')}{_hwpx_cell('복사')}</hp:tr>"
            "</hp:tbl></hp:run>"
        )
        sections = [
            _section(
                _hwpx_paragraph(_run("제1장 레지스터"), shape="1"),
                _hwpx_paragraph('<hp:run charPrIDRef="0"><hp:t>레지스터는 프로세서 안에 있는<hp:tab/>작은 저장 공간이다.</hp:t></hp:run>'),
                _hwpx_paragraph(_run("EAX는 누산기이다"), shape="2"),
                _hwpx_paragraph(table),
            ),
            _section(
                _hwpx_paragraph(_run("제2장 메모리"), shape="1", page_break=True), _hwpx_paragraph(_run("메모리는 바이트의 배열이다."))
            ),
        ]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("mimetype", "application/hwp+zip", compress_type=zipfile.ZIP_STORED)
        archive.writestr("Contents/content.hpf", CONTENT_HPF)
        archive.writestr("Contents/header.xml", HWPX_HEADER)
        for number, section in enumerate(sections):
            archive.writestr(f"Contents/section{number}.xml", section)
        for name, text in (extra or {}).items():
            archive.writestr(name, text)
    return out.getvalue()


def _rezip(data: bytes, **replacements: bytes) -> bytes:
    """Copy a zip, replacing or adding parts (keyword names use "__" for "/" and "_dot_" for ".")."""
    parts = {name.replace("__", "/").replace("_dot_", "."): content for name, content in replacements.items()}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            target.writestr(entry.filename, parts.pop(entry.filename, None) or source.read(entry))
        for name, content in parts.items():
            target.writestr(name, content)
    return out.getvalue()


def _read(tmp_path, data: bytes, filename: str):
    path = tmp_path / filename
    path.write_bytes(data)
    reader = {".pptx": office.read_pptx, ".docx": office.read_docx, ".hwpx": office.read_hwpx}[path.suffix]
    return reader(path, filename=filename)


def _refused(tmp_path, data: bytes, filename: str) -> ExtractionError:
    with pytest.raises(ExtractionError) as caught:
        _read(tmp_path, data, filename)
    assert filename in caught.value.message
    return caught.value


# --- Reading ---------------------------------------------------------------------------------


def test_a_deck_gives_one_page_per_slide_with_title_body_table_and_notes(tmp_path):
    pages = _read(tmp_path, _deck(), "lecture.pptx")
    assert [page.number for page in pages] == [1, 2, 3]
    first, second, third = (page.text.split("\n") for page in pages)
    assert first[0] == "# 레지스터와 메모리" and heading_level(first[0], markdown=True) == 1
    assert "컴퓨터 구조 1주차" in first and first[-2:] == ["Notes:", "Introduce the course."]
    assert second[0] == "# Registers"
    assert "- General-purpose registers" in second and "  - EAX holds results" in second and "  - ESP points to the stack" in second
    assert second.index("  - ESP points to the stack") < second.index("Left box") < second.index("Right box")  # reading order
    assert second[-2:] == ["Notes:", "Mention that EAX is the accumulator."]
    assert third[0] == "# Instructions"
    assert third.index("Instruction | Meaning") < third.index("MOV | copy a value") < third.index("ADD | add two values")
    assert third.index("ADD | add two values") < third.index("Notes:")


def test_a_document_keeps_headings_lists_tables_and_page_breaks_in_order(tmp_path):
    pages = _read(tmp_path, _document(), "chapter.docx")
    assert [page.number for page in pages] == [1, 2]
    first = pages[0].text.split("\n")
    assert first[0] == "# 제1장 레지스터" and heading_level(first[0], markdown=True) == 1
    assert KOREAN_SENTENCE in first  # Korean word spacing intact
    assert "## 1.1 범용 레지스터" in first and heading_level("## 1.1 범용 레지스터", markdown=True) == 2
    assert first.index("- EAX는 누산기이다") < first.index("  - AX는 하위 16비트이다")
    assert (
        first.index("  - AX는 하위 16비트이다")
        < first.index("레지스터 | 용도")
        < first.index("EAX | 누산기")
        < first.index("표 다음 문단이다.")
    )
    second = pages[1].text.split("\n")
    assert second[0] == "# 제2장 메모리"  # the Korean style name "제목 1" is a level-1 heading
    assert "메모리는 바이트 단위로 주소가 매겨진다." in second


def test_a_long_document_is_cut_into_virtual_pages_at_paragraph_boundaries(tmp_path):
    document = docx.Document()
    paragraphs = [f"{number}번 문단: {KOREAN_SENTENCE} " * 3 for number in range(200)]
    for text in paragraphs:
        document.add_paragraph(text)
    pages = _read(tmp_path, _docx_bytes(document), "long.docx")
    assert len(pages) > 5 and [page.number for page in pages] == list(range(1, len(pages) + 1))
    assert all(len(page.text) <= 4500 for page in pages)
    assert [text.strip() for page in pages for text in page.text.split("\n\n")] == [text.strip() for text in paragraphs]


WORD_XML = (
    'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
    'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
)


def test_text_boxes_are_read_once_and_content_controls_are_looked_through(tmp_path):
    """A text box is written twice (the DrawingML Choice and a VML Fallback); only the Choice is read."""
    box = "<w:txbxContent><w:p><w:r><w:t>Box text</w:t></w:r></w:p></w:txbxContent>"
    body = (
        "<w:p><w:r><w:t>Before the box.</w:t></w:r><w:r><mc:AlternateContent>"
        f'<mc:Choice Requires="wps"><w:drawing>{box}</w:drawing></mc:Choice><mc:Fallback><w:pict>{box}</w:pict></mc:Fallback>'
        "</mc:AlternateContent></w:r></w:p>"
        "<w:sdt><w:sdtContent><w:p><w:r><w:t>Inside a content control.</w:t></w:r></w:p></w:sdtContent></w:sdt>"
    )
    xml = f"<w:document {WORD_XML}><w:body>{body}</w:body></w:document>"
    pages = _read(tmp_path, _rezip(_document(), word__document_dot_xml=xml.encode()), "boxes.docx")
    assert pages[0].text.split("\n\n") == ["Before the box.", "Box text", "Inside a content control."]


def test_an_hwpx_document_is_read_in_section_order_with_headings_lists_and_tables(tmp_path):
    pages = _read(tmp_path, _hwpx(), "notes.hwpx")
    assert [page.number for page in pages] == [1, 2]
    first = pages[0].text.split("\n")
    assert first[0] == "# 제1장 레지스터"
    assert "레지스터는 프로세서 안에 있는\t작은 저장 공간이다." in first
    assert "- EAX는 누산기이다" in first
    assert first.index("명령 | 뜻") < first.index("MOV | 복사")
    assert pages[1].text.split("\n") == ["# 제2장 메모리", "", "메모리는 바이트의 배열이다."]


def test_sniff_office_tells_zip_from_ole2():
    assert office.sniff_office(b"PK\x03\x04rest") == "zip"
    assert office.sniff_office(office.OLE2_MAGIC + b"\x00" * 8) == "ole2"
    assert office.sniff_office(b"%PDF-1.7") is None
    assert office.sniff_office(b"") is None


# --- Hostile and wrong files -----------------------------------------------------------------


def _zip_bomb_docx() -> bytes:
    """A real .docx carrying a 32 MiB part of zeros that deflates about 1,000 to 1."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(_document())) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for entry in source.infolist():
            target.writestr(entry.filename, source.read(entry))
        target.writestr("word/media/image9.png", bytes(32 * 1024 * 1024), compresslevel=9)
    return out.getvalue()


def _encrypted_ooxml() -> bytes:
    """What Office writes for a password-protected .docx/.pptx: an OLE2 file holding an "EncryptedPackage" stream."""
    return office.OLE2_MAGIC + bytes(504) + "EncryptedPackage".encode("utf-16-le") + bytes(4096)


def _broken_slide_xml() -> bytes:
    return _rezip(_deck(), ppt__slides__slide1_dot_xml=b'<?xml version="1.0"?><p:sld xmlns:p="urn:x"><p:cSld><p:spTree>')


def _docx_with_external_entity() -> bytes:
    xxe = b'<?xml version="1.0"?><!DOCTYPE w [<!ENTITY secret SYSTEM "file:///etc/hostname">]><w:document>&secret;</w:document>'
    return _rezip(_document(), word__document_dot_xml=xxe)


def _hwpx_with_billion_laughs() -> bytes:
    laughs = '<!DOCTYPE s [<!ENTITY a "lol"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
    return _hwpx([f'<?xml version="1.0"?>{laughs}<hs:sec {OWPML}>{_hwpx_paragraph(_run("&b;"))}</hs:sec>'])


def _encrypted_hwpx() -> bytes:
    manifest = (
        '<odf:manifest xmlns:odf="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
        '<odf:file-entry full-path="Contents/section0.xml" media-type="application/xml" size="100">'
        '<odf:encryption-data checksum-type="sha256-1k" checksum="x"/></odf:file-entry></odf:manifest>'
    )
    return _hwpx(extra={"META-INF/manifest.xml": manifest})


def _blank_deck() -> bytes:
    presentation = Presentation()
    for _ in range(2):
        presentation.slides.add_slide(presentation.slide_layouts[6])
    return _pptx_bytes(presentation)


@pytest.mark.parametrize(
    ("filename", "make", "code", "words"),
    [
        ("bomb.docx", _zip_bomb_docx, "too_complex", "zip bomb"),
        ("locked.docx", _encrypted_ooxml, "encrypted", "password"),
        ("locked.pptx", _encrypted_ooxml, "encrypted", "password"),
        ("old.docx", lambda: office.OLE2_MAGIC + bytes(4096), "content_mismatch", ".doc"),
        ("cut.docx", lambda: _document()[: len(_document()) // 2], "malformed", "damaged"),
        ("broken.pptx", _broken_slide_xml, "malformed", "damaged"),
        ("text.docx", lambda: "그냥 텍스트 파일이다.\n".encode(), "content_mismatch", "Rename it to .txt"),
        ("slides.docx", _deck, "content_mismatch", "Rename it to .pptx"),
        ("chapter.pptx", _document, "content_mismatch", "Rename it to .docx"),
        ("notes.hwpx", _document, "content_mismatch", "Rename it to .docx"),
        ("empty.pptx", lambda: b"", "empty_file", "empty"),
        ("blank.pptx", _blank_deck, "no_text", "no text"),
        ("xxe.docx", _docx_with_external_entity, "malformed", "DTD"),
        ("laughs.hwpx", _hwpx_with_billion_laughs, "malformed", "DTD"),
        ("locked.hwpx", _encrypted_hwpx, "encrypted", "password"),
    ],
    ids=lambda value: value if isinstance(value, str) else "",
)
def test_hostile_or_wrong_files_fail_with_a_reason_naming_the_file(tmp_path, filename, make, code, words):
    started = time.monotonic()
    error = _refused(tmp_path, make(), filename)
    assert error.code == code, error.message
    assert words in error.message
    assert time.monotonic() - started < 30


def test_archive_limits_refuse_before_anything_is_parsed():
    data = _rezip(_document(), word__media__pad_dot_bin=random.Random(7).randbytes(3 * 1024 * 1024))  # incompressible
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        office_archive.check_archive(archive)  # within the default limits
        for limits, words in [
            (office_archive.ArchiveLimits(max_entries=5), "parts"),
            (office_archive.ArchiveLimits(max_uncompressed_bytes=2 * 1024 * 1024), "uncompressed"),
            (office_archive.ArchiveLimits(max_compression_ratio=5, ratio_grace_bytes=1000), "compressed"),
            (office_archive.ArchiveLimits(max_xml_bytes=1024), "XML"),
        ]:
            with pytest.raises(office_archive.Refused) as caught:
                office_archive.check_archive(archive, limits)
            assert caught.value.code == "too_complex" and words in caught.value.detail


def test_xml_parser_stops_at_a_doctype_before_entities_are_declared():
    with pytest.raises(office_archive.Refused):
        office_archive.parse_xml(b'<!DOCTYPE a [<!ENTITY x SYSTEM "file:///etc/passwd">]><a>&x;</a>')
    assert office_archive.parse_xml(b"<a><b>text</b></a>")[0].text == "text"


def _book_sized_docx(paragraphs: int) -> bytes:
    """A .docx whose document.xml holds ``paragraphs`` paragraphs of eight short runs each (~200 bytes of XML)."""
    words = random.Random(11)
    runs = ("".join(f"<w:r><w:t>{words.randrange(1000)} </w:t></w:r>" for _ in range(8)) for _ in range(paragraphs))
    body = "".join(f"<w:p>{run}</w:p>" for run in runs)
    xml = f'<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>'
    return _rezip(_document(), word__document_dot_xml=xml.encode())


def test_a_reader_that_runs_out_of_memory_fails_as_too_complex(tmp_path):
    path = tmp_path / "big.docx"
    path.write_bytes(_book_sized_docx(40_000))
    with pytest.raises(ExtractionError) as caught:
        office.read_docx(path, filename="big.docx", budget=office.OfficeBudget(memory_bytes=100 * 1024 * 1024))
    assert caught.value.code == "too_complex" and "big.docx" in caught.value.message
    assert len(office.read_docx(path, filename="big.docx")) > 100  # the default budget reads it


def test_a_reader_that_cannot_start_is_not_blamed_on_the_file(tmp_path):
    path = tmp_path / "chapter.docx"
    path.write_bytes(_document())
    with pytest.raises(office.ReaderUnavailable):
        office.read_docx(path, filename="chapter.docx", budget=office.OfficeBudget(memory_bytes=24 * 1024 * 1024))
