"""The OpenAPI schema is generated without warnings, and schema-driven fuzzing of every endpoint
against the live test server finds no 5xx and no response that violates the schema."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from rest_framework.authtoken.models import Token

from tests.pdfgen import make_pdf

pytestmark = [pytest.mark.django_db, pytest.mark.slow]
ROOT = Path(__file__).resolve().parent.parent


def test_schema_generates_without_warnings(tmp_path):
    call_command("spectacular", "--file", str(tmp_path / "schema.yaml"), "--validate", "--fail-on-warn")
    assert "/api/v1/search" in (tmp_path / "schema.yaml").read_text()


@pytest.fixture
def schema():
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


OWN_OPERATIONS = {  # path: methods, for the knowledge, plans and chat endpoints a mobile client starts from
    "/api/v1/materials/": ["get", "post"],
    "/api/v1/materials/{ref_id}/": ["get", "patch", "delete"],
    "/api/v1/materials/{ref_id}/reingest": ["post"],
    "/api/v1/materials/{ref_id}/file": ["get"],
    "/api/v1/materials/{ref_id}/chunks": ["get"],
    "/api/v1/materials/{ref_id}/pages": ["get"],
    "/api/v1/materials/stats": ["get"],
    "/api/v1/search": ["post"],
    "/api/v1/plans/": ["get", "post"],
    "/api/v1/plans/{plan_id}/": ["get", "patch", "delete"],
    "/api/v1/plans/{plan_id}/regenerate": ["post"],
    "/api/v1/plans/{plan_id}/sessions/{number}/": ["get"],
    "/api/v1/plans/{plan_id}/sessions/{number}/progress": ["post"],
    "/api/v1/conversations/": ["get", "post"],
    "/api/v1/conversations/{conversation_id}/": ["get", "patch", "delete"],
    "/api/v1/conversations/{conversation_id}/messages": ["post"],
}


def _error_schema(response: dict) -> str:
    return response["content"]["application/json"]["schema"]["$ref"]


def test_every_operation_has_a_summary_a_description_and_its_error_responses(schema):
    assert set(schema["components"]["schemas"]["Error"]["properties"]) == {"error"}
    for path, methods in OWN_OPERATIONS.items():
        for method in methods:
            operation = schema["paths"][path][method]
            name = f"{method.upper()} {path}"
            assert operation.get("summary") and operation.get("description"), name
            responses = operation["responses"]
            expected = {"401", "403", "429"} | ({"404"} if "{" in path else set()) | ({"400"} if method in ("post", "patch") else set())
            assert expected <= set(responses), (name, sorted(responses))
            for status in expected:
                assert _error_schema(responses[status]) == "#/components/schemas/Error", (name, status)
                assert responses[status]["description"], (name, status)
    upload = schema["paths"]["/api/v1/materials/"]["post"]["responses"]
    assert _error_schema(upload["413"]) == "#/components/schemas/Error"
    assert upload["413"]["content"]["application/json"]["examples"]["FileTooLarge"]["value"]["error"]["code"] == "file_too_large"


def test_the_schema_states_the_conventions_every_operation_follows(schema):
    description = schema["info"]["description"]
    for convention in ("trailing slash", "Accept-Language", "`Location`", '{"error": {"code", "message", "details"}}', "canonical"):
        assert convention in description, convention


def test_the_event_stream_health_and_file_download_are_documented(schema):
    message = schema["paths"]["/api/v1/conversations/{conversation_id}/messages"]["post"]
    stream = message["responses"]["200"]
    assert "text/event-stream" in stream["content"]
    for event in ("`token`", "`citations`", "`done`"):
        assert event in stream["description"]
    assert "Accept: text/event-stream" in message["description"]
    assert "application/json" in message["responses"]["201"]["content"]
    health = schema["paths"]["/healthz"]["get"]
    assert {"200", "503"} <= set(health["responses"]) and health["security"] == [{}]
    download = schema["paths"]["/api/v1/materials/{ref_id}/file"]["get"]["responses"]["200"]["content"]
    assert {"application/pdf", "text/plain", "application/vnd.openxmlformats-officedocument.wordprocessingml.document"} <= set(download)
    assert download["application/pdf"]["schema"] == {"type": "string", "format": "binary"}
    assert "/api/v1/materials/stats/" not in schema["paths"]  # one path per endpoint, though both slash forms answer


def test_schemathesis_finds_no_server_errors_or_schema_violations(live_server, user, ingest, tmp_path):
    from chat.services.conversations import conversation_create

    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU."]))
    conversation_create(owner=user, ref_ids=[material.ref_id])
    token, _ = Token.objects.get_or_create(user=user)
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("schemathesis")),
            "run",
            f"{live_server.url}/api/v1/schema/",
            "-H",
            f"Authorization: Token {token.key}",
            "--checks",
            "not_a_server_error,response_schema_conformance",
            "--phases",
            "examples,fuzzing",
            "--max-examples",
            "6",  # per operation (seeded): every operation still gets examples and fuzzing, in half the minute 12 took
            "--seed",
            "20261122",
            "--workers",
            "1",
            "--exclude-path-regex",
            "revoke",  # revoking the token mid-run would turn every later call into a 401
            "--exclude-path",
            "/healthz",  # 503 by design here (no Celery worker runs in this test); tests/test_health_and_worker.py covers it
        ],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
    )
    tail = result.stdout[-3000:]
    assert result.returncode == 0, tail
    assert "passed" in tail
