"""Hybrid fusion (``knowledge.selectors.search.fuse``) on its own: no database, scores given by hand.

Each retriever's scores are inputs here, not doubles of retrieval: ``fuse`` is a pure function of them.
"""

from dataclasses import dataclass

import pytest

from knowledge.selectors.search import VectorScores, fuse


@dataclass(frozen=True)
class _Model:
    """The fields of an embedding model that fusion reads (``baeum.retrieval.embeddings.Embedder``)."""

    model: str
    similarity_scale: str
    lexical_weight: float
    min_similarity: float = 0.0


USE = _Model("use", "absolute", lexical_weight=0.7)
E5 = _Model("e5", "relative", lexical_weight=0.6)


def test_lexical_alone_ranks_by_bm25_and_ties_go_to_the_lower_chunk_id():
    fused = fuse([], {7: 4.0, 3: 4.0, 5: 8.0})
    assert [chunk_id for chunk_id, _ in fused] == [5, 3, 7]
    assert fused[0][1] == pytest.approx(1.0) and fused[1][1] == fused[2][1] == pytest.approx(0.5)


def test_vectors_alone_rank_by_evidence_and_an_absolute_scale_floors_negative_cosines_at_zero():
    fused = dict(fuse([VectorScores(USE, {1: 0.2, 2: 0.6, 3: -0.1})], {}))
    assert fused == pytest.approx({2: 0.6, 1: 0.2, 3: 0.0})
    assert [chunk_id for chunk_id, _ in fuse([VectorScores(USE, {1: 0.2, 2: 0.6, 3: -0.1})], {})] == [2, 1, 3]


def test_a_relative_scale_reads_cosines_against_the_querys_own_candidates():
    fused = dict(fuse([VectorScores(E5, {1: 0.80, 2: 0.90, 3: 0.85})], {}))
    assert fused == pytest.approx({1: 0.0, 2: 1.0, 3: 0.5})  # best 1, worst 0, whatever the raw cosines
    assert dict(fuse([VectorScores(E5, {4: 0.83})], {})) == {4: 1.0}  # a single candidate is the best one


def test_a_near_tie_in_bm25_is_settled_by_meaning_and_a_clear_keyword_winner_is_not_overturned():
    meaning = VectorScores(USE, {1: 0.1, 2: 0.9})
    near_tie = fuse([meaning], {1: 10.0, 2: 9.9})  # BM25 hardly prefers 1: confidence 0.01
    assert near_tie[0][0] == 2
    clear = fuse([meaning], {1: 10.0, 2: 1.0})  # BM25 is sure of 1: confidence 0.9
    assert clear[0][0] == 1
    weight = 0.7 + 0.3 * 0.9  # the model's lexical weight, grown towards 1 with BM25's confidence
    assert dict(clear) == pytest.approx({1: weight * 1.0 + (1 - weight) * 0.1, 2: weight * 0.1 + (1 - weight) * 0.9})


@pytest.mark.parametrize(("alpha", "winner"), [(0.0, 2), (1.0, 1)])
def test_alpha_sets_the_lexical_weight_for_every_model(alpha, winner):
    fused = fuse([VectorScores(USE, {1: 0.1, 2: 0.9})], {1: 10.0, 2: 9.0}, alpha=alpha)
    assert fused[0][0] == winner
    if alpha == 1.0:
        assert dict(fused) == pytest.approx({1: 1.0, 2: 0.9})  # vectors count for nothing


def test_a_chunk_only_bm25_found_is_weighed_with_its_own_models_lexical_weight():
    # Two materials, one embedded with USE, one with e5; chunk 9 (an e5 material's) was found by BM25 only.
    vectors = [VectorScores(USE, {1: 0.5}), VectorScores(E5, {2: 0.9, 3: 0.8})]
    lexical = {1: 10.0, 9: 5.0}
    confidence = 0.5
    use_weight, e5_weight = 0.7 + 0.3 * confidence, 0.6 + 0.4 * confidence
    fused = dict(fuse(vectors, lexical, model_of_chunk={9: "e5"}))
    assert fused[9] == pytest.approx(e5_weight * 0.5)  # no vector evidence: its own model's lexical weight
    assert fused[1] == pytest.approx(use_weight * 1.0 + (1 - use_weight) * 0.5)
    assert fused[2] == pytest.approx((1 - e5_weight) * 1.0) and fused[3] == pytest.approx(0.0)
    unknown = dict(fuse(vectors, lexical))
    assert unknown[9] == pytest.approx(e5_weight * 0.5)  # model unknown: the lowest weight among the models searched (e5's)
    only_use = dict(fuse([VectorScores(USE, {1: 0.5})], lexical, model_of_chunk={9: "e5"}))
    assert only_use[9] == pytest.approx(use_weight * 0.5)  # e5 not searched this time: the weight of the models that were


def test_no_scores_fuse_to_nothing():
    assert fuse([], {}) == []
    assert fuse([VectorScores(USE, {})], {}) == []
