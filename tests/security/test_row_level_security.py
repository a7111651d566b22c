"""Defence in depth: PostgreSQL row-level security limits a request to its user's rows even when a
query forgets ``for_user()``."""

import pytest
from django.db import connection
from django.http import JsonResponse
from django.test import RequestFactory

from accounts.rls import rls_user
from config.middleware import RowLevelSecurityMiddleware
from knowledge.models import Chunk, Material
from tests.pdfgen import make_pdf

# transaction=True: fresh sessions of other roles must see (or not see) committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_libraries(user, other_user, ingest):
    mine = ingest(user, make_pdf(["Chapter 1 Mine\nMy notes about registers."]), "mine.pdf")
    theirs = ingest(other_user, make_pdf(["Chapter 1 Theirs\nTheir notes about caches."]), "theirs.pdf")
    return mine, theirs


def test_the_application_role_is_not_a_superuser():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
        assert cursor.fetchone()[0] is False  # superusers bypass row-level security


def test_an_unscoped_query_inside_a_request_sees_only_the_users_rows(user, other_user, two_libraries):
    def careless_view(request):
        # Deliberately forgets for_user(): row-level security must still hide other tenants.
        rows = list(Material.objects.unscoped().values_list("owner_id", flat=True))
        chunks = list(Chunk.objects.unscoped().values_list("owner_id", flat=True))
        return JsonResponse({"materials": rows, "chunks": chunks})

    request = RequestFactory().get("/library/")
    request.user = user
    response = RowLevelSecurityMiddleware(careless_view)(request)
    import json

    body = json.loads(response.content)
    assert body["materials"] == [user.pk]
    assert set(body["chunks"]) == {user.pk}
    assert Material.objects.unscoped().count() == 2  # outside the request: system context again


def test_token_requests_and_anonymous_requests_are_limited_too(user, two_libraries):
    from rest_framework.authtoken.models import Token

    token, _ = Token.objects.get_or_create(user=user)
    seen = {}

    def view(request):
        seen["owners"] = set(Material.objects.unscoped().values_list("owner_id", flat=True))
        return JsonResponse({})

    request = RequestFactory().get("/api/v1/materials/", HTTP_AUTHORIZATION=f"Token {token.key}")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    RowLevelSecurityMiddleware(view)(request)
    assert seen["owners"] == {user.pk}
    anonymous = RequestFactory().get("/api/v1/materials/")
    anonymous.user = AnonymousUser()
    RowLevelSecurityMiddleware(view)(anonymous)
    assert seen["owners"] == set()


def test_writes_for_another_owner_are_rejected_by_the_database(user, other_user, two_libraries):
    from django.db import DatabaseError, transaction

    mine, theirs = two_libraries
    with rls_user(user.pk):
        assert Material.objects.unscoped().filter(pk=theirs.pk).update(title="hijacked") == 0
        with pytest.raises(DatabaseError), transaction.atomic():
            Material.objects.unscoped().filter(pk=mine.pk).update(owner_id=other_user.pk)
    theirs.refresh_from_db()
    assert theirs.title != "hijacked"
