"""Practice questions come from what the text defines or names in its headings, never common words."""

from baeum.study.definitions import find_definitions
from baeum.study.quiz import CHOICE, CLOZE, DEFINITION, SHORT_ANSWER, TRUE_FALSE, Candidate, build_questions, heading_terms


def _questions(sentences, headings=(), limit=6):
    candidates = [Candidate(text, 1.0 + position / 10, position) for position, text in enumerate(sentences)]
    definitions = {position: found for position, text in enumerate(sentences) if (found := find_definitions(text))}
    return build_questions(candidates, definitions=definitions, headings=list(headings), limit=limit)


def test_heading_terms_keep_concepts_and_drop_numbers_and_generic_words():
    assert heading_terms("4.4 The CALL and RET Instructions") == ["CALL", "RET"]
    assert heading_terms("Recursion") == ["Recursion"]
    assert heading_terms("1.3 Big and Little Endian") == ["Little Endian"]  # "Big" alone names nothing
    assert heading_terms("Exercises") == []
    assert heading_terms("LESSON 1 요약") == [] and heading_terms("Lesson 1.2: 빔을 시작하고 끝내기") == ["빔을 시작하고 끝내기"]
    assert heading_terms("Lesson 1.1: MOVING THE CURSOR") == []  # capitals throughout: "MOVING" is no acronym
    assert heading_terms("Lesson 2.1: DELETION COMMANDS") == ["DELETION COMMANDS"]


def test_naming_sentences_become_short_answers_and_opening_definitions_what_is_questions():
    questions = _questions(["A 4-bit number is called a nibble.", "A stack is a Last-In First-Out list of data in memory."])
    by_kind = {question.kind: question for question in questions}
    assert by_kind[SHORT_ANSWER].prompt == "What is a 4-bit number called?" and by_kind[SHORT_ANSWER].answer == "nibble"
    assert by_kind[DEFINITION].prompt == "What is a stack?" and by_kind[DEFINITION].answer.startswith("A stack is")


def test_korean_naming_sentence_becomes_a_korean_question_with_the_alias_accepted():
    (question,) = _questions(["처음의 16 비트 값을 실렉터 (selector) 라고 부른다."])
    assert question.kind == SHORT_ANSWER
    assert question.prompt == "처음의 16 비트 값을 무엇이라고 부르나요?"
    assert question.answer == "실렉터" and question.accepted == ["selector"]


def test_other_sentences_ask_only_about_domain_terms_and_each_question_has_a_stable_id():
    sentences = [
        "The CALL instruction makes an unconditional jump to a subprogram and pushes the next address.",
        "At the end of the code is a RET instruction that pops off the return address and jumps back.",
        "The stack frame holds the parameters, the return address and the local variables of a call.",
        "This makes the code simpler than the previous methods and easier to read for everyone.",
    ]
    questions = _questions(sentences, headings=["4.4 The CALL and RET Instructions", "4.5 Stack Frame"])
    assert questions and {question.kind for question in questions} <= {CLOZE, CHOICE, TRUE_FALSE}
    assert all(question.term in {"CALL", "RET", "Stack Frame"} for question in questions)
    assert all(question.source != 3 for question in questions)  # no domain term in it: no question
    again = _questions(sentences, headings=["4.4 The CALL and RET Instructions", "4.5 Stack Frame"])
    assert [question.id for question in questions] == [question.id for question in again]
    for question in questions:
        if question.kind == CHOICE:
            assert question.answer in question.choices and len(question.choices) >= 3
        if question.kind == TRUE_FALSE:
            assert question.answer in ("true", "false")


def test_a_blank_never_keeps_its_translation_beside_it_and_accepts_it():
    from baeum.study.quiz import cloze_question

    question = cloze_question("컴퓨터 하드웨어는 인터럽트 (interrupt) 라는 메커니즘을 통해 이벤트를 처리한다.", "인터럽트", [])
    assert question.prompt == "컴퓨터 하드웨어는 _____ 라는 메커니즘을 통해 이벤트를 처리한다." and question.accepted == ["interrupt"]


def test_a_korean_naming_question_drops_the_connective_that_leans_on_the_sentence_before():
    (question,) = _questions(["따라서 기계어 코드로 소스를 바꾸어 주는 프로그램을 컴파일러 (compiler) 라고 한다."])
    assert question.prompt == "기계어 코드로 소스를 바꾸어 주는 프로그램을 무엇이라고 하나요?"


def test_korean_definitions_read_the_word_not_its_quote_marks_nor_a_conjunction():
    """A walkthrough over the licence guide met "프로앱스 또란 무엇인가요?" ("또는" read as a topic particle) and
    "‘파생작’란 무엇인가요?" (the particle chosen by the closing quote mark)."""
    assert find_definitions("프로앱스 또는 스니몰리를 독립적으로 사용하는 것은 다른 유닛과 조합하여 사용되지 않는 것을 뜻한다.") == []
    questions = _questions(["‘파생작’이란 원저작물을 번역하거나 수정하여 새로 만든 저작물을 말한다."])
    assert [question.prompt for question in questions if question.kind == DEFINITION] == ["‘파생작’이란 무엇인가요?"]


def test_a_definite_one_word_subject_makes_no_what_is_question():
    """Think Python: "The result is a zip object …" asked "What is the result?" (of what?)."""
    from baeum.study.definitions import find_definitions
    from baeum.study.quiz import _definition_question

    sentence = "The result is a zip object that knows how to iterate through the pairs."
    assert all(_definition_question(definition, sentence) is None for definition in find_definitions(sentence))
    stack = "A stack is a list whose last item in is the first item out."
    assert any(_definition_question(definition, stack) for definition in find_definitions(stack))


def test_a_true_false_swap_never_uses_the_same_name_written_otherwise():
    """Nettle: "CAST128" swapped in for "CAST-128" made a true statement whose answer key said false. The swap
    and the distractors draw on other terms, compared as spelled without punctuation or case."""
    from baeum.study.quiz import _spelled

    assert _spelled("CAST-128") == _spelled("cast128") != _spelled("AES")


def test_a_multiple_choice_never_offers_one_term_twice_in_two_spellings():
    """A walkthrough over Node's stream documentation: "Transform stream" and "transform stream" were two choices."""
    kinds = ["Readable stream", "Writable stream", "Duplex stream", "Transform stream", "transform stream", "Passthrough stream"]
    sentences = [
        f"A {kind} is used by the pipeline method {number} times when data moves between the producer and the consumer."
        for number, kind in enumerate(kinds * 3)
    ]
    questions = _questions(sentences, headings=kinds, limit=12)
    choices = [question.choices for question in questions if question.kind == CHOICE]
    assert choices  # the set makes some multiple choice
    for offered in choices:
        assert len({choice.casefold() for choice in offered}) == len(offered), offered


def test_a_true_false_swap_is_the_kind_of_thing_the_term_is():
    """The walkthrough's Node events plan: "Listens Event object to the abort event …" ("once" swapped out) and
    "All EventEmitters emit the Capture rejections when …" are sentences nobody writes, not false ones."""
    from baeum import rules
    from baeum.study.quiz import of_another_kind

    assert of_another_kind(("once", "Event object")) and of_another_kind(("'newListener'", "Capture rejections"))
    assert not of_another_kind(("Readable stream", "Writable stream")) and not of_another_kind(("정적 링크", "동적 링크"))
    assert not of_another_kind(("stack", "queue")) and of_another_kind(("stack", "EventEmitter"))
    terms = ["Event object", "Capture rejections", "Readable stream", "Writable stream", "Duplex stream"]
    sentences = [
        f"A {kind} is used by the pipeline method {number} times when data moves between the producer and the consumer."
        for number, kind in enumerate(terms * 4)
    ]
    with rules.counting() as fired:
        questions = _questions(sentences, headings=terms, limit=16)
    assert fired["question:another-kind"] > 0
    for question in questions:
        if question.kind == TRUE_FALSE and question.answer == "false":
            (swapped_in,) = [kind for kind in terms if kind in question.prompt]
            assert swapped_in != question.term and not of_another_kind((question.term, swapped_in)), question.prompt


def test_a_clause_before_is_called_is_no_subject_of_a_naming_question():
    # Node's child_process: "While the function is called kill, …" had asked "What is while the function called?".
    questions = _questions(["While the function is called kill, the signal delivered to the child process may not end it."])
    assert not [question for question in questions if question.kind == SHORT_ANSWER and "while" in question.prompt.casefold()]


def test_a_manual_name_line_with_other_names_asks_what_its_command_is():
    """The xz manual's NAME line had become a true/false question: its other names stood between the term and the dash."""
    from baeum.study.definitions import find_definitions
    from baeum.study.quiz import _definition_question

    line = "xz, unxz, xzcat, lzma, unlzma, lzcat - .xz 파일과 .lzma 파일을 압축 또는 압축 해제합니다"
    [definition] = find_definitions(line)
    assert _definition_question(definition, line).prompt == "xz(이)란 무엇인가요?"
