"""Offline grading: what a learner means counts, not how it is typed."""

import pytest

from baeum.study.grading import CORRECT, PARTIAL, WRONG, grade_definition, grade_term, grade_true_false


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        ("nibble", "nibble"),
        ("The Nibble.", "nibble"),
        ("스택포인터", "스택 포인터"),  # Korean spacing is free
        ("스택 포인터를", "스택 포인터"),  # a trailing particle is not part of the answer
        ("비트입니다", "비트"),
        ("8 bits", "8bit"),
        ("eight bits", "8 bits"),
        ("8", "8 bits"),  # the number alone
        ("8 비트", "8 bits"),  # the unit in the other language
        ("1.5 GHz", "1.5GHz"),
        ("1,000", "1000"),
        ("least-significant bit", "least significant bit"),
        ("컴파일러라고 해요", "컴파일러"),  # a trailing verb is how Korean says it
        ("컴파일러라고 한다", "컴파일러"),
        ("컴파일러 (compiler)", "컴파일러"),  # the book's own wording, translation in brackets
        ("니블이요", "니블"),
    ],
)
def test_spacing_particles_case_and_number_formats_do_not_matter(response, expected):
    assert grade_term(response, expected).verdict == CORRECT


def test_aliases_the_text_gives_are_accepted_and_other_words_are_not():
    assert grade_term("lsb", "least significant bit", ["lsb"]).verdict == CORRECT
    assert grade_term("msb", "least significant bit", ["lsb"]).verdict == WRONG
    assert grade_term("9 bits", "8 bits").verdict == WRONG
    assert grade_term("", "nibble").verdict == WRONG


def test_one_typo_in_a_long_word_is_half_right():
    assert grade_term("nibbel", "nibble").verdict == PARTIAL
    assert grade_term("byte", "bit").verdict == WRONG
    assert grade_term("LGLP", "LGPL").verdict == PARTIAL  # two letters swapped, even in a short name
    assert grade_term("LGPL", "GPL").verdict == WRONG  # another licence
    assert grade_term("MPL", "MLP").verdict == WRONG  # three letters: a swap may be another name


def test_a_phrase_forgives_one_typo_in_each_long_word():
    assert grade_term("fruitfull functons", "fruitful functions").verdict == PARTIAL
    assert grade_term("스텍 프래임", "스택 프레임").verdict == PARTIAL
    assert grade_term("fruit functions", "fruitful functions").verdict == WRONG  # another word, not a typo
    assert grade_term("void functions", "fruitful functions").verdict == WRONG
    assert grade_term("fruitful functions here", "fruitful functions").verdict == WRONG  # not the same words


@pytest.mark.parametrize(
    ("response", "expected", "verdict"),
    [
        ("컴퍼일러", "컴파일러", PARTIAL),  # one vowel off, as "turtel" for "turtle"
        ("셀렉터", "실렉터", PARTIAL),  # the standard spelling of the book's loanword
        ("스텍", "스택", PARTIAL),
        ("레지스타", "레지스터", PARTIAL),
        ("바트", "비트", WRONG),  # a short word: one letter is another word
        ("스택", "큐", WRONG),
    ],
)
def test_one_letter_off_in_korean_is_half_right_as_in_english(response, expected, verdict):
    assert grade_term(response, expected).verdict == verdict


@pytest.mark.parametrize(
    ("response", "expected", "verdict"),
    [
        ("Memory", "메모리", CORRECT),
        ("memory", "메모리", CORRECT),
        ("유니코드", "Unicode", CORRECT),
        ("compiler", "컴파일러", CORRECT),
        ("computer", "컴퓨터", CORRECT),  # no final r in the Korean spelling
        ("selector", "실렉터", CORRECT),
        ("string", "스트링", CORRECT),
        ("kernel", "커널", PARTIAL),  # one consonant apart across the scripts
        ("market", "메모리", WRONG),
        ("RAM", "메모리", WRONG),  # another word for it is not its transliteration
        ("cache", "캐시", WRONG),  # too few consonants to tell: left to the book's own pairing (the glossary)
    ],
)
def test_a_loanword_is_the_same_answer_in_either_script(response, expected, verdict):
    assert grade_term(response, expected).verdict == verdict


@pytest.mark.parametrize(
    ("response", "expected", "verdict"),
    [
        ("true", True, CORRECT),
        ("참", True, CORRECT),
        ("O", True, CORRECT),
        ("거짓", False, CORRECT),
        ("F", False, CORRECT),
        ("yes", False, WRONG),
        ("maybe", True, WRONG),
    ],
)
def test_true_or_false_in_either_language(response, expected, verdict):
    assert grade_true_false(response, expected).verdict == verdict


def test_a_definition_is_graded_on_what_it_says_not_on_repeating_the_term():
    definition = "A nibble is a 4-bit number, half of a byte."
    assert grade_definition("a 4 bit number", definition, "nibble").verdict == CORRECT
    assert grade_definition("half a byte", definition, "nibble").verdict in (CORRECT, PARTIAL)
    assert grade_definition("a nibble is a nibble", definition, "nibble").verdict == WRONG
    korean = "스택 프레임은 인자, 리턴 정보, 지역 변수를 포함한 스택의 영역을 말한다."
    assert grade_definition("인자와 리턴 정보와 지역 변수를 담는 스택 영역", korean, "스택 프레임").verdict == CORRECT
    assert grade_definition("모르겠어요", korean, "스택 프레임").verdict == WRONG


def test_korean_spacing_never_decides_even_where_a_syllable_looks_like_a_particle():
    """A walkthrough: "되돌아 가" was wrong for 되돌아가 (its 가 was read as a particle on one side only)."""
    from baeum.study.grading import grade_term

    assert grade_term("되돌아 가", "되돌아가").verdict == "correct"
    assert grade_term("되 돌아가", "되돌아가").verdict == "correct"
    assert grade_term("돌아가", "되돌아가").verdict != "correct"


def test_a_qualified_names_own_name_is_almost_right():
    """Walkthrough 18: "detached" for the blank "if _____ is set to true" (the book's "options.detached") was "Not
    quite"; the learner knows the option, not the object it hangs on."""
    assert grade_term("detached", "options.detached").verdict == PARTIAL
    assert grade_term("createInterface", "readline.createInterface()").verdict == PARTIAL
    assert grade_term("options", "options.detached").verdict == WRONG  # the object is not the option
    assert grade_term("readline.createInterface()", "readline.createInterface()").verdict == CORRECT


def test_a_blank_that_swallowed_its_preposition_accepts_the_words_it_asks_for():
    # Walkthrough 20: "You can use bzip2recover to try to recover data _____ files." wanted "from damaged".
    assert grade_term("damaged", "from damaged").verdict == CORRECT
    assert grade_term("stack", "to the stack").verdict == CORRECT
    assert grade_term("from", "from damaged").verdict == WRONG  # the joining word alone names nothing
    assert grade_term("heap", "to the stack").verdict == WRONG
