"""The quality embedder: a material is searchable with USE at once, then re-embedded with e5 in the
background (resumable slices, progress in the API), and hybrid search reads each model on its scale."""

from types import SimpleNamespace

import pytest

from knowledge import selectors
from knowledge.models import ChunkEmbedding, Material
from knowledge.selectors.search import VectorScores, fuse
from knowledge.services.materials import material_reingest
from knowledge.services.reembed import material_reembed, material_upgrade_start
from knowledge.tasks import reembed_material
from tests.pdfgen import make_pdf

E5 = "multilingual-e5-small"
USE = "use-multilingual-v3"
PAGES = [
    "Chapter 1 Searching\nBinary search halves the sorted interval at each step until the key is found.",
    "Chapter 2 Hashing\nA hash table maps keys to values through a hash function; collisions share a bucket.",
    "Chapter 3 Sorting\nMerge sort splits the list in two, sorts each half and merges the sorted halves.",
]


def _embedder(model: str, scale: str, weight: float):
    return SimpleNamespace(model=model, similarity_scale=scale, lexical_weight=weight, min_similarity=0.0)


def test_relative_models_are_read_between_the_querys_best_and_worst_candidates():
    flat_but_ordered = VectorScores(embedder=_embedder(E5, "relative", 0.6), similarity={1: 0.91, 2: 0.83, 3: 0.79})
    assert flat_but_ordered.evidence() == pytest.approx({1: 1.0, 2: 1 / 3, 3: 0.0})
    absolute = VectorScores(embedder=_embedder(USE, "absolute", 0.7), similarity={1: 0.41, 2: -0.05})
    assert absolute.evidence() == {1: 0.41, 2: 0.0}


def test_fusion_uses_each_models_lexical_weight_unless_alpha_is_set():
    # Chunk 1 wins on BM25 by a hair; chunk 2 is clearly nearer in meaning.
    lexical = {1: 10.0, 2: 9.9}
    vectors = [VectorScores(embedder=_embedder(E5, "relative", 0.6), similarity={1: 0.80, 2: 0.90})]
    assert fuse(vectors, lexical)[0][0] == 2  # the stronger model may settle a near-tie
    assert fuse(vectors, lexical, alpha=1.0)[0][0] == 1  # BAEUM_HYBRID_ALPHA=1: keywords only
    # A chunk only BM25 found takes its own model's weight.
    weak = [VectorScores(embedder=_embedder(USE, "absolute", 0.7), similarity={3: 0.2})]
    fused = dict(fuse(weak, {4: 5.0}, model_of_chunk={4: USE}))
    assert fused[4] == pytest.approx(1.0) and fused[3] == pytest.approx(0.0)


# transaction=True: the background re-embedding is queued with transaction.on_commit.
@pytest.mark.django_db(transaction=True)
def test_new_material_is_searchable_at_once_then_upgraded_in_the_background(user, ingest, settings, api_client):
    settings.BAEUM = {**settings.BAEUM, "QUALITY_EMBEDDER": "e5"}
    # Eager tasks: the upgrade queued when ingestion commits runs right after it, as a worker would.
    material = ingest(user, make_pdf(PAGES), "algorithms.pdf")
    assert material.status == Material.Status.READY
    material.refresh_from_db()
    assert material.embedding_model == E5 and material.embedding_dimension == 384 and not material.pending_embedding_model
    assert material.reembed_done == material.reembed_total == material.chunk_count
    assert set(ChunkEmbedding.objects.for_user(user).values_list("model", flat=True)) == {E5}  # USE vectors dropped
    for mode in ("hybrid", "semantic"):
        hits = selectors.chunk_search(user=user, query="how does a hash table handle collisions?", mode=mode, k=1)
        assert hits and hits[0].chunk.page_number == 2, mode
    body = api_client.get(f"/api/v1/materials/{material.ref_id}/").json()
    assert body["embeddingModel"] == E5 and body["embeddingUpgrade"] is None


@pytest.mark.django_db(transaction=True)
def test_upgrade_runs_in_resumable_slices_and_reports_progress(user, ingest, settings, api_client, monkeypatch):
    settings.BAEUM = {**settings.BAEUM, "EMBED_BATCH_SIZE": 1}
    material = ingest(user, make_pdf(PAGES), "algorithms.pdf")
    assert material.embedding_model == USE and material.chunk_count >= 3
    Material.objects.filter(pk=material.pk).update(pending_embedding_model=E5)

    material_after, finished = material_reembed(material_id=material.pk, model=E5, time_budget=0)
    assert not finished and material_after.embedding_model == USE  # search still on USE meanwhile
    body = api_client.get(f"/api/v1/materials/{material.ref_id}/").json()
    assert body["embeddingModel"] == USE and body["embeddingUpgrade"] == {"model": E5, "done": 1, "total": material.chunk_count}
    assert set(ChunkEmbedding.objects.for_user(user).values_list("model", flat=True)) == {USE}

    # The task re-queues itself slice after slice until the switch is done (eager: in-process).
    monkeypatch.setattr("knowledge.tasks.REEMBED_SLICE_SECONDS", 0)
    reembed_material.delay(material.pk, E5)
    material.refresh_from_db()
    assert material.embedding_model == E5 and not material.pending_embedding_model
    assert ChunkEmbedding.objects.for_user(user).filter(model=E5).count() == material.chunk_count


@pytest.mark.django_db(transaction=True)
def test_an_upgrade_reports_its_total_before_its_first_batch_is_embedded(user, ingest, monkeypatch):
    """Walkthrough 26: a 52-chunk paper showed "0/0" and a refusal said "(0%)" while its only batch was embedded."""
    material = ingest(user, make_pdf(PAGES), "algorithms.pdf")
    Material.objects.filter(pk=material.pk).update(pending_embedding_model=E5)
    seen = []

    def first_batch(**_kwargs):
        seen.append(Material.objects.filter(pk=material.pk).values_list("reembed_done", "reembed_total").get())
        raise RuntimeError("stop after reading the progress")

    monkeypatch.setattr("knowledge.services.reembed.embeddings_compute", first_batch)
    with pytest.raises(RuntimeError):
        material_reembed(material_id=material.pk, model=E5)
    assert seen == [(0, material.chunk_count)]


@pytest.mark.django_db(transaction=True)
def test_upgrade_of_a_material_reingested_meanwhile_is_dropped(user, ingest):
    material = ingest(user, make_pdf(PAGES), "algorithms.pdf")
    Material.objects.filter(pk=material.pk).update(pending_embedding_model=E5)
    material_reembed(material_id=material.pk, model=E5, time_budget=0)
    material_reingest(material=material)  # new chunks (eager: ingested again at once)
    material.refresh_from_db()
    assert material.status == Material.Status.READY and not material.pending_embedding_model
    _, finished = material_reembed(material_id=material.pk, model=E5)
    material.refresh_from_db()
    assert finished and material.embedding_model == USE  # nothing switched to vectors of old chunks
    assert set(ChunkEmbedding.objects.for_user(user).values_list("model", flat=True)) == {USE}


@pytest.mark.django_db(transaction=True)
def test_a_library_mid_upgrade_searches_each_material_with_its_own_model(user, other_user, ingest, settings):
    settings.BAEUM = {**settings.BAEUM, "QUALITY_EMBEDDER": "e5"}
    upgraded = ingest(user, make_pdf(PAGES[:2]), "upgraded.pdf")
    settings.BAEUM = {**settings.BAEUM, "QUALITY_EMBEDDER": ""}
    fast = ingest(user, make_pdf([PAGES[2]]), "fast.pdf")
    ingest(other_user, make_pdf(PAGES), "theirs.pdf")  # identical text, another owner
    upgraded.refresh_from_db()
    assert (upgraded.embedding_model, fast.embedding_model) == (E5, USE)
    for mode in ("hybrid", "semantic"):
        sorting = selectors.chunk_search(user=user, query="merge sort splits the list", mode=mode, k=3)
        hashing = selectors.chunk_search(user=user, query="hash table collisions", mode=mode, k=3)
        assert sorting[0].chunk.material_id == fast.pk, mode
        assert hashing[0].chunk.material_id == upgraded.pk and hashing[0].chunk.page_number == 2, mode
        assert {hit.chunk.owner_id for hit in sorting + hashing} == {user.pk}
    for reranker in ("mmr", "keyword"):  # rerankers cope with vectors of two models in one result list
        hits = selectors.chunk_search_hybrid(user=user, query="hash table and merge sort", k=3, reranker=reranker)
        assert {hit.chunk.material_id for hit in hits} == {upgraded.pk, fast.pk}, reranker


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("setting", ["", "none", "use"])
def test_no_upgrade_when_turned_off_or_already_on_that_model(user, ingest, settings, setting):
    settings.BAEUM = {**settings.BAEUM, "QUALITY_EMBEDDER": setting}
    material = ingest(user, make_pdf(PAGES[:1]), "one.pdf")
    material.refresh_from_db()
    assert material.embedding_model == USE and not material.pending_embedding_model
    assert not material_upgrade_start(material=material)


@pytest.mark.django_db(transaction=True)
def test_upgrade_embeddings_command_upgrades_materials_from_before(user, other_user, ingest, settings):
    from io import StringIO

    from django.core.management import call_command

    mine, theirs = ingest(user, make_pdf(PAGES[:1]), "a.pdf"), ingest(other_user, make_pdf(PAGES[1:2]), "b.pdf")
    out = StringIO()
    call_command("upgrade_embeddings", stdout=out)
    assert "nothing to do" in out.getvalue()
    settings.BAEUM = {**settings.BAEUM, "QUALITY_EMBEDDER": "e5"}
    call_command("upgrade_embeddings", stdout=out)  # eager tasks: done by the time it returns
    assert "Queued 2 materials for multilingual-e5-small" in out.getvalue()
    assert {m.embedding_model for m in Material.objects.unscoped().filter(pk__in=[mine.pk, theirs.pk])} == {E5}
    call_command("upgrade_embeddings", stdout=out)
    assert out.getvalue().endswith("Queued 0 materials for multilingual-e5-small.\n")
