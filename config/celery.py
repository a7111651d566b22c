import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
app = Celery("baeum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_available(timeout: float = 1.0) -> bool:
    """Tell whether at least one Celery worker answers a ping within ``timeout`` seconds.

    Uses a fresh broker connection, so a Redis restart does not leave a stale pooled one behind.
    """
    with app.connection_for_read() as connection:
        return bool(app.control.ping(timeout=timeout, connection=connection, limit=1))  # the first answer is enough


@worker_process_init.connect
def _warm_up_models(**kwargs):
    """Load the embedder and Kiwi when a worker process starts, not inside the first task."""
    from baeum.warmup import warm_up
    from knowledge.services.embedding import active_embedder, quality_embedder

    warm_up(active_embedder(), quality_embedder())
