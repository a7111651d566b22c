from django.contrib.auth import password_validation
from django.core.validators import validate_email
from django.db import transaction
from rest_framework.authtoken.models import Token

from .models import User


class AccountError(Exception):
    """A sign-up or sign-in request that cannot be honoured; the message is safe to show."""

    def __init__(self, message: str, *, code: str):
        super().__init__(message)
        self.code = code


@transaction.atomic
def user_register(*, email: str, password: str) -> tuple[User, str]:
    """Create a learner account and return it with a fresh API token."""
    email = User.objects.normalize_email(email).strip().lower()
    validate_email(email)  # the browser form and the API accept exactly the same addresses
    if User.objects.filter(email__iexact=email).exists():
        raise AccountError("An account with this email already exists.", code="email_taken")
    candidate = User(email=email, username=email)
    password_validation.validate_password(password, user=candidate)
    user = User.objects.create_user(email=email, password=password)
    token = Token.objects.create(user=user)
    return user, token.key


def user_token_issue(*, user: User) -> str:
    """Return the user's API token, creating it if needed."""
    token, _ = Token.objects.get_or_create(user=user)
    return token.key


def user_token_revoke(*, user: User) -> None:
    """Revoke the user's API token; the next sign-in issues a new one."""
    Token.objects.filter(user=user).delete()
