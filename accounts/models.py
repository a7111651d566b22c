import uuid

from django.contrib.auth.models import AbstractUser, UserManager
from django.db import models
from knox.models import AbstractAuthToken


class EmailUserManager(UserManager):
    """Users sign in with their email address; the username mirrors it."""

    def _create_user(self, username, email, password, **extra_fields):
        email = self.normalize_email(email or username)
        return super()._create_user(email, email, password, **extra_fields)

    def create_user(self, email=None, password=None, **extra_fields):
        return super().create_user(email, email, password, **extra_fields)

    def create_superuser(self, email=None, password=None, **extra_fields):
        return super().create_superuser(email, email, password, **extra_fields)


class User(AbstractUser):
    email = models.EmailField(unique=True)
    # When the address was confirmed through the link sent at sign-up (BAEUM_REQUIRE_EMAIL_VERIFICATION).
    email_verified_at = models.DateTimeField(null=True, blank=True)

    USERNAME_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    objects = EmailUserManager()

    def __str__(self) -> str:
        return self.email

    @property
    def must_verify_email(self) -> bool:
        """Whether this account may not sign in yet: verification is required and its address unconfirmed.
        Staff are exempt (a superuser made with ``createsuperuser`` could otherwise never reach the admin)."""
        from django.conf import settings

        return settings.BAEUM_REQUIRE_EMAIL_VERIFICATION and self.email_verified_at is None and not self.is_staff


class DeviceToken(AbstractAuthToken):
    """A named API token for one device (django-rest-knox): only its hash is stored, it expires, and the
    learner lists and revokes each one alone (revoking one device logs out no other)."""

    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    name = models.CharField(max_length=100, default="API token")
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]
