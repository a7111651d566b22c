"""The ingestion pipeline end to end on generated files, with the real models and database."""

from pathlib import Path

import pytest

from knowledge.models import Chunk, ChunkEmbedding, EmbeddingCache, Material, MaterialPage
from knowledge.services.ingest import material_ingest
from tests.conftest import ENGLISH_PAGES
from tests.pdfgen import encrypt_pdf, make_pdf, with_title

pytestmark = pytest.mark.django_db
READY, FAILED = Material.Status.READY, Material.Status.FAILED


def _chunks(material):
    return list(Chunk.objects.for_user(material.owner).filter(material=material).order_by("chunk_index"))


def test_pdf_becomes_ready_with_pages_chunks_and_vectors(user, ingest, english_pdf):
    material = ingest(user, english_pdf, "python.pdf")
    assert material.status == READY, material.error_message
    assert material.page_count == 3
    chunks = _chunks(material)
    assert material.chunk_count == len(chunks) >= 3
    assert [chunk.chunk_index for chunk in chunks] == list(range(len(chunks)))
    assert {chunk.page_number for chunk in chunks} == {1, 2, 3}
    assert all(chunk.content.strip() and chunk.owner_id == user.pk and chunk.type == "material" for chunk in chunks)
    assert MaterialPage.objects.for_user(user).filter(material=material).count() == 3
    vectors = ChunkEmbedding.objects.for_user(user).filter(material=material)
    assert vectors.count() == len(chunks)
    assert set(vectors.values_list("model", "dimension")) == {("use-multilingual-v3", 512)}
    assert material.embedding_model == "use-multilingual-v3"
    assert material.progress_done == material.progress_total == len(chunks)
    assert Path(material.file.path).read_bytes() == english_pdf  # the original is kept


def test_korean_pdf_keeps_hangul_and_pages(user, ingest, korean_pdf):
    material = ingest(user, korean_pdf, "어셈블리.pdf")
    assert material.status == READY, material.error_message
    chunks = _chunks(material)
    assert chunks[0].content.startswith("제1장 레지스터")
    assert chunks[-1].page_number == 2
    assert material.title == "어셈블리"


def test_a_material_named_after_its_file_takes_the_title_its_pdf_gives_and_shows(user, ingest):
    pages = ["PC 어셈블리 언어\nPaul A. Carter\n\n제 1 장 소개\n레지스터는 CPU 안의 빠른 저장 장소이다."]
    titled = ingest(user, with_title(make_pdf(pages), "PC 어셈블리 언어"), "pcasm-book-korean.pdf")
    assert titled.title == "PC 어셈블리 언어"  # the metadata's title, which the title page shows
    template = ingest(user, with_title(make_pdf(pages), "한국정보과학회 학술대회 논문작성양식"), "paper.pdf")
    assert template.title == "paper"  # a title the text never shows is a template's: the file name stays
    named = ingest(user, with_title(make_pdf(pages), "PC 어셈블리 언어"), "pcasm.pdf", title="My assembly notes")
    assert named.title == "My assembly notes"  # the learner's own title is kept


@pytest.mark.parametrize("name", ["notes.txt", "notes.md"])
def test_text_and_markdown_are_ingested(user, ingest, name):
    text = "# Sorting\n\nQuicksort partitions the list around a pivot.\n\n## Merging\n\nMergesort merges sorted halves."
    material = ingest(user, text.encode(), name)
    assert material.status == READY, material.error_message
    contents = [chunk.content for chunk in _chunks(material)]
    assert any("Quicksort" in content for content in contents)
    if name.endswith(".md"):
        assert contents[0].startswith("Sorting")


def test_running_the_pipeline_twice_leaves_one_consistent_set(user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    before = [(chunk.chunk_index, chunk.content) for chunk in _chunks(material)]
    Material.objects.filter(pk=material.pk).update(status=Material.Status.EMBEDDING)  # as if a worker died mid-task
    material_ingest(material_id=material.pk)
    material_ingest(material_id=material.pk)  # and a duplicate delivery of the task
    material.refresh_from_db()
    assert material.status == READY
    assert [(chunk.chunk_index, chunk.content) for chunk in _chunks(material)] == before
    assert ChunkEmbedding.objects.for_user(user).filter(material=material).count() == len(before)


def test_reingesting_the_same_text_reuses_the_owners_cached_vectors_only(user, other_user, ingest, english_pdf, monkeypatch):
    ingest(user, english_pdf)
    cached = EmbeddingCache.objects.count()
    from baeum.retrieval.embeddings import UniversalSentenceEncoder

    calls = []
    original = UniversalSentenceEncoder.embed_documents
    monkeypatch.setattr(UniversalSentenceEncoder, "embed_documents", lambda self, texts: calls.append(len(texts)) or original(self, texts))
    material = ingest(user, english_pdf)
    assert material.status == READY
    assert calls == []  # the same learner's same text: nothing embedded again
    assert EmbeddingCache.objects.count() == cached
    progress = []
    from knowledge.services import ingest as ingest_module

    update = ingest_module._update
    monkeypatch.setattr(
        ingest_module, "_update", lambda material, **fields: progress.append(fields.get("progress_done")) or update(material, **fields)
    )
    theirs = ingest(other_user, english_pdf)
    assert theirs.status == READY and calls  # another learner's identical text is embedded for them, not a cache hit
    assert [done for done in progress if done is not None][:2] == [0, 0]  # embedding starts at 0 and reports no hits


def _bad_inputs():
    text_pdf = make_pdf(ENGLISH_PAGES)
    return [
        ("locked.pdf", encrypt_pdf(text_pdf, user_password="hunter2"), "encrypted", "password"),
        ("scan.pdf", make_pdf([], blank_pages=2), "ocr_failed", "scan"),  # OCR reads the blank scan and finds nothing
        ("cut.pdf", text_pdf[: len(text_pdf) // 3], "malformed", "damaged"),
        ("empty.pdf", b"", "empty_file", "empty"),
        ("fake.pdf", b"This is plain text pretending to be a PDF.", "content_mismatch", "not a PDF"),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "content_mismatch", "binary"),
    ]


@pytest.mark.parametrize(("name", "data", "code", "hint"), _bad_inputs(), ids=[case[0] for case in _bad_inputs()])
def test_bad_input_fails_with_a_reason_and_loses_nothing(user, ingest, english_pdf, name, data, code, hint):
    good = ingest(user, english_pdf, "good.pdf")
    good_chunks = [(chunk.pk, chunk.content) for chunk in _chunks(good)]
    bad = ingest(user, data, name)
    assert bad.status == FAILED
    assert bad.error_code == code
    assert name in bad.error_message and hint.lower() in bad.error_message.lower()
    assert Path(bad.file.path).read_bytes() == data  # the original file is kept
    assert Chunk.objects.for_user(user).filter(material=bad).count() == 0
    good.refresh_from_db()
    assert good.status == READY
    assert [(chunk.pk, chunk.content) for chunk in _chunks(good)] == good_chunks


def test_pdf_encrypted_with_an_empty_user_password_ingests_normally(user, ingest, english_pdf):
    material = ingest(user, encrypt_pdf(english_pdf, user_password=""), "owner-only.pdf")
    assert material.status == READY, material.error_message
    assert material.page_count == 3


def test_a_failing_embedder_fails_the_material_and_a_rerun_resumes_without_duplicates(user, ingest, monkeypatch, settings):
    """Fault injection: the provider dies after the first batch; nothing partial becomes searchable."""
    from baeum.retrieval.embeddings import EmbeddingError, UniversalSentenceEncoder
    from knowledge.tasks import ingest_material

    settings.BAEUM = {**settings.BAEUM, "EMBED_BATCH_SIZE": 2}
    topics = ["lists", "tuples", "sets", "maps", "loops", "files", "classes", "modules"]
    pages = [f"About {topic}\n" + f"The topic of {topic} is explained here in detail with examples. " * 12 for topic in topics]
    data = make_pdf(pages)
    calls = {"count": 0}
    original = UniversalSentenceEncoder.embed_documents

    def flaky(self, texts):
        calls["count"] += 1
        if calls["count"] > 1:
            raise EmbeddingError("provider unavailable", transient=True)
        return original(self, texts)

    monkeypatch.setattr(UniversalSentenceEncoder, "embed_documents", flaky)
    monkeypatch.setattr("knowledge.tasks.ingest_material.retry", lambda **kwargs: (_ for _ in ()).throw(kwargs["exc"]))
    from django.core.files.uploadedfile import SimpleUploadedFile

    from knowledge.services.materials import material_create

    material = material_create(owner=user, upload=SimpleUploadedFile("flaky.pdf", data), enqueue=False)
    for attempt in range(4):  # the task's bounded retries, then the final failure handling
        ingest_material.request.retries = attempt
        try:
            ingest_material.run(material.pk)
        except EmbeddingError:
            Material.objects.filter(pk=material.pk).update(status=Material.Status.PENDING)
    ingest_material.request.retries = 0
    material.refresh_from_db()
    assert material.status == FAILED
    assert material.error_code == "embedding_unavailable"
    assert Chunk.objects.for_user(user).filter(material=material).count() == 0
    cached_after_failure = EmbeddingCache.objects.count()
    assert cached_after_failure >= 2  # the first batch is kept

    monkeypatch.setattr(UniversalSentenceEncoder, "embed_documents", original)
    Material.objects.filter(pk=material.pk).update(status=Material.Status.PENDING)
    material_ingest(material_id=material.pk)
    material.refresh_from_db()
    assert material.status == READY
    chunks = _chunks(material)
    assert [chunk.chunk_index for chunk in chunks] == list(range(material.chunk_count))
    assert ChunkEmbedding.objects.for_user(user).filter(material=material).count() == len(chunks)
