import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")
app = Celery("baeum")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def worker_available(timeout: float = 1.0) -> bool:
    """Tell whether at least one Celery worker answers a ping within ``timeout`` seconds."""
    return bool(app.control.ping(timeout=timeout))
