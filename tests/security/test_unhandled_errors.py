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


# transaction=True: the errors under test are raised at commit (deferred foreign keys), which a test transaction never reaches.
@pytest.mark.django_db(transaction=True)
def test_deleting_a_plan_while_its_generation_writes_sessions(api_client, user, ingest, django_capture_on_commit_callbacks):
    """The generation commits a session after the delete collected the plan's children: still a clean 204."""
    import psycopg
    from django.db import connection
    from django.db.models.signals import pre_delete

    from plans.models import Plan, StudySession
    from tests.pdfgen import make_pdf

    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a small, fast storage location. " * 5]), "r.pdf")
    with django_capture_on_commit_callbacks(execute=True):
        plan_id = api_client.post("/api/v1/plans/", {"refIds": [material.ref_id]}, format="json").json()["id"]
    params = connection.get_connection_params()
    generator = psycopg.connect(dbname=params["dbname"], user=params["user"], host=params.get("host"), port=params.get("port"))
    generator.execute("SELECT set_config('baeum.rls_user', %s, false)", [str(user.pk)])
    generator.execute(  # the generation's new session, not committed yet
        "INSERT INTO plans_studysession (plan_id, owner_id, number, title, objectives, ranges, tokens, estimated_minutes, "
        "status, answers) VALUES (%s, %s, 99, 'late', '[]', '[]', 1, 1, 'not_started', '{}')",
        [plan_id, user.pk],
    )

    def generation_commits(sender, instance, **kwargs):  # after the delete collected the children it saw
        if not generator.closed and generator.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            generator.commit()

    pre_delete.connect(generation_commits, sender=Plan)
    try:
        response = api_client.delete(f"/api/v1/plans/{plan_id}/")
    finally:
        pre_delete.disconnect(generation_commits, sender=Plan)
        generator.close()
    assert response.status_code == 204
    assert not Plan.objects.unscoped().filter(pk=plan_id).exists()
    assert not StudySession.objects.unscoped().filter(plan_id=plan_id).exists()
