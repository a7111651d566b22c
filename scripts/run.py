"""`make run`: start everything Baeum needs on this machine and stop all of it on Ctrl-C / SIGTERM.

Embedded PostgreSQL and Redis are started unless DATABASE_URL / REDIS_URL point elsewhere (an older
embedded cluster is taken over and its extensions updated; what was done is printed); then migrations,
static files and, under local settings, the demo account with its sample materials and plans; then
the web server (gunicorn, 127.0.0.1:$PORT) and three Celery workers (ingestion; small uploads; quality re-embedding in
the background). "Baeum is running" is printed once the site answers. While it runs, a database
process that dies is reported here with its cause and the log to read. On exit the children are
stopped, then the embedded servers this run started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baeum import runtime  # noqa: E402

PYTHON = sys.executable
SETTINGS = os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local")
ENV = {**os.environ, "DJANGO_SETTINGS_MODULE": SETTINGS, "PYTHONUNBUFFERED": "1"}
# Longer than any polling interval we recommend (2 s, README): an idle connection is not closed just as
# the client sends its next request (gunicorn's default of 2 s did exactly that).
KEEP_ALIVE_SECONDS = 30
READY_TIMEOUT_SECONDS = 300  # models load in each web process before it serves (about 10 s here)


def restrict_media(root: Path) -> None:
    """Make uploaded files and their directories this user's only, as new ones are (0600 / 0700): installs
    from before kept them 0644 in 0755 directories, readable by every local account."""
    if not root.exists():
        return
    for directory, _subdirectories, files in os.walk(root):
        os.chmod(directory, 0o700)
        for name in files:
            os.chmod(os.path.join(directory, name), 0o600)


def manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=ENV, check=True)


def start_services() -> list[str]:
    """Start the embedded servers that are not configured elsewhere; return those this run started."""
    started: list[str] = []
    if not os.environ.get("DATABASE_URL"):
        was_running = (runtime.state_dir() / "pgdata" / "postmaster.pid").exists()
        runtime.ensure_postgres(os.environ.get("BAEUM_DATABASE_NAME", "baeum"))
        for note in runtime.upgrade_notes:
            print(f"Embedded PostgreSQL: {note}", flush=True)
        if not was_running:
            started.append("postgres")
    if not os.environ.get("REDIS_URL"):
        port_file = runtime.state_dir() / "redis" / "port"
        was_running = port_file.exists() and runtime._redis_answers(int(port_file.read_text()))
        runtime.ensure_redis()
        if not was_running:
            started.append("redis")
    return started


def children_commands(port: str) -> list[tuple[list[str], bool]]:
    """(command, niced) for the web server and the three workers."""
    web = [
        PYTHON, "-m", "gunicorn", "config.wsgi", "--config", "python:config.gunicorn",
        "--bind", f"127.0.0.1:{port}", "--workers", "2", "--threads", "8", "--worker-class", "gthread",
        "--timeout", "120", "--keep-alive", str(KEEP_ALIVE_SECONDS), "--access-logfile", "-",
    ]  # fmt: skip
    worker = [PYTHON, "-m", "celery", "-A", "config", "worker", "--concurrency", "1", "--loglevel", "INFO"]
    return [
        (web, False),
        ([*worker, "-Q", "celery,quick", "-n", "baeum@%h"], False),
        # Small uploads (knowledge.tasks.route_ingestion): never behind another learner's large file.
        ([*worker, "-Q", "quick", "-n", "quick@%h"], False),
        # Quality re-embedding (e5) in the background, at low CPU priority so uploads and chat come first.
        ([*worker, "-Q", "background", "-n", "background@%h"], True),
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


def main() -> int:
    if "--stop" in sys.argv:
        runtime.stop_redis()
        runtime.stop_postgres()
        print("Embedded PostgreSQL and Redis stopped.")
        return 0
    os.umask(0o077)  # every file made by this run and its children: this user's only
    started = start_services()
    restrict_media(Path(os.environ.get("BAEUM_MEDIA_ROOT") or ROOT / "media"))
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
        manage("reextract", "--check")  # offers to re-read materials made by an older extractor
        port = os.environ.get("PORT", "8000")
        for command, niced in children_commands(port):
            children.append(subprocess.Popen(command, cwd=ROOT, env=ENV, preexec_fn=(lambda: os.nice(10)) if niced else None))
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
        print("Baeum stopped.", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
