"""The candidate-sentence weights: observed rankings, their labels, the pairwise fit and its judgement."""

import json

import pytest

from baeum.answering import weights
from baeum.answering.answers import Passage
from baeum.answering.extractive import FEATURE_WEIGHTS, HAND_WEIGHTS, extractive_answer, sentence_features, sentence_score


def _passage(text: str, n: int = 1) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id="ref", title="Book", chunk_index=n, page_number=n, text=text)


def test_the_offline_answer_reports_each_ranking_it_makes_to_an_observer():
    passage = _passage("The stack is a region of memory. The ESP register points to the top of the stack.")
    with weights.observing() as seen:
        extractive_answer("Which register points to the top of the stack?", [passage])
    assert len(seen) == 1
    ranking = seen[0]
    assert ranking.sentences == ["The stack is a region of memory.", "The ESP register points to the top of the stack."]
    assert [len(values) for values in ranking.values] == [len(weights.FEATURES)] * 2
    extractive_answer("Which register points to the top of the stack?", [passage])
    assert len(seen) == 1  # outside the block nothing is recorded


def test_term_values_weighted_by_the_shipped_weights_are_the_score():
    features = sentence_features(overlap=0.5, rank=2, position=1, long_characters=10, defines=True, anaphoric_opening=True)
    values = weights.term_values(features)
    assert weights.score(values, FEATURE_WEIGHTS) == pytest.approx(sentence_score(features))


def test_a_sentence_holds_an_answer_span_or_an_evidence_phrase_whatever_the_spacing():
    assert weights.holds("The ESP register points to the top.", ["ESP register"])
    assert weights.holds("세그먼트 레지스터는 메모리 구역을 가리킨다.", ["세그먼트레지스터는"])
    # A sentence that is part of a longer evidence phrase (the phrase runs over two sentences) holds it.
    sentence = "The slowest phase is usually the bottleneck of the code."
    assert weights.holds(sentence, ["the slowest phase is usually the bottleneck of the code. So it matters"])
    assert not weights.holds("Short.", ["a short phrase that is much longer than the sentence"])
    assert not weights.holds("The stack grows down.", ["heap"])
    # The book's superscripts hold a phrase read from the plain PDF text.
    assert weights.holds("Typically, we can turn a factor of 2ⁿ into a factor of 2n/2.", ["turn a factor of 2n into a factor"])


def _ranking(labels: list[bool], values: list[list[float]], part: str = "tune") -> weights.Ranking:
    return weights.Ranking(question="q", sentences=[f"s{i}" for i in range(len(labels))], values=values, answers=labels, part=part)


def _values(overlap: float, *, defines: float = 0.0, long: float = 0.0) -> list[float]:
    return weights.term_values(sentence_features(overlap=overlap, rank=0, position=0, long_characters=long, defines=bool(defines)))


def test_labelled_keeps_only_rankings_that_can_teach():
    answering = weights.Ranking(question="q", sentences=["The ESP register points up.", "Memory."], values=[_values(1), _values(0.5)])
    all_wrong = weights.Ranking(question="q", sentences=["Memory.", "Heap."], values=[_values(1), _values(0.5)])
    kept = weights.labelled([answering, all_wrong], ["ESP register"], source="squad", part="check")
    assert kept == [answering] and answering.answers == [True, False] and (answering.source, answering.part) == ("squad", "check")


def test_the_fit_learns_what_the_answering_sentences_share_and_is_scaled_to_overlap():
    # The answering sentence defines the term; one other shares more of the question but is long, one shares less.
    rankings = [
        _ranking([True, False, False], [_values(0.6 + i / 1000, defines=1), _values(0.7, long=200), _values(0.3 + i / 100)])
        for i in range(30)
    ]
    fitted = weights.fit(rankings)
    assert set(fitted) == set(weights.FEATURES) and fitted["overlap"] == 1.0
    assert fitted["defines"] > 0 and fitted["long_characters"] < 0
    judged = weights.judged(rankings, fitted)
    assert judged == {"rankings": 30, "top1": 1.0, "mrr": 1.0}  # separable by construction: the fit must find it
    assert weights.judged(rankings, {**HAND_WEIGHTS, "defines": 0.0, "long_characters": 0.0})["top1"] == 0.0


def test_nothing_to_fit_is_an_error_that_says_so():
    with pytest.raises(ValueError, match="nothing to fit"):
        weights.fit([_ranking([True, True], [_values(1), _values(0.5)])])


def test_a_weights_file_without_every_feature_names_the_missing_ones(tmp_path):
    path = tmp_path / "weights.json"
    path.write_text(json.dumps({"weights": {"overlap": 1.0}}))
    with pytest.raises(ValueError, match="no weight for .*passage_rank.*fit_weights"):
        weights.load_weights(path)
    assert weights.load_weights(tmp_path / "missing.json") is None


def _defines(overlap: float, defines: bool) -> list[float]:
    return weights.term_values(sentence_features(overlap=overlap, rank=0, position=0, defines=defines))


def test_a_partial_fit_learns_only_the_named_features_and_holds_the_others():
    """``fit_weights --only defines``: where the answering sentence defines the term it shares a little less of the
    question; elsewhere it shares more."""
    rankings = [_ranking([True, False], [_defines(0.5 - i / 1000, True), _defines(0.55, False)]) for i in range(30)]
    rankings += [_ranking([True, False], [_defines(0.6 + i / 1000, False), _defines(0.3, False)]) for i in range(30)]
    fitted = weights.fit(rankings, only=("defines",), held=HAND_WEIGHTS)
    assert fitted["defines"] > 0.05
    assert {name: value for name, value in fitted.items() if name != "defines"} == {
        name: value for name, value in HAND_WEIGHTS.items() if name != "defines"
    }
    with pytest.raises(ValueError, match="No feature named gives_nothing"):
        weights.fit(rankings, only=("gives_nothing",), held=HAND_WEIGHTS)


def test_a_partial_weights_file_ships_only_what_it_fitted(tmp_path):
    path = tmp_path / "weights.json"
    path.write_text(json.dumps({"weights": {"defines": 0.2}, "fitted": ["defines"]}))
    loaded = weights.load_weights(path, hand=HAND_WEIGHTS)
    assert loaded == {**HAND_WEIGHTS, "defines": 0.2}
    with pytest.raises(ValueError, match="partial fit"):
        weights.load_weights(path)


def test_a_ranking_is_labelled_by_the_pages_its_candidates_stand_on():
    ranking = weights.Ranking(question="q", sentences=["a", "b", "c"], values=[_values(1)] * 3, pages=[[3, 3], [5, 6], [9, 9]])
    assert weights.labelled_by_pages([ranking], [6], source="conversations", part="tune") == [ranking]
    assert ranking.answers == [False, True, False]
    assert weights.labelled_by_pages([ranking], [1], source="conversations", part="tune") == []  # nothing on page 1


def test_each_observed_candidate_carries_the_pages_of_its_sentence():
    passage = Passage(
        n=1, chunk_id=1, ref_id="ref", title="Book", chunk_index=0, page_number=4,
        text="The stack is a region of memory. The ESP register points to the top of the stack.", page_starts=((0, 4), (33, 5)),
    )  # fmt: skip
    with weights.observing() as seen:
        extractive_answer("Which register points to the top of the stack?", [passage])
    assert seen[0].pages == [[4, 4], [5, 5]]
