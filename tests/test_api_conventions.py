"""API conventions a mobile client relies on: one slash convention, JSON errors everywhere under /api/,
Location headers, answers in the language of Accept-Language."""

import re

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db


def _api_routes(patterns=None, prefix=""):
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _api_routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
            yield route


def _error(response) -> dict:
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    return response.json()["error"]


@pytest.mark.parametrize("path", ["/api/v1/materials", "/api/v1/materials/", "/api/v1/plans", "/api/v1/conversations"])
def test_collections_answer_with_and_without_the_trailing_slash(api_client, path):
    response = api_client.get(path)
    assert response.status_code == 200, response.content[:200]
    assert response.json()["count"] == 0


def test_every_api_route_answers_its_other_slash_form_without_a_redirect(api_client):
    for route in _api_routes():
        if route.startswith(("api/v1/schema", "api/v1/docs", "api/v1/auth/token/revoke")):  # revoking ends the session
            continue
        path = "/" + re.sub(r"<int:\w+>", "999999", re.sub(r"<str:\w+>", "mat_nothere", route))
        other = path[:-1] if path.endswith("/") else path + "/"
        for method in ("get", "post"):
            first = getattr(api_client, method)(path, format="json")
            second = getattr(api_client, method)(other, format="json")
            assert second.status_code not in (301, 302, 308), f"{method.upper()} {other} redirected"
            assert (first.status_code, method, path) == (second.status_code, method, path)
            if second.status_code >= 400:
                assert "code" in _error(second)


def test_search_and_stats_answer_with_a_trailing_slash(api_client):
    search = api_client.post("/api/v1/search/", {"query": "registers"}, format="json")
    assert search.status_code == 200 and search.json() == []
    stats = api_client.get("/api/v1/materials/stats/?refIds=mat_nothere")
    assert stats.status_code == 200 and stats.json() == {"stats": {}}


def test_unknown_api_routes_are_json_404(api_client, anonymous_client):
    for client in (api_client, anonymous_client):
        for path in ["/api/v1/nothing", "/api/v1/nothing/", "/api/v2/materials/", "/api/", "/api/v1/materials/mat_x/nope"]:
            response = client.post(path)
            assert response.status_code == 404, path
            assert _error(response)["code"] == "not_found"


def test_wrong_methods_are_json_405(api_client):
    for method, path in [
        ("put", "/api/v1/materials/"),
        ("get", "/api/v1/search"),
        ("delete", "/api/v1/search/"),
        ("patch", "/api/v1/plans"),
    ]:
        response = getattr(api_client, method)(path)
        assert response.status_code == 405, f"{method} {path}"
        assert _error(response)["code"] == "method_not_allowed"


def test_anonymous_calls_to_the_other_slash_form_are_401_json(anonymous_client):
    response = anonymous_client.get("/api/v1/materials")
    assert response.status_code == 401
    assert _error(response)["code"] == "not_authenticated"


def test_session_authenticated_post_through_the_other_slash_form_still_needs_csrf(user):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    response = client.post("/api/v1/search/", {"query": "x"}, content_type="application/json")
    assert response.status_code == 403
    assert _error(response)["code"] == "permission_denied"


def _is_korean(text: str) -> bool:
    return any("\uac00" <= char <= "\ud7a3" for char in text)


def test_errors_answer_in_the_language_of_accept_language_with_a_stable_code(api_client):
    cases = [
        ("get", "/api/v1/materials/mat_nothere/", {}, 404, "not_found"),
        ("get", "/api/v1/plans/999999/", {}, 404, "not_found"),
        ("get", "/api/v1/conversations/999999/", {}, 404, "not_found"),
        ("get", "/api/v1/nothing", {}, 404, "not_found"),
        ("put", "/api/v1/search", {}, 405, "method_not_allowed"),
        ("post", "/api/v1/search", {}, 400, "invalid"),
        ("get", "/api/v1/materials/stats", {}, 400, "invalid"),
        ("post", "/api/v1/plans/", {"refIds": []}, 400, "invalid"),
    ]
    for method, path, body, status, code in cases:
        english = getattr(api_client, method)(path, body, format="json")
        korean = getattr(api_client, method)(path, body, format="json", HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9,en;q=0.5")
        assert english.status_code == korean.status_code == status, (method, path)
        assert _error(english)["code"] == _error(korean)["code"] == code, (method, path)
        assert not _is_korean(_error(english)["message"]), _error(english)["message"]
        assert _is_korean(_error(korean)["message"]), (method, path, _error(korean)["message"])
        assert korean["Content-Language"] == "ko"


def test_a_plan_over_a_material_not_ready_is_refused_in_korean(api_client, user, django_capture_on_commit_callbacks):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from knowledge.services.materials import material_create

    material = material_create(owner=user, upload=SimpleUploadedFile("notes.txt", b"Registers hold data."), enqueue=False)
    refused = api_client.post("/api/v1/plans/", {"refIds": [material.ref_id]}, format="json", HTTP_ACCEPT_LANGUAGE="ko")
    assert refused.status_code == 400
    error = _error(refused)
    assert error["code"] == "material_not_ready" and error["details"] == {"refId": material.ref_id}
    assert _is_korean(error["message"]) and material.ref_id in error["message"]


def test_unsupported_upload_is_refused_in_korean(api_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    response = api_client.post(
        "/api/v1/materials/", {"file": SimpleUploadedFile("photo.exe", b"MZ")}, format="multipart", HTTP_ACCEPT_LANGUAGE="ko"
    )
    assert response.status_code == 400
    assert _error(response)["code"] == "unsupported_type"
    assert "photo.exe" in _error(response)["message"] and _is_korean(_error(response)["message"]), _error(response)["message"]
