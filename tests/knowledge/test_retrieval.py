"""The one way in to retrieval: ``retrieve`` / ``retrieve_chunks`` / ``retrieve_stats`` over a ``Scope``.

Ranges are applied in SQL: a search inside a range returns the range's chunks even when the best match
of the whole material lies outside it, and never a chunk outside it.
"""

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.scoping import ScopeError
from knowledge import selectors
from knowledge.selectors import ChunkRange, Scope, retrieve, retrieve_chunks, retrieve_stats
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

TOPICS = ["photosynthesis", "volcanoes", "recursion", "glaciers", "tides", "bridges"]


def _page(topic: str) -> str:
    return f"About {topic}\n" + f"This page explains {topic} in plain words, {topic} and nothing else. " * 30


@pytest.fixture
def book(user, ingest):
    """One material, one topic per page; each page is at least one chunk."""
    material = ingest(user, make_pdf([_page(topic) for topic in TOPICS]), title="Topics")
    assert material.chunk_count >= len(TOPICS)
    return material


def _indexes_of(material, topic: str, user, *, without: str = "") -> set[int]:
    """The chunks that hold ``topic`` (and not ``without``: a chunk may run across two pages)."""
    chunks = selectors.chunk_range(user=user, ref_id=material.ref_id, start=0, end=material.chunk_count)
    return {chunk.chunk_index for chunk in chunks if topic in chunk.content and not (without and without in chunk.content)}


@pytest.mark.parametrize("mode", ["hybrid", "semantic", "lexical"])
def test_a_scope_with_ranges_returns_only_chunks_inside_them(user, book, mode):
    recursion = _indexes_of(book, "recursion", user)
    whole = retrieve(user=user, scope=Scope.materials([book.ref_id]), query="What is recursion?", k=3, mode=mode, **_floor(mode))
    assert whole and whole[0].chunk.chunk_index in recursion  # the material's best match ...
    volcano = sorted(_indexes_of(book, "volcanoes", user, without="recursion"))
    ranged = Scope.within([ChunkRange(book.ref_id, volcano[0], volcano[-1])])
    hits = retrieve(user=user, scope=ranged, query="What is recursion?", k=3, mode=mode, **_floor(mode))
    # ... lies outside the range: only the range's chunks come back, never the better match outside.
    assert all(volcano[0] <= hit.chunk.chunk_index <= volcano[-1] for hit in hits)
    assert not {hit.chunk.chunk_index for hit in hits} & recursion
    if mode != "lexical":  # the words are not there, but the nearest chunks inside the range are
        assert hits


def _floor(mode: str) -> dict:
    return {"min_similarity": -1.0} if mode == "semantic" else {}


def test_ranges_are_a_condition_of_the_sql_not_a_filter_afterwards(user, book):
    volcano = sorted(_indexes_of(book, "volcanoes", user))
    scope = Scope.within([(book.ref_id, volcano[0], volcano[-1])])
    with CaptureQueriesContext(connection) as queries:
        hits = retrieve(user=user, scope=scope, query="volcanoes", k=10)
    assert hits and all(hit.chunk.chunk_index in volcano for hit in hits)
    searches = [query["sql"] for query in queries.captured_queries if "UNION ALL" in query["sql"] or "knowledge_chunkterm" in query["sql"]]
    assert searches and all("range_material" in sql for sql in searches)
    # Without ranges the statements carry no range condition at all.
    with CaptureQueriesContext(connection) as queries:
        retrieve(user=user, scope=Scope.materials([book.ref_id]), query="volcanoes", k=10)
    assert not any("range_material" in query["sql"] for query in queries.captured_queries)


def test_a_material_without_ranges_is_read_whole_beside_a_ranged_one(user, ingest, book):
    other = ingest(user, make_pdf([_page("recursion")]), "other.pdf", title="Other")
    volcano = sorted(_indexes_of(book, "volcanoes", user, without="recursion"))
    scope = Scope(ref_ids=(book.ref_id, other.ref_id), ranges=(ChunkRange(book.ref_id, volcano[0], volcano[-1]),))
    hits = retrieve(user=user, scope=scope, query="What is recursion?", k=5)
    assert hits[0].ref_id == other.ref_id
    assert all(hit.ref_id == other.ref_id or hit.chunk.chunk_index in volcano for hit in hits)


def test_another_user_sees_nothing_through_any_scope(user, other_user, book):
    volcano = sorted(_indexes_of(book, "volcanoes", user))
    assert retrieve(user=other_user, scope=Scope.library(), query="volcanoes", k=5) == []
    for scope in (Scope.materials([book.ref_id]), Scope.within([ChunkRange(book.ref_id, volcano[0], volcano[-1])])):
        with pytest.raises(selectors.MaterialNotFound):
            retrieve(user=other_user, scope=scope, query="volcanoes")
    with pytest.raises(selectors.MaterialNotFound):
        retrieve_chunks(user=other_user, scope=Scope.within([ChunkRange(book.ref_id, 0, 3)]))
    assert retrieve_stats(user=other_user, scope=Scope.materials([book.ref_id])) == {}
    assert retrieve_stats(user=other_user, scope=Scope.library()) == {}


@pytest.mark.parametrize("nobody", [None, AnonymousUser()])
def test_every_retrieval_fails_closed_without_a_user(nobody):
    with pytest.raises(ScopeError):
        retrieve(user=nobody, scope=Scope.library(), query="anything")
    with pytest.raises(ScopeError):
        retrieve(user=nobody, scope=Scope.materials([]), query="anything")  # even a scope that reads nothing
    with pytest.raises(ScopeError):
        retrieve_chunks(user=nobody, scope=Scope.within([("mat_x", 0, 1)]))
    with pytest.raises(ScopeError):
        retrieve_stats(user=nobody, scope=Scope.library())


def test_range_mode_returns_each_range_in_chunk_order(user, book):
    last = book.chunk_count - 1
    scope = Scope.within([ChunkRange(book.ref_id, last - 1, last), ChunkRange(book.ref_id, 2, 0)])
    with CaptureQueriesContext(connection) as queries:
        chunks = retrieve_chunks(user=user, scope=scope)
    assert [chunk.chunk_index for chunk in chunks] == [last - 1, last, 0, 1, 2]
    # The refIds checked, the materials' ids, then the chunks of every range at once (not one query a range).
    assert len(queries.captured_queries) == 3


def test_stats_mode_over_chosen_materials_or_the_whole_library(user, ingest, book):
    other = ingest(user, make_pdf([_page("tides")]), "other.pdf")
    expected = {"chunkCount": book.chunk_count, "status": "READY", "pageCount": len(TOPICS)}
    assert retrieve_stats(user=user, scope=Scope.materials([book.ref_id])) == {book.ref_id: expected}
    assert set(retrieve_stats(user=user, scope=Scope.library())) == {book.ref_id, other.ref_id}


def test_an_empty_scope_reads_nothing_and_narrowing_keeps_ranges_of_kept_materials(user, book):
    assert retrieve(user=user, scope=Scope.materials([]), query="volcanoes") == []
    scope = Scope.within([ChunkRange(book.ref_id, 0, 1), ChunkRange("mat_gone", 0, 1)])
    narrowed = scope.narrowed_to([book.ref_id])
    assert narrowed.ref_ids == (book.ref_id,) and narrowed.ranges == (ChunkRange(book.ref_id, 0, 1),)
    assert Scope.library().narrowed_to(["a", "b"]) == Scope.materials(["a", "b"])
    assert scope.narrowed_to([]).is_empty


def test_bm25_reads_the_corpus_statistics_from_the_material_rows_with_the_same_scores(user, ingest):
    from dataclasses import replace

    from knowledge.models import Chunk, Material
    from knowledge.selectors import search
    from tests.pdfgen import make_pdf

    books = [
        ingest(user, make_pdf(["The stack pointer ESP points to the top of the stack. " * 6, "Registers hold values. " * 9]), "a.pdf"),
        ingest(user, make_pdf(["A stack frame holds the locals of a call; EBP points to it. " * 5]), "b.pdf"),
    ]
    for book in books:
        material = Material.objects.for_user(user).get(pk=book.pk)
        terms = sum(Chunk.objects.for_user(user).filter(material=material).values_list("term_count", flat=True))
        assert material.term_total == terms > 0  # kept by ingestion
    scope = search._scope(user=user, ref_ids=None, type=None)
    chunks = Chunk.objects.for_user(user).count()
    assert scope.corpus == (float(chunks), pytest.approx(sum(book.term_total for book in Material.objects.for_user(user)) / chunks))
    given = search._lexical_candidates(scope, "what does the stack pointer point to", 5)
    counted = search._lexical_candidates(replace(scope, corpus=None), "what does the stack pointer point to", 5)
    assert given and given.keys() == counted.keys()
    assert all(given[chunk] == pytest.approx(counted[chunk]) for chunk in given)
    assert "avg(term_count)" not in search._bm25_sql(scope) and "avg(term_count)" in search._bm25_sql(replace(scope, corpus=None))


def test_per_page_gives_the_best_chunk_of_each_page_and_k_pages(user, ingest):
    """A page of several chunks on one topic fills a chunk list; per page, the next pages get the places."""
    long_page = "About volcanoes\n" + "Volcanoes erupt magma, and volcanoes build mountains of ash and lava. " * 60
    material = ingest(user, make_pdf([long_page, _page("volcanoes"), _page("glaciers"), _page("tides")]), title="Volcanoes")
    chunks = retrieve(user=user, scope=Scope.materials([material.ref_id]), query="volcanoes erupt magma", k=3)
    assert len({hit.chunk.own_pages[0] for hit in chunks}) < 3  # the long page takes several places
    pages = retrieve(user=user, scope=Scope.materials([material.ref_id]), query="volcanoes erupt magma", k=3, per_page=True)
    assert len(pages) == 3
    shown: set[int] = set()
    for hit in pages:  # each hit shows a page the better ones do not
        own = set(range(hit.chunk.own_pages[0], hit.chunk.own_pages[1] + 1))
        assert not own <= shown
        shown |= own
    assert pages[0].chunk.own_pages[0] == 1 and 2 in shown  # still best first: the volcano pages lead


def test_an_english_question_finds_the_name_a_korean_text_writes_in_latin(user, ingest):
    """The licence guide writes "PostgreSQL" in Latin on one of its pages: an English question naming it is
    searched for it as a keyword, not only by meaning; English words a Korean text writes often (a listing's)
    are not."""
    pages = [
        f"제{n}장 라이선스 일반\n"
        + "오픈소스 라이선스는 소프트웨어 사용자에게 권한을 부여하고 의무를 지운다. " * 12
        + "license notice " * 3
        for n in range(1, 31)
    ]
    pages[5] = "제6장 PostgreSQL 라이선스\nPostgreSQL 라이선스는 기여자의 피드백 손실을 막지 않는 허용적 라이선스이다. " * 6
    material = ingest(user, make_pdf(pages), "guide.pdf", title="라이선스 해설서")
    assert material.korean is True
    hits = retrieve(user=user, scope=Scope.library(), query="under the postgresql license are contributors protected", mode="lexical")
    assert hits and "PostgreSQL" in hits[0].chunk.content, [hit.chunk.content[:40] for hit in hits]
    assert not retrieve(user=user, scope=Scope.library(), query="what does the notice say", mode="lexical")
