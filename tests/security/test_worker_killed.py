"""A worker killed mid-ingestion: with late acknowledgement the task is redelivered to another
worker, and the material reaches READY exactly once with one consistent set of chunks."""

import os
import signal
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from config.celery import app as celery_app
from knowledge.models import Chunk, Material
from tests.conftest import start_celery_worker, wait_for_worker
from tests.pdfgen import make_pdf

# transaction=True: a real Celery worker process reads the rows, so they must be committed.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_worker_killed_mid_task_then_material_is_ready_exactly_once(api_client, settings):
    pages = [
        f"Section {chr(65 + number % 26)}{number}\n" + f"Topic {number} explained in many words for embedding. " * 40
        for number in range(60)
    ]
    first = start_celery_worker("doomed", BAEUM_BROKER_VISIBILITY_TIMEOUT="3")
    celery_app.conf.task_always_eager = False
    celery_app.conf.broker_transport_options = {"visibility_timeout": 3}
    second = None
    try:
        wait_for_worker(first)
        response = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("long.pdf", make_pdf(pages))}, format="multipart")
        material = Material.objects.get(ref_id=response.json()["refId"])
        deadline = time.monotonic() + 60
        while material.status in ("PENDING",) and time.monotonic() < deadline:
            time.sleep(0.1)
            material.refresh_from_db()
        assert material.status in ("EXTRACTING", "CHUNKING", "EMBEDDING"), material.status
        os.killpg(first.pid, signal.SIGKILL)  # the worker and its children die mid-task
        first.wait(timeout=10)
        material.refresh_from_db()
        assert material.status != "READY"
        second = start_celery_worker("rescuer", BAEUM_BROKER_VISIBILITY_TIMEOUT="3")
        deadline = time.monotonic() + 120
        while material.status != "READY" and time.monotonic() < deadline:
            time.sleep(0.5)
            material.refresh_from_db()
        assert material.status == "READY", (material.status, material.error_message)
        assert material.attempts >= 2  # it really ran again
        chunks = list(Chunk.objects.filter(material=material).order_by("chunk_index").values_list("chunk_index", flat=True))
        assert chunks == list(range(material.chunk_count))
    finally:
        celery_app.conf.task_always_eager = True
        for process in (first, second):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
