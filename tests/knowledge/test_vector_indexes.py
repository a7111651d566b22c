"""A large library gets an HNSW index of its own (knowledge.services.vector_indexes), searches of the whole
library read it, and it goes when the library shrinks. The threshold is lowered here so a few small PDFs
make a "large" library; the second user's library stays on the shared index and sees nothing of the first."""

import pytest
from django.db import connection

from accounts.rls import rls_system
from knowledge.models import ChunkEmbedding
from knowledge.selectors import Scope, retrieve, search
from knowledge.services.materials import material_delete
from knowledge.services.vector_indexes import vector_indexes_sync
from tests.pdfgen import make_pdf

# transaction=True: an own index is made by the owner role on a connection of its own (CREATE INDEX CONCURRENTLY cannot run in a transaction).
pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = [
    "A register is a small fast storage location inside the processor.",
    "The stack grows downward in memory and ESP points to its top.",
    "An interrupt suspends the running program to handle an event.",
    "Little endian machines store the least significant byte first.",
]


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(search, "LARGE_LIBRARY_VECTORS", 6)
    monkeypatch.setattr("knowledge.services.vector_indexes.LARGE_LIBRARY_VECTORS", 6)
    search.owner_indexes_forget()
    yield
    search.owner_indexes_forget()


def _indexes() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexname FROM pg_indexes WHERE indexname LIKE %s", [search.OWNER_INDEX_PREFIX + "%"])
        return {row[0] for row in cursor.fetchall()}


def test_a_large_library_gets_its_own_index_searches_read_it_and_it_goes_when_the_library_shrinks(
    user, other_user, ingest, small_threshold
):
    books = [ingest(user, make_pdf([f"Chapter {n} {text} " * 8 for n, text in enumerate(TOPICS, 1)]), f"book{i}.pdf") for i in range(3)]
    theirs = ingest(other_user, make_pdf(["A register is a small fast storage location. " * 8]), "theirs.pdf")
    with rls_system(why="test: count the vectors the index covers"):
        vectors = ChunkEmbedding.objects.unscoped().filter(owner_id=user.pk).count()
    assert vectors >= 6

    name = search.owner_index_name(user.pk, books[0].embedding_model)
    assert _indexes() == {name}  # made by the background task queued when the library passed the threshold
    assert vector_indexes_sync() == {"made": [], "dropped": []}  # the other learner's one-chunk library has none

    search.owner_indexes_forget()
    statement = search._vector_statement(
        owner_ids=[user.pk],
        model=books[0].embedding_model,
        dimension=512,
        material_ids=[b.pk for b in books],
        query_vector=[0.1] * 512,
        k=3,
        whole_library=True,
    )
    assert "LIMIT %(wide)s" in statement.sql  # the owner's own index, read in order
    hits = retrieve(user=user, scope=Scope.library(), query="Which byte does a little endian machine store first?", k=3, mode="semantic")
    assert hits and "least significant byte" in hits[0].chunk.content
    assert {hit.ref_id for hit in hits} <= {book.ref_id for book in books}
    assert not [
        hit for hit in retrieve(user=other_user, scope=Scope.library(), query="least significant byte", k=5) if hit.ref_id != theirs.ref_id
    ]
    chosen = retrieve(user=user, scope=Scope.materials([books[1].ref_id]), query="Where does ESP point?", k=2, mode="semantic")
    assert chosen and {hit.ref_id for hit in chosen} == {books[1].ref_id}  # a chosen material: the filtered statement

    with connection.cursor() as cursor:  # the planner reads the owner's index for the whole-library statement
        # A few dozen rows: left to costs, the planner may sort them through the owner b-tree instead. Whether it
        # *can* read the own index in order for this statement is the question (bench_retrieval: large libraries).
        cursor.execute("SET enable_seqscan = off")
        cursor.execute("SET enable_sort = off")
        literal = "[" + ",".join(["0.1"] * 512) + "]"
        cursor.execute(
            "EXPLAIN SELECT chunk_id FROM knowledge_chunkembedding WHERE owner_id = %s AND model = %s "
            "ORDER BY (embedding::vector(512)) <=> %s::vector(512) LIMIT 5",
            [user.pk, books[0].embedding_model, literal],
        )
        plan = " ".join(row[0] for row in cursor.fetchall())
        cursor.execute("RESET enable_seqscan")
        cursor.execute("RESET enable_sort")
    assert name in plan

    material_delete(material=books[0])
    with rls_system(why="test: count the vectors the index covers"):
        left = ChunkEmbedding.objects.unscoped().filter(owner_id=user.pk).count()
    assert _indexes() == ({name} if left >= 3 else set())  # kept down to half the threshold (no rebuild on every wobble)
    for book in books[1:]:
        material_delete(material=book)  # each queues the check
    assert _indexes() == set()
