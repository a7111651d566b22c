from .base import *  # noqa: F403

DEBUG = False
# Fixtures write every tenant's rows; requests and tasks inside a test still narrow to one learner.
BAEUM_RLS_DEFAULT = "system"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# Tests run tasks in-process unless a test starts a real worker; the broker is still real Redis.
CELERY_TASK_ALWAYS_EAGER = True
# Test workers consume the main queue only; tests/security/test_fair_work.py turns the quick queue on.
BAEUM_QUICK_QUEUE = env("BAEUM_TEST_QUICK_QUEUE", default="")  # noqa: F405
# Under `pytest -n 2` (make test) each worker has its own database (pytest-django), Redis database, cache
# prefix and media folder: ids start at 1 in both, so a cached session or a file of "user 3" must not be shared.
# Child processes a test starts (Celery workers) inherit PYTEST_XDIST_WORKER and land in the same place.
_XDIST_WORKER = env("PYTEST_XDIST_WORKER", default="")  # noqa: F405 - "gw0", "gw1", or "" without -n
_XDIST_INDEX = int(_XDIST_WORKER[2:]) if _XDIST_WORKER.startswith("gw") and _XDIST_WORKER[2:].isdigit() else 0
CACHES["default"]["KEY_PREFIX"] = f"baeum-test{'-' + _XDIST_WORKER if _XDIST_WORKER else ''}"  # noqa: F405
# Every test client is 127.0.0.1 and several runs share one Redis: limits are set per test that checks them.
BAEUM_SIGNIN_LIMITS = {"account": (100000, 900), "address": (100000, 900)}
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": {
        "user": "100000/min",
        "uploads": "100000/min",
        "auth": "100000/min",
        "export": "100000/min",
        "reingest": "100000/min",
        "plans": "100000/min",
        "healthz": "100000/min",
        "course_join": "100000/min",
    },
}
MEDIA_ROOT = BASE_DIR / ".baeum" / f"test-media{'-' + _XDIST_WORKER if _XDIST_WORKER else ''}"  # noqa: F405
# Quality re-embedding (e5, ~2 chunks/s) is off unless a test turns it on.
BAEUM = {**BAEUM, "EXTRACT_WORKERS": 1, "QUALITY_EMBEDDER": ""}  # noqa: F405
WHITENOISE_AUTOREFRESH = True
# A separate Redis database, so a `make run` worker on the same embedded Redis never takes test tasks (and
# one per pytest worker: 1, 2, …).
REDIS_URL = REDIS_URL.rsplit("/", 1)[0] + f"/{1 + _XDIST_INDEX}"  # noqa: F405
CELERY_BROKER_URL = CELERY_RESULT_BACKEND = REDIS_URL
CACHES["default"]["LOCATION"] = REDIS_URL  # noqa: F405
