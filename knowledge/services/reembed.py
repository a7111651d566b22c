"""Re-embedding a READY material with another model: the quality upgrade (``BAEUM_QUALITY_EMBEDDER``) in
the background, in resumable slices; search keeps the old vectors until the switch."""

from __future__ import annotations

import time

from django.conf import settings
from django.db import transaction

from core.providers import embedder_for_model, quality_embedder

from ..models import Chunk, ChunkEmbedding, EmbeddingCache, Material
from .embedding import cache_key, chunk_embeddings_store, embeddings_compute
from .vector_indexes import vector_indexes_sync_later


def material_reembed_start(*, material: Material, model: str) -> None:
    """Queue re-embedding a READY material with ``model``; search keeps the old vectors meanwhile."""
    from ..tasks import reembed_material

    with transaction.atomic():
        Material.objects.unscoped().filter(pk=material.pk).update(pending_embedding_model=model, reembed_done=0, reembed_total=0)
        transaction.on_commit(lambda: reembed_material.delay(material.pk, model))


def material_upgrade_start(*, material: Material) -> bool:
    """Queue the quality embedder (``BAEUM_QUALITY_EMBEDDER``) for a material that just became READY.

    The material is searchable at once with the fast embedder; the stronger vectors replace them when
    the background work finishes. Return whether anything was queued.
    """
    quality = quality_embedder()
    if quality is None or material.status != Material.Status.READY or quality.model == material.embedding_model:
        return False
    material_reembed_start(material=material, model=quality.model)
    return True


def material_reembed(*, material_id: int, model: str, time_budget: float | None = None) -> tuple[Material | None, bool]:
    """Write vectors of ``model`` for every chunk, then switch search to them and drop the old ones.

    Work is cached batch by batch, so it can stop after ``time_budget`` seconds and continue in a
    later call (the task re-queues itself): one long book never holds a worker past the broker's
    visibility timeout. Return the material and whether the switch is done. A material deleted,
    failed or re-ingested meanwhile is left alone (re-ingestion queues its own upgrade).
    """
    material = Material.objects.unscoped().filter(pk=material_id, status=Material.Status.READY).first()  # system task
    if material is None or material.pending_embedding_model != model:
        return material, True
    embedder = embedder_for_model(model)
    if material.embedding_model == embedder.model:
        Material.objects.unscoped().filter(pk=material.pk).update(pending_embedding_model="")
        return material, True
    chunks = list(Chunk.objects.unscoped().filter(material=material).order_by("chunk_index"))  # system task
    keys = {chunk.pk: cache_key(chunk.content, material.owner_id) for chunk in chunks}
    cached = set(
        EmbeddingCache.objects.filter(model=embedder.model, content_hash__in=list(keys.values())).values_list("content_hash", flat=True)
    )
    pending = [chunk.content for chunk in chunks if keys[chunk.pk] not in cached]  # what earlier slices did not do
    # Progress from the start, not after the first batch: the library and a refusal across languages read it ("0/0",
    # "(0%)" while a 52-chunk paper's only batch was being embedded, walkthrough 26).
    Material.objects.unscoped().filter(pk=material.pk).update(reembed_done=len(chunks) - len(pending), reembed_total=len(chunks))
    if not _embed_pending(material, embedder, chunks, pending, time_budget):
        return material, False
    switched = _switch_vectors(material, embedder, chunks, model)
    vector_indexes_sync_later(owner_id=material.owner_id)  # the new model's vectors may make a large library
    return switched, True


def _embed_pending(material: Material, embedder, chunks: list[Chunk], pending: list[str], time_budget: float | None) -> bool:
    """Embed the chunks no earlier slice did, batch by batch into the cache, with progress; return
    whether all are done (False: ``time_budget`` ran out and the task re-queues itself)."""
    started = time.monotonic()
    batch = settings.BAEUM["EMBED_BATCH_SIZE"]
    for start in range(0, len(pending), batch):
        embeddings_compute(texts=pending[start : start + batch], embedder=embedder, owner_id=material.owner_id)  # cached per batch
        done = len(chunks) - len(pending) + min(start + batch, len(pending))
        Material.objects.unscoped().filter(pk=material.pk).update(reembed_done=done, reembed_total=len(chunks))
        if time_budget is not None and done < len(chunks) and time.monotonic() - started > time_budget:
            return False
    Material.objects.unscoped().filter(pk=material.pk).update(reembed_done=len(chunks), reembed_total=len(chunks))
    return True


def _switch_vectors(material: Material, embedder, chunks: list[Chunk], model: str) -> Material | None:
    """Replace the material's vectors by ``model``'s in one transaction, unless it changed meanwhile
    (re-ingested, failed, deleted or queued for another model): then leave it as it is."""
    vectors = embeddings_compute(
        texts=[chunk.content for chunk in chunks], embedder=embedder, owner_id=material.owner_id
    )  # all cached: one read
    with transaction.atomic():
        current = Material.objects.unscoped().select_for_update().filter(pk=material.pk, status=Material.Status.READY).first()
        unchanged = current is not None and current.pending_embedding_model == model
        unchanged = unchanged and list(
            Chunk.objects.unscoped().filter(material=material).order_by("chunk_index").values_list("id", flat=True)
        ) == [chunk.pk for chunk in chunks]
        if not unchanged:
            return current
        ChunkEmbedding.objects.unscoped().filter(material=material, model=embedder.model).delete()
        chunk_embeddings_store(material=material, chunks=chunks, vectors=vectors, embedder=embedder)
        old_model = current.embedding_model
        Material.objects.unscoped().filter(pk=material.pk).update(
            embedding_model=embedder.model, embedding_dimension=embedder.dimension, pending_embedding_model=""
        )
        ChunkEmbedding.objects.unscoped().filter(material=material, model=old_model).delete()
    material.refresh_from_db()
    return material
