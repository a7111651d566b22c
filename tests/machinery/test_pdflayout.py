"""Side notes and sub- and superscripts read from the page's geometry (``baeum.extraction.pdflayout``)."""

import zlib

import pytest

from baeum.extraction import readers as extract
from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.pdflayout import Box, margin_notes, remove_spans, script_runs
from baeum.extraction.tables import footnote_paragraphs, split_footnotes
from baeum.language.text import normalize_text
from tests.pdfgen import _escape_hex, make_pdf

BODY = [
    "Different processors store multibyte integers in different orders,",
    "and there are two popular methods of storing integers: big endian",
    "and little endian. Big endian is the method that seems the most",
    "natural. The biggest byte is stored first, then the next biggest.",
]


def _shown(x: float, y: float, text: str, size: float = 11, rise: float = 0, font: str = "F1") -> str:
    return f"BT /{font} {size} Tf {rise} Ts {x} {y} Td <{_escape_hex(text)}> Tj ET"


def _page_with_a_side_note_and_scripts() -> bytes:
    """pcasm-book-english p.34 in small: a margin note drawn between the lines it sits beside, and a hex
    number with its base as a subscript and a power as a superscript (11 pt text, 7 pt scripts)."""
    lines = [_shown(150, 700 - 14 * index, line) for index, line in enumerate(BODY)]
    note = [_shown(20, 686, "Endian is pronounced", 7), _shown(20, 678, "like indian.", 7)]
    numbers = [
        _shown(150, 600, "The number 12345678"),
        _shown(275.4, 600, "16", 7, -3),
        _shown(284, 600, " is 2 x 10"),
        _shown(350, 600, "2", 7, 4),
        _shown(354.2, 600, " bytes long in memory here."),
    ]
    stream = "\n".join([*lines[:2], *note, *lines[2:], *numbers])
    return make_pdf(["placeholder"], raw_contents={0: zlib.compress(stream.encode())})


@pytest.mark.children
def test_a_margin_note_leaves_the_sentence_it_sat_in_and_scripts_are_kept(tmp_path):
    path = tmp_path / "endian.pdf"
    path.write_bytes(_page_with_a_side_note_and_scripts())
    (page,) = extract.extract_pdf_pages(path, filename="endian.pdf", page_count=extract.probe_pdf(path, filename="endian.pdf"))
    text = normalize_text(page.text)
    assert "Endian" not in text and "indian" not in text
    assert "two popular methods of storing integers: big endian\nand little endian." in text
    assert page.notes == ("Endian is pronounced like indian.",)
    assert "12345678₁₆" in text and "10²" in text
    # The stored page (what the viewer shows and quotes are checked on) holds the note too.
    assert normalize_text(page.full_text).endswith("Endian is pronounced like indian.")

    (chunk,) = chunk_pages([PageText(1, page.text, page.notes)], target_tokens=400)
    start, end = chunk.note_spans[-1]
    assert chunk.content[start:end] == "Endian is pronounced like indian."
    assert "methods of storing integers" in chunk.content[:start]


@pytest.mark.children
def test_lines_set_in_a_typewriter_font_stay_code_apart_from_the_prose(tmp_path):
    """thinkpython2 p.40 in small: two lines of code, then the prose that explains them. Read as text alone,
    the code opened the first sentence ('print("I sleep all night …") def is a keyword …')."""
    stream = "\n".join(
        [
            _shown(56, 700, "def print_lyrics():", font="F2"),
            _shown(76, 686, 'print("I sleep all night and I work all day.")', font="F2"),
            _shown(56, 666, "def is a keyword that indicates that this is a function definition. The name"),
            _shown(56, 652, "of the function is print_lyrics, and its body is indented by four spaces."),
        ]
    )
    path = tmp_path / "code.pdf"
    path.write_bytes(make_pdf(["placeholder"], raw_contents={0: zlib.compress(stream.encode())}))
    (page,) = extract.extract_pdf_pages(path, filename="code.pdf", page_count=extract.probe_pdf(path, filename="code.pdf"))
    assert page.code == ("def print_lyrics():", 'print("I sleep all night and I work all day.")')

    (chunk,) = chunk_pages([PageText(1, page.text, page.notes, page.code)], target_tokens=400)
    assert chunk.content.startswith('def print_lyrics():\nprint("I sleep all night and I work all day.")\n\ndef is a keyword')
    (start, end), *_ = chunk.code_spans
    assert chunk.content[start:end] == 'def print_lyrics():\nprint("I sleep all night and I work all day.")'


def _boxes(*rows: tuple[float, float, str]) -> list[tuple[Box, str]]:
    return [(Box(left, 700 - 12 * index, right, 708 - 12 * index), text) for index, (left, right, text) in enumerate(rows)]


def test_only_prose_outside_the_text_column_is_a_side_note():
    full = (150, 510, "a full line of the body text that runs across the column")
    listing = (124, 530, "48 00000000 456E7465722061206E- prompt1 db")
    note = _boxes(full, full, (30, 140, "Endian is pronounced like"), (30, 60, "indian."), full, listing, full)
    assert margin_notes(note) == [[2, 3]]
    # A listing set left of the column is no margin; neither is a column of mnemonics, a contents column or a page number.
    for beside in (
        "JL JLE JMP JNA JNAE JNB",
        "3.2.1 AND 연산 3.2.2 OR 연산 3.2.3 XOR 연산",
        "vii",
        "header: body: parameter: function call:",
    ):
        assert margin_notes(_boxes(full, full, (30, 140, beside), full, listing, full)) == []
    # Two columns: the right column's lines lie wholly beside the left one's, and nothing is a margin.
    left, right = (50, 290, "a line of the left column of a paper"), (305, 545, "a line of the right column of it")
    assert margin_notes(_boxes(left, right, left, right, left, right, (50, 120, "a short last line here."), right)) == []


def test_the_letters_of_a_justified_line_are_no_side_note():
    """Walkthrough 22: a Korean page printed from HTML, justified. PDFium returned the right half of each line as
    a box per letter ("석", "결", "생", …), right of where the full lines' left halves end; read as a note, the
    letters were cut out of their sentences ("분석 결 / 과들이" read "분과들이") and shown as one scrambled note."""
    rows = []
    for index in range(6):
        top = 708 - 14 * index
        rows.append((Box(50, top - 10, 316, top), "연속적인 문자열을 처리하는 모델의 경우, 특정 지점에서 "))
        rows += [(Box(322 + 10 * letter, top - 10, 330 + 10 * letter, top), "석") for letter in range(20)]
    listing = [(Box(50, 600 - 12 * index, 120, 608 - 12 * index), "Token(form='.')") for index in range(30)]
    assert margin_notes(rows + listing) == []
    # A note beside a line stands apart from it, more than the letters of one line do.
    note = [(Box(530, 698 - 14 * index, 600, 708 - 14 * index), "Endian is pronounced like indian.") for index in range(2)]
    body = [(Box(50, 698 - 14 * index, 516, 708 - 14 * index), "a full line of the body text that runs across") for index in range(6)]
    assert margin_notes(body + note) == [[6, 7]]


def test_script_runs_need_a_smaller_size_and_a_moved_baseline():
    text = "10 2 and H2O and SMALL caps"
    sizes = [11.0] * len(text)
    power, water, small = text.index("2 and"), text.index("2O"), text.index("SMALL")
    for index in (power, water, *range(small, small + 5)):
        sizes[index] = 7.0
    heights = {power: 604.0, water: 597.0}

    forms = script_runs(text, sizes, lambda index: heights.get(index, 600.0))
    assert forms == {power: "²", water: "₂"}  # "SMALL" is smaller but on the line: small capitals, not a script


def test_remove_spans_closes_the_gap_and_drops_emptied_lines():
    text = "methods of\r\nEndian is storing integers\r\nindian.\r\nand the rest"
    first, second = text.index("Endian is "), text.index("indian.")
    removed = {*range(first, first + len("Endian is ")), *range(second, second + len("indian."))}
    assert remove_spans(text, removed) == "methods of\r\nstoring integers\r\nand the rest"


def test_raised_footnote_numbers_still_make_footnotes():
    lines = [
        "This is GNU¹⁰-based text and a compiler.¹¹",
        "more text",
        "x",
        "¹⁰GNU is a project of the FSF.",
        "¹¹http://www.delorie.com/djgpp",
    ]
    body, notes = split_footnotes(lines)
    assert body == lines[:3]
    assert footnote_paragraphs(notes) == ["¹⁰ GNU is a project of the FSF.", "¹¹ http://www.delorie.com/djgpp"]


def test_a_line_set_larger_than_the_body_is_a_heading_with_its_level_and_a_book_of_code_keeps_its_prose():
    from baeum.extraction.pdflayout import body_size, line_sizes, sized_headings

    text = "Validations\nValidations listed on the build line cause the specified files\nto be added to the top level."
    sizes = [24.0] * len("Validations") + [16.0] + [16.0] * (len(text) - len("Validations") - 1)
    letters, lines = line_sizes(text, sizes)
    assert lines == {"Validations": 24.0}  # only the line set apart from most of the page's letters
    assert sized_headings(lines, body_size([letters])) == {"Validations": 2}
    # Chapter from 1.8 times the body, section from 1.3, else a level 3 heading; never a sentence, a number or a mark.
    found = sized_headings(
        {"Writing your own Ninja files": 32.0, "depfile": 18.7, "That is all.": 24.0, "12": 24.0, "§": 24.0, "note": 16.5}, 16.0
    )
    assert found == {"Writing your own Ninja files": 1, "depfile": 3}
    # Code set smaller than the prose on most pages (Rust by Example): the prose is body text, not a heading.
    assert body_size([{12.0: 900, 14.7: 700, 24.0: 30}, {12.0: 500, 14.7: 600}]) == 14.7
    assert sized_headings({"Rust는 정적 타이핑을 통해": 14.7, "RAII": 24.0}, 14.7) == {"RAII": 2}
    assert sized_headings({"RAII": 24.0}, 1.0) == {}  # PDFium's 1.0 where a text matrix scales the font: no size read


@pytest.mark.children
def test_an_unnumbered_heading_set_large_opens_its_section_instead_of_gluing_to_its_first_sentence(tmp_path):
    """The Ninja manual printed from HTML: "Validations" (24 pt over a 16 pt body, no number) had been read into
    its section's first sentence, "Validations Validations listed on the build line cause …"."""
    from baeum.extraction.pdflayout import body_size, sized_headings

    stream = "\n".join(
        [
            _shown(56, 760, "Ninja file reference", 32),
            _shown(56, 720, "Build dependencies", 24),
            _shown(56, 696, "Explicit dependencies are listed after the rule name and are rebuilt when they change.", 16),
            _shown(56, 660, "Validations", 24),
            _shown(56, 636, "Validations listed on the build line cause the specified files to be added to the top", 16),
            _shown(56, 616, "level of the build graph when the build statement is a transitive dependency.", 16),
        ]
    )
    path = tmp_path / "ninja.pdf"
    path.write_bytes(make_pdf(["placeholder"], raw_contents={0: zlib.compress(stream.encode())}))
    (page,) = extract.extract_pdf_pages(path, filename="ninja.pdf", page_count=extract.probe_pdf(path, filename="ninja.pdf"))
    headings = tuple(sized_headings(dict(page.sizes), body_size([dict(page.letters)])).items())
    assert headings == (("Ninja file reference", 1), ("Build dependencies", 2), ("Validations", 2))

    (chunk,) = chunk_pages([PageText(1, page.text, page.notes, page.code, headings)], target_tokens=400)
    assert [chunk.content[start:end] for start, end, _ in chunk.heading_spans] == [
        "Ninja file reference",
        "Build dependencies",
        "Validations",
    ]
    assert "\n\nValidations listed on the build line" in chunk.content
    (plain,) = chunk_pages([PageText(1, page.text, page.notes, page.code)], target_tokens=400)
    assert "Validations Validations listed" in plain.content  # what the text alone gave


def test_a_heading_set_large_over_two_lines_is_one_heading():
    page = PageText(
        1,
        "KorQuAD 2.0: Korean QA Dataset for Web Document Machine\nComprehension\nAbstract\nWe present a dataset.",
        headings=(("KorQuAD 2.0: Korean QA Dataset for Web Document Machine", 2), ("Comprehension", 2)),
    )
    (chunk,) = chunk_pages([page], target_tokens=300)
    assert chunk.content.startswith("KorQuAD 2.0: Korean QA Dataset for Web Document Machine Comprehension\n\n")


def test_sized_headings_are_read_only_where_the_text_numbers_almost_none_of_its_headings():
    """The competitive programmer's handbook numbers its sections ("2.3 Sorting") and sets run-in subsections
    ("Implementation") large: read as headings they cut its sections into passages too small for follow-ups."""
    from types import SimpleNamespace

    from knowledge.services.ingest import NUMBERED_HEADINGS, page_headings

    def page(text: str):
        return SimpleNamespace(text=text, letters=((16.0, 400), (24.0, 20)), sizes=(("Implementation", 24.0),))

    unnumbered = [page("Implementation\nThe algorithm keeps two pointers.")] * 3
    assert page_headings(unnumbered, chapters=True) == [(("Implementation", 2),)] * 3
    numbered = [page(f"{n}.1 Sorting\nImplementation\nThe algorithm keeps two pointers.") for n in range(1, NUMBERED_HEADINGS + 1)]
    assert page_headings(numbered, chapters=True) == [()] * NUMBERED_HEADINGS
