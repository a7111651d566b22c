"""Search over the user's chunks: semantic (pgvector), lexical (BM25 over Kiwi/English terms plus
pg_trgm for identifiers), hybrid (score-normalised weighted fusion), rerankers and multi-query.

Every function takes the requesting user; the owner filter is in every SQL statement, and refIds are
checked against the user's materials first (someone else's refId is "not found"). Chunk ranges
(``(refId, first, last)``) are a condition of the same statements, never a filter applied afterwards.
Callers outside knowledge go through ``knowledge.selectors.retrieval.retrieve`` and its ``Scope``.
"""

from __future__ import annotations

import functools
import re
import threading
import time
import weakref
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Count

from accounts.scoping import owner_id_of
from baeum import rules
from baeum.answering import prompts
from baeum.answering.crosslingual import identifiers
from baeum.answering.forms import defined_term, definition_patterns
from baeum.extraction.tables import superscript_references
from baeum.language import glossary, transliteration, vocabulary
from baeum.language.analysis import analyze, title_terms
from baeum.language.questions import analyse_question, hint_variants
from baeum.language.text import is_hangul_heavy, normalize_query
from baeum.retrieval import rerank
from baeum.retrieval.embeddings import Embedder
from core.providers import embedder_for_model

from ..models import Chunk, ChunkEmbedding, ChunkTerm, Gloss, VocabularyWord
from .materials import materials_in_scope

MODES = ("hybrid", "semantic", "lexical")

# --- Tuning (each with where it comes from; the measured ones are in docs/evaluation.md) ----------
BM25_K1 = 1.2  # term-frequency saturation: Okapi BM25's usual value, not tuned here
BM25_B = 0.75  # length normalisation: Okapi BM25's usual value, not tuned here
# Long queries skip terms in more than this share of the chunks (little evidence, most of the cost) ...
LONG_QUERY_MAX_DF = 0.5
LONG_QUERY_TERMS = 12  # ... a query is long past this many distinct terms (a pasted question, not a search)
SMALL_CORPUS_CHUNKS = 20  # below this many chunks every term counts: document frequencies say little
CANDIDATES = 30  # first-stage width of each retriever in hybrid mode (docs/evaluation.md, eval_retrieval)
MIN_EF_SEARCH = 40  # pgvector's default HNSW candidate list; a wider search asks for 2 × k
MAX_IDENTIFIERS = 3  # codes (ORD-2024-001, file_name.py) matched verbatim per query, each up to k chunks
MIN_IDENTIFIER_CHARS = 4  # shorter "codes" (v1, a.b) match too much text to be evidence
LLM_RERANK_PASSAGE_CHARS = 800  # what the LLM reranker reads of each candidate: its opening is enough to score
LLM_RERANK_MAX_TOKENS = 200  # room for the reply: a JSON list of one score per candidate
MMR_DIVERSITY = 0.5  # the mmr reranker's balance of relevance and novelty (equal weight)
# A question that names its source ("… shown in the cash flow statement") ranks first the chunks where a
# page opens with that source's title; measured on ../shared/eval/financebench_dev (docs/evaluation.md, eval_documents).
SOURCE_BOOST = 1.0  # added to a fused score (0..1): the named source's pages come first, ordered by relevance
TITLE_LINES = 8  # a page's title is among its first lines (after running heads and the company name)
TITLE_MAX_CHARS = 90  # a title line is short; a sentence that mentions the statement is not its title
# Where a page's first TITLE_LINES lines are looked for first: they end within 1,500 characters on
# 99 % of financebench_dev's 2,489 pages (median 704).
TITLE_HEAD_CHARS = 1500
# Whitespace as Python's str.split() sees it (PDF text carries no-break and ideographic spaces), for
# folding a page's first lines in SQL exactly as a reader would: runs of it count as one space.
_WHITESPACE_CLASS = "[\\s\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+"
# Vectors of recent questions, per process (a follow-up, a retry, another page of results or the tutor
# after the search API ask the same words again); 1,024 USE vectors are 2 MB.
QUERY_VECTOR_CACHE = 1024
# How many passages a search returns when the caller does not say: what a tutor's answer reads and the
# search API shows (answer_hit and page-hit@5 in docs/evaluation.md are measured at this K).
TOP_K = 5
# "What is X?": a chunk with a sentence that defines X ("Cyclic Redundancy Check (CRC) is a well-known technique …",
# ``forms.definition_patterns``) gets this much added to its fused score (0..1), found wherever it ranks: an acronym a
# paper writes on every page left its definition outside both retrievers' first 30 (rule ``search:defines-term``).
# As ``SOURCE_BOOST``: the defining chunks come first, ordered by their own relevance.
DEFINITION_BOOST = 1.0
DEFINITION_CHUNKS = 5  # chunks of definitions read at most: the first ones in reading order, across the materials
# A candidate's section title holding the query's terms is evidence the section is about them: this much is
# added to its fused score (0..1) for a title holding every term. Chosen on the lock box's tuning part (0.1,
# 0.2 and 0.4 within a turn of each other there) and checked on the check part (docs/evaluation.md, history).
HEADING_WEIGHT = 0.2
_IDENTIFIER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_]*(?:[\-./:][A-Za-z0-9_]+)+|[A-Za-z]+\d+[A-Za-z0-9]*|\w+_\w+")


@dataclass(frozen=True)
class SearchHit:
    chunk: Chunk
    score: float  # the score the results are ranked by (depends on the mode)
    vector_score: float | None = None  # cosine similarity, when the vector retriever saw the chunk
    lexical_score: float | None = None  # BM25, when the lexical retriever saw the chunk

    @property
    def ref_id(self) -> str:
        return self.chunk.material.ref_id


@dataclass(frozen=True)
class _Scope:
    owner_ids: list[int]  # the requesting user, and the owners of the courses' materials in scope
    material_ids: list[int]
    by_model: dict[tuple[str, int], list[int]]
    # (material id, first chunk index, last) of a scope with chunk ranges: a material named here is read
    # only inside them, in SQL (``_RANGES_SQL``); a material not named is read whole.
    ranges: tuple[tuple[int, int, int], ...] = ()
    # Every READY material of the owner is in scope (the library, no type) and no course's: a large
    # library's own vector index then answers without a material filter (``_vector_statement``).
    whole_library: bool = False
    # BM25's corpus statistics (chunks, average terms per chunk) from the materials' own rows; None when a
    # material has none recorded (made before they were kept): then the statement counts the chunks.
    corpus: tuple[float, float] | None = None
    # Chunks per (model, dimension) in scope: a small scope's vectors are compared exactly (``EXACT_SCAN_VECTORS``).
    chunks_by_model: dict[tuple[str, int], int] = field(default_factory=dict)
    # Every material in scope is written in Korean (True), none is (False), mixed or not known (None).
    korean: bool | None = None

    def with_ranges(self, statement: _Statement, *, material: str, chunk_index: str) -> _Statement:
        """``statement`` with its ``/*ranges*/`` marker replaced by this scope's range condition (or nothing)."""
        if not self.ranges:
            return replace(statement, sql=statement.sql.replace(_RANGES_MARK, ""))
        condition = _RANGES_SQL.format(material=material, chunk_index=chunk_index)
        materials, starts, ends = (list(column) for column in zip(*self.ranges, strict=True))
        params = {**statement.params, "range_materials": materials, "range_starts": starts, "range_ends": ends}
        return replace(statement, sql=statement.sql.replace(_RANGES_MARK, condition), params=params)

    @property
    def model_of_material(self) -> dict[int, str]:
        return {material_id: model for (model, _), ids in self.by_model.items() for material_id in ids}


@dataclass(frozen=True)
class VectorScores:
    """The vector retriever's candidates for one embedding model: chunk id → cosine similarity."""

    embedder: Embedder
    similarity: dict[int, float]

    def evidence(self) -> dict[int, float]:
        """Similarities on a scale where 0 means "no better than unrelated text" and 1 the best.

        Models whose unrelated pairs score near 0 (USE) are read as they are, so a flat, uncertain
        ranking (all near 0.3) moves little. Models that score every pair high (e5: 0.75–0.95) are
        read relative to the query's own candidates: best 1, worst 0.
        """
        if self.embedder.similarity_scale == "absolute" or not self.similarity:
            return {chunk_id: max(0.0, value) for chunk_id, value in self.similarity.items()}
        low, high = min(self.similarity.values()), max(self.similarity.values())
        return {chunk_id: (value - low) / (high - low) if high > low else 1.0 for chunk_id, value in self.similarity.items()}


@dataclass(frozen=True)
class _Statement:
    """One retriever's SQL: rows of ``(chunk_id, material_id, score)`` within the owner's materials."""

    sql: str
    params: dict
    ef_search: int | None = None  # for a vector retriever: the HNSW candidate list it needs


def _run_together(statements: dict[str, _Statement]) -> dict[str, list[tuple[int, int, float | None]]]:
    """Run every retriever's statement in one round trip (UNION ALL); return each one's rows by name.

    On a busy machine each round trip waits for the database process to be scheduled, a few
    milliseconds each: a hybrid search made up to 14 of them (two for the scope, BEGIN, two SET LOCAL,
    the vectors, COMMIT, BM25, up to three codes, titled pages, their chunks, the hits) and now makes 4.
    """
    rows: dict[str, list] = {name: [] for name in statements}
    if not statements:
        return rows
    names = list(statements)
    pieces, params = [], {}
    for index, name in enumerate(names):
        statement = statements[name]
        prefix = f"s{index}_"
        params.update({prefix + key: value for key, value in statement.params.items()})
        sql = statement.sql.replace(_RANGES_MARK, "").replace("%(", f"%({prefix}")  # a scope without ranges
        pieces.append(f"SELECT {index} AS statement, chunk_id, material_id, score::float8 FROM ({sql}) AS retriever{index}")
    ef_search = max((statement.ef_search or 0 for statement in statements.values()), default=0)
    with connection.cursor() as cursor:
        if ef_search:
            _tune_vector_scan(cursor, ef_search=ef_search)
        cursor.execute("\nUNION ALL\n".join(pieces), params)
        for index, chunk_id, material_id, score in cursor.fetchall():
            rows[names[index]].append((chunk_id, material_id, score))
    return rows


def min_similarity_of(embedder: Embedder) -> float:
    """The semantic-mode floor: ``BAEUM_MIN_SIMILARITY`` when set, else the model's own."""
    configured = settings.BAEUM["MIN_SIMILARITY"]
    return embedder.min_similarity if configured is None else float(configured)


# Where a statement keeps only the chunks inside the scope's ranges (``_Scope.with_ranges``).
_RANGES_MARK = "/*ranges*/"
_RANGES_SQL = """
    AND ({material} <> ALL(%(range_materials)s::bigint[]) OR EXISTS (
        SELECT 1 FROM unnest(%(range_materials)s::bigint[], %(range_starts)s::int[], %(range_ends)s::int[]) AS r(range_material, lo, hi)
        WHERE r.range_material = {material} AND {chunk_index} BETWEEN r.lo AND r.hi
    ))
"""
# For tables without the chunk's index (vectors, postings): read it from the chunk, the owner's only.
_CHUNK_INDEX_OF = "(SELECT ci.chunk_index FROM knowledge_chunk ci WHERE ci.id = {chunk} AND ci.owner_id = ANY(%(owners)s))"


def _scope(*, user, ref_ids: Iterable[str] | None, type: str | None, ranges: Iterable[tuple[str, int, int]] = ()) -> _Scope:
    """The user's READY materials in scope (``MaterialNotFound`` for a refId not theirs), grouped by
    embedding model, with ``ranges`` (``(refId, first, last)``) resolved to material ids."""
    owner_id = owner_id_of(user)
    owner_ids = {owner_id}
    by_model: dict[tuple[str, int], list[int]] = defaultdict(list)
    chunks_by_model: dict[tuple[str, int], int] = defaultdict(int)
    material_ids: list[int] = []
    id_of: dict[str, int] = {}
    rows = materials_in_scope(user=user, ref_ids=ref_ids, type=type).values_list(
        "id", "ref_id", "embedding_model", "embedding_dimension", "chunk_count", "term_total", "korean", "owner_id"
    )
    chunks, terms, recorded = 0, 0, True
    languages: set[bool | None] = set()
    for material_id, ref_id, model, dimension, chunk_count, term_total, korean, material_owner in rows:
        owner_ids.add(material_owner)
        languages.add(korean)
        material_ids.append(material_id)
        id_of[ref_id] = material_id
        by_model[(model, dimension)].append(material_id)
        chunks_by_model[(model, dimension)] += chunk_count
        chunks, terms, recorded = chunks + chunk_count, terms + term_total, recorded and term_total > 0
    resolved = tuple((id_of[ref_id], int(start), int(end)) for ref_id, start, end in ranges if ref_id in id_of)
    whole_library = ref_ids is None and not type and owner_ids == {owner_id}
    corpus = (float(chunks), terms / chunks) if recorded and chunks else None
    return _Scope(
        owner_ids=sorted(owner_ids),
        material_ids=material_ids,
        by_model=dict(by_model),
        ranges=resolved,
        whole_library=whole_library,
        corpus=corpus,
        chunks_by_model=dict(chunks_by_model),
        korean=next(iter(languages)) if len(languages) == 1 else None,
    )


# --- Vector retrieval ------------------------------------------------------------------------


# A library with this many vectors of one model gets an HNSW index of its own (built in the background,
# knowledge.services.vector_indexes). At 1,000,000 chunks (bench_retrieval --skewed) the shared index
# filtered to one owner of 200,000 found 0.59 of the exact top 10, and the planner's exact scan of an
# owner's vectors costs ~2.4 ms per 1,000 (480 ms for 200,000); the owner's own index: recall 1.0, 2–6 ms.
LARGE_LIBRARY_VECTORS = 20_000
OWNER_INDEX_PREFIX = "chunkemb_owner_"
# Extra nearest rows the owner's own index reads beyond k: rows of a material being re-read or failed
# (outside the scope) are dropped after the ordered scan.
OWNER_INDEX_SLACK = 20
_OWNER_INDEX_TTL_SECONDS = 60  # how long a process trusts its list of owner indexes
OWNER_INDEX_EF_SEARCH = (
    200  # candidate list on an owner's own index: recall 0.82 at 40, 0.91 at 100, 0.99 at 200 (bench_retrieval --skewed, 1M)
)
# A scope of at most this many vectors of one model is compared exactly, every vector, never through the
# shared HNSW index: whether the planner takes that index depends on statistics of everyone's rows, and an
# approximate scan filtered to one small owner can miss its best passage (a 12-chunk guide answered with
# cosine 0.25 where its best chunk scores 0.44). Exact costs ~2.4 ms per 1,000 vectors (bench_retrieval).
EXACT_SCAN_VECTORS = 5_000


def owner_index_name(owner_id: int, model: str) -> str:
    """The name of ``owner_id``'s own vector index for ``model`` (63 bytes at most, as PostgreSQL allows)."""
    slug = re.sub(r"[^a-z0-9]+", "_", model.lower())
    return f"{OWNER_INDEX_PREFIX}{int(owner_id)}_{slug}"[:63]


def owner_index_names() -> frozenset[str]:
    """Names of the owner vector indexes in the current schema, read from the catalogue now."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'knowledge_chunkembedding' "
            "AND indexname LIKE %s",
            [OWNER_INDEX_PREFIX + "%"],
        )
        return frozenset(row[0] for row in cursor.fetchall())


_owner_indexes_read: list = [0.0, frozenset()]


def owner_indexes() -> frozenset[str]:
    """``owner_index_names``, read again at most once a minute per process (every search asks)."""
    read_at, names = _owner_indexes_read
    if time.monotonic() - read_at >= _OWNER_INDEX_TTL_SECONDS:
        names = owner_index_names()
        _owner_indexes_read[:] = [time.monotonic(), names]
    return names


def owner_indexes_forget() -> None:
    """Read the list of owner indexes again at the next search (after one is made or dropped here)."""
    _owner_indexes_read[:] = [0.0, frozenset()]


def _vector_literal(vector) -> str:
    return "[" + ",".join(f"{value:.7g}" for value in vector) + "]"


def _vector_statement(
    *,
    owner_ids: list[int],
    model: str,
    dimension: int,
    material_ids: list[int],
    query_vector,
    k: int,
    whole_library: bool = False,
    vectors: int | None = None,
) -> _Statement:
    """The nearest ``k`` of the owner's vectors of ``model`` within ``material_ids``; exact when the scope
    holds ``vectors`` ≤ ``EXACT_SCAN_VECTORS``, else by an HNSW index when the planner picks one."""
    params = {"vector": _vector_literal(query_vector), "owners": owner_ids, "model": model, "materials": material_ids, "k": k}
    distance = f"(embedding::vector({int(dimension)})) <=> %(vector)s::vector({int(dimension)})"
    if whole_library and len(owner_ids) == 1 and owner_index_name(owner_ids[0], model) in owner_indexes():
        # The owner's own index: its predicate (owner, model) alone, so the planner reads it in order;
        # with the materials in the same WHERE its row estimate falls to a sixth and it sorts every vector.
        sql = f"""
            SELECT chunk_id, material_id, score FROM (
                SELECT chunk_id, material_id, {distance} AS score
                FROM knowledge_chunkembedding
                WHERE owner_id = %(owner)s AND model = %(model)s
                ORDER BY score
                LIMIT %(wide)s
            ) AS nearest
            WHERE material_id = ANY(%(materials)s) /*ranges*/
            ORDER BY score
            LIMIT %(k)s
        """
        return _Statement(
            sql, {**params, "owner": owner_ids[0], "wide": k + OWNER_INDEX_SLACK}, ef_search=max(OWNER_INDEX_EF_SEARCH, 2 * k)
        )
    if vectors is not None and vectors <= EXACT_SCAN_VECTORS:
        # OFFSET 0 keeps the subquery whole, so its ORDER BY cannot become an index scan.
        sql = f"""
            SELECT chunk_id, material_id, score FROM (
                SELECT chunk_id, material_id, {distance} AS score
                FROM knowledge_chunkembedding
                WHERE owner_id = ANY(%(owners)s) AND model = %(model)s AND material_id = ANY(%(materials)s) /*ranges*/
                OFFSET 0
            ) AS every_vector
            ORDER BY score
            LIMIT %(k)s
        """
        return _Statement(sql, params)
    sql = f"""
        SELECT chunk_id, material_id, {distance} AS score
        FROM knowledge_chunkembedding
        WHERE owner_id = ANY(%(owners)s) AND model = %(model)s AND material_id = ANY(%(materials)s) /*ranges*/
        ORDER BY score
        LIMIT %(k)s
    """
    return _Statement(sql, params, ef_search=max(MIN_EF_SEARCH, 2 * k))


def _vector_search(
    *, owner_ids: list[int], model: str, dimension: int, material_ids: list[int], query_vector, k: int, whole_library: bool = False
) -> list[tuple[int, float]]:
    """Return ``(chunk_id, similarity)`` of the nearest chunks of one model, within the owner's materials.

    HNSW with iterative scans keeps returning candidates until ``k`` rows pass the owner filter, so a
    small owner among many still gets ``k`` results; for a small owner the planner may instead read the
    (owner, model) b-tree and sort exactly. Either way, only this owner's rows are ever compared.
    """
    statement = _vector_statement(
        owner_ids=owner_ids,
        model=model,
        dimension=dimension,
        material_ids=material_ids,
        query_vector=query_vector,
        k=k,
        whole_library=whole_library,
    )
    rows = _run_together({"vector": statement})["vector"]
    return _similarity_ranking(rows)


def _similarity_ranking(rows: list[tuple[int, int, float | None]]) -> list[tuple[int, float]]:
    return sorted(((chunk_id, 1.0 - float(distance)) for chunk_id, _material, distance in rows), key=lambda item: -item[1])


# The HNSW settings each database session already has (psycopg connection → ef_search), so a search on
# a kept connection costs one round trip instead of five (BEGIN, two SET LOCAL, the query, COMMIT).
_TUNED_SESSIONS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _tune_vector_scan(cursor, *, ef_search: int) -> None:
    """Give this session iterative HNSW scans (a small owner among many still gets k rows) and ``ef_search``.

    Outside a transaction the settings are made for the session, once per connection: nothing can roll
    them back. Inside one (a reply, a test) they are local to it, as a rollback would undo a session
    setting made there without the record above knowing.
    """
    if connection.in_atomic_block:
        cursor.execute(
            "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', %s, true)", [str(ef_search)]
        )
        return
    session = connection.connection
    if _TUNED_SESSIONS.get(session) == ef_search:
        return
    cursor.execute(
        "SELECT set_config('hnsw.iterative_scan', 'relaxed_order', false), set_config('hnsw.ef_search', %s, false)", [str(ef_search)]
    )
    _TUNED_SESSIONS[session] = ef_search


@functools.lru_cache(maxsize=QUERY_VECTOR_CACHE)
def _query_vector(embedder: Embedder, text: str) -> np.ndarray:
    """``text`` embedded as a query by ``embedder``, kept for the next time it is asked (read-only)."""
    vector = np.asarray(embedder.embed_query(text), dtype=np.float32)
    vector.setflags(write=False)
    return vector


def _vector_statements(scope: _Scope, query: str, k: int) -> dict[str, tuple[_Statement, Embedder]]:
    """The query embedded once per model in scope, each to be compared only with that model's vectors."""
    statements = {}
    for (model, dimension), material_ids in scope.by_model.items():
        embedder = embedder_for_model(model)
        vector = _query_vector(embedder, query)
        statement = _vector_statement(
            owner_ids=scope.owner_ids,
            model=model,
            dimension=dimension,
            material_ids=material_ids,
            query_vector=vector,
            k=k,
            whole_library=scope.whole_library and not scope.ranges,
            vectors=scope.chunks_by_model.get((model, dimension)),
        )
        statement = scope.with_ranges(statement, material="material_id", chunk_index=_CHUNK_INDEX_OF.format(chunk="chunk_id"))
        statements[f"vector:{model}"] = (statement, embedder)
    return statements


def _vector_scores(statements: dict[str, tuple[_Statement, Embedder]], rows: dict[str, list]) -> list[VectorScores]:
    return [VectorScores(embedder=embedder, similarity=dict(_similarity_ranking(rows[name]))) for name, (_, embedder) in statements.items()]


def _vector_candidates(scope: _Scope, query: str, k: int) -> list[VectorScores]:
    """The query embedded once per model in scope, each compared only with that model's vectors."""
    statements = _vector_statements(scope, query, k)
    return _vector_scores(statements, _run_together({name: statement for name, (statement, _) in statements.items()}))


def _similarities(vectors: Sequence[VectorScores]) -> dict[int, float]:
    return {chunk_id: value for scores in vectors for chunk_id, value in scores.similarity.items()}


# --- Lexical retrieval -----------------------------------------------------------------------

_BM25_SQL = """
    WITH query_terms AS MATERIALIZED (
        SELECT term, count(*) AS qtf FROM unnest(%(terms)s::text[]) AS term GROUP BY term
    ),
    corpus AS MATERIALIZED (/*corpus*/
        SELECT count(*)::float8 AS n, coalesce(avg(term_count), 1)::float8 AS avgdl
        FROM knowledge_chunk WHERE owner_id = ANY(%(owners)s) AND material_id = ANY(%(materials)s)
    ),
    df AS MATERIALIZED (
        -- Term by term through the (owner, term) index: counted over all the terms at once, the
        -- planner read every posting of the material instead (45,000 rows for a 10-K; 10 ms).
        SELECT q.term, d.df FROM query_terms q
        CROSS JOIN LATERAL (
            SELECT count(*)::float8 AS df FROM knowledge_chunkterm
            WHERE owner_id = ANY(%(owners)s) AND term = q.term AND material_id = ANY(%(materials)s)
        ) AS d
        WHERE d.df > 0
    ),
    weights AS MATERIALIZED (
        -- IDF once per term. Terms in more than half of the chunks carry almost no evidence and
        -- cost the most to score, so long queries skip them (in libraries of 20 chunks or more).
        SELECT q.term, q.qtf * ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5)) AS idf, c.avgdl
        FROM query_terms q JOIN df USING (term) CROSS JOIN corpus c
        WHERE (df.df <= c.n * %(max_df)s OR c.n < %(small_corpus)s)
          -- A word kept only as a name the materials write in Latin counts where it is rare (``RARE_LATIN_MAX_SHARE``).
          AND (q.term <> ALL(%(rare_only)s::text[]) OR (c.n >= %(small_corpus)s AND df.df <= greatest(1, c.n * %(rare_share)s)))
    )
    SELECT p.chunk_id, p.material_id,
           sum(w.idf * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.doc_length / greatest(w.avgdl, 1)))) AS score
    FROM knowledge_chunkterm p JOIN weights w USING (term)
    WHERE p.owner_id = ANY(%(owners)s) AND p.term = ANY(%(terms)s) AND p.material_id = ANY(%(materials)s) /*ranges*/
    GROUP BY p.chunk_id, p.material_id
    ORDER BY score DESC
    LIMIT %(k)s
"""


# The corpus statistics the materials' rows give (``_Scope.corpus``), in place of counting the chunks.
_CORPUS_GIVEN = "SELECT %(corpus_n)s::float8 AS n, %(corpus_avgdl)s::float8 AS avgdl"


def _bm25_sql(scope: _Scope) -> str:
    if scope.corpus is None:
        return _BM25_SQL
    start = _BM25_SQL.index("/*corpus*/")
    end = _BM25_SQL.index("\n    ),", start)
    return _BM25_SQL[:start] + _CORPUS_GIVEN + _BM25_SQL[end:]


def _written_alike(query: str) -> str:
    """What of an English question a Korean text writes the same way: its acronyms and codes ("EAX", "IEEE",
    "80386") and any Hangul. Its other words match only the English a Korean book quotes (code listings,
    glosses in parentheses), which outranks the page that answers: over the Korean sample book, English
    questions (evaluation/crosslingual.jsonl) found the expected page first 22 of 38 times with every word
    searched as a keyword, 27 with the vectors alone."""
    return " ".join([*identifiers(query), *(word for word in query.split() if is_hangul_heavy(word))])


# --- Across languages: the learner's own glossary -------------------------------------------
#
# Korean textbooks gloss their terms in English where they introduce them ("2 의 보수 (two’s complement)",
# stored as ``Gloss`` rows with the postings): a Korean question over English materials is also searched
# with the English names the learner's own materials give its terms, and an English question over Korean
# materials with their Korean names (``baeum.language.glossary``). One indexed read of the owner's rows.


def glosses(*, user, question: str) -> list[str]:
    """English names the user's own materials give the Korean terms of ``question`` ("보수" → "two's complement")."""
    terms = glossary.korean_terms(question)
    if not terms:
        return []
    rows = Gloss.objects.for_reader(user).filter(head__in=terms).values_list("before", "head", "english")
    return glossary.english_names(question, (glossary.Gloss(*row) for row in rows))


def korean_names(*, user, question: str) -> list[str]:
    """What the user's own Korean materials call the English terms of ``question`` ("branch instruction" → "분기 명령")."""
    keys = glossary.english_keys(question)
    if not keys:
        return []
    rows = Gloss.objects.for_reader(user).filter(english_first__in=keys).values_list("before", "head", "english")
    return glossary.korean_names(question, (glossary.Gloss(*row) for row in rows))


def names_in_other_language(*, user, question: str, material_ids: Iterable[int] = ()) -> list[str]:
    """The question's terms as the user's own glosses name them in the other language: English names for a
    Korean question (``glosses``), Korean ones for any other (``korean_names``); and the words the materials
    ``material_ids`` spell in the other script for the question's loanwords (``loanword_names``)."""
    korean = is_hangul_heavy(question)
    names = glosses(user=user, question=question) if korean else korean_names(user=user, question=question)
    if material_ids:
        names += [name for name in loanword_names(user=user, question=question, material_ids=material_ids) if name not in names]
        names += [name for name in meaning_names(user=user, question=question, material_ids=material_ids) if name not in names]
    return names


# --- Across languages: loanwords ------------------------------------------------------------
#
# Korean spells borrowed technical words in Hangul by sound ("크루스칼" Kruskal, "인덱스" index), which no gloss
# prints: a Korean question over an English book names its algorithms that way, and an English question over a
# Korean book names in Latin what the book spells in Hangul ("copyleft", "카피레프트"). Such words are matched by
# their consonant skeletons (``baeum.language.transliteration``) against the words the materials searched use
# in the other script: a KeyIndex per set of materials and script, built from their BM25 postings in one query.

_VOCABULARIES: dict[tuple, tuple[float, transliteration.KeyIndex]] = {}
_VOCABULARIES_LOCK = threading.Lock()  # a web process answers on several threads
_VOCABULARIES_KEPT = 32
VOCABULARY_SECONDS = 600  # how long a process trusts a vocabulary (a material read again may use other words)
_LATIN_TERM = r"^[a-z][a-z-]{2,}$"
_HANGUL_TERM = r"^[가-힣]{2,}$"


def _vocabulary(user, material_ids: frozenset[int], *, hangul: bool) -> transliteration.KeyIndex:
    """The words the materials ``material_ids`` use in one script, by skeleton: Hangul nouns spelled as loanwords
    are, or every Latin word; built once (one query) and kept ``VOCABULARY_SECONDS``."""
    key = (owner_id_of(user), hangul, material_ids)
    kept = _VOCABULARIES.get(key)
    if kept is None or time.monotonic() - kept[0] > VOCABULARY_SECONDS:
        rows = (
            ChunkTerm.objects.for_reader(user)
            .filter(material_id__in=material_ids, term__regex=_HANGUL_TERM if hangul else _LATIN_TERM)
            .values_list("term")
            .annotate(uses=Count("id"))
        )
        uses = dict(rows)
        if hangul:
            # Spelled as loanwords are, and a noun by itself ("라이선스", not "라이선스하" or "다루겠는").
            uses = {
                term: count
                for term, count in uses.items()
                if transliteration.looks_borrowed(term) and [word for word in analyze(term) if not word.startswith("~")] == [term]
            }
        index = transliteration.KeyIndex.build(uses.items(), transliteration.hangul_key if hangul else transliteration.latin_keys)
        kept = (time.monotonic(), index)
        with _VOCABULARIES_LOCK:
            while len(_VOCABULARIES) >= _VOCABULARIES_KEPT:
                _VOCABULARIES.pop(next(iter(_VOCABULARIES)))
            _VOCABULARIES[key] = kept
    return kept[1]


def loanword_names(*, user, question: str, material_ids: Iterable[int]) -> list[str]:
    """The words the materials ``material_ids`` write in the other script for the loanwords of ``question``:
    "kruskal" for "크루스칼 알고리즘은 …", "카피레프트" for "What does copyleft mean?" (at most two per word, the most
    used first; one for a short word)."""
    return rules.resolved(LOANWORDS, user, question, frozenset(material_ids)) or []


def _loanword_names(user, question: str, material_ids: frozenset[int]) -> list[str] | None:
    names: list[str] = []
    korean = is_hangul_heavy(question)
    index = _vocabulary(user, material_ids, hangul=not korean)
    if korean:
        for word in glossary.korean_terms(question):
            word = word.removesuffix("하") if len(word) > 2 else word  # "임포트하는": the noun made a verb
            if transliteration.looks_borrowed(word):
                hangul = transliteration.hangul_key(word)
                found = index.names(
                    hangul,
                    close=lambda latin, hangul=hangul: transliteration.keys_close(hangul, latin),
                    agrees=lambda latin, loose, word=word: transliteration.vowels_agree(word, latin, loose=loose),
                )
                names += [name for name in found if analyze(name) == [name]]  # searched as indexed
    else:
        for word in dict.fromkeys(term for term in analyze(question, query=True) if term.isascii() and term.isalpha()):
            for latin in transliteration.latin_keys(word):
                names += index.names(
                    latin,
                    close=lambda hangul, latin=latin: transliteration.keys_close(hangul, latin),
                    agrees=lambda hangul, loose, word=word: transliteration.vowels_agree(hangul, word, loose=loose),
                )
    return list(dict.fromkeys(names)) or None


(LOANWORDS,) = rules.register(
    rules.Rule(
        "search:loanwords",
        _loanword_names,
        "크루스칼 알고리즘은 간선을 어떤 순서로 처리해? (+ kruskal)",
        "a loanword of the question searched as the materials spell it in the other script",
    )
)


# --- Across languages: a term by its meaning -----------------------------------------------------
#
# A Korean question over English materials names most terms by their Korean word ("연산자", "예외", "집합"),
# which no gloss and no loanword's sound gives. Each noun of the question is given the English word of the
# materials searched that lies nearest it by the fast multilingual embedder, when near enough
# (``baeum.language.vocabulary``, which says why not the other way): the vocabularies are stored with the
# postings (``VocabularyWord``).


def _meaning_names(user, question: str, material_ids: frozenset[int]) -> list[str] | None:
    terms = vocabulary.asked_terms(question)
    if not terms:
        return None
    # Each noun through the query cache: a turn reads the names twice (its search, then its answer's note).
    embedder = embedder_for_model(vocabulary.EMBEDDER)
    vectors = np.stack([_query_vector(embedder, term) for term in terms])
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    words = VocabularyWord.objects.for_reader(user).filter(material_id__in=material_ids)
    inner, params = words.values("id", "word", "vector").query.sql_with_params()
    # Each term's nearest word, in one statement: the scoped rows read once, every term's distance to each.
    sql = f"""
        SELECT DISTINCT ON (term.i) term.i, w.word, w.vector <=> term.v AS distance
        FROM ({inner}) AS w CROSS JOIN unnest(%s::halfvec[]) WITH ORDINALITY AS term(v, i)
        ORDER BY term.i, distance, w.id
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, [_vector_literal(vector) for vector in vectors]])
        rows = cursor.fetchall()
    names = [word for _, word, distance in rows if 1 - distance >= vocabulary.MIN_SIMILARITY]
    return list(dict.fromkeys(names)) or None


(MEANINGS,) = rules.register(
    rules.Rule(
        "search:term-meaning",
        _meaning_names,
        "연산자 오버로딩이 뭐야? (+ operator)",
        "a noun of a Korean question over English materials searched as their nearest word by meaning",
    )
)


def meaning_names(*, user, question: str, material_ids: Iterable[int]) -> list[str]:
    """The English words of the materials ``material_ids`` nearest the nouns of a Korean ``question`` by meaning:
    "operator" for "연산자는 뭐야?"."""
    return rules.resolved(MEANINGS, user, question, frozenset(material_ids)) or []


# A Latin word of an English question that the Korean materials write in at most this share of their chunks is
# a name they write in Latin too ("Eclipse", "PostgreSQL", "MPL" over the licence guide, its own glosses
# "(derivative work)"), searched as a keyword; commoner ones are listings' and references' English. Below
# ``SMALL_CORPUS_CHUNKS`` chunks no word is rare enough to tell. Applied in the BM25 statement (``rare_only``).
RARE_LATIN_MAX_SHARE = 0.02


def _latin_query_terms(query: str) -> list[str]:
    """The Latin terms of ``query``: over Korean materials, searched only where those write them rarely."""
    return [term for term in dict.fromkeys(analyze(query, query=True)) if term.isascii() and any(char.isalpha() for char in term)]


def _lexical_statements(scope: _Scope, query: str, k: int) -> dict[str, _Statement]:
    """BM25 over the analysed terms and, for codes in the query, verbatim matches (see ``_lexical_scores``)."""
    if not scope.material_ids:
        return {}
    statements = {}
    rare_only: list[str] = []
    if scope.korean is True and not is_hangul_heavy(query):
        alike = analyze(_written_alike(query), query=True)
        rare_only = [term for term in _latin_query_terms(query) if term not in alike]
        terms = [*alike, *rare_only]
    else:
        terms = analyze(query, query=True)
    if terms:
        corpus = {"corpus_n": scope.corpus[0], "corpus_avgdl": max(scope.corpus[1], 1.0)} if scope.corpus else {}
        statements["bm25"] = _Statement(
            _bm25_sql(scope),
            {
                **corpus,
                "terms": terms,
                "owners": scope.owner_ids,
                "materials": scope.material_ids,
                "k1": BM25_K1,
                "b": BM25_B,
                "k": k,
                "max_df": LONG_QUERY_MAX_DF if len(set(terms)) > LONG_QUERY_TERMS else 1.0,
                "small_corpus": SMALL_CORPUS_CHUNKS,
                "rare_only": rare_only,
                "rare_share": RARE_LATIN_MAX_SHARE,
            },
        )
        # Term statistics (IDF, average length) stay those of the whole materials; ranges narrow the hits.
        statements["bm25"] = scope.with_ranges(
            statements["bm25"], material="p.material_id", chunk_index=_CHUNK_INDEX_OF.format(chunk="p.chunk_id")
        )
    identifiers = list(dict.fromkeys(token for token in _IDENTIFIER.findall(query) if len(token) >= MIN_IDENTIFIER_CHARS))[:MAX_IDENTIFIERS]
    if identifiers:
        statements["identifiers"] = _Statement(
            _IDENTIFIER_SQL,
            {
                "patterns": [f"%{_escape_like(identifier)}%" for identifier in identifiers],
                "owners": scope.owner_ids,
                "materials": scope.material_ids,
                "k": k,
            },
        )
        statements["identifiers"] = scope.with_ranges(statements["identifiers"], material="material_id", chunk_index="chunk_index")
    return statements


def _lexical_scores(rows: dict[str, list], k: int, *, materials: dict[int, int] | None = None) -> dict[int, float]:
    """BM25 scores, plus a bonus above the best of them for each code a chunk holds verbatim (ORD-2024-001,
    file_name.py: an exact match ranks above any partial BM25 match). ``materials``, when given, receives
    chunk id → material id of every candidate."""
    scored: dict[int, float] = {}
    material_of: dict[int, int] = {} if materials is None else materials
    for chunk_id, material_id, score in rows.get("bm25", []):
        scored[chunk_id] = float(score)
        material_of[chunk_id] = material_id
    if rows.get("identifiers"):
        bonus = (max(scored.values()) if scored else 1.0) + 1.0
        for chunk_id, material_id, _ in rows["identifiers"]:
            scored[chunk_id] = scored.get(chunk_id, 0.0) + bonus
            material_of[chunk_id] = material_id
    return dict(sorted(scored.items(), key=lambda item: (-item[1], item[0]))[:k])


def _lexical_candidates(scope: _Scope, query: str, k: int, *, materials: dict[int, int] | None = None) -> dict[int, float]:
    """BM25 over the owner's chunks in scope (IDF from those chunks), plus exact identifier matches.

    ``materials``, when given, receives chunk id → material id of every candidate.
    """
    return _lexical_scores(_run_together(_lexical_statements(scope, query, k)), k, materials=materials)


# Up to k chunks per code (pg_trgm index on the text), every code in the same statement.
_IDENTIFIER_SQL = """
    SELECT c.id AS chunk_id, c.material_id, NULL::float8 AS score
    FROM unnest(%(patterns)s::text[]) AS identifier(pattern)
    CROSS JOIN LATERAL (
        SELECT id, material_id FROM knowledge_chunk
        WHERE owner_id = ANY(%(owners)s) AND material_id = ANY(%(materials)s) AND content ILIKE identifier.pattern /*ranges*/
        LIMIT %(k)s
    ) AS c
"""


_DEFINITION_SQL = """
    SELECT id AS chunk_id, material_id, NULL::float8 AS score FROM (
        SELECT id, material_id, chunk_index FROM knowledge_chunk
        WHERE owner_id = ANY(%(owners)s) AND material_id = ANY(%(materials)s) AND content ILIKE %(like)s
          AND content ~* %(pattern)s /*ranges*/
        ORDER BY chunk_index, material_id  -- each book's first definitions, not one book's every one
        LIMIT %(k)s
    ) AS defining
"""


def _definition_statement(scope: _Scope, question: str) -> _Statement | None:
    """The chunks that define what a "What is X?" question asks about (``forms.definition_patterns``), unless the
    rule ``search:defines-term`` is off."""
    term = defined_term(question)
    if not term or not scope.material_ids or not rules.is_on(DEFINES_TERM):
        return None
    like, pattern = definition_patterns(term)
    statement = _Statement(
        _DEFINITION_SQL,
        {"owners": scope.owner_ids, "materials": scope.material_ids, "like": like, "pattern": pattern, "k": DEFINITION_CHUNKS},
    )
    return scope.with_ranges(statement, material="material_id", chunk_index="chunk_index")


(DEFINES_TERM,) = rules.register(
    rules.Rule(
        "search:defines-term",
        lambda question: bool(defined_term(question)),
        "What is a CRC? (+ the chunk “Cyclic Redundancy Check (CRC) is a well-known technique …”)",
        "a what-is question ranks first the chunks with a sentence that defines its term, wherever BM25 and meaning put them",
    )
)


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# --- Public selectors ------------------------------------------------------------------------


def _hits(
    user, ranked: Sequence[tuple[int, float]], vector: dict[int, float], lexical: dict[int, float], *, loaded: dict | None = None
) -> list[SearchHit]:
    """The hits of ``ranked``, their chunks read in one query (``loaded``: chunks read already, not read again)."""
    chunks = dict(loaded or {})
    missing = [chunk_id for chunk_id, _ in ranked if chunk_id not in chunks]
    if missing:
        chunks |= Chunk.objects.for_reader(user).select_related("material").in_bulk(missing)
    return [
        SearchHit(chunk=chunks[chunk_id], score=score, vector_score=vector.get(chunk_id), lexical_score=lexical.get(chunk_id))
        for chunk_id, score in ranked
        if chunk_id in chunks
    ]


def chunk_search_semantic(
    *,
    user,
    query: str,
    ref_ids: Iterable[str] | None = None,
    type: str | None = None,
    k: int = TOP_K,
    min_similarity: float | None = None,
    ranges: Sequence[tuple[str, int, int]] = (),
) -> list[SearchHit]:
    """Return the user's chunks nearest to ``query`` by cosine similarity, best first.

    Materials are grouped by the model their vectors were made with; the query is embedded once per
    model and compared only with that model's vectors.
    """
    normalized = normalize_query(analyse_question(query).retrieval_query)
    scope = _scope(user=user, ref_ids=ref_ids, type=type, ranges=ranges)
    if not normalized or not scope.material_ids:
        return []
    ranked: list[tuple[int, float, float]] = []
    vectors = _vector_candidates(scope, normalized, k)
    for scores in vectors:
        floor = min_similarity_of(scores.embedder) if min_similarity is None else min_similarity
        # Models differ in scale; across models (while a library is being re-embedded) chunks are
        # ordered by how far above its model's floor they are.
        margin = max(1e-6, 1.0 - scores.embedder.min_similarity)
        ranked += [
            (chunk_id, value, (value - scores.embedder.min_similarity) / margin)
            for chunk_id, value in scores.similarity.items()
            if value >= floor
        ]
    ranked.sort(key=lambda item: (-item[2], item[0]))
    return _hits(user, [(chunk_id, value) for chunk_id, value, _ in ranked[:k]], _similarities(vectors), {})


def chunk_search_lexical(
    *,
    user,
    query: str,
    ref_ids: Iterable[str] | None = None,
    type: str | None = None,
    k: int = TOP_K,
    ranges: Sequence[tuple[str, int, int]] = (),
) -> list[SearchHit]:
    """Return the user's chunks ranked by BM25 over analysed terms (Korean morphemes, English stems)."""
    scope = _scope(user=user, ref_ids=ref_ids, type=type, ranges=ranges)
    lexical = _lexical_candidates(scope, analyse_question(query).retrieval_query, k)
    return _hits(user, list(lexical.items()), {}, lexical)


def hybrid_alpha() -> float | None:
    """``BAEUM_HYBRID_ALPHA`` when set (one lexical weight for every model), else None (each model's own)."""
    configured = settings.BAEUM["HYBRID_ALPHA"]
    return None if configured is None else float(configured)


def fuse(
    vectors: Sequence[VectorScores], lexical: dict[int, float], *, alpha: float | None = None, model_of_chunk: dict[int, str] | None = None
) -> list[tuple[int, float]]:
    """Weighted fusion that lets each retriever count as much as the evidence it brings.

    Lexical scores are divided by the best BM25 score (the top is 1, the rest keep their relative
    distance); vector scores are read on their model's scale (``VectorScores.evidence``). The lexical
    weight starts at ``alpha`` (default: the embedding model's ``lexical_weight``, lower for a
    stronger model) and grows towards 1 with BM25's own confidence, the relative gap between its
    first two scores: a clear keyword winner is not overturned by a weak embedding, a near-tie is
    settled by meaning. Measured on ../shared/eval (docs/evaluation.md): better there than min-max, z-score and
    RRF fusion. ``model_of_chunk`` names the model of chunks only the lexical retriever found.
    """
    ranked = sorted(lexical.values(), reverse=True)
    top = ranked[0] if ranked else 1.0
    confidence = (ranked[0] - ranked[1]) / ranked[0] if len(ranked) > 1 and ranked[0] > 0 else (1.0 if ranked else 0.0)
    evidence: dict[int, float] = {}
    base: dict[int, float] = {}
    default_base = min((scores.embedder.lexical_weight for scores in vectors), default=1.0)
    weight_of_model = {scores.embedder.model: scores.embedder.lexical_weight for scores in vectors}
    for scores in vectors:
        for chunk_id, value in scores.evidence().items():
            evidence[chunk_id] = value
            base[chunk_id] = scores.embedder.lexical_weight
    for chunk_id in lexical.keys() - base.keys():
        base[chunk_id] = weight_of_model.get((model_of_chunk or {}).get(chunk_id, ""), default_base)
    fused = {}
    for chunk_id in evidence.keys() | lexical.keys():
        start = base[chunk_id] if alpha is None else alpha
        weight = start + (1 - start) * confidence if lexical else 0.0
        fused[chunk_id] = weight * (lexical.get(chunk_id, 0.0) / top if top > 0 else 0.0) + (1 - weight) * evidence.get(chunk_id, 0.0)
    return sorted(fused.items(), key=lambda item: (-item[1], item[0]))


def chunk_search_hybrid(
    *,
    user,
    query: str,
    ref_ids: Iterable[str] | None = None,
    type: str | None = None,
    k: int = TOP_K,
    alpha: float | None = None,
    candidates: int = CANDIDATES,
    reranker: str | None = None,
    llm=None,
    ranges: Sequence[tuple[str, int, int]] = (),
) -> list[SearchHit]:
    """Return the best ``k`` of lexical top-N ∪ vector top-N, fused (see ``fuse``), optionally reranked.

    Long questions are searched for what they ask (``baeum.language.questions``): answering instructions
    ("Round your answer to two decimal places") are dropped, source hints ("the cash flow statement") kept.
    """
    raw_question = query
    question = analyse_question(query)
    query = question.retrieval_query
    normalized = normalize_query(query)
    scope = _scope(user=user, ref_ids=ref_ids, type=type, ranges=ranges)
    if not normalized or not scope.material_ids:
        return []
    width = max(candidates, k)
    # A question in the other language than every material in scope: searched (by meaning and keywords)
    # with the names the learner's own glosses give its terms in the materials' language.
    names = (
        names_in_other_language(user=user, question=query, material_ids=scope.material_ids)
        if scope.korean not in (None, is_hangul_heavy(query))
        else []
    )
    if names:
        query = " ".join([query, *names])
        normalized = normalize_query(query)
    vector_statements = _vector_statements(scope, normalized, width)
    statements = {name: statement for name, (statement, _) in vector_statements.items()} | _lexical_statements(scope, query, width)
    source = _source_statement(scope, question.hints)
    if source is not None:
        statements["sources"] = source
    definition = _definition_statement(scope, raw_question)
    if definition is not None:
        statements["definitions"] = definition
    rows = _run_together(statements)
    vectors = _vector_scores(vector_statements, rows)
    materials: dict[int, int] = {}
    lexical = _lexical_scores(rows, width, materials=materials)
    model_of_material = scope.model_of_material
    ranked = fuse(
        vectors,
        lexical,
        alpha=hybrid_alpha() if alpha is None else alpha,
        model_of_chunk={chunk_id: model_of_material.get(material_id, "") for chunk_id, material_id in materials.items()},
    )
    ranked, loaded = _with_heading_evidence(user, ranked, normalized, width)
    defined = {chunk_id for chunk_id, _, _ in rows.get("definitions", [])}
    if defined:
        rules.fired(DEFINES_TERM.name)
        ranked = _boosted(ranked, defined, DEFINITION_BOOST)
    sources = {chunk_id for chunk_id, _, _ in rows.get("sources", [])}
    if sources:
        ranked = _boosted(ranked, sources, SOURCE_BOOST)
    vector = _similarities(vectors)
    if reranker:
        hits = _hits(user, ranked[:width], vector, lexical, loaded=loaded)
        return rerank_hits(hits, query=normalized, reranker=reranker, k=k, llm=llm)
    vector |= _exact_similarities(scope, normalized, [chunk_id for chunk_id, _ in ranked[:k] if chunk_id not in vector])
    return _hits(user, ranked[:k], vector, lexical, loaded=loaded)


def _boosted(ranked: list[tuple[int, float]], chunk_ids: set[int], boost: float) -> list[tuple[int, float]]:
    """``ranked`` with ``boost`` added to the score of each of ``chunk_ids`` (those not ranked join at 0), ordered again."""
    fused = dict(ranked)
    return sorted(
        ((chunk_id, fused.get(chunk_id, 0.0) + boost * (chunk_id in chunk_ids)) for chunk_id in fused.keys() | chunk_ids),
        key=lambda item: (-item[1], item[0]),
    )


def chunk_headings(chunk: Chunk) -> list[str]:
    """The titles a chunk stands under or opens: the heading in force where it begins and every heading line
    inside it ("Object mode" opening after the tail of the section before)."""
    inner = [chunk.content[start:end] for start, end, *_ in chunk.heading_spans]
    return [title for title in dict.fromkeys([chunk.section_title, *inner]) if title]


def _with_heading_evidence(user, ranked: list[tuple[int, float]], query: str, width: int) -> tuple[list[tuple[int, float]], dict]:
    """``ranked`` with the best ``width`` re-scored by their sections' titles: ``HEADING_WEIGHT`` times how well
    the best title (its number aside) and the query match, as the Dice coefficient of their terms (2 × shared / both sizes: "What
    is object mode?" matches a section "Object mode" fully, "Two reading modes" at 0.4 and an API heading
    "stream.Readable.from(iterable[, options])" less than "Readable streams"; "How do I compute a SHA-256 hash?"
    prefers the section titled "SHA256" to SM3's, which only compares itself to SHA-256); and the candidates'
    chunks, read once here for their titles and kept for the hits (a search stays four round trips)."""
    terms = {term for term in analyze(query, query=True) if not term.startswith("~")}
    if not HEADING_WEIGHT or not ranked or not terms:
        return ranked, {}
    head = ranked[:width]
    loaded = Chunk.objects.for_reader(user).select_related("material").in_bulk([chunk_id for chunk_id, _ in head])

    def title_share(chunk_id: int) -> float:
        if chunk_id not in loaded:
            return 0.0
        titles = [title_terms(title) for title in chunk_headings(loaded[chunk_id])]
        return max((2 * len(terms & title) / (len(terms) + len(title)) for title in titles if title), default=0.0)

    rescored = [(chunk_id, score + HEADING_WEIGHT * title_share(chunk_id)) for chunk_id, score in head]
    return sorted(rescored, key=lambda item: (-item[1], item[0])) + ranked[width:], loaded


_EXACT_SIMILARITY_SQL = """
    SELECT chunk_id, material_id, (embedding::vector({dimension})) <=> %(vector)s::vector({dimension}) AS score
    FROM knowledge_chunkembedding
    WHERE owner_id = ANY(%(owners)s) AND model = %(model)s AND chunk_id = ANY(%(chunks)s)
"""


def _exact_similarities(scope: _Scope, query: str, chunk_ids: list[int]) -> dict[int, float]:
    """The cosine of ``query`` to chunks that only BM25 or a titled page found (a table row that shares
    the question's numbers and words but sits below the vector top-N): every hit then carries the vector
    evidence the tutor's sufficiency judgement reads, not only those the vector retriever returned."""
    if not chunk_ids:
        return {}
    statements = {}
    for model, dimension in scope.by_model:
        vector = _vector_literal(_query_vector(embedder_for_model(model), query))
        params = {"vector": vector, "owners": scope.owner_ids, "model": model, "chunks": chunk_ids}
        statements[model] = _Statement(_EXACT_SIMILARITY_SQL.format(dimension=int(dimension)), params)
    rows = _run_together(statements)
    return {chunk_id: value for model in statements for chunk_id, value in _similarity_ranking(rows[model])}


def _source_statement(scope: _Scope, hints: list[str]) -> _Statement | None:
    """Chunks on the pages titled with a source the question names ("Consolidated Statements of Cash
    Flows" for "the cash flow statement"): a page is titled with it when one of its first lines is
    short and holds one of the source's names (a mention inside a sentence or a contents line
    further down does not count); every chunk on such a page counts (the title's and the rows after it)."""
    names = list(dict.fromkeys(name.casefold() for hint in hints for name in hint_variants(hint)))
    if not names or not scope.material_ids:
        return None
    statement = _Statement(
        _SOURCE_SQL,
        {
            "owners": scope.owner_ids,
            "materials": scope.material_ids,
            "patterns": [f"%{_escape_like(name)}%" for name in names],
            "chains": ["%" + "%".join(_escape_like(word) for word in name.split()) + "%" for name in names],
            "lines": TITLE_LINES,
            "max_chars": TITLE_MAX_CHARS,
            "whitespace": _WHITESPACE_CLASS,
            "head_chars": TITLE_HEAD_CHARS,
        },
    )
    return scope.with_ranges(statement, material="c.material_id", chunk_index="c.chunk_index")


def _source_chunks(scope: _Scope, hints: list[str]) -> set[int]:
    """The chunks on pages titled with a source the hints name (see ``_source_statement``)."""
    statement = _source_statement(scope, hints)
    if statement is None:
        return set()
    return {chunk_id for chunk_id, _, _ in _run_together({"sources": statement})["sources"]}


# A page is titled with a source when one of its first TITLE_LINES lines, folded as a reader sees it
# (lower case, runs of whitespace as one space, trimmed), is short and holds one of the source's names,
# so a title written with odd spaces ("Statements\u00a0of  Cash Flows") counts. The lines are read from
# the page's first TITLE_HEAD_CHARS characters when they hold them (the whole text otherwise), and only
# pages whose head has a name's words in order (``chains``: "%statements%of%cash%flows%", a cheap
# necessary condition) are folded line by line: folding every page's head took 40 ms for one 10-K.
_SOURCE_SQL = """
    WITH head AS (
        -- OFFSET 0 keeps each expression computed once a page (inlined, the planner repeated them).
        SELECT p.material_id, p.number, CASE WHEN h.lines >= %(lines)s THEN h.prefix ELSE lower(p.text) END AS head
        FROM knowledge_materialpage p
        CROSS JOIN LATERAL (SELECT lower(substr(p.text, 1, %(head_chars)s)) AS prefix OFFSET 0) AS x
        CROSS JOIN LATERAL (SELECT x.prefix, length(x.prefix) - length(replace(x.prefix, E'\\n', '')) AS lines OFFSET 0) AS h
        WHERE p.owner_id = ANY(%(owners)s) AND p.material_id = ANY(%(materials)s)
    ),
    titled AS MATERIALIZED (  -- each page checked once, not once per chunk it is joined with
        SELECT material_id, number FROM head
        WHERE head LIKE ANY(%(chains)s)
          AND EXISTS (
              SELECT 1
              FROM unnest((string_to_array(head, E'\\n'))[1:%(lines)s]) AS line(raw)
              CROSS JOIN LATERAL (SELECT btrim(regexp_replace(line.raw, %(whitespace)s, ' ', 'g'), ' ') AS folded) AS f
              WHERE f.folded LIKE ANY(%(patterns)s) AND length(f.folded) <= %(max_chars)s
          )
    )
    SELECT DISTINCT c.id AS chunk_id, c.material_id, NULL::float8 AS score
    FROM titled t
    JOIN knowledge_chunk c
      ON c.owner_id = ANY(%(owners)s) AND c.material_id = t.material_id AND c.page_number <= t.number AND c.page_end >= t.number
    WHERE true /*ranges*/
"""


def chunk_search(*, user, query: str, mode: str = "hybrid", **options) -> list[SearchHit]:
    """Search in ``mode`` (hybrid, semantic or lexical)."""
    if mode == "semantic":
        return chunk_search_semantic(user=user, query=query, **options)
    if mode == "lexical":
        options.pop("min_similarity", None)
        return chunk_search_lexical(user=user, query=query, **options)
    if mode == "hybrid":
        options.pop("min_similarity", None)
        return chunk_search_hybrid(user=user, query=query, **options)
    raise ValueError(f"Unknown search mode {mode!r}; use one of {', '.join(MODES)}.")


def chunk_search_multi(*, user, queries: Sequence[str], mode: str = "hybrid", k: int = TOP_K, **options) -> list[SearchHit]:
    """Search several phrasings and return their union, one hit per chunk keeping its best score."""
    best: dict[int, SearchHit] = {}
    for query in dict.fromkeys(query for query in queries if query.strip()):
        for hit in chunk_search(user=user, query=query, mode=mode, k=k, **options):
            if hit.chunk.pk not in best or hit.score > best[hit.chunk.pk].score:
                best[hit.chunk.pk] = hit
    return sorted(best.values(), key=lambda hit: (-hit.score, hit.chunk.pk))[:k]


# --- Rerankers -------------------------------------------------------------------------------


def rerank_with_llm(hits: list[SearchHit], *, query: str, llm, k: int) -> list[SearchHit]:
    """Ask an LLM to score each candidate 0–10 for the question; keep the original order whenever the
    reply cannot be parsed (or the call fails), so a confused model never loses a good passage."""
    from baeum.answering.llm import LLMError

    if not hits:
        return []
    numbered = "\n\n".join(
        f"[{number}] {superscript_references(hit.chunk.content[:LLM_RERANK_PASSAGE_CHARS])}" for number, hit in enumerate(hits, start=1)
    )
    try:
        reply = llm.complete(system=prompts.RERANK_SYSTEM, prompt=prompts.rerank_prompt(query, numbered), max_tokens=LLM_RERANK_MAX_TOKENS)
    except LLMError:
        return hits[:k]
    scores = rerank.parse_llm_scores(reply.text, len(hits))
    if scores is None:
        return hits[:k]
    order = sorted(range(len(hits)), key=lambda index: (-scores[index], index))
    return [hits[index] for index in order[:k]]


def rerank_hits(hits: list[SearchHit], *, query: str, reranker: str, k: int, llm=None) -> list[SearchHit]:
    """Reorder first-stage hits with ``keyword`` (vector × 0.7 + keyword overlap × 0.3), ``mmr``, or
    ``llm`` (only with a configured LLM)."""
    if not hits:
        return []
    if reranker == "llm":
        return rerank_with_llm(hits, query=query, llm=llm, k=k) if llm is not None else hits[:k]
    if reranker == "keyword":
        query_terms = Counter(analyze(query))
        evidence: dict[int, float] = {}
        by_model: dict[str, dict[int, float]] = defaultdict(dict)
        for hit in hits:
            if hit.vector_score is not None:
                by_model[hit.chunk.material.embedding_model][hit.chunk.pk] = hit.vector_score
        for model, similarity in by_model.items():  # each model's cosines on its own scale
            evidence |= VectorScores(embedder=embedder_for_model(model), similarity=similarity).evidence()
        scores = rerank.keyword_weighted(
            vector_scores=[evidence.get(hit.chunk.pk, 0.0) for hit in hits],
            keyword_scores=[rerank.keyword_overlap(query_terms, Counter(analyze(hit.chunk.content))) for hit in hits],
        )
        order = sorted(range(len(hits)), key=lambda index: -scores[index])
        return [replace(hits[index], score=scores[index]) for index in order[:k]]
    if reranker == "mmr":
        material_models = {hit.chunk.material_id: hit.chunk.material.embedding_model for hit in hits}
        vectors = {
            chunk_id: np.asarray(vector, dtype=np.float32)
            for chunk_id, vector, material_id, model in ChunkEmbedding.objects.unscoped()  # the hits are already the user's
            .filter(chunk_id__in=[hit.chunk.pk for hit in hits])
            .values_list("chunk_id", "embedding", "material_id", "model")
            if material_models.get(material_id) == model
        }
        # Vectors of two models cannot be compared: diversify among the hits of the most common model
        # (all of them, except while a library is being upgraded) and keep the others after, in order.
        model = Counter(material_models[hit.chunk.material_id] for hit in hits).most_common(1)[0][0]
        query_vector = embedder_for_model(model).embed_query(query)
        usable = [hit for hit in hits if hit.chunk.pk in vectors and material_models[hit.chunk.material_id] == model]
        order = rerank.mmr(query_vector, [vectors[hit.chunk.pk] for hit in usable], k=k, diversity=MMR_DIVERSITY)
        chosen = [usable[index] for index in order]
        return (chosen + [hit for hit in hits if material_models[hit.chunk.material_id] != model])[:k]
    raise ValueError(f"Unknown reranker {reranker!r}.")
