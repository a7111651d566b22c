"""API tokens: named, hashed, expiring device tokens (django-rest-knox), and the legacy plain tokens.

``Authorization: Token <key>`` (or ``Bearer <key>``) names either. Device tokens are what every
sign-in issues now: only a SHA-512 digest is stored, each expires (``REST_KNOX['TOKEN_TTL']``) and is
revoked alone. Plain tokens (``rest_framework.authtoken``, one per user, stored as they are) made before
still work until ``BAEUM_LEGACY_TOKEN_DAYS`` after their creation, so existing API clients keep
working; none is issued any more.
"""

from __future__ import annotations

import binascii
from dataclasses import dataclass
from datetime import timedelta
from hmac import compare_digest

from django.conf import settings
from django.utils import timezone
from knox.crypto import hash_token
from knox.settings import CONSTANTS
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.authtoken.models import Token

from .models import DeviceToken, User

PREFIXES = (b"token", b"bearer")
LEGACY_KEY_LENGTH = 40  # rest_framework.authtoken keys; device tokens are 64 characters
LAST_USED_RESOLUTION = timedelta(minutes=5)  # how often a device's "last used" is written (one UPDATE at most)


@dataclass(frozen=True)
class Resolved:
    user: User
    token: DeviceToken | Token


def token_resolve(key: str) -> Resolved | None:
    """Return the active user and token a key names, or None (unknown, expired, revoked, inactive user)."""
    if not key or len(key) > 200:
        return None
    now = timezone.now()
    if len(key) == LEGACY_KEY_LENGTH:
        return _legacy_resolve(key, now)
    for candidate in DeviceToken.objects.filter(token_key=key[: CONSTANTS.TOKEN_KEY_LENGTH]).select_related("user"):
        if candidate.expiry is not None and candidate.expiry < now:
            candidate.delete()
            continue
        try:
            digest = hash_token(key)
        except (TypeError, ValueError, binascii.Error):
            return None
        if compare_digest(digest, candidate.digest) and candidate.user.is_active:
            if candidate.last_used_at is None or now - candidate.last_used_at > LAST_USED_RESOLUTION:
                DeviceToken.objects.filter(pk=candidate.pk).update(last_used_at=now)
            return Resolved(candidate.user, candidate)
    return None


def _legacy_resolve(key: str, now) -> Resolved | None:
    legacy = Token.objects.filter(key=key).select_related("user").first()
    if legacy is None or not legacy.user.is_active:
        return None
    if legacy.created < now - timedelta(days=settings.BAEUM_LEGACY_TOKEN_DAYS):
        legacy.delete()
        return None
    return Resolved(legacy.user, legacy)


def request_token(request) -> Resolved | None:
    """Resolve the request's token header once per request (the row-level-security middleware and
    DRF's authentication both need it); None without a valid one."""
    request = getattr(request, "_request", request)  # DRF's Request wraps Django's
    if not hasattr(request, "_baeum_token"):
        key = header_key(request)
        request._baeum_token = token_resolve(key) if key else None
    return request._baeum_token


def header_key(request) -> str | None:
    """The key of an ``Authorization: Token|Bearer <key>`` header, '' when malformed, None when absent."""
    parts = get_authorization_header(request).split()
    if not parts or parts[0].lower() not in PREFIXES:
        return None
    if len(parts) != 2:
        return ""
    try:
        return parts[1].decode("ascii")
    except UnicodeDecodeError:
        return ""


class DeviceTokenAuthentication(BaseAuthentication):
    """DRF authentication by device token (hashed, expiring) or a legacy plain token."""

    def authenticate(self, request):
        if header_key(request) is None:
            return None
        resolved = request_token(request)
        if resolved is None:
            raise exceptions.AuthenticationFailed("Invalid or expired token.")
        return resolved.user, resolved.token

    def authenticate_header(self, request):
        return "Token"
