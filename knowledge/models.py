import secrets

from django.conf import settings
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from pgvector.django import HalfVectorField, VectorField

from accounts.scoping import OwnedManager
from courses.scoping import readable_manager

REF_ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789"


def new_ref_id() -> str:
    return "mat_" + "".join(secrets.choice(REF_ID_ALPHABET) for _ in range(12))


def material_upload_path(material: "Material", filename: str) -> str:
    return f"materials/{material.owner_id}/{material.ref_id}/original{material.extension}"


class Material(models.Model):
    class Status(models.TextChoices):
        PENDING = "PENDING"
        EXTRACTING = "EXTRACTING"
        OCR = "OCR"  # scanned pages are being read by text recognition (background queue)
        CHUNKING = "CHUNKING"
        EMBEDDING = "EMBEDDING"
        READY = "READY"
        FAILED = "FAILED"

    ref_id = models.CharField(max_length=32, unique=True, default=new_ref_id, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="materials")
    # The course it is published in (its owner teaches it): the course's members read it, never write it.
    # A course deleted leaves the material in its owner's library.
    course = models.ForeignKey("courses.Course", on_delete=models.SET_NULL, null=True, blank=True, related_name="materials")
    title = models.CharField(max_length=300)
    type = models.CharField(max_length=40, default="material")
    file = models.FileField(upload_to=material_upload_path, max_length=500)
    original_filename = models.CharField(max_length=300)
    extension = models.CharField(max_length=16)
    size_bytes = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING, db_index=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    page_count = models.PositiveIntegerField(default=0)
    # The PDF's bookmarks ([{"level", "title", "page"}]): chapter and section titles as the author wrote them
    # (``baeum.extraction.outline``); [] when the document has none.
    outline = models.JSONField(default=list, blank=True)
    chunk_count = models.PositiveIntegerField(default=0)
    # The sum of its chunks' term counts: BM25's average chunk length without reading every chunk (a
    # 200,000-chunk library spent 35 ms a query counting them; bench_retrieval --skewed).
    term_total = models.BigIntegerField(default=0)
    # Whether most of its chunks are written in Korean (None: not known yet). Keyword search across
    # languages matches only what both write alike (``knowledge.selectors.search._lexical_statements``).
    korean = models.BooleanField(null=True, blank=True)
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    # Which extraction produced the stored pages and chunks (``knowledge.services.ingest.EXTRACTOR``);
    # materials read by an older one are re-read by `manage.py reextract` from the kept original.
    extractor = models.CharField(max_length=40, blank=True)
    # Scanned pages text recognition reads (or has read) for this material.
    ocr_pages = models.JSONField(default=list, blank=True)

    # The model of the embeddings search uses for this material (all its chunks have it).
    embedding_model = models.CharField(max_length=100, blank=True)
    embedding_dimension = models.PositiveIntegerField(default=0)
    # A model being written in the background (re-embedding); search keeps using embedding_model.
    pending_embedding_model = models.CharField(max_length=100, blank=True)
    reembed_done = models.PositiveIntegerField(default=0)  # chunks embedded with the pending model so far
    reembed_total = models.PositiveIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    ready_at = models.DateTimeField(null=True, blank=True)

    objects = readable_manager("course")

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.ref_id} {self.title}"

    @property
    def retry_may_help(self) -> bool:
        """A failed material whose failure reading the same file again may not meet (a time-out, a busy
        machine, text recognition installed since); not a password, a damaged or an empty file."""
        from baeum.extraction.readers import PERMANENT_FAILURES

        return self.status == self.Status.FAILED and self.error_code not in PERMANENT_FAILURES


class RemovedMaterial(models.Model):
    """A material its owner deleted, remembered by its file's content: uploading the same file again gives it its
    refId back, so the plans, conversations, notes and cards that cite it find it again
    (``knowledge.services.materials.material_create``; plans and conversations rejoin it once it is READY)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    ref_id = models.CharField(max_length=32, unique=True)
    sha256 = models.CharField(max_length=64)
    title = models.CharField(max_length=300)
    removed_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        indexes = [models.Index(fields=["owner", "sha256"], name="removed_owner_sha256")]

    def __str__(self) -> str:
        return f"{self.ref_id} (removed)"


class MaterialPage(models.Model):
    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="pages")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()
    text = models.TextField()
    ocr = models.BooleanField(default=False)  # the text was recognised from a scanned image (may contain errors)
    # The number the book prints on this page when the PDF says it ("vii", "7" on the 17th page); "" when the
    # PDF gives none or the same number as the position.
    label = models.CharField(max_length=32, blank=True)
    # "front" (title, contents, preface…) or "back" (index, bibliography): outside the chapters (baeum.extraction.structure).
    matter = models.CharField(max_length=8, blank=True)

    objects = readable_manager("material__course")

    class Meta:
        ordering = ["material", "number"]
        constraints = [models.UniqueConstraint(fields=["material", "number"], name="unique_page_per_material")]

    def __str__(self) -> str:
        return f"{self.material_id} p.{self.number}"


class Chunk(models.Model):
    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="chunks")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    chunk_index = models.PositiveIntegerField()
    page_number = models.PositiveIntegerField()  # the page the chunk starts on (1-based)
    page_end = models.PositiveIntegerField()
    type = models.CharField(max_length=40, default="material")
    content = models.TextField()
    token_count = models.PositiveIntegerField()
    overlap_chars = models.PositiveIntegerField(default=0)
    section_title = models.CharField(max_length=300, blank=True)
    section_level = models.PositiveSmallIntegerField(default=0)
    content_hash = models.CharField(max_length=64)
    term_count = models.PositiveIntegerField(default=0)  # analysed terms, the BM25 document length
    # [[character offset, page number], ...] where each page of ``content`` begins: a quote carries the
    # page of its own sentence (``baeum.extraction.pages.quote_pages``). Empty for chunks stored before it existed.
    page_starts = models.JSONField(default=list, blank=True)
    # [[start, end], ...] character offsets of footnotes in ``content`` (moved to the end of their page's text):
    # the tutor never quotes one as its answer. Empty for chunks stored before it existed.
    note_spans = models.JSONField(default=list, blank=True)
    # (start, end) of the lines of code in ``content`` (set in a fixed-pitch font): never quoted as prose.
    code_spans = models.JSONField(default=list, blank=True)
    # [[start, end, level], ...] of the heading lines in ``content``: a section opening inside the chunk is
    # search evidence too (``knowledge.selectors.search``). Empty for chunks stored before it existed.
    heading_spans = models.JSONField(default=list, blank=True)
    matter = models.CharField(max_length=8, blank=True)  # every page of the chunk is front or back matter

    objects = readable_manager("material__course")

    class Meta:
        ordering = ["material", "chunk_index"]
        constraints = [
            models.UniqueConstraint(fields=["material", "chunk_index"], name="unique_chunk_index_per_material"),
            models.CheckConstraint(condition=~models.Q(content=""), name="chunk_content_not_empty"),
        ]
        indexes = [
            models.Index(fields=["owner", "material", "chunk_index"]),
            # Substring search for identifiers and codes that tokenisers break (pg_trgm).
            GinIndex(fields=["content"], opclasses=["gin_trgm_ops"], name="chunk_content_trgm"),
        ]

    def __str__(self) -> str:
        return f"{self.material_id}#{self.chunk_index} p.{self.page_number}"

    def pages_of(self, quote: str) -> tuple[int, int]:
        """Return the first and last page of ``quote``, a passage of this chunk's text."""
        from baeum.extraction.pages import quote_pages

        return quote_pages(self.content, self.page_starts, quote, self.page_number)

    @property
    def own_pages(self) -> tuple[int, int]:
        """The first and last page of the chunk's own text (the overlap repeated from the previous
        chunk may sit on the page before)."""
        return self.pages_between(self.overlap_chars, len(self.content))

    def pages_between(self, start: int, end: int) -> tuple[int, int]:
        """Return the first and last page of ``content[start:end]``."""
        from baeum.extraction.pages import page_span

        return page_span(self.page_starts, start, end, self.page_number)


class ChunkTerm(models.Model):
    """BM25 postings: one analysed term of one chunk with its frequency (see ``baeum.language.analysis``)."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="terms")
    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    term = models.CharField(max_length=100)
    tf = models.PositiveIntegerField()
    doc_length = models.PositiveIntegerField()

    objects = readable_manager("material__course")

    class Meta:
        indexes = [models.Index(fields=["owner", "term"], include=["material", "chunk", "tf", "doc_length"], name="chunkterm_owner_term")]

    def __str__(self) -> str:
        return f"{self.chunk_id}:{self.term}x{self.tf}"


class Gloss(models.Model):
    """A Korean term a chunk names in English too, where it introduces it: "분기 명령 (branch instruction)"
    (``baeum.language.glossary``). Written with the chunk's postings; read to search across languages."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="+")
    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    before = models.CharField(max_length=60, blank=True)  # the Korean word before the term ("분기")
    head = models.CharField(max_length=60)  # the Korean word before the parenthesis ("명령")
    english = models.CharField(max_length=100)  # "branch instruction", lower case
    english_first = models.CharField(max_length=60)  # its first word as a question writes it ("branch")

    objects = readable_manager("material__course")

    class Meta:
        indexes = [
            models.Index(fields=["owner", "head"], name="gloss_owner_head"),
            models.Index(fields=["owner", "english_first"], name="gloss_owner_english"),
        ]

    def __str__(self) -> str:
        return f"{self.before} {self.head} ({self.english})".strip()


class VocabularyWord(models.Model):
    """An English word a material uses, with its vector by the fast multilingual embedder: a Korean question's
    noun is searched as the material's nearest word by meaning ("연산자" → "operator";
    ``knowledge.selectors.search.meaning_names``). Written with the material's postings
    (``knowledge.services.lexical.vocabulary_write``)."""

    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False)
    word = models.CharField(max_length=60)
    uses = models.PositiveIntegerField()
    # Half precision: 1 KB a word, stored in the row (a 2 KB vector is read from TOAST, which made the scan for
    # each question's nouns several times slower); the nearest word is the same at that precision.
    vector = HalfVectorField(dimensions=512)

    objects = readable_manager("material__course")

    class Meta:
        indexes = [models.Index(fields=["material"], name="vocabulary_material")]

    def __str__(self) -> str:
        return f"{self.word} ×{self.uses}"


class ChunkEmbedding(models.Model):
    """One vector of one chunk for one model. Partial HNSW indexes per model live in migrations."""

    chunk = models.ForeignKey(Chunk, on_delete=models.CASCADE, related_name="embeddings")
    material = models.ForeignKey(Material, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=100)
    dimension = models.PositiveIntegerField()
    embedding = VectorField()

    objects = readable_manager("material__course")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["chunk", "model"], name="unique_embedding_per_chunk_model")]
        indexes = [models.Index(fields=["owner", "model"])]

    def __str__(self) -> str:
        return f"{self.chunk_id} {self.model}"


class EmbeddingCache(models.Model):
    """Vectors by content hash and model, so re-ingesting the same text costs nothing.

    Holds no text and no owner: a hash cannot be turned back into anyone's content.
    """

    content_hash = models.CharField(max_length=64)
    model = models.CharField(max_length=100)
    embedding = VectorField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["content_hash", "model"], name="unique_cached_embedding")]

    def __str__(self) -> str:
        return f"{self.model}:{self.content_hash[:12]}"
