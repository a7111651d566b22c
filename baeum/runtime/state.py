"""Where the embedded servers keep their state (``.baeum/`` in the project, or ``$BAEUM_STATE_DIR``), this
install's own secret key, the file lock that serialises starting a server, and free loopback ports.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import socket
import time
from pathlib import Path

PROJECT_DIR = Path(__file__).resolve().parents[2]


STARTED_HERE: set[str] = set()  # embedded servers this process started (tests stop them at the end)


upgrade_notes: list[str] = []  # what taking over an older cluster did, for `make run` to print


# The state directory lists for this user only. Others may pass through it (o+x): the embedded
# PostgreSQL runs as its own system user when we are root and must reach .baeum/pgdata (itself 0700).
STATE_DIR_MODE = 0o711


PRIVATE_DIR_MODE = 0o700


def state_dir() -> Path:
    path = Path(os.environ.get("BAEUM_STATE_DIR") or PROJECT_DIR / ".baeum")
    _make_passable(path)
    if path.stat().st_mode & 0o777 != STATE_DIR_MODE and path.stat().st_uid == os.geteuid():
        path.chmod(STATE_DIR_MODE)  # made before: was 0755, listing the Redis port and the secret key's name
    return path


def _make_passable(path: Path) -> None:
    """Make ``path`` and every missing parent 0711, whatever the umask (a umask of 077 made new parents 0700,
    and the embedded PostgreSQL's own system user could not pass through them to its data). Parents that
    exist are left as they are."""
    missing = []
    for directory in [path.absolute(), *path.absolute().parents]:
        if directory.exists():
            break
        missing.append(directory)
    for directory in reversed(missing):
        with contextlib.suppress(FileExistsError):  # another process made it this instant
            directory.mkdir(mode=STATE_DIR_MODE)
            directory.chmod(STATE_DIR_MODE)


def local_secret_key() -> str:
    """This install's own secret key, made once (random, 64 characters) and kept in the state directory
    readable by this user only; settings use it when DJANGO_SECRET_KEY is unset (never a public default)."""
    import secrets

    path = state_dir() / "secret_key"
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        for _ in range(40):  # another process may be writing it this instant
            key = path.read_text().strip()
            if len(key) >= 50:
                return key
            time.sleep(0.05)
        path.unlink(missing_ok=True)  # empty or cut short by a crash: make a new one
        return local_secret_key()
    key = secrets.token_urlsafe(48)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(key)
    return key


@contextlib.contextmanager
def file_lock(name: str):
    with open(state_dir() / f".{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Redis binds: TIME_WAIT is no obstacle
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]
