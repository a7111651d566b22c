"""A figure asked for is answered from the table row the question names (rule answer:table-row)."""

from baeum import rules
from baeum.answering.answers import Passage
from baeum.answering.extractive import extractive_answer
from baeum.answering.tablerows import TABLE_ROW, named_row

BALANCE_SHEET = (
    "NIKE, INC.\nCONSOLIDATED BALANCE SHEETS\nMAY 31,\n(Dollars in millions) 2019 2018\nASSETS\nCurrent assets:\n"
    "Cash and equivalents $ 4,466 $ 4,249\nInventories 5,622 5,261\n"
    "Prepaid expenses and other current assets 1,968 1,130\nTotal current assets 16,525 15,134\n"
    "Property, plant and equipment, net 4,744 4,454\nTOTAL ASSETS $ 23,717 $ 22,536"
)
PROSE = (
    "The estimated cost of inventory for expected product returns was $410 million as of May 31, 2019 and was recorded "
    "in Prepaid expenses and other current assets on the Consolidated Balance Sheets."
)


def _passage(text: str, n: int = 1, page: int = 54) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id="mat", title="NIKE_2019_10K", chunk_index=n, page_number=page, text=text)


def test_the_rule_fires_on_its_own_example():
    row = named_row(TABLE_ROW.example, [_passage(BALANCE_SHEET)])
    assert row is not None and row.line == "Total current assets 16,525 15,134"


def test_the_most_specific_row_the_question_names_answers_under_its_column_headings():
    question = "According to the balance sheet, how much total current assets did Nike have at the end of FY2019? Answer in USD millions."
    with rules.counting() as fired:
        answer = extractive_answer(question, [_passage(PROSE, 1, 82), _passage(BALANCE_SHEET, 2, 54)])
    assert fired["answer:table-row"] == 1
    # "Prepaid expenses and other current assets" is not named by the question; "Total current assets" is, fully.
    assert answer.text == "(Dollars in millions) 2019 2018 [2]\nTotal current assets 16,525 15,134 [2]"
    assert [(citation.n, citation.pageNumber) for citation in answer.citations] == [(2, 54)]
    with rules.switched_off(["answer:table-row"]):
        prose = extractive_answer(question, [_passage(PROSE, 1, 82), _passage(BALANCE_SHEET, 2, 54)])
    assert prose.text.startswith("The estimated cost of inventory")  # prose from another page leads


def test_a_question_that_asks_for_no_figure_or_names_no_row_is_answered_from_prose():
    passages = [_passage(BALANCE_SHEET)]
    assert named_row("Why does Nike hold inventories?", passages) is None  # asks for no figure
    assert named_row("How much cash did Nike have?", passages) is None  # "Cash and equivalents": "equivalents" is not asked
    assert named_row("How much goodwill did Nike report in FY2019?", passages) is None  # the table has no such row


def test_a_row_is_cited_by_itself_not_by_the_whole_table():
    from baeum.answering.groundcheck import ground_check

    answer = extractive_answer("How much total current assets did Nike have at the end of FY2019?", [_passage(BALANCE_SHEET)])
    grounded, citations, _ = ground_check(answer.text, [_passage(BALANCE_SHEET)])
    # The answer's first line of the table is quoted (its column headings), as a line: not the whole table.
    assert grounded and [citation.quote for citation in citations] == ["(Dollars in millions) 2019 2018"]
    alone = ground_check("Total current assets 16,525 15,134 [1]", [_passage(BALANCE_SHEET)])[1]
    assert [citation.quote for citation in alone] == ["Total current assets 16,525 15,134"]
