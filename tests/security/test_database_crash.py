"""A database process killed by a signal (the SIGILL of an AVX-512 instruction, a segfault): the learner
sees a clear reason, /healthz names the crash and its log, and a running ingestion is retried or
failed with a reason. The crashes here are real: a backend is sent SIGILL, PostgreSQL ends every
session and recovers."""

import os
import signal
import time

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from baeum import runtime
from knowledge.models import Chunk, Material

# transaction=True: the test kills database backends; a test transaction would die with them.
pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.slow,
    pytest.mark.serial,  # every session of the shared server ends: nothing else may run beside it
    pytest.mark.skipif(not settings.EMBEDDED_DATABASE, reason="kills a backend of the embedded server"),
]

SAMPLE_LOG = """\
2026-11-23 12:57:06.934 UTC [8880] LOG:  client backend (PID 8924) was terminated by signal 4: Illegal instruction
2026-11-23 12:57:06.934 UTC [8880] DETAIL:  Failed process was running: INSERT INTO "knowledge_chunkembedding" ("chunk_id") VALUES (1)
2026-11-23 12:57:06.934 UTC [8880] LOG:  terminating any other active server processes
2026-11-23 13:10:00.000 UTC [8880] LOG:  server process (PID 9000) was terminated by signal 11: Segmentation fault
"""


def test_the_log_reader_names_each_crash_its_signal_and_query(tmp_path):
    log = tmp_path / "log"
    log.write_text(SAMPLE_LOG)

    crashes, offset = runtime.postgres_crashes(log=log)

    assert [(crash.signal, crash.name) for crash in crashes] == [(4, "Illegal instruction"), (11, "Segmentation fault")]
    assert crashes[0].query.startswith('INSERT INTO "knowledge_chunkembedding"')
    assert "signal 4 (Illegal instruction)" in crashes[0].describe()
    assert offset == len(SAMPLE_LOG.encode())
    assert runtime.postgres_crashes(log=log, since_offset=offset)[0] == []  # nothing new since


def _crash_this_session() -> None:
    """Send SIGILL to the backend serving this test's connection, as an AVX-512 instruction would."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    os.kill(pid, signal.SIGILL)
    time.sleep(0.3)


def _wait_for_recovery() -> None:
    from knowledge.tasks import wait_for_database

    # Crash recovery replays the WAL and syncs: seconds on a quiet machine, two minutes were seen on a
    # loaded 2-core one (fsync 4 s per checkpoint). Every later test needs the database back.
    wait_for_database(seconds=300)


def test_healthz_names_a_database_crash_and_where_its_log_is(client):
    _crash_this_session()
    _wait_for_recovery()
    deadline = time.monotonic() + 10
    while not runtime.recent_postgres_crashes(within_seconds=60) and time.monotonic() < deadline:
        time.sleep(0.2)  # the postmaster writes the log line as it reaps the backend

    from tests.factories import UserFactory

    client.force_login(UserFactory(is_staff=True))  # the crash, its statement and its log are for staff
    body = client.get("/healthz").json()

    assert "signal 4 (Illegal instruction)" in body["databaseCrash"]
    assert str(runtime.postgres_log()) in body["databaseCrash"]
    assert body["checks"]["database"] == "ok"  # recovered
    assert body["status"] in ("degraded", "down")  # "down" only because no worker runs in this test


def _material(user, name="notes.txt"):
    from knowledge.services.materials import material_create

    text = "Chapter 1 Memory\nRetrieval practice is recalling what you learned without looking. " * 20
    return material_create(owner=user, upload=SimpleUploadedFile(name, text.encode()), enqueue=False)


def test_an_ingestion_whose_database_session_crashes_is_retried_and_becomes_ready(user, monkeypatch):
    from knowledge.services import ingest as ingest_service
    from knowledge.tasks import ingest_material

    material = _material(user)
    original = ingest_service.chunk_embeddings_store
    crashes = []

    def store_after_a_crash(**kwargs):
        if not crashes:
            crashes.append(True)
            _crash_this_session()  # the INSERT of the vectors then fails: the session is gone
        return original(**kwargs)

    monkeypatch.setattr(ingest_service, "chunk_embeddings_store", store_after_a_crash)

    ingest_material.apply(args=[material.pk], throw=False)  # as a worker runs it: a Retry re-runs the task

    _wait_for_recovery()
    material.refresh_from_db()
    assert crashes == [True]
    assert material.status == Material.Status.READY, material.error_message
    assert Chunk.objects.for_user(user).filter(material=material).count() == material.chunk_count > 0


def test_an_ingestion_that_crashes_the_database_every_time_fails_with_the_cause(user, other_user, monkeypatch):
    from knowledge.services import ingest as ingest_service
    from knowledge.services.ingest import material_ingest
    from knowledge.tasks import ingest_material

    safe = _material(other_user, "other.txt")
    material_ingest(material_id=safe.pk)
    material = _material(user)

    def always_crash(**kwargs):
        _crash_this_session()
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")  # fails: the session died with its backend

    monkeypatch.setattr(ingest_service, "chunk_embeddings_store", always_crash)

    ingest_material.apply(args=[material.pk], throw=False)  # as a worker runs it: a Retry re-runs the task

    _wait_for_recovery()
    material.refresh_from_db()
    assert material.status == Material.Status.FAILED
    assert material.error_code == "database_crashed"
    assert "notes.txt" in material.error_message and "signal 4 (Illegal instruction)" in material.error_message
    assert str(runtime.postgres_log()) in material.error_message
    safe.refresh_from_db()
    assert safe.status == Material.Status.READY  # nothing else was touched
