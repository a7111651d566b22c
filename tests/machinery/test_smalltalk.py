"""Small talk, statements and memory questions without the database, in Korean as in English (issue #28 item 6)."""

import pytest

from baeum.answering.history import Memory, extract_entities
from baeum.answering.smalltalk import conversation_answer, conversation_kind, memory_answer
from baeum.language.text import is_hangul_heavy


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("내일 시험이야", [("시험", "내일")]),  # a learner's walkthrough: refused before, though "My exam is tomorrow" was remembered
        ("시험이 다음 주 월요일이야", [("시험", "다음 주 월요일")]),
        ("다음 주에 발표 있어", [("발표", "다음 주")]),
        ("중간고사는 12월 3일 오후 2시야", [("중간고사", "12월 3일 오후 2시")]),
        ("The exam is tomorrow", [("exam", "tomorrow")]),
        ("the quiz's on Monday.", [("quiz", "on Monday")]),
        ("내 시험은 금요일이야", [("시험", "금요일")]),  # once, not also as an event
        ("내일 비가 와", []),  # "내일" is not "내 일": no fact without a copula
        ("제일 중요한 건 스택이야", []),  # "제일" (most) is not "제" (my)
        ("The stack is a region of memory.", []),
        ("The answer is on page 3", []),
        ("시험 언제야?", []),
    ],
)
def test_statements_of_when_something_is_are_facts_in_both_languages(text, facts):
    assert [(fact["key"], fact["value"]) for fact in extract_entities(text, turn=1)] == facts


@pytest.mark.parametrize(
    ("message", "korean"),
    [("ㅇㅋ", True), ("알겠어", True), ("네!", True), ("좋아요~", True), ("ok", False), ("Got it.", False), ("makes sense", False)],
)
def test_an_acknowledgement_gets_a_short_reply_in_its_language_that_claims_nothing(message, korean):
    assert conversation_kind(message) == "acknowledgement"
    answer = conversation_answer(message)
    assert answer is not None and not answer.refused and answer.citations == []
    assert is_hangul_heavy(answer.text) == korean  # "ㅇㅋ" is Korean: its jamo count as Hangul


def test_a_korean_statement_is_acknowledged_in_korean_with_what_was_noted():
    answer = conversation_answer("내일 시험이야")
    assert answer is not None and "시험: 내일" in answer.text and is_hangul_heavy(answer.text)


@pytest.mark.parametrize(
    ("fact", "question", "said"),
    [
        (("시험", "내일"), "시험 언제야?", "앞서 시험은 내일이라고 알려 주셨어요."),
        (("exam", "tomorrow"), "When is the exam?", "Earlier you told me that your exam is tomorrow."),
        (("exam", "on Friday"), "What is my exam date?", "Earlier you told me that your exam is on Friday."),
    ],
)
def test_when_is_what_was_stated_is_answered_from_memory(fact, question, said):
    memory = Memory(entities=[{"key": fact[0], "value": fact[1], "turn": 1}])
    answer = memory_answer(question, memory)
    assert answer is not None and answer.text == said


def test_a_question_about_the_event_that_is_not_when_goes_to_the_materials():
    memory = Memory(entities=[{"key": "시험", "value": "내일", "turn": 1}])
    assert memory_answer("시험 범위가 뭐야?", memory) is None
    assert memory_answer("What is an exam?", Memory(entities=[{"key": "exam", "value": "tomorrow", "turn": 1}])) is None
