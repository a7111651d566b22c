"""The local attack surface: the embedded Redis needs a password, and Baeum's files are its user's only."""

import socket
import stat
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile

from baeum import runtime
from tests.pdfgen import make_pdf


def _mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _send(port: int, command: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
        connection.sendall(command + b"\r\n")
        return connection.recv(256)


@pytest.fixture
def own_state_dir(tmp_path, monkeypatch):
    """A separate embedded Redis in a fresh state directory, stopped at the end (the shared one is untouched)."""
    monkeypatch.setenv("BAEUM_STATE_DIR", str(tmp_path / "state"))
    started_before = "redis" in runtime.STARTED_HERE
    yield tmp_path / "state"
    runtime.stop_redis(save=False)
    if not started_before:
        runtime.STARTED_HERE.discard("redis")


def test_the_embedded_redis_refuses_clients_without_its_password(own_state_dir):
    url = runtime.ensure_redis()
    password = (own_state_dir / "redis" / "password").read_text().strip()
    assert url.startswith(f"redis://:{password}@127.0.0.1:") and len(password) == 64
    port = int(url.rsplit(":", 1)[1].split("/")[0])
    assert _send(port, b"GET chat:memory:1").startswith(b"-NOAUTH")
    assert _send(port, b"CONFIG GET dir").startswith(b"-NOAUTH")
    assert b"+PONG" in _send(port, b"AUTH " + password.encode() + b"\r\nPING")
    assert runtime.ensure_redis() == url  # reused, same password
    _send(port, b"AUTH " + password.encode() + b"\r\nSAVE")
    for path in (own_state_dir / "redis" / "password", own_state_dir / "redis" / "port", own_state_dir / "redis" / "dump.rdb"):
        assert _mode(path) == 0o600, path
    assert _mode(own_state_dir / "redis") == 0o700
    assert _mode(own_state_dir) == 0o711  # others may pass (PostgreSQL's own user to pgdata), not list


def test_the_state_directory_and_the_secret_key_are_private():
    assert _mode(runtime.state_dir()) == 0o711
    assert _mode(runtime.state_dir() / "secret_key") == 0o600


@pytest.mark.django_db
def test_a_state_directory_at_a_new_nested_path_can_be_passed_whatever_the_umask(tmp_path, monkeypatch):
    import os

    monkeypatch.setenv("BAEUM_STATE_DIR", str(tmp_path / "new" / "nested" / "state"))
    existing = _mode(tmp_path)
    previous = os.umask(0o077)
    try:
        made = runtime.state_dir()
    finally:
        os.umask(previous)
    assert made == tmp_path / "new" / "nested" / "state"
    for directory in (tmp_path / "new", tmp_path / "new" / "nested", made):
        assert _mode(directory) == 0o711, directory  # the database's own system user passes through to pgdata
    assert _mode(tmp_path) == existing  # what existed is left alone


def test_uploaded_originals_are_readable_by_their_user_only(user):
    from knowledge.services.materials import material_create

    material = material_create(owner=user, upload=SimpleUploadedFile("notes.pdf", make_pdf(["Chapter 1\nText."])), enqueue=False)
    original = Path(material.file.path)
    assert _mode(original) == 0o600
    assert _mode(original.parent) == 0o700
    assert settings.FILE_UPLOAD_PERMISSIONS == 0o600
