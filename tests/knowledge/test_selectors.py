"""Retrieval selectors: semantic, range, stats — each scoped to the requesting user, failing closed."""

import numpy as np
import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection, transaction

from accounts.rls import rls_user
from accounts.scoping import ScopeError
from knowledge import selectors
from knowledge.models import Chunk, ChunkEmbedding, Material
from knowledge.selectors import search
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db


def test_semantic_search_finds_the_passage_that_answers(user, ingest, english_pdf, korean_pdf):
    english = ingest(user, english_pdf)
    korean = ingest(user, korean_pdf, "kor.pdf")
    hits = selectors.chunk_search_semantic(user=user, query="What is a recursive function?", k=3)
    assert hits[0].chunk.page_number == 3 and hits[0].ref_id == english.ref_id
    assert hits == sorted(hits, key=lambda hit: -hit.score)
    korean_hits = selectors.chunk_search_semantic(user=user, query="인터럽트 핸들러는 무엇을 하나요?", k=2, ref_ids=[korean.ref_id])
    assert korean_hits[0].chunk.page_number == 2
    assert all(hit.ref_id == korean.ref_id for hit in korean_hits)


def test_semantic_search_filters_by_type_and_minimum_similarity(user, ingest, english_pdf, korean_pdf):
    ingest(user, english_pdf, type="material")
    korean = ingest(user, korean_pdf, "kor.pdf", type="reference")
    hits = selectors.chunk_search_semantic(user=user, query="interrupts", type="reference", k=5)
    assert hits and {hit.ref_id for hit in hits} == {korean.ref_id}
    assert selectors.chunk_search_semantic(user=user, query="interrupts", min_similarity=0.999) == []


def test_another_users_near_duplicate_never_surfaces(user, other_user, ingest, english_pdf):
    mine = ingest(user, make_pdf(["Gardening notes\nTomatoes need six hours of sun and regular watering."]))
    ingest(other_user, english_pdf)  # holds the exact answer to the query below
    hits = selectors.chunk_search_semantic(user=user, query="A function that calls itself is recursive", k=5, min_similarity=-1)
    assert hits and {hit.ref_id for hit in hits} == {mine.ref_id}
    assert all(hit.chunk.owner_id == user.pk for hit in hits)


def test_a_ref_id_of_another_user_behaves_like_one_that_does_not_exist(user, other_user, ingest, english_pdf):
    theirs = ingest(other_user, english_pdf)
    for ref_id in (theirs.ref_id, "mat_doesnotexist"):
        with pytest.raises(selectors.MaterialNotFound) as caught:
            selectors.chunk_search_semantic(user=user, query="recursion", ref_ids=[ref_id])
        assert str(caught.value) == f"No material {ref_id!r} in your library."
        with pytest.raises(selectors.MaterialNotFound):
            selectors.chunk_range(user=user, ref_id=ref_id, start=0, end=5)
        with pytest.raises(selectors.MaterialNotFound):
            selectors.access_material(user=user, ref_id=ref_id)
    assert selectors.material_stats(user=user, ref_ids=[theirs.ref_id]) == {}
    assert list(selectors.material_list(user=user)) == []


@pytest.mark.parametrize("nobody", [None, AnonymousUser()])
def test_selectors_fail_closed_without_a_user(nobody):
    with pytest.raises(ScopeError):
        selectors.chunk_search_semantic(user=nobody, query="anything")
    with pytest.raises(ScopeError):
        selectors.material_list(user=nobody)
    with pytest.raises(ScopeError):
        selectors.material_stats(user=nobody, ref_ids=["mat_x"])
    with pytest.raises(ScopeError):
        Chunk.objects.for_user(nobody)


def test_range_returns_chunks_in_index_order(user, ingest):
    pages = [
        f"Part {word}\n" + f"The {word} part explains {word} thoroughly with many words. " * 25 for word in ["one", "two", "three", "four"]
    ]
    material = ingest(user, make_pdf(pages))
    assert material.chunk_count >= 4
    chunks = selectors.chunk_range(user=user, ref_id=material.ref_id, start=1, end=3)
    assert [chunk.chunk_index for chunk in chunks] == [1, 2, 3]
    assert selectors.chunk_range(user=user, ref_id=material.ref_id, start=3, end=1) == chunks
    assert selectors.chunk_range(user=user, ref_id=material.ref_id, start=500, end=510) == []


def test_stats_report_chunk_count_and_status(user, ingest, english_pdf):
    ready = ingest(user, english_pdf)
    failed = ingest(user, b"", "empty.txt")
    stats = selectors.material_stats(user=user, ref_ids=[ready.ref_id, failed.ref_id, "mat_unknown"])
    assert stats == {
        ready.ref_id: {"chunkCount": ready.chunk_count, "status": "READY", "pageCount": 3},
        failed.ref_id: {"chunkCount": 0, "status": "FAILED", "pageCount": 0},
    }


def test_failed_and_pending_materials_are_not_searched(user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    Material.objects.filter(pk=material.pk).update(status=Material.Status.EMBEDDING)
    assert selectors.chunk_search_semantic(user=user, query="recursion", min_similarity=-1) == []


def _prefer_hnsw(cursor) -> None:
    """Within the current transaction, make the planner take the HNSW index wherever it can: drop the b-tree
    indexes that could serve the owner filter and price scans and sorts out."""
    cursor.execute(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'knowledge_chunkembedding' "
        "AND indexname NOT LIKE 'chunkemb_hnsw%%' AND indexdef LIKE '%%owner_id%%'"
    )
    for (name,) in cursor.fetchall():
        cursor.execute(f'DROP INDEX "{name}"')
    cursor.execute("SET LOCAL enable_seqscan = off; SET LOCAL enable_bitmapscan = off; SET LOCAL enable_sort = off")


def test_a_small_library_is_searched_exactly_even_where_the_planner_prefers_hnsw(user, ingest, english_pdf):
    """An approximate scan filtered to one small owner can miss its best passage; a scope of up to
    EXACT_SCAN_VECTORS vectors is compared with every one of its vectors, whatever the planner prefers."""
    material = ingest(user, english_pdf)
    query = "What is a recursive function?"
    with transaction.atomic(), rls_user(user.pk), connection.cursor() as cursor:
        _prefer_hnsw(cursor)
        scope = search._scope(user=user, ref_ids=None, type=None)
        ((statement, embedder),) = search._vector_statements(scope, query, 3).values()
        cursor.execute("EXPLAIN " + statement.sql, statement.params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
        found = search._similarity_ranking(search._run_together({"vector": statement})["vector"])
        transaction.set_rollback(True)
    assert "hnsw" not in plan, plan
    query_vector = np.asarray(embedder.embed_query(query), dtype=np.float32)
    exact = sorted(
        (
            (row.chunk_id, float(np.dot(query_vector, row.embedding)))
            for row in ChunkEmbedding.objects.for_user(user).filter(material=material)
        ),
        key=lambda item: -item[1],
    )[:3]
    assert [chunk_id for chunk_id, _ in found] == [chunk_id for chunk_id, _ in exact]


def test_filtered_vector_search_returns_k_results_among_many_other_owners(user, ingest, english_pdf):
    """The HNSW index is used with an owner filter and still yields k rows (iterative index scan)."""
    material = ingest(user, english_pdf)
    mine = ChunkEmbedding.objects.for_user(user).filter(material=material).count()
    # Many other owners, each with many vectors close to the query, crowd the index.
    rng = np.random.default_rng(7)
    query_vector = rng.normal(size=512).astype(np.float32)
    query_vector /= np.linalg.norm(query_vector)
    others = [UserFactory() for _ in range(20)]
    rows = []
    for other in others:
        other_material = Material.objects.create(owner=other, title="x", original_filename="x.pdf", extension=".pdf", status="READY")
        for index in range(100):
            noisy = query_vector + 0.05 * rng.normal(size=512)
            chunk = Chunk(
                material=other_material,
                owner=other,
                chunk_index=index,
                page_number=1,
                page_end=1,
                content="c",
                token_count=1,
                content_hash="h",
            )
            rows.append((chunk, noisy / np.linalg.norm(noisy), other_material))
    Chunk.objects.bulk_create([row[0] for row in rows])
    ChunkEmbedding.objects.bulk_create(
        [
            ChunkEmbedding(chunk=chunk, material=mat, owner_id=chunk.owner_id, model="use-multilingual-v3", dimension=512, embedding=vector)
            for chunk, vector, mat in rows
        ]
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE knowledge_chunkembedding")
    k = min(mine, 3)
    # Force the HNSW path (as the planner picks on a large table): inside a transaction that is rolled
    # back, drop the b-tree indexes that could serve the owner filter, and check the plan uses HNSW.
    # As the learner: the login role, which owns the indexes (the system role may not drop them).
    with transaction.atomic(), rls_user(user.pk), connection.cursor() as cursor:
        _prefer_hnsw(cursor)
        vector_literal = "[" + ",".join(f"{value:.6f}" for value in query_vector) + "]"
        cursor.execute(
            "EXPLAIN SELECT chunk_id FROM knowledge_chunkembedding WHERE owner_id = %s AND model = %s "
            "ORDER BY (embedding::vector(512)) <=> %s::vector(512) LIMIT %s",
            [user.pk, "use-multilingual-v3", vector_literal, k],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
        assert "chunkemb_hnsw_use_multilingual_v3" in plan
        found = search._vector_search(
            owner_ids=[user.pk], model="use-multilingual-v3", dimension=512, material_ids=[material.pk], query_vector=query_vector, k=k
        )
        transaction.set_rollback(True)
    assert len(found) == k
    exact = sorted(
        ((embedding.chunk_id, float(np.dot(query_vector, embedding.embedding))) for embedding in ChunkEmbedding.objects.for_user(user)),
        key=lambda item: -item[1],
    )[:k]
    assert [chunk_id for chunk_id, _ in found] == [chunk_id for chunk_id, _ in exact]
