"""Production enforces a Content-Security-Policy with nonces: every inline script in a template carries the
request's nonce, and no element carries an inline event handler (which no nonce can allow)."""

import re
from pathlib import Path

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
INLINE_SCRIPT = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.IGNORECASE)
EVENT_HANDLER = re.compile(r"<[^>]+\son[a-z]+\s*=", re.IGNORECASE)


def test_every_inline_script_carries_the_nonce_and_no_element_an_event_handler():
    files = sorted(TEMPLATES.rglob("*.html"))
    assert len(files) >= 10
    missing, handlers = [], []
    for path in files:
        text = path.read_text()
        missing += [f"{path.relative_to(TEMPLATES)}: {tag}" for tag in INLINE_SCRIPT.findall(text) if 'nonce="{{ CSP_NONCE }}"' not in tag]
        handlers += [f"{path.relative_to(TEMPLATES)}: {tag[:60]}" for tag in EVENT_HANDLER.findall(text)]
    assert missing == []
    assert handlers == []


def test_pages_send_the_nonce_their_scripts_carry(client, django_user_model):
    user = django_user_model.objects.create_user(email="csp@example.com", password="a-long-pass-phrase")
    client.force_login(user)
    response = client.get("/review/")
    policy = response.headers.get("Content-Security-Policy") or response.headers.get("Content-Security-Policy-Report-Only")
    nonce = re.search(r"'nonce-([^']+)'", policy).group(1)
    assert f'nonce="{nonce}"' in response.content.decode()
