"""The accounts API as a mobile client uses it: register, sign in with a device token, the error format."""

import pytest

pytestmark = pytest.mark.django_db


def test_register_and_sign_in_return_tokens(anonymous_client):
    response = anonymous_client.post("/api/v1/auth/register", {"email": "New@Example.com", "password": "a-long-pass-phrase"}, format="json")
    assert response.status_code == 201
    token = response.json()["token"]
    assert response.json()["email"] == "new@example.com"
    again = anonymous_client.post("/api/v1/auth/token", {"email": "new@example.com", "password": "a-long-pass-phrase"}, format="json")
    assert again.status_code == 200 and again.json()["token"] != token  # a token per device (tests/accounts)
    anonymous_client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert anonymous_client.get("/api/v1/materials/").status_code == 200
    assert anonymous_client.post("/api/v1/auth/token/revoke").status_code == 204
    assert anonymous_client.get("/api/v1/materials/").status_code == 401
    anonymous_client.credentials(HTTP_AUTHORIZATION=f"Token {again.json()['token']}")
    assert anonymous_client.get("/api/v1/materials/").status_code == 200  # revoking one device signs out no other


def test_registration_errors_use_the_error_format(anonymous_client):
    weak = anonymous_client.post("/api/v1/auth/register", {"email": "a@example.com", "password": "123"}, format="json")
    assert weak.status_code == 400
    assert weak.json()["error"]["code"] == "weak_password"
    anonymous_client.post("/api/v1/auth/register", {"email": "b@example.com", "password": "a-long-pass-phrase"}, format="json")
    taken = anonymous_client.post("/api/v1/auth/register", {"email": "b@example.com", "password": "a-long-pass-phrase"}, format="json")
    assert taken.json()["error"]["code"] == "registration_refused"  # never "this address has an account"
    wrong = anonymous_client.post("/api/v1/auth/token", {"email": "b@example.com", "password": "nope"}, format="json")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "invalid_credentials"
