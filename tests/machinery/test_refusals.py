"""The answer-or-refuse decision's signals and the refusal model over them, without the database."""

import dataclasses

import pytest

from baeum import rules
from baeum.answering import refusals
from baeum.answering.answers import Passage
from baeum.answering.evidence import evidence_signals, judge_evidence, observe_evidence, observing_evidence

PASSAGE = Passage(
    n=1, chunk_id=1, ref_id="r", title="Book", chunk_index=0, page_number=3, text="The ESP register points to the top of the stack.",
    vector_score=0.5, vector_threshold=0.3,
)  # fmt: skip


def test_the_signals_say_what_the_rules_decided_on_as_numbers():
    question = "Which register points to the top of the stack in Java?"
    evidence = judge_evidence(question, [PASSAGE], min_coverage=0.5, min_vector=None, strong_coverage=0.9, known=lambda terms: set())
    signals = evidence_signals(question, [PASSAGE], evidence, lambda terms: set(), follow_up=False)
    assert signals["vector_margin"] == pytest.approx(0.2)  # the cosine over its model's bar
    assert signals["names"] == 1 and signals["names_found"] == 0.0  # "Java" is nowhere in the materials
    assert signals["rules_answer"] == 0.0 and signals["reason"] == "names-missing"


def test_signals_are_computed_only_for_an_observer():
    computed = []
    observe_evidence(lambda: computed.append(1) or {})
    assert computed == []
    with observing_evidence() as seen:
        observe_evidence(lambda: {"coverage": 1.0})
    assert seen == [{"coverage": 1.0}]


def _row(coverage: float, names_found: float, answerable: bool) -> dict:
    signals = dict.fromkeys(refusals.SIGNALS, 0.0) | {
        "coverage": coverage,
        "names_found": names_found,
        "rules_answer": float(coverage > 0.5),
    }
    return {"signals": signals, "answerable": answerable}


def test_the_model_refuses_no_more_in_scope_questions_than_the_rules_and_more_out_of_scope_ones():
    # The rules answer on coverage alone; out-of-scope questions here also name what the materials lack.
    rows = [_row(0.6 + i / 100, 1.0, True) for i in range(20)] + [_row(0.6 + i / 100, 0.0, False) for i in range(20)]
    model = refusals.fit(rows)
    rules = refusals.judged(rows, lambda row: bool(row["signals"]["rules_answer"]))
    fitted = refusals.judged(rows, lambda row: refusals.probability(row, model) >= model["bar"])
    assert rules == {"in_scope": 20, "out_of_scope": 20, "false_refusal": 0.0, "refused_out_of_scope": 0.0}
    assert fitted["false_refusal"] == 0.0 and fitted["refused_out_of_scope"] == 1.0
    assert model["weights"]["names_found"] > 0


def test_a_model_needs_both_kinds_of_question():
    with pytest.raises(ValueError, match="both in and out of scope"):
        refusals.fit([_row(0.9, 1.0, True)])


LICENCE_PAGE = Passage(
    n=1, chunk_id=2, ref_id="r", title="Guide", chunk_index=0, page_number=9,
    text="GNU General Public License는 소스 공개를 요구한다. 수정한 코드를 자기 server에서 실행하는 회사는 이를 공개하지 않아도 된다.",
    vector_score=0.5, vector_threshold=0.3, korean=True,
)  # fmt: skip


def _judged(question: str, pairs_written: set, page: Passage = LICENCE_PAGE) -> str:
    def known(terms):
        return {term for term in terms if term in {"server", "side", "public", "license", "gnu", "general"}}

    return judge_evidence(
        question, [page], min_coverage=0.2, min_vector=None, strong_coverage=0.3, known=known,
        pairs_known=lambda pairs: {pair for pair in pairs if pair in pairs_written},
    ).reason  # fmt: skip


def test_a_name_of_several_words_is_in_other_language_materials_only_where_its_words_stand_together():
    # An English question over a Korean licence guide that writes "server", "public" and "license" in Latin, apart.
    question = "What does the Server Side Public License require from cloud providers?"
    with rules.counting() as fired:
        assert _judged(question, set()) == "names-missing"
    assert fired["evidence:name-phrases"] == 1
    written = {("Server", "Side"), ("Side", "Public"), ("Public", "License")}
    assert _judged(question, written) != "names-missing"  # the materials write it elsewhere
    assert _judged("What does the General Public License ask for?", set()) != "names-missing"  # on the page at hand
    with rules.switched_off(["evidence:name-phrases"]):
        assert _judged(question, set()) != "names-missing"


def test_in_one_language_a_name_of_several_words_is_found_by_any_of_its_words():
    # "How many Doctor Who Christmas Specials have been shown?" over an article that writes "Doctor Who" and
    # "Christmas special" apart: refusing it raised SQuAD's false refusals (check 0.032 -> 0.047).
    english = dataclasses.replace(
        LICENCE_PAGE, korean=False, text="The GNU General Public License asks for the source. A server need not publish it."
    )
    assert _judged("What does the Server Side Public License require from cloud providers?", set(), english) != "names-missing"


def test_a_name_in_one_word_found_is_enough_beside_a_phrase_never_written():
    # "GNU" is an acronym (not a name by its case); "Stallman" is not in the materials, "General Public" is.
    assert _judged("Did Stallman write the Server Side Public License?", set()) == "names-missing"
    assert _judged("Does the Server Side Public License differ from the General Public License?", set()) != "names-missing"


CRC_PAGE = Passage(
    n=1, chunk_id=3, ref_id="r", title="CRC paper", chunk_index=0, page_number=23,
    text="MD5 takes 6.8 CPU cycles per byte and SHA-1 takes 7.1; the table holds 256 entries of 64 bits.",
    vector_score=0.9, vector_threshold=0.3, korean=False,
)  # fmt: skip


def test_a_korean_questions_latin_name_is_found_only_whole():
    """Walkthrough 26: "SHA-256은 어떻게 동작해?" over a CRC paper was answered, its terms "sha" and "256" both on a page
    that writes "SHA-1" and "256 entries". The name counts whole ("sha-256" or "sha256"), rule ``crosslingual:whole-names``."""
    from baeum.answering.evidence import WHOLE_NAMES, written_names

    assert written_names("SHA-256은 어떻게 동작해?") == [("sha-256", "sha256")]

    def judged(question: str) -> str:
        return judge_evidence(question, [CRC_PAGE], min_coverage=0.2, min_vector=0.5, strong_coverage=0.3, known=lambda terms: set()).reason

    with rules.counting() as fired:
        assert judged("SHA-256은 어떻게 동작해?") == "crosslingual:shared-terms-missing"
    assert fired[WHOLE_NAMES.name] == 1
    assert judged("SHA-1은 얼마나 빨라?") == "crosslingual:covered"  # written whole on the page
    with rules.switched_off([WHOLE_NAMES.name]):  # before: found by its parts
        assert judged("SHA-256은 어떻게 동작해?") == "crosslingual:covered"
