"""Faults: the database goes away (clean 503, nothing half-written)."""

import pytest
from django.db import connection

from knowledge.models import Material

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def database_outage():
    """Point the connection at a port where no PostgreSQL listens, then restore it."""
    original = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["PORT"] = "1"
    connection.settings_dict["HOST"] = "127.0.0.1"
    yield
    connection.close()
    connection.settings_dict.update(original)
    connection.ensure_connection()


def test_api_and_pages_answer_503_while_the_database_is_unreachable(api_client, client, user, english_pdf, database_outage):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("notes.pdf", english_pdf)}, format="multipart")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "unavailable"
    assert response["Retry-After"] == "5"
    assert client.get("/healthz").status_code == 503
    assert "database" in client.get("/healthz").json()["down"][0]


def test_nothing_was_written_during_the_outage(api_client, user, english_pdf):
    from django.core.files.uploadedfile import SimpleUploadedFile

    original = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(PORT="1", HOST="127.0.0.1")
    try:
        api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("notes.pdf", english_pdf)}, format="multipart")
    finally:
        connection.close()
        connection.settings_dict.update(original)
    assert Material.objects.count() == 0
