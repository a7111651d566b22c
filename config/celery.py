import os

from celery import Celery
from celery.signals import worker_process_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
app = Celery("baeum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@worker_process_init.connect
def _warm_up_models(**kwargs):
    """Load the embedder and Kiwi when a worker process starts, not inside the first task."""
    from baeum.runtime.warmup import warm_up
    from core.providers import active_embedder, quality_embedder

    warm_up(active_embedder(), quality_embedder())
