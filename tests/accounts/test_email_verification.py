"""Optional email verification (BAEUM_REQUIRE_EMAIL_VERIFICATION): off, sign-up signs in at once; on, a new
account signs in only after the emailed link is confirmed — in the browser and through the API — and the
link works once. Resending says nothing about which addresses exist."""

import re
from datetime import timedelta
from unittest import mock

import pytest
from django.core import mail
from django.core.cache import cache
from django.test import Client, override_settings
from rest_framework.test import APIClient

from accounts.models import User
from tests.factories import UserFactory

PASSWORD = "correct horse battery"
pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def fresh_throttles():
    cache.delete_pattern("signin:*")  # each test signs up and in several times from the test client's address
    cache.delete_pattern("mail:*")
    yield
    cache.delete_pattern("signin:*")
    cache.delete_pattern("mail:*")


@pytest.fixture
def required():
    with override_settings(BAEUM_REQUIRE_EMAIL_VERIFICATION=True):
        yield


def _link(message) -> str:
    return re.search(r"https?://[^/]+(/verify/\S+/)", message.body).group(1)


def _uid_and_token(message) -> dict:
    uid, token = re.search(r"/verify/([^/]+)/([^/]+)/", message.body).groups()
    return {"uid": uid, "token": token}


def _api_sign_in(email: str):
    return APIClient().post("/api/v1/auth/token", {"email": email, "password": PASSWORD}, format="json")


def test_off_by_default_sign_up_signs_in_and_sends_nothing():
    browser = Client()
    response = browser.post("/signup/", {"email": "new@example.com", "password": PASSWORD})
    assert response.status_code == 302 and response["Location"].endswith("/library/")
    assert browser.get("/library/").status_code == 200
    registered = APIClient().post("/api/v1/auth/register", {"email": "api@example.com", "password": PASSWORD}, format="json")
    assert registered.status_code == 201 and registered.json()["token"]
    assert mail.outbox == []


def test_browser_sign_up_waits_for_the_link_then_signs_in(required):
    browser = Client()
    response = browser.post("/signup/", {"email": "learner@example.com", "password": PASSWORD})
    assert response.status_code == 200 and b"learner@example.com" in response.content
    assert browser.get("/library/").status_code == 302  # not signed in
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["learner@example.com"]

    refused = browser.post("/login/", {"username": "learner@example.com", "password": PASSWORD})
    assert refused.status_code == 200 and b"/verify/resend/" in refused.content  # says why and offers a new link
    assert "Confirm your email address first" in refused.content.decode()

    link = _link(mail.outbox[0])
    assert browser.get(link).status_code == 200  # a button: a mail scanner opening the link confirms nothing
    assert User.objects.get(email="learner@example.com").email_verified_at is None
    confirmed = browser.post(link)
    assert confirmed.status_code == 302 and browser.get("/library/").status_code == 200
    assert User.objects.get(email="learner@example.com").email_verified_at is not None

    used_again = Client().post(link)
    assert used_again.status_code == 400 and "invalid, used or expired" in used_again.content.decode()
    assert Client().login(email="learner@example.com", password=PASSWORD)


def test_api_register_gives_no_token_until_the_address_is_confirmed(required):
    registered = APIClient().post("/api/v1/auth/register", {"email": "phone@example.com", "password": PASSWORD}, format="json")
    assert registered.status_code == 201
    assert registered.json() == {"email": "phone@example.com", "verificationRequired": True}
    refused = _api_sign_in("phone@example.com")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "email_not_verified"

    wrong = APIClient().post("/api/v1/auth/verify", {**_uid_and_token(mail.outbox[0]), "token": "abc-123"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "invalid_verification_link"
    verified = APIClient().post("/api/v1/auth/verify", _uid_and_token(mail.outbox[0]), format="json")
    assert verified.status_code == 200 and verified.json()["emailVerified"] is True
    signed_in = _api_sign_in("phone@example.com")
    assert signed_in.status_code == 200
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {signed_in.json()['token']}")
    assert client.get("/api/v1/me").json()["emailVerified"] is True


def test_an_expired_link_is_refused_and_a_new_one_works(required):
    APIClient().post("/api/v1/auth/register", {"email": "late@example.com", "password": PASSWORD}, format="json")
    old = _uid_and_token(mail.outbox[0])
    from accounts.services import email_verification_token

    later = email_verification_token._now() + timedelta(days=2)  # PASSWORD_RESET_TIMEOUT is 3 hours
    with mock.patch.object(type(email_verification_token), "_now", return_value=later):
        expired = APIClient().post("/api/v1/auth/verify", old, format="json")
        assert expired.status_code == 400 and expired.json()["error"]["code"] == "invalid_verification_link"
        resent = APIClient().post("/api/v1/auth/verify/resend", {"email": "late@example.com"}, format="json")
        assert resent.status_code == 202 and len(mail.outbox) == 2
        assert APIClient().post("/api/v1/auth/verify", _uid_and_token(mail.outbox[1]), format="json").status_code == 200


def test_resend_says_nothing_about_which_addresses_exist(required):
    confirmed = UserFactory(email="confirmed@example.com")
    assert confirmed.email_verified_at is None  # made without the link: still waits for confirmation
    User.objects.filter(pk=confirmed.pk).update(email_verified_at="2026-01-01T00:00:00Z")
    answers = [
        APIClient().post("/api/v1/auth/verify/resend", {"email": email}, format="json")
        for email in ("nobody@example.com", "confirmed@example.com")
    ]
    assert answers[0].status_code == answers[1].status_code == 202 and answers[0].json() == answers[1].json()
    assert mail.outbox == []  # neither an unknown nor an already confirmed address gets mail
    unknown_page = Client().post("/verify/resend/", {"email": "nobody@example.com"})
    assert unknown_page.status_code == 200 and mail.outbox == []


def test_a_link_confirms_only_its_own_account(required):
    APIClient().post("/api/v1/auth/register", {"email": "first@example.com", "password": PASSWORD}, format="json")
    APIClient().post("/api/v1/auth/register", {"email": "second@example.com", "password": PASSWORD}, format="json")
    first = _uid_and_token(mail.outbox[0])
    second = _uid_and_token(mail.outbox[1])
    swapped = APIClient().post("/api/v1/auth/verify", {"uid": second["uid"], "token": first["token"]}, format="json")
    assert swapped.status_code == 400
    assert APIClient().post("/api/v1/auth/verify", first, format="json").status_code == 200
    assert _api_sign_in("first@example.com").status_code == 200
    assert _api_sign_in("second@example.com").status_code == 403  # untouched


def test_staff_and_accounts_from_before_sign_in_without_a_link(required):
    staff = UserFactory(email="admin@example.com", is_staff=True)
    staff.set_password(PASSWORD)
    staff.save()
    assert _api_sign_in("admin@example.com").status_code == 200
    older = UserFactory(email="older@example.com")
    older.set_password(PASSWORD)
    older.email_verified_at = older.date_joined  # what the migration gives accounts made before it
    older.save()
    assert _api_sign_in("older@example.com").status_code == 200


def test_with_verification_on_sign_up_answers_a_taken_address_exactly_like_a_free_one(required):
    owner = UserFactory(email="taken@example.com")
    taken = APIClient().post("/api/v1/auth/register", {"email": "Taken@example.com", "password": PASSWORD}, format="json")
    free = APIClient().post("/api/v1/auth/register", {"email": "free@example.com", "password": PASSWORD}, format="json")
    assert taken.status_code == free.status_code == 201
    assert taken.json() == {"email": "taken@example.com", "verificationRequired": True}
    assert free.json() == {"email": "free@example.com", "verificationRequired": True}
    to_owner = [message for message in mail.outbox if message.to == [owner.email]]
    assert len(to_owner) == 1 and "already has one" in to_owner[0].body and "/password-reset/" in to_owner[0].body
    assert User.objects.filter(email__iexact="taken@example.com").count() == 1  # nothing made, nothing changed
    page = Client().post("/signup/", {"email": "taken@example.com", "password": PASSWORD})
    assert page.status_code == 200 and "taken@example.com" in page.content.decode()  # the page a new account gets
    assert len([message for message in mail.outbox if message.to == [owner.email]]) == 2
