"""Production is production: no debug pages by default, no weak or published secret key, a CSP."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "Zq3v-9xL_u2Rk8pT0mWc5yHs7bNd1eGf4jKa6QoVwXiYzA_lPr"  # 50 characters, many different ones


def _settings(module: str, **environment) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("DJANGO_SECRET_KEY", "DJANGO_DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE=module, **environment)
    code = (
        "import django; django.setup(); from django.conf import settings as s; "
        "print(s.DEBUG, len(s.SECRET_KEY), bool(s.CONTENT_SECURITY_POLICY), bool(s.CONTENT_SECURITY_POLICY_REPORT_ONLY))"
    )
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize(
    "key",
    ["", "short", "x" * 60, "abcd" * 20, "dev-insecure-key-change-me" + "x" * 30, "django-insecure-" + GOOD_KEY],
    ids=["unset", "short", "one-character", "four-characters", "published-default", "django-placeholder"],
)
def test_production_refuses_a_weak_secret_key(key):
    result = _settings("config.settings.production", DJANGO_SECRET_KEY=key)
    assert result.returncode != 0 and "DJANGO_SECRET_KEY must be a random value of at least 50" in result.stderr


def test_production_starts_with_a_real_key_debug_off_and_csp_enforced():
    result = _settings("config.settings.production", DJANGO_SECRET_KEY=GOOD_KEY)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["False", "50", "True", "False"]
    assert _settings("config.settings.production", DJANGO_SECRET_KEY=GOOD_KEY, DJANGO_DEBUG="1").returncode != 0


def test_local_settings_run_without_debug_and_with_a_private_generated_key():
    result = _settings("config.settings.local")
    assert result.returncode == 0, result.stderr[-2000:]
    debug, key_length, enforced, report_only = result.stdout.split()
    assert debug == "False" and int(key_length) >= 50 and (enforced, report_only) == ("False", "True")
    from baeum import runtime

    key_file = runtime.state_dir() / "secret_key"
    assert key_file.stat().st_mode & 0o777 == 0o600


@pytest.mark.django_db
def test_pages_carry_a_csp_whose_scripts_need_the_pages_nonce(client):
    response = client.get("/login/")
    policy = dict(part.strip().split(" ", 1) for part in response["Content-Security-Policy-Report-Only"].split(";"))
    assert policy["script-src"].startswith("'self'") and "unsafe-inline" not in policy["script-src"]
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'self'"
    # A template that writes <script nonce="{{ CSP_NONCE }}"> gets the nonce the header then names.
    from csp.middleware import CSPMiddleware
    from django.http import HttpResponse
    from django.template import RequestContext, Template
    from django.test import RequestFactory

    def view(request):
        return HttpResponse(Template('<script nonce="{{ CSP_NONCE }}"></script>').render(RequestContext(request, {})))

    page = CSPMiddleware(view)(RequestFactory().get("/"))
    nonce = page["Content-Security-Policy-Report-Only"].split("'nonce-")[1].split("'")[0]
    assert len(nonce) >= 16 and page.content.decode() == f'<script nonce="{nonce}"></script>'
