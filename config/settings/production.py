"""Production: everything comes from the environment; no insecure default survives."""

from django.core.exceptions import ImproperlyConfigured

from .base import *  # noqa: F403
from .base import env

SECRET_KEY = env("DJANGO_SECRET_KEY", default="")
# Django's own bar for a key (check security.W009): at least 50 characters, at least 5 different ones,
# not a generated "django-insecure-" placeholder. Short or repetitive keys can be guessed, and with the
# key every session cookie and password-reset link can be forged.
MIN_SECRET_KEY_LENGTH, MIN_SECRET_KEY_CHARACTERS = 50, 5
if (
    len(SECRET_KEY) < MIN_SECRET_KEY_LENGTH
    or len(set(SECRET_KEY)) < MIN_SECRET_KEY_CHARACTERS
    or SECRET_KEY.startswith(("dev-insecure", "django-insecure-"))
):
    raise ImproperlyConfigured(
        f"DJANGO_SECRET_KEY must be a random value of at least {MIN_SECRET_KEY_LENGTH} characters in production, e.g. "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'."
    )
DEBUG = env.bool("DJANGO_DEBUG", default=False)
if DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG must be off in production.")

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
# Scripts only with the page's nonce (see base.py): enforced here.
CSP_ENFORCE = env.bool("BAEUM_CSP_ENFORCE", default=True)
CONTENT_SECURITY_POLICY = {"DIRECTIVES": CSP_DIRECTIVES} if CSP_ENFORCE else None  # noqa: F405
CONTENT_SECURITY_POLICY_REPORT_ONLY = None if CSP_ENFORCE else {"DIRECTIVES": CSP_DIRECTIVES}  # noqa: F405
