"""Every request the penetration test answered with a 500 now gets a 400/404 (JSON under /api/)."""

import pytest

pytestmark = pytest.mark.django_db


def _json_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content[:300]
    body = response.json()["error"]
    assert set(body) == {"code", "message", "details"}
    if code:
        assert body["code"] == code
    return body


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/materials/?status=%00",
        "/api/v1/materials/mat_%00abc/",
        "/api/v1/plans/?q=a%00b",
        "/api/v1/conversations/%00/",
    ],
)
def test_nul_bytes_in_the_api_answer_400_or_404_in_the_json_format(api_client, path):
    response = api_client.get(path)
    assert response.status_code in (400, 404), response.content[:300]
    _json_error(response, response.status_code)


@pytest.mark.parametrize("path", ["/library/mat_%00x/", "/library/?q=%00", "/plans/?x=%00"])
def test_nul_bytes_in_pages_answer_400_or_404(client, user, path):
    client.force_login(user)
    assert client.get(path).status_code in (200, 400, 404)


def test_nul_bytes_in_a_json_body_answer_400(api_client):
    response = api_client.post("/api/v1/plans/", {"refIds": ["mat_\x00"], "title": "a\x00b"}, format="json")
    assert response.status_code in (400, 404)
    _json_error(response, response.status_code)


@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_json_answers_400(api_client, anonymous_client, depth):
    body = "[" * depth + "]" * depth
    for client, path in ((anonymous_client, "/api/v1/auth/token"), (api_client, "/api/v1/plans/"), (api_client, "/api/v1/search")):
        response = client.generic("POST", path, body, content_type="application/json")
        _json_error(response, 400)


def test_chat_start_with_a_plan_id_that_is_not_a_number_answers_404(client, user):
    client.force_login(user)
    assert client.post("/chat/new", {"plan_id": "abc"}).status_code == 404


def test_options_on_the_api_docs_does_not_fail(client):
    assert client.options("/api/v1/docs/").status_code in (200, 405)
    assert client.options("/api/v1/schema/").status_code in (200, 401, 405)
