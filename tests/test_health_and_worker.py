"""/healthz and the real Celery worker path: upload through the API, a worker process ingests it."""

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

# transaction=True: a real Celery worker process reads the rows, so they must be committed.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]


def test_healthz_names_the_missing_worker(client):
    from tests.factories import UserFactory

    assert client.get("/healthz").json()["checks"] == {"database": "ok", "redis": "ok", "worker": "down"}  # anyone
    client.force_login(UserFactory(is_staff=True))  # staff see the reasons
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
