"""Celery entry points: take ids, re-fetch, call a service; safe to run twice."""

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from baeum.embeddings import EmbeddingError

from .models import Material
from .services.ingest import material_fail, material_ingest
from .services.materials import material_reembed

logger = logging.getLogger(__name__)
MAX_EMBEDDING_RETRIES = 3


@shared_task(bind=True, acks_late=True, max_retries=MAX_EMBEDDING_RETRIES)
def ingest_material(self, material_id: int) -> str | None:
    try:
        material = material_ingest(material_id=material_id)
    except EmbeddingError as error:
        if self.request.retries < MAX_EMBEDDING_RETRIES:
            raise self.retry(exc=error, countdown=2 ** (self.request.retries + 1)) from error
        material = Material.objects.unscoped().get(pk=material_id)  # system task
        material_fail(
            material=material,
            code="embedding_unavailable",
            message=f"The embedding service failed {MAX_EMBEDDING_RETRIES + 1} times ({error}). "
            "Nothing was lost: re-run ingestion later and it resumes where it stopped.",
        )
        return material.status
    except SoftTimeLimitExceeded:
        material = Material.objects.unscoped().get(pk=material_id)  # system task
        material_fail(
            material=material,
            code="timeout",
            message=f"“{material.original_filename}” took too long to process. Split it into smaller files and upload them.",
        )
        return material.status
    return material.status if material else None


REEMBED_SLICE_SECONDS = 120  # well inside the broker's visibility timeout and the task time limit


@shared_task(acks_late=True)
def reembed_material(material_id: int, model: str) -> str | None:
    """Re-embed in slices of two minutes; each slice re-queues the rest (cached work is not redone).
    Routed to the ``background`` queue, so ingestion never waits behind it."""
    material, finished = material_reembed(material_id=material_id, model=model, time_budget=REEMBED_SLICE_SECONDS)
    if not finished:
        reembed_material.delay(material_id, model)
    return material.embedding_model if material else None
