"""A material's vocabulary and the terms a question asks about (``baeum.language.vocabulary``)."""

from baeum.language import vocabulary


def test_a_question_asks_about_its_nouns_not_its_frame_or_verbs():
    assert sorted(vocabulary.asked_terms("연산자 오버로딩이 뭐야?")) == ["연산자", "오버로딩"]
    assert sorted(vocabulary.asked_terms("파일 열 때 예외 처리는 어떻게 해?")) == ["예외", "처리", "파일"]  # "열" a verb
    assert vocabulary.asked_terms("문자열을 바꾸는 방법은?") == ["문자열"]  # "바꾸" a verb, "방법" the frame
    assert vocabulary.asked_terms("중간에 빠져나오려면?") == ["중간"]  # "에" a particle, "빠져나오" a verb
    assert vocabulary.asked_terms("What is the difference between a list and a tuple?") == []  # English: not looked up


def test_the_vocabulary_holds_words_used_more_than_once():
    texts = ["An operator is a symbol. The operator + adds.", "Operators act on operands; an operand is a value."]
    assert dict(vocabulary.latin_words(texts)) == {"operator": 2}
