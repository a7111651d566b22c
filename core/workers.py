"""Whether a Celery worker is there to take work (commands decide between queueing and running inline)."""

from celery import current_app


def worker_available(timeout: float = 1.0) -> bool:
    """Tell whether at least one Celery worker answers a ping within ``timeout`` seconds.

    Uses a fresh broker connection, so a Redis restart does not leave a stale pooled one behind.
    """
    app = current_app._get_current_object()  # the project's app, configured by ``config.celery``
    with app.connection_for_read() as connection:
        return bool(app.control.ping(timeout=timeout, connection=connection, limit=1))  # the first answer is enough
