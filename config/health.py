"""GET /healthz: the database, Redis and a Celery worker. 200 when all answer, 503 naming what is down.

A database process that died by a signal in the last minutes (the embedded server logs it, then ends
every other session and recovers) is named too, with the log to read, so a crash never hides behind a
generic error: the status is then "degraded" while everything answers again.

Cheap for anyone to call: the worker's answer is remembered for a few seconds (one thread asks while
the others read the last answer) and the crash log is read at most that often; anonymous callers get
the status and each check's ok/down, signed-in staff the reasons, the crash and its log. Throttled per
address (``healthz`` scope).
"""

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django_redis import get_redis_connection
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from baeum import runtime

CRASH_WINDOW_SECONDS = 600  # how long /healthz keeps naming a database crash after recovery
# How long an answer about the worker (a Celery ping, up to a second when none answers) and about crashes
# (the log's tail) is reused: short enough that a stopped worker shows within seconds.
REMEMBER_SECONDS = 5
PING_SECONDS = 1.0


def _database() -> str | None:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return None
    except Exception as error:  # noqa: BLE001 - any failure means "down"
        return f"database: {type(error).__name__}"


def _database_crash() -> str | None:
    if settings.EMBEDDED_DATABASE is False:
        return None  # an external server keeps its own log
    crashes = runtime.recent_postgres_crashes(within_seconds=CRASH_WINDOW_SECONDS)
    if not crashes:
        return None
    return f"{crashes[-1].describe()}; PostgreSQL restarted every session. Log: {runtime.postgres_log()}"


def _redis() -> str | None:
    try:
        get_redis_connection("default").ping()
        return None
    except Exception as error:  # noqa: BLE001
        return f"redis: {type(error).__name__}"


def _ask_worker() -> str | None:
    from core.workers import worker_available

    try:
        available = worker_available(timeout=PING_SECONDS)
    except Exception as error:  # noqa: BLE001
        return f"worker: {type(error).__name__}"
    return None if available else "worker: no Celery worker answered"


def _remembered(name: str, compute):
    """``compute()``'s answer, reused for ``REMEMBER_SECONDS``; while one caller computes a fresh one,
    the others get the previous answer instead of waiting (a miss with none computes it)."""
    key = f"healthz:{name}:{connection.settings_dict['NAME']}"  # one answer per database (test runs share Redis)
    remembered = cache.get(key)
    if remembered is not None and cache.get(f"{key}:fresh"):
        return remembered["value"]
    if remembered is not None and not cache.add(f"{key}:asking", 1, timeout=int(PING_SECONDS) + 2):
        return remembered["value"]  # another caller is asking right now
    value = compute()
    cache.set(key, {"value": value}, timeout=REMEMBER_SECONDS * 12)
    cache.set(f"{key}:fresh", 1, timeout=REMEMBER_SECONDS)
    cache.delete(f"{key}:asking")
    return value


def _worker() -> str | None:
    return _remembered("worker", _ask_worker)


class HealthSerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=["ok", "degraded", "down"])
    checks = serializers.DictField(child=serializers.CharField(), help_text='database, redis, worker: "ok" or what is wrong')
    down = serializers.ListField(child=serializers.CharField(), required=False, help_text="what is down (503 only)")
    databaseCrash = serializers.CharField(required=False, help_text="a database process that died by a signal in the last ten minutes")


class HealthApi(APIView):
    """Report whether the database, Redis and a Celery worker answer.

    200 when all answer (`status` "ok", or "degraded" while a recent database crash is named), 503
    naming what is down. No sign-in; touches no user data, and answers when the database is down.
    """

    authentication_classes: list = []  # staff are recognised by their browser session (below)
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "healthz"
    renderer_classes = [JSONRenderer]

    @extend_schema(
        operation_id="healthz",
        tags=["health"],
        responses={
            200: OpenApiResponse(HealthSerializer, description="everything answers"),
            503: OpenApiResponse(HealthSerializer, description="something is down: `down` names it"),
        },
    )
    def get(self, request):
        checks = {"database": _database(), "redis": _redis()}
        checks["worker"] = _worker() if checks["redis"] is None else "worker: unreachable without Redis"
        down = [problem for problem in checks.values() if problem]
        crash = _remembered("crash", _database_crash) if checks["redis"] is None else _database_crash()
        status = "down" if down else "degraded" if crash else "ok"
        if not _is_staff(request):
            # Anyone: the status and which part is down; the reasons, the crashed statement and the log's
            # path are for staff.
            return Response(
                {"status": status, "checks": {name: "down" if problem else "ok" for name, problem in checks.items()}},
                status=200 if not down else 503,
            )
        body = {"status": status, "checks": {name: problem or "ok" for name, problem in checks.items()}}
        if crash:
            body["databaseCrash"] = crash
        if down:
            body["down"] = down
        return Response(body, status=200 if not down else 503)


def _is_staff(request) -> bool:
    """Whether the browser session is a staff member's (DRF, with no authenticator here, has set
    ``request.user`` to anonymous, so the session is read directly)."""
    from django.contrib.auth import get_user

    try:
        user = get_user(request._request)
        return bool(user.is_authenticated and user.is_staff)
    except Exception:  # noqa: BLE001 - the session store (database) is down: not known to be staff
        return False


healthz = HealthApi.as_view()
