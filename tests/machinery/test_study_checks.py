"""The judge eval_study uses: what keeps a key point from standing alone, a question from being answerable."""

import pytest

from baeum.study.checks import key_point_problem, objective_matched, question_problem, said


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("A variable is a name that refers to a value.", None),
        ("레지스터는 CPU 안의 매우 빠른 저장 장소이다.", None),
        ("Write a function called circle that takes a turtle and a radius.", "exercise"),
        ("Hint: figure out the circumference of the circle.", "exercise"),
        ("함수를 직접 작성해 보시오.", "exercise"),
        ("Call print_lyrics() twice to check the output.", "exercise"),
        ("The value of x = y; is stored in the register.", "code"),
        ("A list that contains no elements is called an empty list; you can create one with brackets.", None),
        ("Figure 3.1 shows a stack diagram.", "caption"),
        ("Definitions and uses 21 And then call repeat_lyrics:", "fragment"),
        ("When cat_twice terminates, the variable cat is destroyed.", None),  # a name from code, in prose
        ("There are several ways to delete elements from a list.", None),
        ("There are two popular methods of storing integers", "fragment"),
        ("and the remainder is dropped.", "fragment"),
        ("This data is stored in little endian format.", "goes-on"),
        ("따라서 스택은 아래로 자란다.", "goes-on"),
    ],
)
def test_a_key_point_stands_alone_or_says_why_not(text, problem):
    assert key_point_problem(text, set()) == problem


def test_the_same_sentence_twice_in_a_session_is_a_duplicate():
    first = "I sleep all night and I work all day."
    assert key_point_problem(first, {said(first)}) == "duplicate"


@pytest.mark.parametrize(
    ("kind", "question", "answer", "problem"),
    [
        ("cloze", "A 4-bit number is called a _____.", "nibble", None),
        ("choice", "…돕는 _____을 바람직한 어려움이라고 부른다", "어려움", "choice-contains-answer"),
        ("cloze", "We use _____.", "dictionaries", "blank-too-little-left"),
        ("cloze", "It stores the _____ of the next instruction to run.", "address", "blank-needs-context"),
        ("cloze", "처음의 16 비트 값을 _____(이)라고 부른다.", "세그먼트", "blank-needs-context"),
        ("short_answer", "What is a nibble?", "a 4-bit number", None),
        ("short_answer", "What is 1 The distance called?", "edit distance", "question-debris"),  # a footnote's number
        ("short_answer", "What is the distance called?", "after V", "answer-not-a-name"),  # "named after V. Levenshtein"
        ("short_answer", "What is a 4-bit number called?", "nibble", None),
    ],
)
def test_a_question_is_answerable_from_what_it_shows(kind, question, answer, problem):
    assert question_problem(kind, question, answer) == problem


def test_an_objective_names_something_its_session_teaches():
    taught = ["A recursive function calls itself.", "What is a base case? → the case that stops the recursion"]
    assert objective_matched("Explain recursive functions", taught)
    assert not objective_matched("Explain the first program", taught)
    assert not objective_matched("Explain", taught)  # a verb alone names nothing
