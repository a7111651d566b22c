"""Embedding with a per-owner content-hash cache (the embedders themselves: ``core.providers``)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

import numpy as np
from django.conf import settings

from baeum.retrieval.embeddings import Embedder

from ..models import EmbeddingCache


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cache_key(text: str, owner_id: int) -> str:
    """The embedding cache is kept per owner: a shared cache would let one learner learn, from how fast
    an upload's progress moves, whether another learner holds the same text (a salary in an HR note)."""
    return hashlib.sha256(f"{owner_id}\0{text}".encode()).hexdigest()


def embeddings_compute(
    *, texts: Sequence[str], embedder: Embedder, owner_id: int, on_progress: Callable[[int], None] | None = None
) -> list[np.ndarray]:
    """Return one vector per text, reusing the owner's cached vectors and caching new ones as each batch
    completes. Caching per batch makes a failed run resumable: a re-run embeds only what is still missing.
    """
    hashes = [cache_key(text, owner_id) for text in texts]
    known: dict[str, np.ndarray] = {
        row_hash: np.asarray(vector, dtype=np.float32)
        for row_hash, vector in EmbeddingCache.objects.filter(model=embedder.model, content_hash__in=set(hashes)).values_list(
            "content_hash", "embedding"
        )
    }
    missing: dict[str, str] = {}
    for row_hash, text in zip(hashes, texts, strict=True):
        if row_hash not in known:
            missing.setdefault(row_hash, text)

    def report() -> None:
        if on_progress:
            on_progress(sum(1 for row_hash in hashes if row_hash in known))

    report()
    pending = list(missing.items())
    batch_size = settings.BAEUM["EMBED_BATCH_SIZE"]
    for start in range(0, len(pending), batch_size):
        batch = pending[start : start + batch_size]
        vectors = embedder.embed_documents([text for _, text in batch])
        EmbeddingCache.objects.bulk_create(
            [
                EmbeddingCache(content_hash=row_hash, model=embedder.model, embedding=vector)
                for (row_hash, _), vector in zip(batch, vectors, strict=True)
            ],
            ignore_conflicts=True,
        )
        for (row_hash, _), vector in zip(batch, vectors, strict=True):
            known[row_hash] = vector
        report()
    return [known[row_hash] for row_hash in hashes]


def chunk_embeddings_store(*, material, chunks, vectors, embedder) -> None:
    """Write one vector of ``embedder``'s model per chunk (callers hold the transaction)."""
    from ..models import ChunkEmbedding

    ChunkEmbedding.objects.bulk_create(
        [
            ChunkEmbedding(
                chunk=chunk,
                material=material,
                owner_id=material.owner_id,
                model=embedder.model,
                dimension=embedder.dimension,
                embedding=vector,
            )
            for chunk, vector in zip(chunks, vectors, strict=True)
        ],
        batch_size=500,
    )
