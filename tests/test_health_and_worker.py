"""/healthz and the real Celery worker path: upload through the API, a worker process ingests it."""

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from config.celery import app as celery_app

ROOT = Path(__file__).resolve().parent.parent
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


@pytest.fixture
def worker():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings.test", "BAEUM_DATABASE_NAME": connection.settings_dict["NAME"]}
    process = subprocess.Popen(
        [
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
            f"test-{os.getpid()}@%h",
            "--loglevel",
            "WARNING",
        ],
        cwd=ROOT,
        env=env,
    )
    deadline = time.monotonic() + 60
    while not celery_app.control.ping(timeout=0.5):
        assert process.poll() is None, "the worker exited"
        assert time.monotonic() < deadline, "the worker did not answer within 60 s"
    celery_app.conf.task_always_eager = False
    yield process
    celery_app.conf.task_always_eager = True
    process.terminate()
    process.wait(timeout=30)


def test_healthz_names_the_missing_worker(client):
    response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"]["database"] == "ok" and body["checks"]["redis"] == "ok"
    assert body["down"] == ["worker: no Celery worker answered"]


def test_upload_is_ingested_by_a_real_worker_and_healthz_is_green(worker, client, api_client, english_pdf):
    assert client.get("/healthz").status_code == 200
    response = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("python.pdf", english_pdf)}, format="multipart")
    assert response.status_code == 202
    ref_id = response.json()["refId"]
    stages = []
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        detail = api_client.get(f"/api/v1/materials/{ref_id}/").json()
        stages.append(detail["status"])
        if detail["status"] in ("READY", "FAILED"):
            break
        time.sleep(0.2)
    assert stages[-1] == "READY", detail
    assert detail["chunkCount"] >= 3
