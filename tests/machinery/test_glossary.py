"""The terms a Korean text glosses in English, and what they tell a question in the other language."""

from baeum.language.glossary import Gloss, english_names, glosses_in, is_name_word, korean_names

TEXT = (
    "음수를 나타내는 두 번째 방법은 1의 보수 (one’s complement) 표현법이다. 분기 명령 (branch instruction) 은 흐름을 옮긴다. "
    "반드시 세그먼트 (segment) 를 지정한다. 이는 인터럽트 (interrupt) 라는 메커니즘이다."
)


def test_glosses_are_read_with_the_word_before_their_term():
    assert glosses_in(TEXT) == [
        Gloss("1의", "보수", "one's complement"),
        Gloss("분기", "명령", "branch instruction"),
        Gloss("반드시", "세그먼트", "segment"),
        Gloss("이는", "인터럽트", "interrupt"),
    ]


def test_a_korean_question_gets_the_english_names_of_its_own_terms():
    glosses = glosses_in(TEXT)
    assert english_names("1의 보수는 어떻게 구하나요?", glosses) == ["one's complement"]
    assert english_names("인터럽트가 뭐야?", glosses) == ["interrupt"]
    assert english_names("CALL 명령은 무슨 일을 하나요?", glosses) == []  # "분기 명령" is a longer name
    assert english_names("분기 명령은 무엇인가요?", glosses) == ["branch instruction"]


def test_an_english_question_gets_the_korean_names_of_glosses_it_holds_whole():
    glosses = glosses_in(TEXT)
    assert korean_names("What does a branch instruction do?", glosses) == ["분기 명령"]
    assert korean_names("What is a segment?", glosses) == ["세그먼트"]
    assert korean_names("How is the one's complement found?", glosses) == ["보수"]
    assert korean_names("What is an instruction?", glosses) == []


def test_a_noun_before_a_glossed_term_is_part_of_its_name_whatever_its_last_syllable():
    # "인라인" ends like "필수적인" does, but it is a noun: "인라인 함수 (inline functions)" names "인라인 함수",
    # never the "함수" of another question.
    assert is_name_word("인라인") and is_name_word("분기") and is_name_word("빅")
    assert not any(is_name_word(word) for word in ("이는", "필수적인", "반드시", "의", "레지스터는"))
    glosses = glosses_in("C++ 의 인라인 함수 (inline functions) 는 매크로를 대신한다. 이러한 함수 (function) 는 값을 돌려준다.")
    assert english_names("C 함수가 구조체를 리턴값으로 반환할 때 컴파일러는 어떻게 처리하나요?", glosses) == ["function"]
    assert english_names("인라인 함수는 왜 빠른가요?", glosses) == ["inline functions", "function"]


def test_a_verb_before_a_parenthesis_glosses_nothing():
    """The KorQuAD paper's example table: "서울에 있는 산들에 대해 알려줘 (Long, 평문)" names no term "long"."""
    glosses = glosses_in("질문 서울에 있는 산들에 대해 알려줘 (Long, 평문). 이는 인터럽트 (interrupt) 라는 것이다.")
    assert [gloss.head for gloss in glosses] == ["인터럽트"]
    assert korean_names("What share of the answers are long answers?", [Gloss("대해", "알려줘", "long")]) == []
