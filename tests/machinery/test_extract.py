import zlib

import pytest

from baeum.extraction import readers as extract
from baeum.language.text import normalize_text, run_together_stats
from tests.pdfgen import encrypt_pdf, make_pdf

# Readers run in child processes (PDFium, Tesseract, LibreOffice): not in the fast lane (make test-fast).
pytestmark = pytest.mark.children

KOREAN_PAGES = [
    "어셈블리 언어는 프로그래머가 데이터의 개개의 비트를 바꿀 수 있게 해준다.\n가장 흔한 비트 연산은 바로 쉬프트 연산이다.",
    "레지스터는 프로세서 안에 있는 작은 저장 공간이다.\n메모리와 레지스터 사이의 데이터 이동은 MOV 명령으로 한다.",
]


def _extract(tmp_path, data: bytes, **options) -> list[extract.ExtractedPage]:
    path = tmp_path / "doc.pdf"
    path.write_bytes(data)
    return extract.extract_pdf_pages(path, filename="doc.pdf", page_count=extract.probe_pdf(path, filename="doc.pdf"), **options)


def _flate_bomb(mebibytes: int) -> bytes:
    """A content stream that inflates to ``mebibytes`` MiB of zeros (about 4.5 KiB per MiB compressed)."""
    compressor = zlib.compressobj(1)
    chunk = b"0" * (1 << 20)
    return b"".join(compressor.compress(chunk) for _ in range(mebibytes)) + compressor.flush()


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
        ("slides.key", b"PK\x03\x04", "unsupported_type"),
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
        (make_pdf([]), "no_pages"),
    ],
    ids=["encrypted", "truncated", "header-only", "no-pages"],
)
def test_unreadable_pdfs_fail_with_a_reason(tmp_path, data, code):
    path = tmp_path / "bad.pdf"
    path.write_bytes(data)
    with pytest.raises(extract.ExtractionError) as caught:
        extract.probe_pdf(path, filename="bad.pdf")
    assert caught.value.code == code
    assert "bad.pdf" in caught.value.message
    assert "PDFium" not in caught.value.message and "Data format" not in caught.value.message  # the reader's words stay in the log


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


def test_korean_word_spacing_survives_extraction(tmp_path):
    """Words set apart by pen moves, not space glyphs (as TeX sets Korean), keep their spaces; pypdf glued them."""
    pages = _extract(tmp_path, make_pdf(KOREAN_PAGES, word_gaps=True))
    assert normalize_text(pages[0].text) == KOREAN_PAGES[0]
    assert normalize_text(pages[1].text) == KOREAN_PAGES[1]
    assert run_together_stats("\n".join(page.text for page in pages))["hangul_share_in_long_runs"] == 0.0


def test_ligatures_and_line_end_hyphens_come_out_as_plain_words(tmp_path):
    pages = _extract(tmp_path, make_pdf(["The ﬁrst deﬁnition of a ﬂag is an exam-\nple of hyphenation in this book."], word_gaps=True))
    text = normalize_text(pages[0].text)
    assert "The first definition of a flag is an example of hyphenation" in text
    assert "\r" not in text and "\ufffe" not in text


def test_pdf_with_an_empty_user_password_opens(tmp_path):
    pages = _extract(tmp_path, encrypt_pdf(make_pdf(["Readable by anyone, changeable by the owner."]), user_password=""))
    assert "Readable by anyone" in pages[0].text


def test_a_page_that_kills_its_reader_loses_only_itself(tmp_path):
    """PDFium aborts the child when a page needs more memory than allowed; a new child reads on after it."""
    texts = [f"Page {number} has enough words to count as a text layer." for number in range(1, 21)]
    bomb = _flate_bomb(256)
    small_memory = extract.Budget(memory_bytes=192 * 1024 * 1024)
    pages = _extract(tmp_path, make_pdf(texts, raw_contents={4: bomb, 15: bomb}), budget=small_memory)
    assert [page.number for page in pages] == list(range(1, 21))
    assert pages[4].text == "" and pages[15].text == ""
    assert all(f"Page {page.number} has" in page.text for page in pages if page.number not in (5, 16))


def test_a_file_whose_every_page_kills_its_reader_fails_as_too_complex(tmp_path):
    bomb = _flate_bomb(256)
    data = make_pdf(["some text"] * 6, raw_contents=dict.fromkeys(range(6), bomb))
    with pytest.raises(extract.ExtractionError) as caught:
        _extract(tmp_path, data, budget=extract.Budget(memory_bytes=192 * 1024 * 1024))
    assert caught.value.code == "too_complex"


@pytest.mark.parametrize(
    ("metadata", "opening", "title"),
    [
        ("PC 어셈블리 언어", "PC 어셈블리\n언어\nPaul A. Carter", "PC 어셈블리 언어"),  # shown on the title page
        ("한국정보과학회 학술대회 논문작성양식", "KorQuAD 2.0: 웹문서 기계독해를 위한 한국어 질의응답 데이터셋", ""),  # a template's
        ("Microsoft Word - draft3.docx", "Registers and the stack", ""),
        ("", "anything", ""),
        ("1", "Chapter 1", ""),
        ("Version 0.97.1", "오픈소스 라이선스 해설\nVersion 0.97.1", ""),  # a revision the title page also prints
        (
            "Kiwipiepy 문서",
            "Kiwipiepy\nKiwipiepy는 한국어 형태소 분석기인 Kiwi의 Python 모듈입니다.",
            "Kiwipiepy 문서",
        ),  # what it calls itself
        ("Expat Reference Manual", "Expat XML Parser\nThe Expat API", "Expat Reference Manual"),
        ("Libexpat Manual", "Expat XML Parser", ""),  # "Libexpat" is not shown as a word
        ("User Guide", "User Guide\nChapter 1", "User Guide"),
        ("Guide", "Installation", ""),
    ],
)
def test_a_metadata_title_counts_only_when_the_opening_pages_show_it(metadata, opening, title):
    assert extract.meaningful_title(metadata, opening) == title


def test_a_plain_text_ruler_is_a_paragraph_break_not_text():
    """The Vim tutor draws "~~~~" and "====" lines between lessons; a walkthrough's answer opened with one and
    the viewer highlighted it."""
    from baeum.extraction.readers import split_text_pages

    text = "Lesson 1\nMove the cursor with h, j, k and l.\n" + "~" * 78 + "\nLesson 2\nPress x to delete.\n= = = = =\nEnd ~ here."
    [page] = split_text_pages(text)
    assert "~~~~" not in page.full_text and "= = =" not in page.full_text
    assert "Move the cursor with h, j, k and l.\n\n" in page.full_text and "End ~ here." in page.full_text


def test_a_manual_page_saved_from_a_terminal_reads_as_its_words():
    """man-db's manual ships as grotty output: bold and underline as escape sequences or overstrikes."""
    from baeum.extraction.readers import decode_text

    saved = "\x1b[1mman\x1b[22m(1) shows \x1b[4mpages\x1b[24m.\nm\bma\ban\bn and _\bx_\by.\n한글은 그대로.\n"
    assert decode_text(saved.encode(), filename="man-db-manual.txt") == "man(1) shows pages.\nman and xy.\n한글은 그대로.\n"


def test_markdown_is_read_as_it_renders_and_its_fenced_code_is_code():
    """A blind reader of key points from Node's ESM documentation found "> " blockquote marks and "_packageURL_"
    in them: Markdown's syntax is not text."""
    from baeum.extraction.readers import split_text_pages

    text = (
        "# Modules\n\n> Stability: 2 - Stable\n\nThe **module** system uses `import` and _export_; see [the spec](https://tc39.es).\n"
        "A name like my_var_name stays, and 2 * 3 * 4 is arithmetic.\n\n```js\nconst x = *glob*;\n```\n<!-- hidden -->\n"
        "[spec]: https://example.com\n"
    )
    [page] = split_text_pages(text, markdown=True)
    assert "Stability: 2 - Stable" in page.text and ">" not in page.text
    assert "The module system uses import and export; see the spec." in page.text
    assert "my_var_name" in page.text and "2 * 3 * 4" in page.text
    assert page.code == ("const x = *glob*;",)  # a code line as written, and known as code
    assert "hidden" not in page.text and "example.com" not in page.text and "```" not in page.text
    [plain] = split_text_pages("> quoted **as typed**", markdown=False)
    assert plain.text == "> quoted **as typed**"  # a .txt file is not Markdown


def test_markdown_bullets_read_as_bullets_and_its_escapes_as_the_marks_they_escape():
    """The walkthrough's Node page showed "* Returns: {Function\\[]}": a bullet is "•", an escaped bracket a bracket."""
    from baeum.extraction.readers import split_text_pages

    [page] = split_text_pages("* Returns: {Function\\[]}\n  - nested *item*\n\n```\n* a glob in code\n```\n", markdown=True)
    assert page.text.startswith("• Returns: {Function[]}\n  • nested item")
    assert "* a glob in code" in page.text  # code as written


def test_markdown_inline_code_is_read_as_written():
    """The walkthrough's readline page: "rl[Symbol.asyncIterator]()" read "rlSymbol.asyncIterator" (a link with no
    address), "cursorTo(stream, x[, y][, callback])" lost its optional arguments (a reference link)."""
    from baeum.extraction.readers import split_text_pages

    [page] = split_text_pages(
        "### `rl[Symbol.asyncIterator]()`\n\n* `readline.cursorTo(stream, x[, y][, callback])` moves the cursor; see [the docs](x).\n",
        markdown=True,
    )
    assert "rl[Symbol.asyncIterator]()" in page.text
    assert "• readline.cursorTo(stream, x[, y][, callback]) moves the cursor; see the docs." in page.text
    [linked] = split_text_pages("A Readable stream (such as [`process.stdin`][]); see [`fs.ReadStream`](fs.md#x).\n", markdown=True)
    assert "A Readable stream (such as process.stdin); see fs.ReadStream." in linked.text  # a link around code: its code


def test_markdown_marks_that_span_lines_are_read_as_they_render():
    """The walkthrough's Node child_process page: "… arbitrary command execution.**" and "See caveat at [maxBuffer
    and Unicode][]." reached answers and key points; bold over two lines and a link whose text holds code."""
    from baeum.extraction.readers import split_text_pages

    text = (
        "**Never pass unsanitized user input to this function. Any input containing shell\n"
        "metacharacters may be used to trigger arbitrary command execution.**\n\n"
        "  * `maxBuffer` {number} Largest amount of data. See caveat at [`maxBuffer` and Unicode][].\n"
        "    **Default:** `1024 * 1024`. Based on the [serialization API of the node:v8\nmodule][v8.serdes].\n"
    )
    [page] = split_text_pages(text, markdown=True)
    assert page.text.startswith("Never pass unsanitized user input to this function. Any input containing shell\n")
    assert "arbitrary command execution.\n" in page.text
    assert "See caveat at maxBuffer and Unicode." in page.text and "Default: 1024 * 1024." in page.text
    assert "serialization API of the node:v8\nmodule." in page.text
    assert "*" not in page.text.replace("1024 * 1024", "") and "[" not in page.text


def test_troff_font_changes_in_korean_text_and_words_hyphenated_over_a_line_are_text():
    """The Korean fuser and killall pages: "fI이름/fI영역" and "kil‐ lall" were quoted in answers."""
    from baeum.extraction.readers import decode_text
    from baeum.language.text import normalize_text

    saved = "햇갈리지만 않는다면 fI이름/fI영역 표기를, -fI시그널로 바꾸지 않으면 fB파일을.\n"
    assert decode_text(saved.encode(), filename="fuser-ko.txt") == "햇갈리지만 않는다면 이름/영역 표기를, -시그널로 바꾸지 않으면 파일을.\n"
    assert decode_text(b"fIfoo and fBar stay", filename="a.txt") == "fIfoo and fBar stay"  # Latin: maybe a name
    assert normalize_text("함께 지정하면 kil\u2010\n       lall은 -v 옵션과") == "함께 지정하면 killall은 -v 옵션과"


def test_an_html_table_in_markdown_is_rows_of_cells_never_a_sentence():
    """Node's readline key bindings: "Ctrl+6 Redo previous change Many terminals don't have a default redo keystroke."
    was a key point, and "_____+6 Redo previous change …" its question."""
    from baeum.extraction.readers import split_text_pages

    text = (
        "Key bindings:\n\n<table>\n  <tr>\n    <th>Keystrokes</th>\n    <th>Action</th>\n  </tr>\n  <tr>\n"
        "    <td><kbd>Ctrl</kbd>+<kbd>6</kbd></td>\n    <td>Redo previous change</td>\n"
        "    <td>Many terminals don't have a default redo keystroke.\n    In <code>xterm</code>, it is bound to Ctrl+6.</td>\n"
        "  </tr>\n</table>\n\nThe rest of the page.\n"
    )
    [page] = split_text_pages(text, markdown=True)
    row = "Ctrl+6 | Redo previous change | Many terminals don't have a default redo keystroke. In xterm, it is bound to Ctrl+6."
    assert row in page.text.split("\n") and "Keystrokes | Action" in page.text
    assert row in page.code and "<td>" not in page.text  # a row is code: never quoted, never a key point
    from baeum.extraction.chunking import PageText, chunk_pages

    # Found a table by its columns, it stays code in the passage (it had lost its code spans there).
    (chunk,) = chunk_pages([PageText(1, page.text, (), page.code)], markdown=True, blank_lines_end_paragraphs=True)
    start = chunk.content.index(row)
    assert any(first <= start < last for first, last in chunk.code_spans), (chunk.content, chunk.code_spans)
    assert not any(first <= chunk.content.index("The rest") < last for first, last in chunk.code_spans)


def test_a_plain_text_title_at_the_margin_over_an_indented_body_is_a_paragraph_of_its_own():
    """The Korean xz manual as text: answers opened "설명 xz는 …" and "명령 별칭 unxz 명령은 …", the section's title run
    into its first sentence. A lead-in ending in a colon stays with what follows."""
    from baeum.extraction.readers import split_text_pages

    [page] = split_text_pages("설명\n       xz는 범용 데이터 압축 도구입니다.\nThe options are:\n   -k  keep the input\n")
    assert "설명\n\n       xz는 범용 데이터 압축 도구입니다." in page.text
    assert "The options are:\n   -k  keep the input" in page.text
    from baeum.extraction.chunking import PageText, chunk_pages

    (chunk,) = chunk_pages([PageText(1, page.text)], blank_lines_end_paragraphs=True)
    assert "설명 xz는" not in chunk.content and "xz는 범용 데이터 압축 도구입니다." in chunk.content


def test_a_manuals_subsection_titles_and_bullets_are_read_as_titles_and_bullets():
    """Walkthrough 19, the Korean chsh and login pages: "VALID SHELLS chsh 명령에서는 …" and "Origins 터미날과 …" were
    key points (a subsection's title set three spaces in, over a body set seven), "o @localhost 문자열은 …" an
    objective (a manual's "o" bullet)."""
    from baeum.extraction.readers import split_text_pages

    text = (
        "NAME\n       chsh - 사용자 로그인 쉘을 바꾼다.\n\n   VALID SHELLS\n       chsh 명령에서는 절대 경로를 지정하는 어떠한 "
        "실행파일도 지정이 가능하다.\n\n       o      @localhost 문자열은 로칼 호스트에서 접속하는 것을 말한다.\n\n"
        "       -s, --shell\n              지정하는 쉘을 앞으로 사용할 로그인 쉘로 바꾼다.\n"
    )
    [page] = split_text_pages(text)
    paragraphs = [" ".join(paragraph.split()) for paragraph in page.text.split("\n\n") if paragraph.strip()]
    assert "VALID SHELLS" in paragraphs and "NAME" in paragraphs
    assert "chsh 명령에서는 절대 경로를 지정하는 어떠한 실행파일도 지정이 가능하다." in paragraphs
    assert "• @localhost 문자열은 로칼 호스트에서 접속하는 것을 말한다." in paragraphs
    assert "-s, --shell 지정하는 쉘을 앞으로 사용할 로그인 쉘로 바꾼다." in paragraphs  # an option stays with its words
