"""Celery entry points: take ids, re-fetch, call a service; safe to run twice."""

import contextlib
import logging
import time

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError, connection, connections

from accounts.rls import rls_owner_of, rls_system
from baeum import runtime
from baeum.extraction import readers as extract
from baeum.extraction.readers import ExtractionError
from baeum.retrieval.embeddings import EmbeddingError

from .models import Material
from .services.ingest import material_fail, material_ingest
from .services.ocr import material_ocr
from .services.reembed import material_reembed

logger = logging.getLogger(__name__)
MAX_EMBEDDING_RETRIES = 3
# A database that drops the connection mid-ingestion (a crashed backend, a restart) is retried once:
# a crash that repeats on the same input would otherwise end every learner's session again and again.
MAX_DATABASE_RETRIES = 1
DATABASE_RETRY_SECONDS = 5
DATABASE_RECOVERY_SECONDS = 60  # PostgreSQL's crash recovery takes about a second here; a restart longer


# Fairness between learners: a small file goes to the ``quick`` queue, which a worker of its own serves
# (make run starts it; the main worker takes from it too), so one learner's large or hostile file never
# holds up another's small upload. A learner with QUICK_PER_OWNER small files already waiting there
# sends the next ones to the main queue: many small files from one learner cannot fill it either.
# What counts as small is the work a file needs, guessed from its bytes by kind: a PDF's bytes are mostly
# pictures and fonts (2 MB: a handout or a chapter; the sample books are 1-5 MB), a text file's are all text
# (1.9 MB of Markdown made 2,070 chunks: 256 KB makes about 280).
QUICK_MAX_BYTES = 2 * 1024 * 1024
QUICK_MAX_TEXT_BYTES = 256 * 1024
QUICK_TEXT_EXTENSIONS = frozenset({*extract.TEXT_EXTENSIONS, *extract.OFFICE_EXTENSIONS})
QUICK_PER_OWNER = 1
QUICK_SLOT_SECONDS = 3600  # a slot of a task lost without finishing frees itself after this long
# Every stage of a file on the quick queue is capped, and past a cap the file moves to the main queue: a
# small but costly file (hostile content streams, a text file of many chunks) cannot hold the quick worker.
# Small files are read, chunked and embedded in under a second; the vectors made before a move are kept.
QUICK_EXTRACT_SECONDS = 3.0
QUICK_MAX_CHUNKS = 300


def _quick_key(owner_id: int) -> str:
    return f"ingest:quick:{owner_id}"


def route_ingestion(name, args, kwargs, options, task=None, **kw):
    """Celery router (CELERY_TASK_ROUTES): small files of learners with few waiting go to the quick queue."""
    from django.conf import settings
    from django.core.cache import cache

    queue = settings.BAEUM_QUICK_QUEUE
    if name != "knowledge.tasks.ingest_material" or not queue or options.get("queue"):
        return None
    material_id = (args or [None])[0] if args else (kwargs or {}).get("material_id")
    # Routing reads a row's size and kind, never its content, wherever the task is queued from: a task that
    # queues it after leaving its owner's context (OCR finishing a scan) read nothing under the closed
    # default and sent the scan to the main queue, behind other learners' large files.
    with rls_system(why="route an ingestion task by its material's owner, size and kind"):
        row = Material.objects.unscoped().filter(pk=material_id).values_list("owner_id", "size_bytes", "extension").first()
    if row is None or row[1] > (QUICK_MAX_TEXT_BYTES if row[2] in QUICK_TEXT_EXTENSIONS else QUICK_MAX_BYTES):
        return None
    key = _quick_key(row[0])
    cache.add(key, 0, timeout=QUICK_SLOT_SECONDS)
    if cache.incr(key) > QUICK_PER_OWNER:
        cache.decr(key)
        return None
    return {"queue": queue}


def _release_quick_slot(task, owner_id: int) -> None:
    from django.core.cache import cache

    if not _on_quick_queue(task):
        return
    try:
        if cache.decr(_quick_key(owner_id)) < 0:
            cache.set(_quick_key(owner_id), 0, timeout=QUICK_SLOT_SECONDS)
    except ValueError:
        pass  # expired meanwhile


@shared_task(bind=True, acks_late=True, max_retries=MAX_EMBEDDING_RETRIES)
def ingest_material(self, material_id: int) -> str | None:
    """Ingest one material under its owner's row-level-security setting."""
    with rls_owner_of(Material, material_id) as owner_id:
        if owner_id is None:
            return None  # deleted before the worker reached it
        quick = _on_quick_queue(self)
        try:
            with extract.time_cap(QUICK_EXTRACT_SECONDS, max_chunks=QUICK_MAX_CHUNKS) if quick else contextlib.nullcontext():
                return _ingest(self, material_id)
        except extract.Preempted:
            # The owner's row (rls_owner_of): back to waiting, on the main queue.
            Material.objects.unscoped().filter(pk=material_id).update(status=Material.Status.PENDING, progress_done=0, progress_total=0)
            ingest_material.apply_async(args=[material_id], queue="celery")
            return Material.Status.PENDING
        finally:
            _release_quick_slot(self, owner_id)


def _on_quick_queue(task) -> bool:
    from django.conf import settings

    queue = settings.BAEUM_QUICK_QUEUE
    return bool(queue) and (task.request.delivery_info or {}).get("routing_key") == queue


def _ingest(self, material_id: int) -> str | None:
    try:
        material = material_ingest(material_id=material_id)
    except EmbeddingError as error:
        if self.request.retries < MAX_EMBEDDING_RETRIES:
            raise self.retry(exc=error, countdown=2 ** (self.request.retries + 1)) from error
        material = Material.objects.unscoped().get(pk=material_id)  # the owner's row: limited by rls_owner_of
        material_fail(
            material=material,
            code="embedding_unavailable",
            message=f"The embedding service failed {MAX_EMBEDDING_RETRIES + 1} times ({error}). "
            "Nothing was lost: re-run ingestion later and it resumes where it stopped.",
        )
        return material.status
    except (OperationalError, InterfaceError) as error:
        logger.warning("database lost while ingesting material %s: %s", material_id, error)
        wait_for_database()
        if self.request.retries < MAX_DATABASE_RETRIES:
            raise self.retry(exc=error, countdown=DATABASE_RETRY_SECONDS, max_retries=MAX_DATABASE_RETRIES) from error
        material = Material.objects.unscoped().get(pk=material_id)  # the owner's row: limited by rls_owner_of
        material_fail(material=material, code="database_crashed", message=database_lost_message(material.original_filename))
        return material.status
    except SoftTimeLimitExceeded:
        material = Material.objects.unscoped().get(pk=material_id)  # the owner's row: limited by rls_owner_of
        material_fail(
            material=material,
            code="timeout",
            message=f"“{material.original_filename}” took too long to process. Split it into smaller files and upload them.",
        )
        return material.status
    return material.status if material else None


def wait_for_database(seconds: float = DATABASE_RECOVERY_SECONDS) -> None:
    """Drop the dead sessions and wait until PostgreSQL accepts connections again (after crash recovery)."""
    deadline = time.monotonic() + seconds
    while True:
        for each in connections.all():
            each.close()
        try:
            connection.ensure_connection()
            return
        except (OperationalError, InterfaceError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def database_lost_message(filename: str) -> str:
    """Say what happened to the database while a file was processed, naming a logged crash when there is one."""
    crashes = runtime.recent_postgres_crashes(within_seconds=900)
    cause = f" ({crashes[-1].describe()}; log: {runtime.postgres_log()})" if crashes else ""
    return (
        f"The database stopped while “{filename}” was being processed{cause}. Your other materials are safe. "
        "Re-run ingestion; if it fails again, tell an administrator."
    )


# Short slices: the background worker turns to the ``ocr`` queue between two, so a learner's scan waits for
# one slice at most (the bench_fairness target: a one-page scan read in 20 s while a library re-embeds).
REEMBED_SLICE_SECONDS = 10


@shared_task(acks_late=True)
def reembed_material(material_id: int, model: str) -> str | None:
    """Re-embed in slices of two minutes; each slice re-queues the rest (cached work is not redone).
    Routed to the ``background`` queue, so ingestion never waits behind it."""
    with rls_owner_of(Material, material_id):
        material, finished = material_reembed(material_id=material_id, model=model, time_budget=REEMBED_SLICE_SECONDS)
    if not finished:
        reembed_material.delay(material_id, model)
    return material.embedding_model if material else None


@shared_task(acks_late=True)
def ocr_material(material_id: int) -> str | None:
    """Read a material's scanned pages in slices (each page cached as it is done), then finish its ingestion.
    Routed to the ``background`` queue at low priority: a scan never holds up other learners' uploads."""
    with rls_owner_of(Material, material_id):
        try:
            material, finished = material_ocr(material_id=material_id)
        except ExtractionError as error:
            material = Material.objects.unscoped().get(pk=material_id)  # the owner's row: limited by rls_owner_of
            material_fail(material=material, code=error.code, message=error.message)
            return material.status
        if material is None:
            return None
        if not finished:
            ocr_material.delay(material_id)
            return material.status
        # The owner's row: limited by rls_owner_of.
        Material.objects.unscoped().filter(pk=material_id, status=Material.Status.OCR).update(status=Material.Status.PENDING)
    ingest_material.delay(material_id)  # the pipeline now finds every page read
    return Material.Status.PENDING


@shared_task(acks_late=True)
def write_vocabulary(material_id: int) -> int:
    """Store a READY material's English vocabulary with vectors (``vocabulary_write``), on the ``background`` queue:
    a book's few thousand words take seconds to embed, which no upload should wait behind."""
    from .services.lexical import vocabulary_write

    with rls_owner_of(Material, material_id):
        if not Material.objects.unscoped().filter(pk=material_id, status=Material.Status.READY).exists():  # the owner's row
            return 0
        return vocabulary_write(material_id=material_id)


@shared_task(acks_late=True)
def sync_vector_indexes(owner_id: int | None = None) -> dict:
    """Give a library that grew large a vector index of its own, or drop one that shrank (background queue)."""
    from .services.vector_indexes import vector_indexes_sync

    return vector_indexes_sync(owner_id=owner_id)
