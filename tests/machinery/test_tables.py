"""Tables kept whole, footnotes out of sentences, the document's own reference markers set apart."""

import re

from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.lines import heading_level
from baeum.extraction.tables import find_tables, split_footnotes, superscript_references, value_cells
from baeum.extraction.tables_report import structure_report
from baeum.language.text import split_sentences

PROSE = (
    "The company describes its business, its markets and the risks it faces in the sections that follow, "
    "and the notes explain how each amount in the statements was measured and reported."
)

CASH_FLOWS = """3M Company and Subsidiaries
Consolidated Statement of Cash Flows
Years ended December 31
(Millions) 2018 2017 2016
Cash Flows from Operating Activities
Net income including noncontrolling interest $ 5,363 $ 4,869 $ 5,058
Adjustments to reconcile net income including noncontrolling interest to net cash
provided by operating activities
Depreciation and amortization 1,488 1,544 1,474
Company pension and postretirement contributions (370) (967) (383)
Stock-based compensation expense 302 324 298
Accounts receivable (305) (245) (313)
Inventories (509) (387) 57
Net cash provided by (used in) operating activities 6,439 6,240 6,662
Cash Flows from Investing Activities
Purchases of property, plant and equipment (PP&E) (1,577) (1,373) (1,420)
Proceeds from sale of businesses, net of cash sold
846 1,065 142
Net cash provided by (used in) investing activities 222 (3,086) (1,403)"""


def _lines(text: str) -> list[str]:
    return text.split("\n")


def _page_of(*parts: str) -> str:
    return "\n".join(parts)


def _long_statement(rows: int) -> str:
    lines = ["Consolidated Statements of Operations", "(In millions, except per share data)", "Year Ended December 31,", "2015 2016 2017"]
    lines += [f"Line item number {index} of the statement {100 + index:,} {200 + index:,} {3000 + index:,}" for index in range(rows)]
    return "\n".join(lines)


def test_a_financial_statement_is_one_table_with_its_title_and_year_row_as_header():
    lines = _lines(_page_of(PROSE, PROSE, "", CASH_FLOWS, PROSE))
    lines = [line for line in lines if line]
    tables = find_tables(lines, typical_width=100)

    assert len(tables) == 1
    table = tables[0]
    assert lines[table.start] == "3M Company and Subsidiaries"
    assert lines[table.start + table.header - 1] == "(Millions) 2018 2017 2016"
    assert lines[table.end - 1].startswith("Net cash provided by (used in) investing activities")
    # A label over two lines and a value line under its label are never cut apart.
    assert lines.index("provided by operating activities") not in table.breaks
    assert lines.index("Proceeds from sale of businesses, net of cash sold") not in table.breaks
    assert lines.index("846 1,065 142") in table.breaks


def test_value_cells_read_amounts_negatives_dashes_and_years_but_not_index_entries_or_code():
    assert value_cells("Goodwill 10,051 10,513") == (2, 1)
    assert value_cells("Net income $ 4,756 $ 4,822 $ 5,260") == (3, 2)
    assert value_cells("Reversal of unused amounts (2) — — (2)") == (4, 4)
    assert value_cells("stack frame, 72, 75")[0] == 1  # an index entry: "72," is not a cell
    assert value_cells(">>> numbers = [42, 123]")[0] == 0


def test_prose_with_numbers_index_pages_and_interpreter_sessions_are_not_tables():
    prose = [
        "Revenue grew 12% to $1,234 million in 2018 from $1,100 million in 2017, driven by 3 new products and",
        "higher prices in 2 regions; operating income rose to $456 million from $400 million in 2017, or 14%.",
        "Cash used in investing activities was $222 million in 2018 and $3,086 million in 2017 and 2016.",
    ]
    index = ["abecedarian, 75, 87", "abs function, 54", "absolute path, 148, 154", "access, 94", "accumulator, 105"]
    session = [">>> t = [1, 2, 3]", ">>> t2 = t[:]", ">>> t2", "[1, 2, 3]", ">>> t.append(4)"]
    for lines in (prose, index, session):
        assert find_tables(lines, typical_width=100) == [], lines


def test_a_table_fits_in_one_chunk_row_by_row_and_no_chunk_ends_inside_it():
    pages = [PageText(1, _page_of(PROSE, PROSE, PROSE)), PageText(2, _page_of(PROSE, CASH_FLOWS, PROSE, PROSE))]

    chunks = chunk_pages(pages, target_tokens=300)

    holding = [chunk for chunk in chunks if "Depreciation and amortization 1,488" in chunk.content]
    assert len(holding) == 1
    content = holding[0].content
    start = content.index("3M Company and Subsidiaries")
    assert content[start:].startswith(CASH_FLOWS)  # whole, one row a line, in order
    assert holding[0].content.count("Consolidated Statement of Cash Flows") == 1


def test_a_table_longer_than_the_budget_is_cut_between_rows_and_each_part_repeats_its_header():
    statement = _long_statement(40)
    pages = [PageText(1, _page_of(PROSE, "", statement, "", PROSE))]

    chunks = chunk_pages(pages, target_tokens=200)

    parts = [chunk for chunk in chunks if "Line item number" in chunk.content]
    assert len(parts) >= 3
    rows = [line for line in statement.split("\n") if line.startswith("Line item")]
    seen: list[str] = []
    for part in parts:
        assert part.token_count <= 200 * 1.1
        table = part.content[part.content.index("Consolidated Statements of Operations") :].split("\n\n")[0]
        lines = table.split("\n")
        assert lines[:4] == statement.split("\n")[:4], "every part opens with the caption and the year row"
        assert all(line in rows for line in lines[4:]), "only whole rows"
        seen += lines[4:]
    assert seen == rows  # every row once, in order
    report = structure_report([pages[0].text], chunks)
    assert report["chunks_ending_mid_row"] == 0 and report["tables"] == 1


def test_rows_of_a_figure_are_never_headings():
    figure = [
        "Byte \\ Bit 7 6 5 4 3 2 1 0",
        "0 Operation Code (08h)",
        "1 Logical Unit # msb of LBA",
        "2 middle of Logical Block Address",
        "3 lsb of Logicial Block Address",
        "4 Transfer Length",
        "5 Control",
        "Figure 7.6: SCSI Read Command Format",
    ]
    assert heading_level("5 Control") == 1  # alone it looks like a chapter
    text = _page_of("7.1.3 Bit Fields", PROSE, *figure, PROSE)

    chunks = chunk_pages([PageText(1, text), PageText(2, PROSE)], target_tokens=300)

    assert {chunk.section_title for chunk in chunks} == {"7.1.3 Bit Fields"}
    assert "\n".join(figure) in chunks[0].content


def test_a_captioned_table_without_numbers_is_kept_whole():
    lines = [
        PROSE,
        "Unit Letter",
        "byte B",
        "word W",
        "double word D",
        "quad word Q",
        "Table 1.3: Letters for RESX and DX Directives",
        PROSE,
    ]
    tables = find_tables(lines, typical_width=100)
    assert [(table.start, table.end) for table in tables] == [(1, 7)]
    korean = [
        "[표 1] 문서 및 질문 개수",
        "학습 검증 평가 합계",
        "문서 38,496 4,736 4,725 47,957",
        "질문 83,486 10,165 9,309 102,960",
        PROSE,
    ]
    tables = find_tables(korean, typical_width=40)
    assert [(table.start, table.end) for table in tables] == [(0, 4)]


ASSEMBLY_PAGE = [
    "The assembly code above is specific to the free GNU10-based DJGPP",
    "C/C++ compiler.11 This compiler can be freely downloaded from the Internet. It requires a 386-based PC or better.",
    "The first step is to assemble the code. From the command line, type:",
    "nasm -f object-format first.asm",
    "10GNU is a project of the Free Software Foundation (http://www.fsf.org)",
    "11http://www.delorie.com/djgpp",
]


def test_footnotes_are_found_by_their_number_and_the_marker_above():
    body, notes = split_footnotes(ASSEMBLY_PAGE)
    assert notes == ASSEMBLY_PAGE[4:]
    korean = ["위에 나온 어셈블리 코드는 오직 무료 GNU10) 의 DJGPP C/C++ 컴파일러 에서만", "돌아간다11) 이 컴파일러는 인터넷을 통해 무료로 다운로드 할 수 있다.",
              "10) 무료 소프트웨어 재단 (Free Software Foundation)", "11) http://www.delorie.com/djgpp"]  # fmt: skip
    assert split_footnotes(korean)[1] == korean[2:]
    alone = [
        "This ensures that the process uses the correct 4-bit segments2",
        ". Example:",
        "2",
        "If it is not clear why, try the example.",
    ]
    assert split_footnotes(alone)[1] == alone[2:]
    # A number at the bottom with no marker above is text, not a footnote ("2의 보수", a code listing's output).
    assert split_footnotes(["2의 보수 표현은 오직 한 가지 방법밖에 없다.", "80x86 은 for 같은 명령을 지원한다.", "2nd Edition"])[1] == []
    assert split_footnotes([">>> 1 + 1", "2", "The last line is a prompt."])[1] == []
    marked = "Convert each 4-bit segment of the number to hex2 and read the digits from the right."
    for bottom in (
        ["2BD16 = 2 × 162 + 11 × 161 + 13 × 160"],
        ["2a", "The expression inside the root"],
        ["2", "3 segment .bss"],
        ["2)) 할 수 있다."],
    ):
        assert split_footnotes([marked, *bottom])[1] == [], bottom  # a formula, a listing's line numbers


def test_footnotes_leave_the_sentence_and_go_to_the_end_of_their_page_marked():
    next_page = "where object-format is either coff, elf, obj or win32 depending on what C compiler will be used."
    pages = [PageText(1, "\n".join(ASSEMBLY_PAGE)), PageText(2, next_page)]

    chunks = chunk_pages(pages, target_tokens=300)

    content = chunks[0].content
    sentences = split_sentences(content)
    assert "From the command line, type: nasm -f object-format first.asm" in sentences
    assert not any("first.asm 10" in sentence or "GNU is a project" in sentence and not sentence.startswith("10") for sentence in sentences)
    notes = [content[start:end] for start, end in chunks[0].note_spans]
    assert notes == ["10 GNU is a project of the Free Software Foundation (http://www.fsf.org)", "11 http://www.delorie.com/djgpp"]
    assert content.index("11 http://") < content.index("where object-format")  # at the end of page 1, before page 2
    squeezed_page = re.sub(r"\s+", "", pages[0].text)
    assert all(re.sub(r"\s+", "", note) in squeezed_page for note in notes)  # still quoted verbatim from the page


def test_the_documents_reference_markers_become_superscripts_but_code_indexes_stay():
    assert superscript_references("질문은 KorQuAD 1.0[1]에서 변환한 데이터를") == "질문은 KorQuAD 1.0⁽¹⁾에서 변환한 데이터를"
    assert superscript_references("BERT multilingual[12] 모델") == "BERT multilingual⁽¹²⁾ 모델"
    assert superscript_references("as shown in [3, 4] and [7-9].") == "as shown in ⁽³˒⁴⁾ and ⁽⁷⁻⁹⁾."
    assert superscript_references("연구[2]에 따르면") == "연구⁽²⁾에 따르면"
    for code in ("The expression t[1] selects the second element.", "numbers[1] = 5", "a[0][2]", "x = [1]"):
        assert superscript_references(code) == code


def test_an_extractive_answer_shows_the_documents_markers_as_superscripts_and_quotes_them_verbatim():
    from baeum.answering.answers import CITATION, Passage
    from baeum.answering.extractive import extractive_answer
    from baeum.answering.groundcheck import ground_check

    sentence = "KorQuAD 2.0 extends KorQuAD 1.0[1] with whole Wikipedia pages, tables and lists as documents."
    passage = Passage(n=2, chunk_id=7, ref_id="r", title="KorQuAD 2.0", chunk_index=0, page_number=3, text=f"{sentence} {PROSE}")

    answer = extractive_answer("What does KorQuAD 2.0 extend?", [passage])

    assert not answer.refused
    assert "KorQuAD 1.0⁽¹⁾ with whole Wikipedia pages" in answer.text
    assert {int(number) for number in CITATION.findall(answer.text)} == {2}  # only the tutor's citation
    assert answer.citations[0].quote == sentence  # the page's own words, found on the page as printed
    assert ground_check(answer.text, [passage])[0]


def test_a_table_at_the_top_of_a_page_opens_no_chapter():
    from baeum.extraction.structure import FRONT, page_matter

    figure = "0 Operation Code\n1 Logical Unit\n2 Middle Address\n3 Low Address\n4 Transfer Length\nFigure 7.6: SCSI Read Command Format"
    texts = [
        "A Book",
        "Copyright 2026",
        "Preface\n" + PROSE,
        f"{figure}\n{PROSE}",
        "Preface, continued\n" + PROSE,
        "Chapter 1\nIntroduction\n" + PROSE,
    ]
    texts += [PROSE] * 24

    matter = page_matter(texts)

    assert [number for number, kind in matter.items() if kind == FRONT] == [1, 2, 3, 4, 5]


def test_the_rows_of_a_slide_or_document_table_stay_together_under_their_header():
    rows = [f"Region {index} | {1000 + index} | {2000 + index}" for index in range(60)]
    page = "\n".join(["# Sales by region", "Table 2: Sales", "Region | 2022 | 2023", *rows, "", "The north grew fastest."])

    chunks = chunk_pages([PageText(1, page)], target_tokens=200, markdown=True)

    parts = [chunk for chunk in chunks if "Region 1 |" in chunk.content or "Region 5" in chunk.content or "Region 59" in chunk.content]
    assert len(parts) >= 2
    for part in chunks:
        lines = part.content.split("\n")
        if any(line.startswith("Region ") for line in lines):
            start = lines.index("Table 2: Sales")
            assert lines[start + 1] == "Region | 2022 | 2023"
            assert all(line in rows for line in lines[start + 2 :] if line and not line.startswith("The north"))


def test_a_section_heading_next_to_a_table_stays_a_heading():
    table = ["Unit Letter", "byte B", "word W", "Table 1.3: Letters"]
    below = ["Table 2.1: Sizes", "byte 1", "word 2", "1.2 Computer Organization", PROSE]
    between = ["Goodwill 10,051 10,513", "Inventories 4,366 4,034", "Total assets 36,500 37,987", "2.3 Liabilities", "Debt 1,000 2,000"]

    for lines, heading in (
        (table + ["1.2 Computer Organization", PROSE], "1.2 Computer Organization"),
        (below, "1.2 Computer Organization"),
        (between, "2.3 Liabilities"),
    ):
        rows = {
            index for table in find_tables(lines, typical_width=80, is_heading=heading_level) for index in range(table.start, table.end)
        }
        assert lines.index(heading) not in rows, lines
