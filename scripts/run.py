"""`make run`: start everything Baeum needs on this machine and stop all of it on Ctrl-C / SIGTERM.

Embedded PostgreSQL and Redis are started unless DATABASE_URL / REDIS_URL point elsewhere (an older
embedded cluster is taken over and its extensions updated; what was done is printed); then migrations,
static files and, under local settings, the demo account with its sample materials and plans; then
the web server (gunicorn, 127.0.0.1:$PORT) and four Celery workers (large uploads; small uploads; text recognition of
scans; quality re-embedding in the background). Started as root, those five run as an unprivileged account (``app_account``), or, when
they cannot, as root with one line saying why. "Baeum is running" is printed once the site answers. While it runs, a database
process that dies is reported here with its cause and the log to read. On exit the children are
stopped, then the embedded servers this run started.
"""

from __future__ import annotations

import dataclasses
import os
import pwd
import signal
import stat
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baeum import runtime  # noqa: E402

PYTHON = sys.executable
SETTINGS = os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local")
ENV = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "PYTHONUNBUFFERED": "1"}
# Longer than any polling interval we recommend (2 s, docs/api.md): an idle connection is not closed just as
# the client sends its next request (gunicorn's default of 2 s did exactly that).
KEEP_ALIVE_SECONDS = 30
READY_TIMEOUT_SECONDS = 300  # models load in each web process before it serves (about 10 s here)
MEDIA_ROOT = Path(os.environ.get("BAEUM_MEDIA_ROOT") or ROOT / "media")
STATIC_ROOT = ROOT / "staticfiles"  # settings.STATIC_ROOT; collectstatic writes it as the user of this run
# The account the web server and workers run as when this runs as root; made (a system account without
# a home or a login shell) when missing. The PDF readers' account (baeum.extraction.children.CHILD_USER) is another matter.
RUN_AS_USER = os.environ.get("BAEUM_RUN_AS_USER", "baeum")
NEW_ACCOUNT_HOME = "/nonexistent"
PROBE_SECONDS = 60  # importing Celery and the project as the account: 0.3 s here (a busy disk may take far longer)


@dataclasses.dataclass(frozen=True)
class Account:
    """An account the children are started as."""

    name: str
    uid: int
    gid: int
    home: str
    extra_gids: tuple[int, ...] = ()


def hand_over(root: Path, *, uid: int = -1, gid: int = -1, directory_mode: int, file_mode: int) -> None:
    """Give the directories and regular files under ``root`` these modes and owner (-1: unchanged).

    Through directory descriptors, never following a link and leaving files with other names (hard
    links) alone: root walks trees that another account may write, which could otherwise plant a link
    to /etc/shadow for root to hand over to it."""
    for _directory, _subdirectories, files, directory_descriptor in os.fwalk(root):
        os.fchmod(directory_descriptor, directory_mode)
        os.fchown(directory_descriptor, uid, gid)
        for name in files:
            try:
                descriptor = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=directory_descriptor)
            except OSError:
                continue  # a symbolic link (ELOOP), or gone meanwhile
            try:
                status = os.fstat(descriptor)
                if stat.S_ISREG(status.st_mode) and status.st_nlink == 1:
                    os.fchmod(descriptor, file_mode)
                    os.fchown(descriptor, uid, gid)
            finally:
                os.close(descriptor)


def restrict_media(root: Path, account: Account | None = None) -> None:
    """Make uploaded files and their directories this user's only, as new ones are (0600 / 0700): installs
    from before kept them 0644 in 0755 directories, readable by every local account. With ``account``
    the tree becomes that account's (it writes the uploads), files root made included."""
    if account is not None:
        root.mkdir(mode=0o700, parents=True, exist_ok=True)
    if root.exists():
        hand_over(root, uid=account.uid if account else -1, gid=account.gid if account else -1, directory_mode=0o700, file_mode=0o600)


def _unprivileged_port_start() -> int:
    try:
        return int(Path("/proc/sys/net/ipv4/ip_unprivileged_port_start").read_text())
    except (OSError, ValueError):
        return 1024


def _closed_directory(path: Path) -> Path | None:
    """The outermost directory on the way to ``path`` that other accounts cannot pass through, or None."""
    for directory in reversed([path, *path.parents] if path.is_dir() else list(path.parents)):
        if not directory.stat().st_mode & stat.S_IXOTH:
            return directory
    return None


def _account_entry(name: str) -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(name)
    except KeyError:
        command = [
            "useradd",
            "--system",
            "--user-group",
            "--no-create-home",
            "--home-dir",
            NEW_ACCOUNT_HOME,
            "--shell",
            "/usr/sbin/nologin",
            name,
        ]
        subprocess.run(command, check=True, capture_output=True, text=True)
        return pwd.getpwnam(name)


def app_account(*, interpreter: Path, port: int, name: str = RUN_AS_USER) -> tuple[Account | None, str]:
    """The account to start the web server and workers as; or None, and why when root keeps them.

    Only root changes account, to one that owns nothing but the uploads. Root keeps them, as before, when
    they could not start as that account: an interpreter, its packages or the project under a directory
    others cannot enter (a Python installed under /root, mode 0700), a port below the unprivileged ones,
    or no way to make the account."""
    if os.geteuid() != 0:
        return None, ""
    lowest = _unprivileged_port_start()
    if port < lowest:
        return None, f"port {port} is below {lowest}, which only root may open; use PORT={lowest} or above to run them as {name}"
    places = {
        "the Python interpreter": interpreter.resolve(),
        "the installed packages": Path(sysconfig.get_paths()["purelib"]).resolve(),
        "the project": ROOT,
    }
    for what, path in places.items():
        closed = _closed_directory(path)
        if closed is not None:
            mode = stat.S_IMODE(closed.stat().st_mode)
            remedy = (
                f"move the project out of {closed}"
                if what == "the project"
                else f"install Baeum with a Python outside {closed} (rm -rf .venv && make run PYTHON=/usr/bin/python3)"
            )
            return None, f"{what} {path} is under {closed} (mode {mode:o}), which {name} cannot enter; to run them as {name}, {remedy}"
    try:
        entry = _account_entry(name)
    except (OSError, subprocess.CalledProcessError) as error:
        detail = (getattr(error, "stderr", "") or str(error)).strip().splitlines()[-1]
        return None, f"the account {name} could not be made ({detail}); make it (useradd --system {name}) to run them as it"
    return Account(name=entry.pw_name, uid=entry.pw_uid, gid=entry.pw_gid, home=entry.pw_dir), ""


def start_child(command: list[str], *, account: Account | None, env: dict[str, str], nice: int = 0, **options) -> subprocess.Popen:
    """Start one of the children in the project directory: as ``account`` (its own groups and the extra
    ones only; the interpreter runs as it from the start), or as this user when None."""
    return subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        preexec_fn=(lambda: os.nice(nice)) if nice else None,  # after the account changed: lowering priority needs no root
        user=account.uid if account else None,
        group=account.gid if account else None,
        extra_groups=list(account.extra_gids) if account else None,
        **options,
    )


def account_start_problem(account: Account) -> str:
    """Why the children could not start as ``account`` (unreadable files in the project or the packages),
    or "": the interpreter imports the project and the web server as that account."""
    env = {**ENV, "HOME": account.home}
    try:
        probe = start_child(
            [PYTHON, "-c", "import config, gunicorn"],
            account=account,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
    except OSError as error:  # the interpreter itself: not executable by the account
        return f"{PYTHON} does not start as {account.name} ({error.strerror}); make it executable by {account.name} to run them as it"
    try:
        _out, err = probe.communicate(timeout=PROBE_SECONDS)
    except subprocess.TimeoutExpired:
        probe.kill()
        probe.communicate()
        return f"importing Baeum as {account.name} took over {PROBE_SECONDS} s"
    if probe.returncode != 0:
        last = (err.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        return f"Baeum does not start as {account.name} ({last}); make the project and its packages readable by it to run them as {account.name}"
    return ""


def manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=ENV, check=True)


def start_services() -> tuple[list[str], dict[str, str]]:
    """Start the embedded servers that are not configured elsewhere; return those this run started, and
    their addresses as the settings' variables (DATABASE_URL, REDIS_URL) for children that could not start
    them themselves (they do not run as the servers' owner)."""
    started: list[str] = []
    addresses: dict[str, str] = {}
    if not os.environ.get("DATABASE_URL"):
        name = os.environ.get("BAEUM_DATABASE_NAME", "baeum")
        was_running = (runtime.state_dir() / "pgdata" / "postmaster.pid").exists()
        server = runtime.ensure_postgres(name)
        for note in runtime.upgrade_notes:
            print(f"Embedded PostgreSQL: {note}", flush=True)
        if not was_running:
            started.append("postgres")
        addresses["DATABASE_URL"] = database_url(server, name)
        addresses["BAEUM_DB_OWNER_ROLE"] = runtime.OWNER_ROLE  # as with the embedded server (settings' default)
    if not os.environ.get("REDIS_URL"):
        port_file = runtime.state_dir() / "redis" / "port"
        was_running = port_file.exists() and runtime.redis_answers(int(port_file.read_text()))
        addresses["REDIS_URL"] = runtime.ensure_redis()
        if not was_running:
            started.append("redis")
    return started, addresses


def database_url(server: runtime.EmbeddedPostgres, name: str) -> str:
    """The embedded server's database as DATABASE_URL: the socket directory is the URL's path, which
    django-environ reads as the host when it starts with /."""
    path = urllib.parse.quote(f"{server.socket_dir}/{name}", safe="/")
    return f"postgres://{server.user}@:{server.port}/{path}"


def run_as(port: int, addresses: dict[str, str]) -> Account | None:
    """The account the web server and workers run as (None: this user), saying in one line why root keeps
    them when it does. The account may reach the embedded PostgreSQL's socket, nothing else of the server's."""
    account, reason = app_account(interpreter=Path(PYTHON), port=port)
    if account is not None:
        reason = account_start_problem(account)
    if account is not None and not reason and "DATABASE_URL" in addresses:
        try:
            account = dataclasses.replace(account, extra_gids=(runtime.share_postgres_socket(),))
        except PermissionError as error:
            reason = f"the embedded PostgreSQL's socket cannot be shared with {account.name} alone ({error})"
    if reason:
        print(f"The web server and workers run as root: {reason}.", flush=True)
        return None
    return account


def child_environment(account: Account | None, addresses: dict[str, str]) -> dict[str, str]:
    """The children's environment: as today for this user; for ``account``, where the servers are and the
    secret key, since it may not read .baeum/ (settings read them from there otherwise), and its own home."""
    if account is None:
        return ENV
    secret = {} if os.environ.get("DJANGO_SECRET_KEY") else {"DJANGO_SECRET_KEY": runtime.local_secret_key()}
    return {**ENV, **addresses, **secret, "HOME": account.home, "USER": account.name, "LOGNAME": account.name}


def children_commands(port: str) -> list[tuple[list[str], int]]:
    """(command, nice) for the web server and the four workers: what a learner waits for at the priority of
    the pages (0), long work below it (a large upload 5, re-embedding 10)."""
    web = [
        PYTHON, "-m", "gunicorn", "config.wsgi", "--config", "python:config.gunicorn",
        "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "8", "--worker-class", "gthread",
        "--timeout", "120", "--keep-alive", str(KEEP_ALIVE_SECONDS), "--access-logfile", "-",
    ]  # fmt: skip
    worker = [PYTHON, "-m", "celery", "-A", "config", "worker", "--concurrency", "1", "--loglevel", "INFO"]
    return [
        (web, 0),
        # Large uploads (and small ones the quick worker has no room for): long work, below what a learner waits for.
        ([*worker, "-Q", "celery,quick", "-n", "baeum@%h"], 5),
        # Small uploads (knowledge.tasks.route_ingestion): never behind another learner's large file.
        ([*worker, "-Q", "quick", "-n", "quick@%h"], 0),
        # Text recognition of scans: a learner waits for it, so never behind re-embedding or a large upload.
        # bench_fairness: a one-page scan read while one learner uploads large files and a library re-embeds.
        ([*worker, "-Q", "ocr", "-n", "ocr@%h"], 0),
        # Quality re-embedding (e5) in the background, at low CPU priority so uploads and chat come first.
        ([*worker, "-Q", "background", "-n", "background@%h"], 10),
    ]


def site_answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 - our own loopback URL
            return response.status < 500
    except urllib.error.HTTPError as error:
        return error.code < 500
    except OSError:
        return False


class CrashWatch:
    """Report database processes that died by a signal, from the embedded server's log."""

    def __init__(self) -> None:
        self.active = not os.environ.get("DATABASE_URL")
        log = runtime.postgres_log()
        self.offset = log.stat().st_size if self.active and log.exists() else 0

    def report(self) -> None:
        if not self.active:
            return
        crashes, self.offset = runtime.postgres_crashes(since_offset=self.offset)
        for crash in crashes:
            print(
                f"\n!! Database crash: {crash.describe()}.\n"
                f"   PostgreSQL ended every session and recovered; pages answer again in a moment.\n"
                f"   Log: {runtime.postgres_log()}\n",
                file=sys.stderr,
                flush=True,
            )


STOP_WAIT_SECONDS = 40  # a running `make run` stops its web server and workers (15 s at most), then the databases


def run_pid_file() -> Path:
    """Where a running `make run` writes its process id, for `make stop` to find it."""
    return runtime.state_dir() / "run.pid"


def running_run() -> int | None:
    """The process id of a `make run` of this checkout that is still running, else None (a stale file is removed)."""
    try:
        pid = int(run_pid_file().read_text().strip())
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except (OSError, ValueError):
        run_pid_file().unlink(missing_ok=True)
        return None
    if "run.py" not in cmdline or "--stop" in cmdline:
        run_pid_file().unlink(missing_ok=True)
        return None
    return pid


def stop_everything() -> str:
    """Stop a running `make run` (its web server, workers and embedded databases), then any embedded
    database another command left running. Returns what was done, for the terminal."""
    pid = running_run()
    if pid is not None:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + STOP_WAIT_SECONDS
        while running_run() == pid and time.monotonic() < deadline:
            time.sleep(0.2)
    runtime.stop_redis()
    runtime.stop_postgres()
    if pid is None:
        return "Embedded PostgreSQL and Redis stopped."
    return "Baeum stopped (web server, workers, embedded PostgreSQL and Redis)."


def main() -> int:
    if "--stop" in sys.argv:
        print(stop_everything())
        return 0
    os.umask(0o077)  # every file made by this run and its children: this user's only
    running = running_run()
    if running is not None:
        print(f"Baeum is already running from this folder (process {running}); `make stop` stops it.", file=sys.stderr)
        return 1
    run_pid_file().write_text(str(os.getpid()))
    started, addresses = start_services()
    port = os.environ.get("PORT", "8000")
    account = run_as(int(port), addresses)
    children: list[subprocess.Popen] = []
    stopping = False

    def stop(*_args) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    try:
        manage("migrate", "--noinput", "-v", "0")
        manage("collectstatic", "--noinput", "-v", "0")
        if SETTINGS.endswith(".local"):
            manage("demo_account")  # the published demo login: local installs only
        manage("upgrade_embeddings")  # materials from before the quality embedder was on (a no-op when off)
        manage("vector_indexes")  # large libraries' own vector indexes (a no-op for small ones)
        manage("reindex_lexical", "--missing-vocabularies")  # materials from before vocabularies (a no-op after)
        manage("reextract", "--check")  # offers to re-read materials made by an older extractor
        restrict_media(MEDIA_ROOT, account)  # after the commands above: files they made are handed over too
        if account is not None:  # the web server reads the static files; root keeps them
            hand_over(STATIC_ROOT, gid=account.gid, directory_mode=0o750, file_mode=0o640)
        env = child_environment(account, addresses)
        for command, nice in children_commands(port):
            children.append(start_child(command, account=account, env=env, nice=nice))
        watch = CrashWatch()
        url = f"http://127.0.0.1:{port}/"
        print("Loading the models in the web server…", flush=True)
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        announced = False
        while not stopping:
            if any(child.poll() is not None for child in children):
                print("A server process exited; stopping.", file=sys.stderr)
                break
            if not announced and site_answers(url + "login/"):
                announced = True
                print(f"\nBaeum is running at {url}  (API docs: /api/v1/docs/, admin: /admin/). Ctrl-C stops everything.\n", flush=True)
            elif not announced and time.monotonic() > deadline:
                print(f"The web server has not answered at {url} after {READY_TIMEOUT_SECONDS} s; see the output above.", file=sys.stderr)
                deadline = float("inf")
            watch.report()
            time.sleep(0.5)
    finally:
        for child in children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 15
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        if "redis" in started:
            runtime.stop_redis()
        if "postgres" in started:
            runtime.stop_postgres()
        run_pid_file().unlink(missing_ok=True)
        print("Baeum stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
