"""'Does it also cover X?': what is asked, and what the materials never mention (``evidence:never-mentioned``)."""

import pytest

from baeum import rules
from baeum.answering.evidence import NEVER_MENTIONED, never_mentioned
from baeum.language.questions import asks_if_covered, covered_subject


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("does it show how to implement a Fibonacci heap?", "implement a Fibonacci heap"),
        ("does it explain wavelet trees too?", "wavelet trees"),
        ("is interpolation search covered anywhere?", "interpolation search"),
        ("is there anything on debugging?", "debugging"),
        ("are string methods covered?", "string methods"),
        ("인터럽트도 다뤄?", "인터럽트"),
        ("부동 소수점 설명도 있어?", "부동 소수점"),
        ("카피레프트 설명도 나와 있어?", "카피레프트"),
        ("BSD 라이선스도 소개돼 있어?", "BSD 라이선스"),
    ],
)
def test_a_question_whether_the_materials_cover_something_asks_about_that_thing(question, subject):
    assert asks_if_covered(question)
    assert covered_subject(question) == subject


@pytest.mark.parametrize(
    "question",
    [
        "What kinds of shift operations does the book cover?",
        "What is a stack?",
        "스택이란 무엇인가요?",
        "Is there a stack?",
        # a filing's question whose second sentence says "explain": the asking verb is the first sentence's
        "Does American Water Works have positive working capital based on FY2022 data? If working capital is not a "
        "useful or relevant metric for this company, then please state that and explain why.",
    ],
)
def test_other_questions_are_not_read_as_asking_what_is_covered(question):
    assert not asks_if_covered(question)
    assert covered_subject(question) == question


def known_words(*words):
    return lambda terms: {term for term in terms if term in words}


def test_a_word_the_materials_never_use_is_named_as_the_learner_wrote_it():
    assert never_mentioned("does it show how to configure WireGuard?", known_words("configure"), lambda pairs: set()) == ["WireGuard"]
    assert never_mentioned("듀얼 라이선스도 나와?", known_words("라이선스"), lambda pairs: set()) == ["듀얼"]


def test_two_words_of_one_name_must_stand_together_somewhere():
    """The handbook has Fibonacci numbers and heaps, never a Fibonacci heap."""
    known = known_words("fibonacci", "heap", "implement")
    assert never_mentioned("does it show how to implement a Fibonacci heap?", known, lambda pairs: set()) == ["Fibonacci heap"]
    assert never_mentioned("does it show how to implement a Fibonacci heap?", known, lambda pairs: set(pairs)) == []


def test_qualifiers_and_frame_words_are_never_half_of_a_name():
    known = known_words("recursion", "example")
    assert never_mentioned("does it explain a simple example of recursion?", known, lambda pairs: set()) == []


def test_across_languages_only_the_names_written_are_looked_for():
    """A Korean question over an English book: its Korean words are not expected there, "KMP" is."""
    assert never_mentioned("KMP 알고리즘도 나와?", known_words(), lambda pairs: set(), names_only=True) == ["KMP"]
    assert never_mentioned("레드 블랙 트리도 나와?", known_words(), lambda pairs: set(), names_only=True) == []


def test_a_question_that_asks_something_else_is_left_to_the_other_rules():
    assert never_mentioned("How do I configure WireGuard?", known_words(), lambda pairs: set()) == []


def test_the_rule_fires_on_its_example_says_so_and_can_be_switched_off():
    with rules.counting() as fired:
        assert rules.resolved(NEVER_MENTIONED, NEVER_MENTIONED.example) == ["WireGuard"]
    assert fired == {"evidence:never-mentioned": 1}
    with rules.switched_off(["evidence:never-mentioned"]):
        assert rules.resolved(NEVER_MENTIONED, NEVER_MENTIONED.example) is None


def test_a_name_written_in_parts_is_mentioned_when_the_materials_use_most_of_its_parts():
    """A walkthrough's learner asked "does it explain ChaCha20-Poly1305?" of a manual that writes
    "ChaCha-Poly1305", and was told it never mentions it; a name with a part never used stays missing."""
    known = known_words("chacha", "poly1305", "rabin", "karp", "algorithm", "explain")
    assert never_mentioned("does it explain ChaCha20-Poly1305?", known, lambda pairs: set()) == []
    assert never_mentioned("does it also cover the Rabin-Karp algorithm?", known, lambda pairs: set()) == []
    assert never_mentioned("is the Boyer-Moore algorithm explained?", known, lambda pairs: set()) == ["Boyer-Moore"]
    assert never_mentioned("does it cover post-quantum signatures?", known_words("post", "signature"), lambda pairs: set()) == [
        "post-quantum"
    ]
