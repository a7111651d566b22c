"""The sufficiency judgement reads each passage's cosine against its own embedding model's threshold."""

from baeum.grounding import Passage, judge_evidence

QUESTION = "How does a hash table handle collisions?"
TEXT = "A hash table maps keys to values; collisions share a bucket and are resolved by chaining."


def _passage(vector_score: float, threshold: float | None) -> Passage:
    return Passage(
        n=1,
        chunk_id=1,
        ref_id="r",
        title="t",
        chunk_index=0,
        page_number=1,
        text=TEXT,
        vector_score=vector_score,
        vector_threshold=threshold,
    )


def _judge(passages, min_vector=None):
    return judge_evidence(QUESTION, passages, min_coverage=0.3, min_vector=min_vector, strong_coverage=1.01)


def test_a_cosine_is_judged_on_its_models_scale():
    assert _judge([_passage(0.5, 0.25)]).sufficient  # USE: 0.5 is a clear match
    assert not _judge([_passage(0.5, 0.80)]).sufficient  # e5: 0.5 is below anything related
    assert _judge([_passage(0.5, 0.80), _passage(0.85, 0.80)]).sufficient


def test_a_configured_threshold_overrides_every_model():
    assert not _judge([_passage(0.5, 0.25)], min_vector=0.6).sufficient
    assert _judge([_passage(0.7, 0.80)], min_vector=0.6).sufficient


def test_high_coverage_alone_is_sufficient_and_no_vector_is_not():
    strong = judge_evidence(QUESTION, [_passage(0.0, 0.80)], min_coverage=0.3, min_vector=None, strong_coverage=0.45)
    assert strong.sufficient and strong.coverage >= 0.45
    assert not _judge([Passage(n=1, chunk_id=1, ref_id="r", title="t", chunk_index=0, page_number=1, text=TEXT)]).sufficient
