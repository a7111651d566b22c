"""Search over the user's chunks: semantic (pgvector), lexical (BM25 over Kiwi/English terms plus
pg_trgm for identifiers), hybrid (score-normalised weighted fusion), rerankers and multi-query.

Every function takes the requesting user; the owner filter is in every SQL statement, and refIds are
checked against the user's materials first (someone else's refId is "not found").
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q

from accounts.scoping import owner_id_of
from baeum import rerank
from baeum.analysis import analyze
from baeum.embeddings import Embedder
from baeum.questions import analyse_question, hint_variants
from baeum.text import normalize_query

from ..models import Chunk, ChunkEmbedding, MaterialPage
from ..services.embedding import embedder_for_model
from .materials import DEFAULT_K, materials_in_scope

MODES = ("hybrid", "semantic", "lexical")
BM25_K1 = 1.2
BM25_B = 0.75
CANDIDATES = 30  # first-stage width of each retriever in hybrid mode
# A question that names its source ("… shown in the cash flow statement") ranks first the chunks where a
# page opens with that source's title; measured on ../shared/eval/financebench_dev (README, eval_documents).
SOURCE_BOOST = 1.0  # added to a fused score (0..1): the named source's pages come first, ordered by relevance
TITLE_LINES = 8  # a page's title is among its first lines (after running heads and the company name)
TITLE_MAX_CHARS = 90  # a title line is short; a sentence that mentions the statement is not its title
SOURCE_CANDIDATES = 300  # pages naming a source that are checked for a title (a 10-K names its statements ~50 times)
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
    owner_id: int
    material_ids: list[int]
    by_model: dict[tuple[str, int], list[int]]

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


def min_similarity_of(embedder: Embedder) -> float:
    """The semantic-mode floor: ``BAEUM_MIN_SIMILARITY`` when set, else the model's own."""
    configured = settings.BAEUM["MIN_SIMILARITY"]
    return embedder.min_similarity if configured is None else float(configured)


def _scope(*, user, ref_ids: Iterable[str] | None, type: str | None) -> _Scope:
    owner_id = owner_id_of(user)
    by_model: dict[tuple[str, int], list[int]] = defaultdict(list)
    material_ids: list[int] = []
    rows = materials_in_scope(user=user, ref_ids=ref_ids, type=type).values_list("id", "embedding_model", "embedding_dimension")
    for material_id, model, dimension in rows:
        material_ids.append(material_id)
        by_model[(model, dimension)].append(material_id)
    return _Scope(owner_id=owner_id, material_ids=material_ids, by_model=dict(by_model))


# --- Vector retrieval ------------------------------------------------------------------------


def _vector_search(*, owner_id: int, model: str, dimension: int, material_ids: list[int], query_vector, k: int) -> list[tuple[int, float]]:
    """Return ``(chunk_id, similarity)`` of the nearest chunks of one model, within the owner's materials.

    HNSW with iterative scans keeps returning candidates until ``k`` rows pass the owner filter, so a
    small owner among many still gets ``k`` results; for a small owner the planner may instead read the
    (owner, model) b-tree and sort exactly. Either way, only this owner's rows are ever compared.
    """
    vector_literal = "[" + ",".join(f"{value:.7g}" for value in query_vector) + "]"
    sql = f"""
        SELECT chunk_id, (embedding::vector({int(dimension)})) <=> %s::vector({int(dimension)}) AS distance
        FROM knowledge_chunkembedding
        WHERE owner_id = %s AND model = %s AND material_id = ANY(%s)
        ORDER BY distance
        LIMIT %s
    """
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL hnsw.iterative_scan = relaxed_order")
        cursor.execute("SET LOCAL hnsw.ef_search = %s", [max(40, 2 * k)])
        cursor.execute(sql, [vector_literal, owner_id, model, material_ids, k])
        rows = cursor.fetchall()
    return sorted(((chunk_id, 1.0 - float(distance)) for chunk_id, distance in rows), key=lambda item: -item[1])


def _vector_candidates(scope: _Scope, query: str, k: int) -> list[VectorScores]:
    """The query embedded once per model in scope, each compared only with that model's vectors."""
    results = []
    for (model, dimension), material_ids in scope.by_model.items():
        embedder = embedder_for_model(model)
        vector = embedder.embed_query(query)
        found = _vector_search(
            owner_id=scope.owner_id, model=model, dimension=dimension, material_ids=material_ids, query_vector=vector, k=k
        )
        results.append(VectorScores(embedder=embedder, similarity=dict(found)))
    return results


def _similarities(vectors: Sequence[VectorScores]) -> dict[int, float]:
    return {chunk_id: value for scores in vectors for chunk_id, value in scores.similarity.items()}


# --- Lexical retrieval -----------------------------------------------------------------------

_BM25_SQL = """
    WITH query_terms AS MATERIALIZED (
        SELECT term, count(*) AS qtf FROM unnest(%(terms)s::text[]) AS term GROUP BY term
    ),
    corpus AS MATERIALIZED (
        SELECT count(*)::float8 AS n, coalesce(avg(term_count), 1)::float8 AS avgdl
        FROM knowledge_chunk WHERE owner_id = %(owner)s AND material_id = ANY(%(materials)s)
    ),
    df AS MATERIALIZED (
        SELECT term, count(*)::float8 AS df FROM knowledge_chunkterm
        WHERE owner_id = %(owner)s AND term = ANY(%(terms)s) AND material_id = ANY(%(materials)s)
        GROUP BY term
    ),
    weights AS MATERIALIZED (
        -- IDF once per term. Terms in more than half of the chunks carry almost no evidence and
        -- cost the most to score, so long queries skip them (in libraries of 20 chunks or more).
        SELECT q.term, q.qtf * ln(1 + (c.n - df.df + 0.5) / (df.df + 0.5)) AS idf, c.avgdl
        FROM query_terms q JOIN df USING (term) CROSS JOIN corpus c
        WHERE df.df <= c.n * %(max_df)s OR c.n < 20
    )
    SELECT p.chunk_id, p.material_id,
           sum(w.idf * p.tf * (%(k1)s + 1) / (p.tf + %(k1)s * (1 - %(b)s + %(b)s * p.doc_length / greatest(w.avgdl, 1)))) AS score
    FROM knowledge_chunkterm p JOIN weights w USING (term)
    WHERE p.owner_id = %(owner)s AND p.term = ANY(%(terms)s) AND p.material_id = ANY(%(materials)s)
    GROUP BY p.chunk_id, p.material_id
    ORDER BY score DESC
    LIMIT %(k)s
"""


def _lexical_candidates(scope: _Scope, query: str, k: int, *, materials: dict[int, int] | None = None) -> dict[int, float]:
    """BM25 over the owner's chunks in scope (IDF from those chunks), plus exact identifier matches.

    ``materials``, when given, receives chunk id → material id of every candidate.
    """
    terms = analyze(query)
    if not scope.material_ids:
        return {}
    scored: dict[int, float] = {}
    material_of: dict[int, int] = {} if materials is None else materials
    if terms:
        with connection.cursor() as cursor:
            cursor.execute(
                _BM25_SQL,
                {
                    "terms": terms,
                    "owner": scope.owner_id,
                    "materials": scope.material_ids,
                    "k1": BM25_K1,
                    "b": BM25_B,
                    "k": k,
                    "max_df": 0.5 if len(set(terms)) > 12 else 1.0,
                },
            )
            for chunk_id, material_id, score in cursor.fetchall():
                scored[chunk_id] = float(score)
                material_of[chunk_id] = material_id
    identifiers = [token for token in _IDENTIFIER.findall(query) if len(token) >= 4]
    if identifiers:
        # Codes such as ORD-2024-001 or file_name.py: a verbatim substring match (pg_trgm index)
        # ranks above any partial BM25 match.
        bonus = (max(scored.values()) if scored else 1.0) + 1.0
        for identifier in identifiers[:3]:
            matches = Chunk.objects.unscoped().filter(  # scoped by owner_id on the next line
                owner_id=scope.owner_id, material_id__in=scope.material_ids, content__icontains=identifier
            )
            for chunk_id, material_id in matches.values_list("id", "material_id")[:k]:
                scored[chunk_id] = scored.get(chunk_id, 0.0) + bonus
                material_of[chunk_id] = material_id
    return dict(sorted(scored.items(), key=lambda item: -item[1])[:k])


# --- Public selectors ------------------------------------------------------------------------


def _hits(user, ranked: Sequence[tuple[int, float]], vector: dict[int, float], lexical: dict[int, float]) -> list[SearchHit]:
    chunks = Chunk.objects.for_user(user).select_related("material").in_bulk([chunk_id for chunk_id, _ in ranked])
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
    k: int = DEFAULT_K["chat"],
    min_similarity: float | None = None,
) -> list[SearchHit]:
    """Return the user's chunks nearest to ``query`` by cosine similarity, best first.

    Materials are grouped by the model their vectors were made with; the query is embedded once per
    model and compared only with that model's vectors.
    """
    normalized = normalize_query(analyse_question(query).retrieval_query)
    scope = _scope(user=user, ref_ids=ref_ids, type=type)
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
    *, user, query: str, ref_ids: Iterable[str] | None = None, type: str | None = None, k: int = DEFAULT_K["chat"]
) -> list[SearchHit]:
    """Return the user's chunks ranked by BM25 over analysed terms (Korean morphemes, English stems)."""
    scope = _scope(user=user, ref_ids=ref_ids, type=type)
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
    settled by meaning. Measured on ../shared/eval (README): better there than min-max, z-score and
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
    k: int = DEFAULT_K["chat"],
    alpha: float | None = None,
    candidates: int = CANDIDATES,
    reranker: str | None = None,
    llm=None,
) -> list[SearchHit]:
    """Return the best ``k`` of lexical top-N ∪ vector top-N, fused (see ``fuse``), optionally reranked.

    Long questions are searched for what they ask (``baeum.questions``): answering instructions
    ("Round your answer to two decimal places") are dropped, source hints ("the cash flow statement") kept.
    """
    question = analyse_question(query)
    query = question.retrieval_query
    normalized = normalize_query(query)
    scope = _scope(user=user, ref_ids=ref_ids, type=type)
    if not normalized or not scope.material_ids:
        return []
    width = max(candidates, k)
    vectors = _vector_candidates(scope, normalized, width)
    materials: dict[int, int] = {}
    lexical = _lexical_candidates(scope, query, width, materials=materials)
    model_of_material = scope.model_of_material
    ranked = fuse(
        vectors,
        lexical,
        alpha=hybrid_alpha() if alpha is None else alpha,
        model_of_chunk={chunk_id: model_of_material.get(material_id, "") for chunk_id, material_id in materials.items()},
    )
    sources = _source_chunks(scope, question.hints)
    if sources:
        fused = dict(ranked)
        ranked = sorted(
            ((chunk_id, fused.get(chunk_id, 0.0) + SOURCE_BOOST * (chunk_id in sources)) for chunk_id in fused.keys() | sources),
            key=lambda item: (-item[1], item[0]),
        )
    vector = _similarities(vectors)
    if reranker:
        hits = _hits(user, ranked[:width], vector, lexical)
        return rerank_hits(hits, query=normalized, reranker=reranker, k=k, llm=llm)
    return _hits(user, ranked[:k], vector, lexical)


def _source_chunks(scope: _Scope, hints: list[str]) -> set[int]:
    """Chunks on the pages titled with a source the question names ("Consolidated Statements of Cash
    Flows" for "the cash flow statement"): a page is titled with it when one of its first lines is
    short and holds one of the source's names (a mention inside a sentence or a contents line
    further down does not count); every chunk on such a page counts (the title's and the rows after it)."""
    names = list(dict.fromkeys(name.casefold() for hint in hints for name in hint_variants(hint)))
    if not names:
        return set()
    naming = Q()
    for name in names:
        naming |= Q(text__icontains=name)
    rows = MaterialPage.objects.unscoped().filter(naming, owner_id=scope.owner_id, material_id__in=scope.material_ids)  # scoped by owner_id
    pages: set[tuple[int, int]] = set()
    for material_id, number, text in rows.values_list("material_id", "number", "text")[:SOURCE_CANDIDATES]:
        head = [" ".join(line.casefold().split()) for line in text.split("\n")[:TITLE_LINES]]
        if any(name in line and len(line) <= TITLE_MAX_CHARS for line in head for name in names):
            pages.add((material_id, number))
    if not pages:
        return set()
    on_pages = Q()
    for material_id, page in pages:
        on_pages |= Q(material_id=material_id, page_number__lte=page, page_end__gte=page)
    return set(Chunk.objects.unscoped().filter(on_pages, owner_id=scope.owner_id).values_list("pk", flat=True))  # scoped by owner_id


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


def chunk_search_multi(*, user, queries: Sequence[str], mode: str = "hybrid", k: int = DEFAULT_K["chat"], **options) -> list[SearchHit]:
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
    from baeum.llm import LLMError

    if not hits:
        return []
    numbered = "\n\n".join(f"[{number}] {hit.chunk.content[:800]}" for number, hit in enumerate(hits, start=1))
    system = "Score how well each numbered passage answers the question, from 0 (not at all) to 10 (fully). Reply with a JSON list of numbers, one per passage, in order."
    try:
        reply = llm.complete(system=system, prompt=f"Question: {query}\n\nPassages:\n{numbered}", max_tokens=200)
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
        order = rerank.mmr(query_vector, [vectors[hit.chunk.pk] for hit in usable], k=k, diversity=0.5)
        chosen = [usable[index] for index in order]
        return (chosen + [hit for hit in hits if material_models[hit.chunk.material_id] != model])[:k]
    raise ValueError(f"Unknown reranker {reranker!r}.")
