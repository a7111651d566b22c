"""API conventions a mobile client relies on: one slash convention, JSON errors everywhere under /api/,
Location headers, answers in the language of Accept-Language."""

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

pytestmark = pytest.mark.django_db(transaction=True)


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
        path = "/" + route.replace("<str:ref_id>", "mat_nothere").replace("<int:plan_id>", "999999")
        path = path.replace("<int:number>", "1").replace("<int:conversation_id>", "999999")
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
