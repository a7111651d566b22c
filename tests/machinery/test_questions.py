"""What a question asks, apart from its answering instructions (pure, no database)."""

import pytest

from baeum.language.questions import analyse_question


@pytest.mark.parametrize(
    ("question", "ask", "hints"),
    [
        (
            "What is the FY2018 capital expenditure amount (in USD millions) for 3M? Give a response to the question by relying on "
            "the details shown in the cash flow statement.",
            "What is the FY2018 capital expenditure amount for 3M?",  # "(in USD millions)" says how to write the answer
            ["cash flow statement"],
        ),
        (
            "Assume that you are a public equities analyst. Answer the following question by primarily using information that is "
            "shown in the balance sheet: what is the year end FY2018 net PPNE for 3M? Answer in USD billions.",
            "what is the year end FY2018 net PPNE for 3M?",
            ["balance sheet"],
        ),
        (
            "Using the cash flow statement, answer the following question to the best of your abilities: how much did Block "
            "generate in cash flow from operating activities in FY2020? Answer in USD millions.",
            "how much did Block generate in cash flow from operating activities in FY2020?",
            ["cash flow statement"],
        ),
        (
            "Calculate (or extract) the answer from the statement of income and the cash flow statement.",
            "Calculate (or extract) the answer from the statement of income and the cash flow statement.",
            ["statement of income", "cash flow statement"],
        ),
        ("What is spaced repetition?", "What is spaced repetition?", []),
        ("스택 포인터 ESP는 무엇을 가리키나요?", "스택 포인터 ESP는 무엇을 가리키나요?", []),
        ("간격 반복을 간단히 설명해 줘", "간격 반복을", []),
    ],
)
def test_the_ask_is_kept_and_instructions_are_dropped(question, ask, hints):
    parts = analyse_question(question)

    assert parts.ask == ask
    assert parts.hints == hints


def test_definitions_stay_in_the_ask_because_they_name_what_to_find():
    parts = analyse_question(
        "What is Amazon's FY2017 days payable outstanding (DPO)? DPO is defined as: 365 * (average accounts payable between FY2016 "
        "and FY2017) / (FY2017 COGS + change in inventory between FY2016 and FY2017). Round your answer to two decimal places."
    )

    assert "accounts payable" in parts.ask and "COGS" in parts.ask
    assert "Round your answer to two decimal places." in parts.instructions
    assert "decimal" not in parts.retrieval_query


def test_the_retrieval_query_adds_each_hint_once():
    parts = analyse_question("How much cash did the company hold? Use the balance sheet.")

    assert parts.retrieval_query == "How much cash did the company hold? balance sheet"


def test_the_judgement_reads_a_question_without_the_names_it_defines_itself():
    # financebench-style: a filing never writes "CCC" or "DIO"; it must hold what the definitions are made of.
    parts = analyse_question(
        "What is the FY2019 cash conversion cycle (CCC) for General Mills? CCC is defined as: DIO + DSO - DPO. "
        "DIO is defined as: 365 * (average inventory between FY2018 and FY2019) / (FY2019 COGS). "
        "Round your answer to two decimal places."
    )
    judged = parts.judged
    assert "CCC" not in judged and "DIO" not in judged and "cash conversion cycle" not in judged
    assert "General Mills" in judged and "average inventory between FY2018 and FY2019" in judged
    assert parts.ask.startswith("What is the FY2019 cash conversion cycle (CCC)")  # retrieval still reads the name
    block = analyse_question(
        "What is Block's FY2016 working capital ratio? Define working capital ratio as total current assets divided by total current liabilities."
    )
    assert block.judged == "What is Block's FY2016 ? total current assets divided by total current liabilities."
    assert analyse_question("What is a stack frame?").judged == "What is a stack frame?"


def test_the_book_covering_something_is_not_what_is_asked():
    from baeum.language.questions import named_sources

    assert named_sources("What kinds of shift operations does the book cover?", {})[0] == "What kinds of shift operations?"
    assert named_sources("Which loops does the text discuss?", {})[0] == "Which loops?"


@pytest.mark.parametrize(
    ("question", "ask"),
    [
        (
            "According to the details clearly outlined within the balance sheet, how much total current assets did Nike have "
            "at the end of FY2019? Answer in USD millions.",
            "how much total current assets did Nike have at the end of FY2019?",
        ),
        (
            "When primarily referencing the income statement and the statement of financial position, what is the FY2021 "
            "inventory turnover ratio for Nike?",
            "what is the FY2021 inventory turnover ratio for Nike?",
        ),
        ("In Python, what is a list?", "In Python, what is a list?"),  # names what is asked about, not where to look
        ("According to Knuth, what is an algorithm?", "According to Knuth, what is an algorithm?"),
    ],
)
def test_a_clause_that_only_says_where_to_look_is_not_what_is_asked(question, ask):
    # Rule question:source-lead.
    assert analyse_question(question).ask == ask
