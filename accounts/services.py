"""Accounts: sign-up, device tokens, the learner's own profile, password change and reset, deletion
and export of everything a learner owns.

Deletion and export reach every user-owned model through the app registry (each model whose manager is
an ``OwnedManager``), so this app imports none of the apps that depend on it and a new owned model is
covered without a change here.
"""

from __future__ import annotations

import datetime
import json
import logging
import shutil
import zipfile
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from uuid import UUID

from django.apps import apps
from django.conf import settings
from django.contrib.auth import password_validation
from django.contrib.auth.forms import PasswordResetForm
from django.contrib.auth.tokens import PasswordResetTokenGenerator
from django.core.exceptions import ValidationError
from django.core.validators import validate_email
from django.db import models, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from knox.settings import knox_settings
from rest_framework.authtoken.models import Token

from baeum.errors import BaeumError
from core.learner_cache import learner_cache_forget

from .models import DeviceToken, User
from .scoping import OwnedManager

logger = logging.getLogger(__name__)

# Said for an address already registered as for any other refused one: sign-up never confirms an account.
REGISTRATION_REFUSED = _("This email address cannot be registered. If it is yours, log in or reset your password.")
MAX_TOKENS_PER_USER = 50  # a learner's devices; the oldest is revoked when one more signs in
DEFAULT_DEVICE = "API token"  # the name of a device token whose client gave none


class AccountError(BaeumError):
    """A sign-up or sign-in request that cannot be honoured (400); the message is safe to show."""

    def __init__(self, message, *, code: str, details: dict | None = None):
        super().__init__(message, code=code, details=details)


class RegistrationRefused(AccountError):
    """Sign-up refused, said the same whatever the reason: whether an address has an account is never told."""

    def __init__(self, *, reason: str):
        super().__init__(REGISTRATION_REFUSED, code="registration_refused")
        self.reason = reason  # email_taken or email_too_long: for the code reading it, never for the client


class WeakPassword(AccountError):
    """A new password Django's password validators refuse; ``messages`` are theirs, in the active language."""

    def __init__(self, messages: list[str]):
        super().__init__(" ".join(messages), code="weak_password", details={"password": messages})
        self.messages = messages


def _validate_password(password: str, *, user: User) -> None:
    """Run Django's password validators; raise ``WeakPassword`` with their messages."""
    try:
        password_validation.validate_password(password, user=user)
    except ValidationError as error:
        raise WeakPassword(error.messages) from error


def _normalized(email: str) -> str:
    return User.objects.normalize_email(email).strip().lower()


EMAIL_MAX_LENGTH = 150


@transaction.atomic
def user_register(*, email: str, password: str) -> User:
    """Create a learner account (the API then issues its first device token; the browser signs in)."""
    email = _normalized(email)
    validate_email(email)  # the browser form and the API accept exactly the same addresses
    if len(email) > EMAIL_MAX_LENGTH:  # the username column holds 150 characters
        raise RegistrationRefused(reason="email_too_long")
    # The password first: a weak one is refused alike for a taken and a free address (the order told them apart).
    _validate_password(password, user=User(email=email, username=email))
    if User.objects.filter(email__iexact=email).exists():
        raise RegistrationRefused(reason="email_taken")
    return User.objects.create_user(email=email, password=password)


# --- Device tokens ----------------------------------------------------------------------------


@dataclass(frozen=True)
class IssuedToken:
    key: str  # shown once: only its digest is stored
    token: DeviceToken


def user_token_issue(*, user: User, name: str = DEFAULT_DEVICE) -> IssuedToken:
    """Issue a named, expiring device token; the oldest beyond ``MAX_TOKENS_PER_USER`` is revoked."""
    token, key = DeviceToken.objects.create(user=user, expiry=knox_settings.TOKEN_TTL, name=(name or DEFAULT_DEVICE)[:100])
    stale = DeviceToken.objects.filter(user=user).order_by("-created").values_list("pk", flat=True)[MAX_TOKENS_PER_USER:]
    DeviceToken.objects.filter(pk__in=list(stale)).delete()
    return IssuedToken(key=key, token=token)


def user_token_list(*, user: User) -> list[DeviceToken]:
    """Return the learner's unexpired device tokens, newest first."""
    now = timezone.now()
    return list(DeviceToken.objects.filter(user=user).filter(models.Q(expiry__isnull=True) | models.Q(expiry__gt=now)))


def user_token_revoke(*, user: User, public_id: UUID | str | None = None, current=None) -> bool:
    """Revoke one device token (by ``public_id``) or the one making the request (``current``)."""
    if public_id is not None:
        return DeviceToken.objects.filter(user=user, public_id=public_id).delete()[0] > 0
    if isinstance(current, DeviceToken):
        return DeviceToken.objects.filter(user=user, pk=current.pk).delete()[0] > 0
    return Token.objects.filter(user=user).delete()[0] > 0  # a legacy plain token (or a browser session: none)


def user_tokens_revoke_all(*, user: User, keep: DeviceToken | None = None) -> int:
    """Revoke every device and legacy token of the learner except ``keep``; return how many."""
    revoked = DeviceToken.objects.filter(user=user).exclude(pk=getattr(keep, "pk", None)).delete()[0]
    return revoked + Token.objects.filter(user=user).delete()[0]


# --- Profile, password ----------------------------------------------------------------------------


def user_update(*, user: User, name: str) -> User:
    """Change the learner's display name."""
    user.first_name = name.strip()[:150]
    user.save(update_fields=["first_name"])
    return user


def user_password_change(*, user: User, old_password: str, new_password: str, keep_token=None) -> None:
    """Change the password after checking the old one; every other device is signed out."""
    if not user.check_password(old_password):
        raise AccountError("The current password is wrong.", code="wrong_password")
    _validate_password(new_password, user=user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        user_tokens_revoke_all(user=user, keep=keep_token if isinstance(keep_token, DeviceToken) else None)


def user_password_reset_request(*, email: str, request) -> None:
    """Email a single-use, expiring reset link when the address has an account; say nothing either way.

    Django's reset token hashes the password and last login, so it stops working once used, and it
    expires after ``PASSWORD_RESET_TIMEOUT``.
    """
    form = PasswordResetForm(data={"email": _normalized(email)})
    if not form.is_valid():
        return
    form.save(
        request=request,
        use_https=request.is_secure(),
        subject_template_name="accounts/password_reset_subject.txt",
        email_template_name="accounts/password_reset_email.txt",
        from_email=settings.DEFAULT_FROM_EMAIL,
    )


def user_password_reset_confirm(*, uid: str, token: str, new_password: str) -> User:
    """Set a new password from a reset link's ``uid`` and ``token``; every device is signed out."""
    from django.contrib.auth.tokens import default_token_generator
    from django.utils.encoding import force_str
    from django.utils.http import urlsafe_base64_decode

    try:
        user = User.objects.get(pk=force_str(urlsafe_base64_decode(uid)))
    except (User.DoesNotExist, ValueError, TypeError, OverflowError):
        user = None
    if user is None or not default_token_generator.check_token(user, token):
        raise AccountError("This reset link is invalid or has expired. Ask for a new one.", code="invalid_reset_link")
    _validate_password(new_password, user=user)
    with transaction.atomic():
        user.set_password(new_password)
        user.save(update_fields=["password"])
        user_tokens_revoke_all(user=user)
    return user


# --- Email verification (BAEUM_REQUIRE_EMAIL_VERIFICATION) ----------------------------------------


class EmailVerificationTokenGenerator(PasswordResetTokenGenerator):
    """A link that confirms one address once: its hash covers the confirmation date (empty until used) and
    the address, so it stops working when used or when the address changes; it expires like a reset link."""

    key_salt = "baeum.accounts.EmailVerificationTokenGenerator"

    def _make_hash_value(self, user, timestamp):
        return f"{user.pk}{user.email}{user.email_verified_at or ''}{timestamp}"


email_verification_token = EmailVerificationTokenGenerator()
VERIFICATION_NEEDED = _("Confirm your email address first: open the link we emailed you (or ask for a new one).")
VERIFICATION_REFUSED = _("This confirmation link is invalid, used or expired. Ask for a new one.")


def user_verification_send(*, user: User, request) -> None:
    """Email ``user`` the link that confirms their address (through EMAIL_BACKEND)."""
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.utils.encoding import force_bytes
    from django.utils.http import urlsafe_base64_encode

    context = {
        "protocol": "https" if request.is_secure() else "http",
        "domain": request.get_host(),
        "uid": urlsafe_base64_encode(force_bytes(user.pk)),
        "token": email_verification_token.make_token(user),
    }
    subject = render_to_string("accounts/verify_email_subject.txt", context).strip()
    send_mail(subject, render_to_string("accounts/verify_email.txt", context), settings.DEFAULT_FROM_EMAIL, [user.email])


def registration_answered_like_a_new_one(error: RegistrationRefused) -> bool:
    """Whether a refused sign-up is answered exactly as a new account's would be: with email verification on,
    a taken address gets "check your email" too (its owner is told by email, ``user_signup_attempt_notify``),
    so sign-up never says an address has an account. Without it a new account signs in at once, which a
    taken address cannot, and the refusal is the same for every reason (``REGISTRATION_REFUSED``)."""
    return settings.BAEUM_REQUIRE_EMAIL_VERIFICATION and error.reason == "email_taken"


def user_signup_attempt_notify(*, email: str, request) -> None:
    """Tell the owner of ``email`` that someone tried to sign up with it, and what to do if it was them."""
    from django.core.mail import send_mail

    site = f"{'https' if request.is_secure() else 'http'}://{request.get_host()}"
    body = (
        f"Someone tried to create a Baeum account at {site} with this address, which already has one.\n\n"
        f"If it was you: sign in at {site}/login/, or reset your password at {site}/password-reset/.\n"
        "If it was not you, you need not do anything: nothing was changed.\n"
    )
    send_mail("Your Baeum account: a sign-up with your address", body, settings.DEFAULT_FROM_EMAIL, [_normalized(email)])


def user_verification_resend(*, email: str, request) -> None:
    """Send a new confirmation link when the address has an unconfirmed account; say nothing either way."""
    user = User.objects.filter(email__iexact=_normalized(email), email_verified_at__isnull=True, is_active=True).first()
    if user is not None:
        user_verification_send(user=user, request=request)


def user_email_verify(*, uid: str, token: str) -> User:
    """Confirm the address of the account a link names; the link works once."""
    from django.utils.encoding import force_str
    from django.utils.http import urlsafe_base64_decode

    try:
        user = User.objects.get(pk=force_str(urlsafe_base64_decode(uid)))
    except (User.DoesNotExist, ValueError, TypeError, OverflowError):
        user = None
    if user is None or not email_verification_token.check_token(user, token):
        raise AccountError(str(VERIFICATION_REFUSED), code="invalid_verification_link")
    user.email_verified_at = timezone.now()
    user.save(update_fields=["email_verified_at"])
    return user


# --- Everything a learner owns ----------------------------------------------------------------------

# Derived rows, rebuilt from chunks on ingestion: not part of an export (vectors and search postings).
DERIVED_MODELS = {"knowledge.ChunkEmbedding", "knowledge.ChunkTerm"}


def owned_models() -> list[type[models.Model]]:
    """Every installed model whose rows belong to one learner (its manager is an ``OwnedManager``)."""
    return [model for model in apps.get_models() if isinstance(getattr(model, "objects", None), OwnedManager)]


def _file_fields(model) -> list[models.FileField]:
    return [field for field in model._meta.concrete_fields if isinstance(field, models.FileField)]


def user_delete(*, user: User, password: str) -> None:
    """Delete the account with every row and stored file it owns (after checking its password)."""
    if not user.check_password(password):
        raise AccountError("The password is wrong.", code="wrong_password")
    user_id = user.pk
    files: list[tuple[object, str]] = []
    for model in owned_models():
        for field in _file_fields(model):
            for name in model.objects.for_user(user).exclude(**{field.name: ""}).values_list(field.name, flat=True):
                files.append((field.storage, name))
    user.delete()  # every owned row cascades from its owner; sessions and tokens too
    for storage, name in files:
        try:
            storage.delete(name)
        except OSError:
            logger.warning("could not delete %s of a deleted account", name)
    # Files kept beside an original (page pictures, OCR text) live in the material's directory.
    shutil.rmtree(Path(settings.MEDIA_ROOT) / "materials" / str(user_id), ignore_errors=True)
    learner_cache_forget(user_id)  # conversation memory, session content, reading guides (core/learner_cache.py)


def _json_value(value):
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, (UUID, Decimal)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_json_value(each) for each in value]
    if isinstance(value, dict):
        return {key: _json_value(each) for key, each in value.items()}
    if hasattr(value, "tolist"):  # a vector
        return None
    return value


def user_export(*, user: User, into) -> None:
    """Write a zip of the learner's originals and a JSON file per kind of row (materials, pages,
    chunks, plans, sessions, conversations, messages, ...) into the binary file ``into``."""
    with zipfile.ZipFile(into, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        profile = {"email": user.email, "name": user.first_name, "dateJoined": user.date_joined.isoformat()}
        archive.writestr("account.json", json.dumps(profile, ensure_ascii=False, indent=2))
        for model in owned_models():
            if model._meta.label in DERIVED_MODELS:
                continue
            fields = [field.attname for field in model._meta.concrete_fields if field.get_internal_type() != "VectorField"]
            rows = [
                {name: _json_value(value) for name, value in row.items()}
                for row in model.objects.for_user(user).order_by("pk").values(*fields).iterator(chunk_size=500)
            ]
            archive.writestr(f"data/{model._meta.label_lower}.json", json.dumps(rows, ensure_ascii=False, indent=1))
            for field in _file_fields(model):
                for name in model.objects.for_user(user).exclude(**{field.name: ""}).values_list(field.name, flat=True):
                    try:
                        with field.storage.open(name, "rb") as handle, archive.open(f"files/{name}", "w") as member:
                            shutil.copyfileobj(handle, member)
                    except OSError:
                        continue  # a file already gone: its row says so
