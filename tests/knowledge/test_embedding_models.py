"""Embedding providers: Gemini through a faked transport; re-embedding with another model."""

import json

import httpx2
import numpy as np
import pytest

from baeum.retrieval.embeddings import EmbeddingError, GeminiEmbedder
from knowledge import selectors
from knowledge.models import ChunkEmbedding, Material
from knowledge.services.reembed import material_reembed


def _gemini(handler):
    return GeminiEmbedder(api_key="test-key", http_client=httpx2.Client(transport=httpx2.MockTransport(handler)), retries=3)


def test_gemini_embeddings_are_requested_and_normalised():
    seen = []

    def handler(request):
        body = json.loads(request.content)
        seen.append((request.url.path, body))
        count = len(body.get("requests", [])) or 1
        return httpx2.Response(200, json={"embeddings": [{"values": [3.0, 4.0] + [0.0] * 766} for _ in range(count)]})

    vectors = _gemini(handler).embed_documents(["first passage", "second passage"])
    assert vectors.shape == (2, 768)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0)
    assert "gemini-embedding-001" in seen[0][0]
    assert "RETRIEVAL_DOCUMENT" in json.dumps(seen[0][1])


def test_gemini_retries_rate_limits_then_succeeds():
    attempts = {"count": 0}

    def handler(request):
        attempts["count"] += 1
        if attempts["count"] == 1:
            return httpx2.Response(429, json={"error": {"code": 429, "message": "slow down", "status": "RESOURCE_EXHAUSTED"}})
        return httpx2.Response(200, json={"embeddings": [{"values": [1.0] * 768}]})

    assert _gemini(handler).embed_query("question").shape == (768,)
    assert attempts["count"] == 2


def test_gemini_permanent_errors_are_not_retried():
    attempts = {"count": 0}

    def handler(request):
        attempts["count"] += 1
        return httpx2.Response(400, json={"error": {"code": 400, "message": "API key not valid", "status": "INVALID_ARGUMENT"}})

    with pytest.raises(EmbeddingError) as caught:
        _gemini(handler).embed_query("question")
    assert not caught.value.transient
    assert attempts["count"] == 1


@pytest.mark.django_db
def test_switching_model_reembeds_in_the_background_without_mixing_models(user, ingest):
    from tests.pdfgen import make_pdf

    material = ingest(
        user,
        make_pdf(
            ["Chapter 1 Searching\nBinary search halves the interval each step.", "Chapter 2 Hashing\nA hash table maps keys to values."]
        ),
    )
    assert material.embedding_model == "use-multilingual-v3"
    # While the new model is being written, search still uses (only) the old one.
    Material.objects.filter(pk=material.pk).update(pending_embedding_model="multilingual-e5-small")
    hits = selectors.chunk_search_semantic(user=user, query="hash table", k=1, min_similarity=-1)
    assert hits[0].chunk.page_number == 2
    material, finished = material_reembed(material_id=material.pk, model="multilingual-e5-small")
    assert finished and material.embedding_model == "multilingual-e5-small" and material.embedding_dimension == 384
    assert set(ChunkEmbedding.objects.for_user(user).values_list("model", "dimension")) == {("multilingual-e5-small", 384)}
    hits = selectors.chunk_search_semantic(user=user, query="hash table", k=1, min_similarity=-1)
    assert hits[0].chunk.page_number == 2


def test_use_embeds_a_batch_on_several_copies_in_order_with_the_same_vectors():
    from baeum.retrieval import embeddings

    encoder = embeddings.get_embedder("use-multilingual-v3")
    texts = [f"Passage {number}: a register holds {number} bytes. 레지스터는 {number}바이트를 담는다." for number in range(13)]
    together = encoder.embed_documents(texts)
    assert together.shape == (13, 512)
    if embeddings.DOCUMENT_WORKERS > 1:
        assert len(encoder._document_copies()) == embeddings.DOCUMENT_WORKERS
    one_by_one = np.vstack([encoder.embed_documents([text]) for text in texts])  # below MIN_SPLIT: one copy
    assert np.allclose(together, one_by_one, atol=1e-5)
    assert np.allclose(encoder.embed_query(texts[7]), one_by_one[7], atol=1e-5)
