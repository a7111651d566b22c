"""Accounts: device tokens, the learner's own account (me, export, deletion), password change and reset,
sign-in throttles, and no account enumeration. Every test has a second learner who must be untouched."""

import io
import json
import re
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.core import mail
from django.core.cache import cache
from django.test import Client, override_settings
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from accounts.models import DeviceToken, User
from accounts.services import REGISTRATION_REFUSED
from knowledge.models import Chunk, Material
from plans.models import Plan
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

PASSWORD = "correct horse battery"
NEW_PASSWORD = "a different staple 2026"
pytestmark = pytest.mark.django_db


def _sign_in(email: str, password: str = PASSWORD, device: str = "", **extra) -> tuple[int, dict]:
    response = APIClient().post("/api/v1/auth/token", {"email": email, "password": password, "device": device}, format="json", **extra)
    return response.status_code, response.json()


def _client(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


# --- Device tokens ------------------------------------------------------------------------------------


def test_sign_in_issues_a_named_hashed_expiring_token_per_device(user, other_user):
    status, laptop = _sign_in(user.email, device="laptop")
    assert status == 200 and laptop["email"] == user.email and laptop["expiry"]
    _, phone = _sign_in(user.email, device="phone")
    _, theirs = _sign_in(other_user.email, device="theirs")
    stored = DeviceToken.objects.get(public_id=laptop["id"])
    assert stored.digest != laptop["token"] and laptop["token"] not in stored.digest  # only a digest is kept
    assert stored.expiry > timezone.now() + timedelta(days=settings.REST_KNOX["TOKEN_TTL"].days - 1)

    listed = _client(laptop["token"]).get("/api/v1/auth/tokens").json()
    assert {(token["name"], token["current"]) for token in listed} == {("laptop", True), ("phone", False)}

    # Revoking the phone leaves the laptop signed in; the other learner's token cannot be revoked.
    assert _client(laptop["token"]).delete(f"/api/v1/auth/tokens/{phone['id']}").status_code == 204
    assert _client(phone["token"]).get("/api/v1/me").status_code == 401
    assert _client(laptop["token"]).get("/api/v1/me").status_code == 200
    assert _client(laptop["token"]).delete(f"/api/v1/auth/tokens/{theirs['id']}").status_code == 404
    assert _client(theirs["token"]).get("/api/v1/me").json()["email"] == other_user.email

    # token/revoke signs out only the device it is sent from.
    assert _client(laptop["token"]).post("/api/v1/auth/token/revoke").status_code == 204
    assert _client(laptop["token"]).get("/api/v1/me").status_code == 401
    assert _client(theirs["token"]).get("/api/v1/me").status_code == 200


def test_an_expired_token_is_refused_and_removed(user):
    _, body = _sign_in(user.email)
    DeviceToken.objects.filter(public_id=body["id"]).update(expiry=timezone.now() - timedelta(seconds=1))
    assert _client(body["token"]).get("/api/v1/me").status_code == 401
    assert not DeviceToken.objects.filter(public_id=body["id"]).exists()


def test_legacy_plain_tokens_keep_working_until_they_age_out(user):
    legacy, _ = Token.objects.get_or_create(user=user)
    assert _client(legacy.key).get("/api/v1/me").json()["email"] == user.email
    Token.objects.filter(pk=legacy.pk).update(created=timezone.now() - timedelta(days=settings.BAEUM_LEGACY_TOKEN_DAYS + 1))
    assert _client(legacy.key).get("/api/v1/me").status_code == 401


def test_register_returns_a_device_token_and_never_says_an_address_is_taken(user):
    response = APIClient().post("/api/v1/auth/register", {"email": "New@Example.com", "password": PASSWORD, "device": "cli"}, format="json")
    assert response.status_code == 201
    assert _client(response.json()["token"]).get("/api/v1/me").json()["email"] == "new@example.com"
    taken = APIClient().post("/api/v1/auth/register", {"email": user.email.upper(), "password": PASSWORD}, format="json")
    assert taken.status_code == 400
    body = json.dumps(taken.json()).lower()
    assert "exist" not in body and "taken" not in body and "already" not in body
    page = Client().post("/signup/", {"email": user.email, "password": PASSWORD})
    assert page.status_code == 400 and page.context["error"] == str(REGISTRATION_REFUSED) == taken.json()["error"]["message"]
    assert "exist" not in page.context["error"]


# --- Me, export, deletion ------------------------------------------------------------------------------


def test_me_reads_and_renames(api_client, user):
    joined = user.date_joined.isoformat().replace("+00:00", "Z")
    assert api_client.get("/api/v1/me").json() == {"email": user.email, "name": "", "dateJoined": joined, "emailVerified": False}
    assert api_client.patch("/api/v1/me", {"name": "Ji-woo"}, format="json").json()["name"] == "Ji-woo"
    user.refresh_from_db()
    assert user.first_name == "Ji-woo"
    assert APIClient().get("/api/v1/me").status_code == 401


@pytest.fixture
def two_learners_with_data(user, other_user, ingest, api_client, other_api_client):
    mine = ingest(user, make_pdf(["Chapter 1 Registers\nMy notes about registers and stacks."]), "mine.pdf")
    theirs = ingest(other_user, make_pdf(["Chapter 1 Caches\nTheir notes about caches and memory."]), "theirs.pdf")
    for client, material in ((api_client, mine), (other_api_client, theirs)):
        assert client.post("/api/v1/plans/", {"refIds": [material.ref_id]}, format="json").status_code in (201, 202)
    return mine, theirs


def test_export_holds_the_originals_and_the_rows_of_this_learner_only(api_client, user, two_learners_with_data):
    mine, theirs = two_learners_with_data
    response = api_client.get("/api/v1/me/export")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    names = set(archive.namelist())
    assert f"files/{mine.file.name}" in names and f"files/{theirs.file.name}" not in names
    assert archive.read(f"files/{mine.file.name}") == Path(mine.file.path).read_bytes()
    materials = json.loads(archive.read("data/knowledge.material.json"))
    assert [row["ref_id"] for row in materials] == [str(mine.ref_id)]
    chunks = json.loads(archive.read("data/knowledge.chunk.json"))
    assert chunks and {row["owner_id"] for row in chunks} == {user.pk}
    assert "registers" in " ".join(row["content"] for row in chunks)
    plans = json.loads(archive.read("data/plans.plan.json"))
    assert len(plans) == 1 and plans[0]["owner_id"] == user.pk
    assert json.loads(archive.read("account.json"))["email"] == user.email


def test_deleting_the_account_removes_every_row_and_file_and_nothing_of_the_other(api_client, user, other_user, two_learners_with_data):
    mine, theirs = two_learners_with_data
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [mine.ref_id]}, format="json")
    assert conversation.status_code == 201
    turn = api_client.post(f"/api/v1/conversations/{conversation.json()['id']}/messages", {"content": "What is this about?"}, format="json")
    assert turn.status_code in (200, 201)
    other_conversation = _client(_sign_in(other_user.email)[1]["token"])
    theirs_conversation = other_conversation.post("/api/v1/conversations/", {"refIds": [theirs.ref_id]}, format="json").json()["id"]
    other_conversation.post(f"/api/v1/conversations/{theirs_conversation}/messages", {"content": "What is this about?"}, format="json")
    assert cache.keys(f"learner:{user.pk}:chat:memory:*") and cache.keys(f"learner:{other_user.pk}:chat:memory:*")
    my_directory = Path(mine.file.path).parent
    assert my_directory.exists()
    assert api_client.delete("/api/v1/me", {"password": "wrong"}, format="json").status_code == 400
    assert User.objects.filter(pk=user.pk).exists()

    assert api_client.delete("/api/v1/me", {"password": PASSWORD}, format="json").status_code == 204
    assert not User.objects.filter(pk=user.pk).exists()
    assert not my_directory.exists(), list(my_directory.rglob("*"))
    assert not (Path(settings.MEDIA_ROOT) / "materials" / str(user.pk)).exists()
    from django.db.models import Q

    from accounts.services import owned_models

    for model in owned_models():
        columns = {field.attname for field in model._meta.concrete_fields} & {"owner_id", "user_id", "course_owner_id"}
        assert columns, model
        assert not model.objects.unscoped().filter(Q(*[(column, user.pk) for column in columns], _connector=Q.OR)).exists(), model
    assert not DeviceToken.objects.filter(user_id=user.pk).exists() and not Token.objects.filter(user_id=user.pk).exists()
    assert cache.keys(f"learner:{user.pk}:*") == []  # conversation memory and every other cached value of the learner
    assert cache.keys(f"learner:{other_user.pk}:chat:memory:*")
    # The other learner keeps everything.
    assert Material.objects.for_user(other_user).count() == 1 and Path(theirs.file.path).exists()
    assert Chunk.objects.for_user(other_user).exists() and Plan.objects.for_user(other_user).count() == 1


# --- Passwords -------------------------------------------------------------------------------------------


def test_password_change_signs_out_other_devices(user):
    _, laptop = _sign_in(user.email, device="laptop")
    _, phone = _sign_in(user.email, device="phone")
    wrong = _client(laptop["token"]).post("/api/v1/me/password", {"oldPassword": "nope", "newPassword": NEW_PASSWORD}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "wrong_password"
    weak = _client(laptop["token"]).post("/api/v1/me/password", {"oldPassword": PASSWORD, "newPassword": "123"}, format="json")
    assert weak.status_code == 400 and weak.json()["error"]["code"] == "weak_password"
    ok = _client(laptop["token"]).post("/api/v1/me/password", {"oldPassword": PASSWORD, "newPassword": NEW_PASSWORD}, format="json")
    assert ok.status_code == 204
    assert _client(laptop["token"]).get("/api/v1/me").status_code == 200
    assert _client(phone["token"]).get("/api/v1/me").status_code == 401
    assert _sign_in(user.email)[0] == 400 and _sign_in(user.email, NEW_PASSWORD)[0] == 200


def test_password_reset_link_is_single_use_and_says_nothing_about_unknown_addresses(user, other_user):
    unknown = APIClient().post("/api/v1/auth/password/reset", {"email": "nobody@example.com"}, format="json")
    known = APIClient().post("/api/v1/auth/password/reset", {"email": user.email}, format="json")
    assert unknown.status_code == known.status_code == 202 and unknown.json() == known.json()
    assert len(mail.outbox) == 1 and mail.outbox[0].to == [user.email]
    uid, token = re.search(r"/reset/([^/]+)/([^/]+)/", mail.outbox[0].body).groups()
    confirm = {"uid": uid, "token": token, "newPassword": NEW_PASSWORD}
    assert APIClient().post("/api/v1/auth/password/reset/confirm", confirm, format="json").status_code == 204
    assert _sign_in(user.email, NEW_PASSWORD)[0] == 200
    again = APIClient().post("/api/v1/auth/password/reset/confirm", {**confirm, "newPassword": "yet another one 99"}, format="json")
    assert again.status_code == 400 and again.json()["error"]["code"] == "invalid_reset_link"
    assert _sign_in(other_user.email)[0] == 200  # untouched


def test_password_reset_in_the_browser(user):
    browser = Client()
    assert browser.post("/password-reset/", {"email": user.email}).status_code == 302
    link = re.search(r"https?://[^/]+(/reset/\S+)", mail.outbox[0].body).group(1)
    form = browser.get(link, follow=True)
    assert form.status_code == 200 and b"new_password1" in form.content
    done = browser.post(form.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert done.status_code == 302
    assert browser.get(link, follow=True).context["validlink"] is False  # used once
    assert Client().login(email=user.email, password=NEW_PASSWORD)


# --- Sign-in throttles ---------------------------------------------------------------------------------------


PEER = "192.0.2.77"  # a documentation address: no other test (or other run sharing Redis) signs in from it


@pytest.fixture
def strict_limits():
    cache.delete_pattern("signin:*")
    with override_settings(BAEUM_SIGNIN_LIMITS={"account": (5, 900), "address": (40, 900)}):
        yield
    cache.delete_pattern("signin:*")


def test_wrong_passwords_lock_the_account_not_other_learners(user, other_user, strict_limits):
    for _ in range(5):
        assert _sign_in(user.email, "wrong password")[0] == 400
    assert _sign_in(user.email)[0] == 429  # the right password too, once the account is locked
    assert _sign_in(other_user.email)[0] == 200  # same address, another account: generous


@pytest.mark.parametrize("content_type", ["*/*", "application/*", "*/json", "application/json; charset=utf-8"])
def test_every_body_drf_reads_as_json_counts_against_the_account(user, strict_limits, content_type):
    """DRF parses these Content-Types as JSON: wrong passwords sent with them count, and the lock holds for them."""

    def attempt(password: str) -> int:
        body = json.dumps({"email": user.email, "password": password})
        return APIClient().post("/api/v1/auth/token", body, content_type=content_type).status_code

    assert [attempt("wrong password") for _ in range(5)] == [400] * 5
    assert attempt(PASSWORD) == 429
    assert _sign_in(user.email)[0] == 429  # and the plain JSON sign-in is locked too


def test_an_api_sign_in_whose_account_cannot_be_read_is_refused(user, strict_limits):
    response = APIClient().post("/api/v1/auth/token", f"email={user.email}&password={PASSWORD}", content_type="text/plain")
    assert response.status_code == 400
    assert "application/json" in response.json()["error"]["message"]


def test_a_lock_holds_for_the_address_that_guessed_not_for_the_learner_elsewhere(user, strict_limits):
    for _ in range(5):
        assert _sign_in(user.email, "wrong password", REMOTE_ADDR=PEER)[0] == 400
    assert _sign_in(user.email, REMOTE_ADDR=PEER)[0] == 429
    assert _sign_in(user.email, REMOTE_ADDR="198.51.100.4")[0] == 200  # the learner at home signs in


def test_each_new_lock_lasts_twice_as_long(user, strict_limits):
    for lock in (1, 2, 3):
        for _ in range(5):
            assert _sign_in(user.email, "wrong password", REMOTE_ADDR=PEER)[0] == 400
        [key] = cache.keys("signin:locked:*")
        assert 900 * 2 ** (lock - 1) - 5 <= cache.ttl(key) <= 900 * 2 ** (lock - 1)
        response = APIClient().post("/api/v1/auth/token", {"email": user.email, "password": PASSWORD}, format="json", REMOTE_ADDR=PEER)
        assert response.status_code == 429 and int(response["Retry-After"]) > 900 * 2 ** (lock - 1) - 5
        cache.delete(key)  # the lock runs out


def test_guesses_spread_over_many_addresses_lock_the_account_everywhere(user, strict_limits):
    for number in range(5 * 5):  # SIGNIN_ACCOUNT_SPREAD × the per-address limit, four guesses an address
        assert _sign_in(user.email, "wrong password", REMOTE_ADDR=f"203.0.113.{number // 4}")[0] == 400
    assert _sign_in(user.email, REMOTE_ADDR="198.51.100.9")[0] == 429


def test_a_sign_in_lock_never_blocks_a_password_reset(user, strict_limits):
    for _ in range(5):
        _sign_in(user.email, "wrong password")
    assert _sign_in(user.email)[0] == 429
    mail.outbox.clear()
    response = APIClient().post("/api/v1/auth/password/reset", {"email": user.email}, format="json")
    assert response.status_code in (200, 202) and len(mail.outbox) == 1
    assert Client().post("/password-reset/", {"email": user.email}).status_code in (200, 302)


def test_rotating_x_forwarded_for_does_not_escape_the_address_limit(strict_limits):
    statuses = [
        _sign_in(f"guess{number}@example.com", "wrong password", HTTP_X_FORWARDED_FOR=f"10.0.{number}.1", REMOTE_ADDR=PEER)[0]
        for number in range(45)
    ]
    assert statuses[:40] == [400] * 40 and set(statuses[40:]) == {429}


def test_num_proxies_takes_the_address_the_trusted_proxy_saw(strict_limits):
    with override_settings(NUM_PROXIES=1):
        blocked = [_sign_in("a@example.com", "x", HTTP_X_FORWARDED_FOR=f"1.2.3.4, 10.0.0.{n}", REMOTE_ADDR=PEER)[0] for n in range(41)]
        assert blocked[-1] == 429  # the proxy appends the real client: each rotation is a new address
        cache.delete_pattern("signin:*")
        spoofed = [_sign_in("b@example.com", "x", HTTP_X_FORWARDED_FOR=f"9.9.9.{n}, 10.77.0.7", REMOTE_ADDR=PEER)[0] for n in range(41)]
        assert spoofed[-1] == 429  # what the client wrote before the proxy's entry is not trusted


def test_browser_and_admin_logins_are_throttled_per_account(user, strict_limits):
    staff = UserFactory(is_staff=True)
    for _ in range(5):
        assert Client().post("/login/", {"username": user.email, "password": "wrong"}).status_code == 200
        assert Client().post("/admin/login/", {"username": staff.email, "password": "wrong"}).status_code == 200
    assert Client().post("/login/", {"username": user.email, "password": PASSWORD}).status_code == 429
    assert Client().post("/admin/login/", {"username": staff.email, "password": PASSWORD}).status_code == 429


def test_sign_up_with_a_weak_password_answers_a_taken_address_like_a_free_one(user):
    taken = APIClient().post("/api/v1/auth/register", {"email": user.email, "password": "1234"}, format="json")
    free = APIClient().post("/api/v1/auth/register", {"email": "free-address@example.com", "password": "1234"}, format="json")
    assert taken.status_code == free.status_code == 400
    assert taken.json()["error"]["code"] == free.json()["error"]["code"] == "weak_password"
    assert taken.json()["error"]["message"] == free.json()["error"]["message"]


def test_an_email_too_long_for_the_account_is_refused_not_a_500(client, api_client):
    long_email = "a" * 145 + "@example.com"  # 157 characters: a valid address the username column cannot hold
    assert client.post("/signup/", {"email": long_email, "password": "a-long-pass-phrase-2026"}).status_code == 400
    response = api_client.post("/api/v1/auth/register", {"email": long_email, "password": "a-long-pass-phrase-2026"}, format="json")
    assert response.status_code == 400 and response.json()["error"]["code"] == "registration_refused"


# --- Credentials in the Authorization header and the session -------------------------------------------


def test_a_device_token_works_after_bearer_as_after_token(user):
    key = _sign_in(user.email)[1]["token"]
    for scheme in ("Token", "Bearer", "bearer"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"{scheme} {key}")
        response = client.get("/api/v1/me")
        assert response.status_code == 200 and response.json()["email"] == user.email


def test_a_session_of_one_account_and_a_token_of_another_is_refused(user, other_user):
    other_key = _sign_in(other_user.email)[1]["token"]
    own_key = _sign_in(user.email)[1]["token"]
    browser = Client()
    browser.force_login(user)
    mixed = browser.get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {other_key}")
    assert mixed.status_code == 400 and "session" in mixed.json()["error"]["message"]
    write = browser.post("/api/v1/conversations", {}, content_type="application/json", HTTP_AUTHORIZATION=f"Token {other_key}")
    assert write.status_code == 400  # not a 500 from a database scoped to the other account
    assert browser.get("/api/v1/me", HTTP_AUTHORIZATION="Token not-a-key").status_code == 400
    same = browser.get("/api/v1/me", HTTP_AUTHORIZATION=f"Token {own_key}")
    assert same.status_code == 200 and same.json()["email"] == user.email
    assert browser.get("/api/v1/me").json()["email"] == user.email  # the session alone
