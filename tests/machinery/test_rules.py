"""Named rules: each fires on its own example, says so, and can be switched off."""

import pytest

from baeum import rules
from baeum.answering.quoting import CLEANERS, NOTE_NUMBER, quotable
from baeum.answering.sentences import CUT_BY_OVERLAP, UNQUOTABLE, is_readable_sentence, why_unquotable


@pytest.mark.parametrize("rule", UNQUOTABLE, ids=lambda rule: rule.name)
def test_every_sentence_rule_rejects_its_own_example_and_names_itself(rule):
    assert rule(rule.example), f"{rule.name} does not fire on its own example"
    with rules.counting() as fired:
        assert why_unquotable(rule.example) == rule.name
    assert fired == {rule.name: 1}


@pytest.mark.parametrize("rule", [*CLEANERS, NOTE_NUMBER], ids=lambda rule: rule.name)
def test_every_quote_cleaner_changes_its_own_example(rule):
    assert rule.test(rule.example) != rule.example, f"{rule.name} leaves its own example as it is"


def test_a_readable_sentence_fires_nothing():
    sentence = "A register is a very fast storage location inside the CPU."
    with rules.counting() as fired:
        assert why_unquotable(sentence, opens_passage=True) == "" and is_readable_sentence(sentence)
    assert not fired


def test_the_cut_overlap_rule_applies_to_a_passages_first_sentence_only():
    assert why_unquotable(CUT_BY_OVERLAP.example, opens_passage=True) == "sentence:cut-by-overlap"
    assert why_unquotable(CUT_BY_OVERLAP.example) == ""


def test_a_rule_switched_off_lets_its_example_through_and_is_not_counted():
    heading = "4.4 The CALL and RET Instructions"
    with rules.counting() as fired, rules.switched_off(["sentence:heading"]):
        assert why_unquotable(heading) != "sentence:heading"
    assert "sentence:heading" not in fired
    assert why_unquotable(heading) == "sentence:heading"  # on again after the block


def test_a_cleaner_switched_off_keeps_what_it_would_cut():
    glued = "Chapter 1 Registers\nA register is a very fast store."
    assert quotable(glued) == "A register is a very fast store."
    with rules.counting() as fired, rules.switched_off(["quote:glued-heading"]):
        assert quotable(glued).startswith("Chapter 1")
    assert "quote:glued-heading" not in fired


def test_nested_counting_blocks_each_count_what_fires_inside_them():
    with rules.counting() as outer:
        why_unquotable("if ( p[0] == 0x12 ) printf ( found );")
        with rules.counting() as inner:
            why_unquotable("4.4 The CALL and RET Instructions")
    assert outer == {"sentence:code": 1, "sentence:heading": 1} and inner == {"sentence:heading": 1}


def test_an_unknown_rule_is_an_error_that_lists_the_rules():
    with pytest.raises(KeyError, match="sentence:heading"), rules.switched_off(["sentence:no-such-rule"]):
        pass


def test_each_follow_up_resolver_decides_its_own_example():
    from baeum.answering.followups import RESOLVERS, resolve
    from baeum.answering.history import Memory

    answered = Memory(
        recent=[
            {
                "turn": 1,
                "question": "What kinds of errors can occur in a program?",
                "answer": "Three kinds of errors can occur in a program: syntax errors, runtime errors, and semantic errors. [1]",
                "refused": False,
                "searched": "",
            }
        ]
    )
    for resolver in RESOLVERS:
        with rules.counting() as fired:
            query, name = resolve(resolver.example, answered)
        assert name == resolver.name, (resolver.example, name, query)
        assert fired == {resolver.name: 1}
    assert resolve("Tell me more about the second one.", answered)[0].startswith("runtime error")


def test_a_resolver_switched_off_hands_the_question_to_the_next():
    from baeum.answering.followups import resolve
    from baeum.answering.history import Memory

    memory = Memory(
        recent=[
            {
                "turn": 1,
                "question": "What kinds of errors are there?",
                "answer": "Errors: syntax errors, runtime errors, and semantic errors.",
                "refused": False,
            }
        ]
    )
    with rules.switched_off(["followup:nth-item"]):
        assert resolve("Tell me more about the second one.", memory)[1] == "followup:previous-topic"


def test_key_point_rules_fire_on_their_examples_and_leave_a_statement_alone():
    from baeum.study.keypoints import NOT_KEY_POINTS, not_a_key_point

    for rule in NOT_KEY_POINTS:
        with rules.counting() as fired:
            assert not_a_key_point(rule.example), rule.name
        assert fired == {rule.name: 1}
    with rules.counting() as fired:
        assert not not_a_key_point("A recursive function calls itself.")
        assert not not_a_key_point("레지스터는 CPU 안의 빠른 저장 장소이다.")
    assert not fired


def test_the_aside_rule_keeps_footnotes_and_side_notes_out_of_a_session():
    from baeum.study.keypoints import ASIDE

    assert ASIDE(ASIDE.example)
    assert not ASIDE((40, [[120, 170]])) and not ASIDE((170, [[120, 170]])) and not ASIDE((0, []))
    with rules.counting() as fired, rules.switched_off([ASIDE.name]):
        assert not rules.applies(ASIDE, ASIDE.example)
    assert not fired


def test_the_cut_off_rule_wants_a_sentences_end_in_either_language():
    from baeum.study.keypoints import CUT_OFF

    assert CUT_OFF(CUT_OFF.example)
    assert not CUT_OFF("A recursive function calls itself.") and not CUT_OFF("레지스터는 CPU 안의 빠른 저장 장소이다")
    assert CUT_OFF("아스키코드가 1 바이트 만을 사용하기 때문에")
    # A footnote marker after the end is no cut: "…명시하고 있다.274", "…삽입한다339 .", "…transformation.5".
    assert not CUT_OFF("이 라이선스에서는 그렇게 명시하고 있다.274") and not CUT_OFF("파일에 공지를 삽입한다339 .")
    assert not CUT_OFF("The ntohl () function performs the opposite transformation.5")
    assert CUT_OFF("the lowest common ancestor of nodes 5 and")


def test_question_rules_keep_a_blank_from_a_sentence_that_cannot_stand_alone():
    from baeum.study.quiz import UNASKABLE, cloze_question

    points_back, answer_in_sentence = UNASKABLE
    assert points_back(points_back.example)
    assert answer_in_sentence(answer_in_sentence.example, "shift")
    with rules.counting() as fired:
        assert cloze_question("This is known as infinite recursion in most textbooks.", "infinite recursion", []) is None
        assert cloze_question("A logical shift is the simplest type of shift in the instruction set.", "logical shift", []) is not None
        assert cloze_question("A logical shift moves bits and is the simplest type of shift.", "shift", []) is None
    assert fired == {"question:points-back": 1, "question:answer-in-sentence": 1}
    kept = cloze_question("A 4-bit number is called a nibble in most assembly books.", "nibble", [])
    assert kept is not None and kept.prompt == "A 4-bit number is called a _____ in most assembly books."
