"""GET /healthz: the database, Redis and a Celery worker. 200 when all answer, 503 naming what is down."""

from django.db import connection
from django.http import JsonResponse
from django_redis import get_redis_connection


def _database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception as error:  # noqa: BLE001 - any failure means "down"
        return f"database: {type(error).__name__}"


def _redis() -> str | None:
    try:
        get_redis_connection("default").ping()
        return None
    except Exception as error:  # noqa: BLE001
        return f"redis: {type(error).__name__}"


def _worker() -> str | None:
    from config.celery import worker_available

    try:
        available = worker_available(timeout=1.0)
    except Exception as error:  # noqa: BLE001
        return f"worker: {type(error).__name__}"
    return None if available else "worker: no Celery worker answered"


def healthz(request):
    checks = {"database": _database(), "redis": _redis()}
    checks["worker"] = _worker() if checks["redis"] is None else "worker: unreachable without Redis"
    down = [problem for problem in checks.values() if problem]
    body = {"status": "ok" if not down else "down", "checks": {name: problem or "ok" for name, problem in checks.items()}}
    if down:
        body["down"] = down
    return JsonResponse(body, status=200 if not down else 503)
