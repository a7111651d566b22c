"""Shared fixtures. Tests use the real PostgreSQL + pgvector, real Redis and the real offline models."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory
from tests.pdfgen import make_pdf

ROOT = Path(__file__).resolve().parent.parent

# The fast lane (`make test-fast`): the machinery and the rules that read no database, load no embedding model
# and start no child process, in seconds. Everything else is deselected; a test in these paths that reaches
# for a database or a model fails loudly instead of slowing the lane down.
FAST_LANE = os.environ.get("BAEUM_FAST_LANE") == "1"
FAST_PATHS = (
    "tests/machinery/",
    "tests/test_layering.py",
    "tests/knowledge/test_fusion.py",
    "tests/knowledge/test_lockbox.py",
    "tests/chat/test_calibration.py",
)
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "django_db_serialized_rollback", "live_server"}


def pytest_collection_modifyitems(config, items):
    if not FAST_LANE:
        return
    kept, dropped = [], []
    for item in items:
        path = Path(str(item.fspath)).relative_to(ROOT).as_posix()
        fast = (
            path.startswith(FAST_PATHS)
            and not item.get_closest_marker("django_db")
            and not DATABASE_FIXTURES & set(item.fixturenames)
            and not item.get_closest_marker("children")
        )
        (kept if fast else dropped).append(item)
    config.hook.pytest_deselected(items=dropped)
    items[:] = kept


@pytest.fixture(autouse=True)
def _default_language_after_each_test():
    """A request in Korean leaves Korean active on its thread (LocaleMiddleware activates, nothing deactivates): a
    later test on the same worker that formats text without a request ("(Think Python, p. 12)") must not read it."""
    yield
    from django.utils import translation

    translation.deactivate()


@pytest.fixture(autouse=True)
def _no_models_in_the_fast_lane(monkeypatch):
    if not FAST_LANE:
        return

    def refuse(self, *args, **kwargs):
        raise RuntimeError("the fast lane loads no embedding model: move this test out of FAST_PATHS or give it a fake embedder")

    from baeum.retrieval import embeddings

    for name in ("UniversalSentenceEncoder", "MultilingualE5"):
        monkeypatch.setattr(getattr(embeddings, name), "__init__", refuse)


def pytest_unconfigure(config):
    from django.db import connections

    from baeum import runtime

    connections.close_all()
    if "redis" in runtime.STARTED_HERE:
        runtime.stop_redis()
    if "postgres" in runtime.STARTED_HERE:
        runtime.stop_postgres()


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database as ``make setup`` leaves the real one: the role that owns the tables may also make
    a schema in it (a benchmark's throwaway one: ``bench_retrieval``). Database-level grants do not come
    with the template the test database is copied from."""
    from django.conf import settings
    from django.db import connection

    from accounts import rls

    owner = settings.BAEUM_DB_OWNER_ROLE
    if owner:
        with django_db_blocker.unblock():
            connection.ensure_connection()
            rls.apply_login_role(connection)  # the database's owner grants; the system role would grant nothing
            try:
                with connection.cursor() as cursor:
                    cursor.execute(f'GRANT CREATE ON DATABASE "{connection.settings_dict["NAME"]}" TO "{owner}"')
            finally:
                rls.reapply(connection)


@pytest.fixture
def user(db):
    return UserFactory()


@pytest.fixture
def other_user(db):
    return UserFactory()


def _client_for(user) -> APIClient:
    client = APIClient()
    token, _ = Token.objects.get_or_create(user=user)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


@pytest.fixture
def api_client(user):
    return _client_for(user)


@pytest.fixture
def other_api_client(other_user):
    return _client_for(other_user)


@pytest.fixture
def anonymous_client():
    return APIClient()


@pytest.fixture
def ingest(db):
    """Create a material for ``owner`` from bytes and run the real pipeline in-process."""
    from knowledge.services.ingest import material_ingest_in_process
    from knowledge.services.materials import material_create

    def run(owner, data: bytes, name: str = "notes.pdf", title: str = "", type: str = "material"):
        material = material_create(owner=owner, upload=SimpleUploadedFile(name, data), title=title, type=type, enqueue=False)
        material_ingest_in_process(material_id=material.pk)  # a scan's OCR stage included, as the workers do
        material.refresh_from_db()
        return material

    return run


ENGLISH_PAGES = [
    "Chapter 1 Variables\nA variable is a name that refers to a value. An assignment statement creates a new variable "
    "and gives it a value.\nVariable names can be as long as you like. They can contain both letters and numbers.",
    "Chapter 2 Functions\nA function is a named sequence of statements that performs a computation. When you define a "
    "function, you specify the name and the sequence of statements.\nLater, you can call the function by name.",
    "Chapter 3 Recursion\nA function that calls itself is recursive; the process of executing it is called recursion. "
    "Every recursive function needs a base case that stops the recursion.\nOrder ORD-2024-001 shipped on Monday.",
]
KOREAN_PAGES = [
    "제1장 레지스터\n레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다. 범용 레지스터는 데이터를 임시로 보관한다.",
    "제2장 인터럽트\n인터럽트는 프로그램의 흐름을 잠시 멈추고 이벤트를 처리하게 하는 메커니즘이다. 인터럽트 핸들러가 이벤트를 처리한다.",
]


@pytest.fixture
def english_pdf() -> bytes:
    return make_pdf(ENGLISH_PAGES)


@pytest.fixture
def korean_pdf() -> bytes:
    return make_pdf(KOREAN_PAGES)


def start_celery_worker(name: str, **extra_env: str) -> subprocess.Popen:
    """Start a real Celery worker process on the test database, in its own process group."""
    from django.db import connection

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "BAEUM_DATABASE_NAME": connection.settings_dict["NAME"],
        **extra_env,
    }
    command = [
        sys.executable,
        "-m",
        "celery",
        "-A",
        "config",
        "worker",
        "--concurrency",
        "1",
        "--pool",
        "solo",
        "-n",
        f"{name}-{os.getpid()}@%h",
        "--loglevel",
        "WARNING",
    ]
    return subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)


def wait_for_worker(process: subprocess.Popen, seconds: float = 60) -> None:
    from core.workers import worker_available

    deadline = time.monotonic() + seconds
    while not worker_available(timeout=0.5):
        assert process.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, f"the worker did not answer within {seconds:.0f} s"


@pytest.fixture
def worker(transactional_db):
    from config.celery import app as celery_app

    process = start_celery_worker("test")
    try:
        wait_for_worker(process)
        celery_app.conf.task_always_eager = False
        yield process
    finally:
        celery_app.conf.task_always_eager = True
        process.terminate()
        process.wait(timeout=30)
