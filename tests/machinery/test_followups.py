"""The follow-up rules without the database: what an ordinal counts, what a follow-up carries over, when a
question stands alone. Over the typed history (``baeum.answering.history.Memory``), in milliseconds."""

import pytest

from baeum.answering.followups import (
    anchored_query,
    answer_items,
    continues,
    enumerated_items,
    listed_items,
    ordinal_of,
    resolve_references,
)
from baeum.answering.history import Memory


@pytest.mark.parametrize(
    ("question", "ordinal"),
    [
        ("Tell me more about the second one.", 2),
        ("And the first difference?", 1),
        ("그 중 두 번째는 뭐야?", 2),
        ("마지막 것은?", -1),
        ("마지막 항목은?", -1),
        ("세 번째 항목은 무슨 뜻이야?", 3),
        ("두 번째 부분을 다시 설명해줘", 2),
        ("What is it?", None),
    ],
)
def test_ordinals_are_read_in_english_and_korean(question, ordinal):
    assert ordinal_of(question) == ordinal


@pytest.mark.parametrize(
    "question",
    [
        "What about SI and DI?",
        "And 32-bit protected mode?",
        "How is the Pascal convention different?",
        "What's the equivalent for signed numbers?",
        "그럼 FLAGS 레지스터는 뭘 저장해?",
        "세그먼트 레지스터는요?",
        "32비트 보호 모드는?",
        "stdcall 은?",
        "파스칼 호출 규약은 어떻게 달라?",
    ],
)
def test_a_question_that_only_makes_sense_after_the_turn_before_is_a_follow_up(question):
    assert continues(question)


@pytest.mark.parametrize(
    "question",
    [
        "How is the TEST instruction different from AND?",
        "What is a register?",
        "레지스터는 무엇인가요?",
        "스택 포인터 ESP 는 무엇을 가리키나요?",
        "리틀 엔디안과 빅 엔디안의 차이는?",  # short, but it names both sides (a learner's walkthrough)
        "스택 프레임의 구조는?",
    ],
)
def test_a_question_that_names_what_it_asks_about_stands_alone(question):
    assert not continues(question)


def _after_one_turn(question: str, answer: str) -> Memory:
    return Memory(recent=[{"turn": 1, "question": question, "answer": answer, "refused": False}])


def test_the_second_one_is_the_second_line_of_the_previous_answer():
    memory = _after_one_turn("What are the two differences?", "A uses 32-bit offsets. [1]\nB divides segments into pages. [1]")

    assert answer_items(memory.recent[0]["answer"]) == ["A uses 32-bit offsets.", "B divides segments into pages."]
    resolved = resolve_references("Tell me more about the second one.", memory)
    assert resolved.startswith("divide segment page")  # the second line's terms
    assert "second" not in resolved  # resolved, the ordinal would only find "The second operand" elsewhere


def test_after_a_comparison_the_first_kind_is_its_first_side():
    """A conversation: "What's the difference between external and internal ones?" (interrupts) → "Give me an
    example of the first kind." is about external interrupts; "the second difference" still counts differences."""
    memory = Memory(
        recent=[
            {
                "turn": 2,
                "question": "What's the difference between external and internal ones?",
                "searched": "interrupt computer what s the difference between external and internal ones",
                "answer": "External interrupts are raised from outside the CPU. [1]",
                "refused": False,
            }
        ]
    )
    assert enumerated_items(memory, "Give me an example of the first kind.") == (
        ["external interrupt computer", "internal interrupt computer"],
        True,
    )
    assert resolve_references("Give me an example of the first kind.", memory).startswith("external interrupt")
    assert enumerated_items(memory, "Tell me more about the second difference.")[1] is False
    memory.recent[0]["question"] = "What are the two major differences between 386 and 286 protected mode?"
    assert enumerated_items(memory, "Tell me more about the second one.")[1] is False  # the differences, not the sides


def test_a_list_written_out_after_a_colon_is_what_an_ordinal_counts():
    listing = "Three kinds of errors can occur in a program: syntax errors, runtime errors, and semantic errors."
    assert listed_items(listing) == ["syntax errors", "runtime errors", "semantic errors"]
    assert listed_items("Integers come in two flavors: unsigned and signed.") == []  # two: an aside, not a list
    assert listed_items("The FLAGS register is set: the result is kept in the first operand of the instruction.") == []

    memory = _after_one_turn("What kinds of errors can happen?", f"{listing} [1]\nIf there is a syntax error, Python quits. [1]")
    assert resolve_references("Give me an example of the second kind.", memory).startswith("runtime error")
    # An ordinal after an ordinal counts in the same list, not in the lines of the answer about the first item.
    memory.recent.append(
        {"turn": 2, "question": "What does the third kind mean?", "answer": "It is related to meaning. [1]", "refused": False}
    )
    assert resolve_references("Why is the second kind hard to find?", memory).startswith("runtime error")


def test_a_follow_up_carries_words_of_the_previous_turn_not_its_numbers():
    memory = _after_one_turn("How do I convert 25 into binary?", "Divide 25 by 2 and keep 0.5 remainders for binary digits. [1]")
    resolved = resolve_references("What about converting it to hexadecimal instead?", memory).split()
    assert {"convert", "binary"} <= set(resolved) and not {"25", "0.5"} & set(resolved)


def test_a_follow_up_is_also_searched_in_its_own_words_anchored_by_the_previous_topic():
    memory = _after_one_turn(
        "What is a dictionary in Python?",
        "Dictionaries are one of Python's best features; they are the building blocks of many algorithms. [1]",
    )
    question = "How do I loop over one?"
    assert anchored_query(question, memory) == "dictionary python how do i loop over one"
    assert "feature" in resolve_references(question, memory)  # the resolved query leans on the answer's words too
    assert anchored_query(question, Memory()) == ""


def test_an_item_is_carried_by_the_name_its_sentence_gives_it():
    from baeum.answering.followups import item_terms

    assert item_terms("Modern computers use a third method called two's complement representation.")[:3] == [
        "two",
        "complement",
        "representation",
    ]
    assert item_terms("The second method is known as one's complement representation.")[:2] == ["one", "complement"]
    assert item_terms("The shift operations are performed by C's operators.")[0] == "shift"  # no name: the sentence's order


def test_an_item_of_the_answers_own_list_is_answered_with_sentences_that_name_it():
    """A walkthrough: "Why is the third kind so hard to track down?" quoted a lead-in and the syntax- and
    runtime-error bullets under it, never the semantic errors it asked about."""
    from baeum.answering.answers import Passage
    from baeum.answering.extractive import extractive_answer
    from baeum.answering.followups import item_name_terms

    assert item_name_terms("semantic errors") == ("semantic", "error")
    assert item_name_terms("Modern computers use a third method called two's complement representation.") == ("two", "complement")
    page = (
        "When you are debugging, you should distinguish among different kinds of errors in order to track them down more quickly:\n"
        "• Syntax errors are discovered by the interpreter when it is translating the source code.\n"
        "• Runtime errors are produced by the interpreter if something goes wrong while the program is running.\n"
        "• Semantic errors are problems with a program that runs without producing error messages.\n\n"
        "Identifying semantic errors can be tricky because it requires you to work backward from the output."
    )
    passage = Passage(
        n=1, chunk_id=1, ref_id="r", title="t", chunk_index=0, page_number=1, text=page, vector_score=0.9, vector_threshold=0.2
    )
    question = "semantic error why is the kind so hard to track down third"
    assert "Syntax errors" in extractive_answer(question, [passage]).text  # the lead-in brings every bullet
    answer = extractive_answer(question, [passage], naming=("semantic", "error"))
    assert "Syntax errors" not in answer.text and "Runtime errors" not in answer.text, answer.text
    assert "Identifying semantic errors can be tricky" in answer.text


@pytest.mark.parametrize("question", ["Why?", "How so?", "왜?", "어떻게?"])
def test_a_bare_question_asks_about_the_turn_before(question):
    """``followup:bare-question``: nothing of its own to search, so it goes on the previous topic; switched
    off, it stood alone and the tutor refused it (a walkthrough: "Why?" after a good answer, refused)."""
    from baeum import rules
    from baeum.answering.followups import resolve

    memory = _after_one_turn("What is a tuple?", "A tuple is a sequence of values. [1]")
    searched, resolver = resolve(question, memory)
    assert resolver == "followup:previous-topic" and "tuple" in searched
    with rules.switched_off(["followup:bare-question"]):
        assert resolve(question, memory)[1] == "followup:stands-alone"


def test_the_word_an_ordinal_counts_with_is_not_searched():
    """ "세 번째 항목은 무슨 뜻이야?" was searched with "항목" and answered from a chapter about items."""
    memory = Memory(
        recent=[{"question": "오픈소스 라이선스는 누구를 어떤 위험으로부터 보호해?", "answer": "A. [1]\nB. [1]\nC. [2]", "turn": 1}]
    )
    assert "항목" not in resolve_references("세 번째 항목은 무슨 뜻이야?", memory)


@pytest.mark.parametrize(
    "question",
    ["give me an example", "example?", "why does that matter", "tell me more", "explain that more simply", "show me code for that",
     "how is that different?", "when would I use one then?", "is that always true?", "예를 들어줘", "예시 보여줘", "코드로 보여줘",
     "무슨 뜻이야?", "쉽게 설명해줘", "그건 왜 필요해?", "그거 어디에 써?"],
)  # fmt: skip
def test_a_follow_up_asking_only_for_a_form_of_answer_asks_about_the_turn_before(question):
    """``followup:form-only``: its words say how to answer, not what about, so it is searched and answered for the
    turn before."""
    from baeum.answering.followups import asks_only_form, resolve

    memory = _after_one_turn("리틀 엔디안이 뭐야?", "리틀 엔디안은 가장 낮은 바이트를 먼저 저장한다. [1]")
    assert asks_only_form(question)
    searched, resolver = resolve(question, memory)
    assert resolver == "followup:previous-topic" and "엔디안" in searched


@pytest.mark.parametrize("question", ["예를 들어줘", "코드로 보여줘", "예시 보여줘"])
def test_without_the_form_only_rule_a_korean_request_for_an_example_stood_alone(question):
    """What ``followup:form-only`` changed: "예를 들어줘" had been searched as written (lazy_followups tune, "예를
    들어줘" after real-mode addressing: answered from p.116, about something else)."""
    from baeum import rules
    from baeum.answering.followups import resolve

    memory = _after_one_turn("리틀 엔디안이 뭐야?", "리틀 엔디안은 가장 낮은 바이트를 먼저 저장한다. [1]")
    with rules.switched_off(["followup:form-only"]):
        assert resolve(question, memory)[1] == "followup:stands-alone"


@pytest.mark.parametrize(
    "question", ["What about tuples?", "give me an example of a tuple", "스택 프레임 예시 보여줘", "How do dictionaries work?"]
)
def test_a_follow_up_naming_its_own_subject_asks_for_more_than_a_form(question):
    from baeum.answering.followups import asks_only_form

    assert not asks_only_form(question)


def _chain(*turns: tuple[str, str, str]) -> Memory:
    """Answered turns (question, answer, what it was searched as), oldest first."""
    return Memory(
        recent=[
            {"turn": number, "question": question, "answer": answer, "refused": False, "searched": searched}
            for number, (question, answer, searched) in enumerate(turns, start=1)
        ]
    )


def test_a_chain_of_follow_ups_keeps_the_topic_its_first_question_named():
    """ "what is aliasing?" → "example?" → "why does that matter": the third turn is about aliasing, not about the
    example's words (the tuning part's lazy conversation drifted to "capitalization matters" on another page)."""
    from baeum import rules
    from baeum.answering.followups import CHAIN_TOPIC

    memory = _chain(
        ("What is aliasing?", "An object with more than one reference is aliased. [1]", "what is aliasing"),
        ("example?", "In this example, Python only created one string object. [1]", "alias object one reference example"),
    )
    with rules.counting() as fired:
        resolved = resolve_references("why does that matter", memory)
        anchored = anchored_query("why does that matter", memory)
    assert resolved.startswith("alia object") and anchored == "alia object why does matter"  # "alias", as analysed
    assert fired[CHAIN_TOPIC.name] >= 1
    with rules.switched_off([CHAIN_TOPIC.name]):  # before: the turn before's own word and its answer's
        assert not resolve_references("why does that matter", memory).startswith("alia")
        assert anchored_query("why does that matter", memory) == "example why does matter"


def test_a_follow_up_naming_its_own_subject_is_the_topic_of_the_next():
    """ "and the type of the inner packet?" names what it is about: the next follow-up carries that, not the earlier
    topic it was searched with."""
    memory = _chain(
        ("What is a tunnel?", "A tunnel wraps one packet inside another. [1]", "what is a tunnel"),
        ("and the type of the inner packet?", "The inner packet keeps its own type. [1]", "tunnel wrap packet type inner packet"),
    )
    assert anchored_query("why?", memory).startswith("type inner")


@pytest.mark.parametrize(
    "question", ["what happens if I don't?", "what if the list is empty?", "인자 안 넘기면?", "끝나면 어떻게 돼?", "중간에 빠져나오려면?"]
)
def test_a_question_that_is_only_a_condition_carries_the_topic_of_the_turn_before(question):
    from baeum import rules
    from baeum.answering.followups import CONDITIONAL

    memory = _after_one_turn("How do I change a global variable inside a function?", "Declare it global first. [1]")
    with rules.counting() as fired:
        resolved = resolve_references(question, memory)
    assert resolved.startswith("change global variable") and fired[CONDITIONAL.name] == 1
    with rules.switched_off([CONDITIONAL.name]):  # before: searched alone, "what happens if i don t"
        assert not resolve_references(question, memory).startswith("change global")


@pytest.mark.parametrize("question", ["메모리는 어떻게 계산하면 돼?", "if __name__ == '__main__': 이거 왜 쓰는 거야?", "What is a list?"])
def test_a_question_with_a_main_clause_of_its_own_is_no_condition(question):
    from baeum.answering.followups import CONDITIONAL

    assert not CONDITIONAL(question)
