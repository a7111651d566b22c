"""Reads of the knowledge app. Every function takes the requesting user and sees only their rows."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction

from accounts.scoping import owner_id_of
from baeum.errors import NotFound
from baeum.text import normalize_query

from .models import Chunk, Material, MaterialPage
from .services.embedding import embedder_for_model

MAX_RANGE = 500
DEFAULT_K = {"chat": 5, "plan": 10, "session": 3}


class MaterialNotFound(NotFound):
    """No such material for this user: it does not exist or it is someone else's (never said which)."""

    def __init__(self, ref_id: str):
        super().__init__(f"No material {ref_id!r} in your library.")
        self.ref_id = ref_id


@dataclass(frozen=True)
class SearchHit:
    chunk: Chunk
    score: float

    @property
    def ref_id(self) -> str:
        return self.chunk.material.ref_id


def material_list(*, user, status: str | None = None):
    """Return the user's materials, newest first."""
    materials = Material.objects.for_user(user)
    return materials.filter(status=status) if status else materials


def access_material(*, user, ref_id: str) -> Material:
    """Return the user's material ``ref_id`` or raise ``MaterialNotFound`` (same error if not theirs)."""
    material = Material.objects.for_user(user).filter(ref_id=ref_id).first()
    if material is None:
        raise MaterialNotFound(ref_id)
    return material


def materials_in_scope(*, user, ref_ids: Iterable[str] | None = None, type: str | None = None, ready_only: bool = True):
    """Return the user's materials limited to ``ref_ids`` (each must be theirs) and ``type``."""
    materials = Material.objects.for_user(user)
    if ref_ids is not None:
        wanted = list(dict.fromkeys(ref_ids))
        found = set(materials.filter(ref_id__in=wanted).values_list("ref_id", flat=True))
        for ref_id in wanted:
            if ref_id not in found:
                raise MaterialNotFound(ref_id)
        materials = materials.filter(ref_id__in=wanted)
    if type:
        materials = materials.filter(type=type)
    if ready_only:
        materials = materials.filter(status=Material.Status.READY)
    return materials


def material_pages(*, user, ref_id: str, first: int = 1, last: int | None = None) -> list[MaterialPage]:
    """Return pages of one of the user's materials, for the page viewer."""
    material = access_material(user=user, ref_id=ref_id)
    pages = MaterialPage.objects.for_user(user).filter(material=material, number__gte=first)
    if last is not None:
        pages = pages.filter(number__lte=last)
    return list(pages.order_by("number"))


def chunk_range(*, user, ref_id: str, start: int, end: int) -> list[Chunk]:
    """Return the chunks of one material between two indexes (inclusive), in order."""
    material = access_material(user=user, ref_id=ref_id)
    if end < start:
        start, end = end, start
    end = min(end, start + MAX_RANGE - 1)
    return list(
        Chunk.objects.for_user(user)
        .filter(material=material, chunk_index__gte=max(0, start), chunk_index__lte=end)
        .select_related("material")
        .order_by("chunk_index")
    )


def material_stats(*, user, ref_ids: Iterable[str]) -> dict[str, dict]:
    """Return ``{refId: {chunkCount, status, pageCount}}`` for those of ``ref_ids`` the user owns."""
    rows = Material.objects.for_user(user).filter(ref_id__in=list(ref_ids)).values_list("ref_id", "chunk_count", "status", "page_count")
    return {ref_id: {"chunkCount": chunks, "status": status, "pageCount": pages} for ref_id, chunks, status, pages in rows}


def _vector_search(*, owner_id: int, model: str, dimension: int, material_ids: list[int], query_vector, k: int) -> list[tuple[int, float]]:
    """Return ``(chunk_id, similarity)`` of the nearest chunks of one model, within the owner's materials.

    HNSW with iterative scans keeps returning candidates until ``k`` rows pass the owner filter, so a
    small owner among many still gets ``k`` results; for a small owner the planner may instead read the
    (owner, model) b-tree and sort exactly. Either way, only this owner's rows are ever compared.
    """
    vector_literal = "[" + ",".join(f"{value:.7g}" for value in query_vector) + "]"
    sql = f"""
        SELECT chunk_id, (embedding::vector({dimension})) <=> %s::vector({dimension}) AS distance
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
    return [(chunk_id, 1.0 - float(distance)) for chunk_id, distance in rows]


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
    owner_id = owner_id_of(user)
    threshold = settings.BAEUM["MIN_SIMILARITY"] if min_similarity is None else min_similarity
    normalized = normalize_query(query)
    if not normalized:
        return []
    by_model: dict[tuple[str, int], list[int]] = defaultdict(list)
    for material_id, model, dimension in materials_in_scope(user=user, ref_ids=ref_ids, type=type).values_list(
        "id", "embedding_model", "embedding_dimension"
    ):
        by_model[(model, dimension)].append(material_id)
    scored: list[tuple[int, float]] = []
    for (model, dimension), material_ids in by_model.items():
        vector = embedder_for_model(model).embed_query(normalized)
        scored.extend(
            _vector_search(owner_id=owner_id, model=model, dimension=dimension, material_ids=material_ids, query_vector=vector, k=k)
        )
    scored = sorted((item for item in scored if item[1] >= threshold), key=lambda item: -item[1])[:k]
    chunks = Chunk.objects.for_user(user).select_related("material").in_bulk([chunk_id for chunk_id, _ in scored])
    return [SearchHit(chunk=chunks[chunk_id], score=score) for chunk_id, score in scored if chunk_id in chunks]
