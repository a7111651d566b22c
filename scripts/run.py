"""`make run`: start everything Baeum needs on this machine and stop all of it on Ctrl-C / SIGTERM.

Embedded PostgreSQL and Redis are started unless DATABASE_URL / REDIS_URL point elsewhere; then
migrations, static files and the demo account; then the web server (gunicorn, 127.0.0.1:$PORT) and two
Celery workers (ingestion; quality re-embedding in the background). On exit the children are stopped, then the embedded servers this run started.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from baeum import runtime  # noqa: E402

PYTHON = sys.executable
ENV = {**os.environ, "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "config.settings.local"), "PYTHONUNBUFFERED": "1"}


def manage(*args: str) -> None:
    subprocess.run([PYTHON, "manage.py", *args], cwd=ROOT, env=ENV, check=True)


def main() -> int:
    if "--stop" in sys.argv:
        runtime.stop_redis()
        runtime.stop_postgres()
        print("Embedded PostgreSQL and Redis stopped.")
        return 0
    started: list[str] = []
    if not os.environ.get("DATABASE_URL"):
        was_running = (runtime.state_dir() / "pgdata" / "postmaster.pid").exists()
        runtime.ensure_postgres(os.environ.get("BAEUM_DATABASE_NAME", "baeum"))
        if not was_running:
            started.append("postgres")
    if not os.environ.get("REDIS_URL"):
        port_file = runtime.state_dir() / "redis" / "port"
        was_running = port_file.exists() and runtime._redis_answers(int(port_file.read_text()))
        runtime.ensure_redis()
        if not was_running:
            started.append("redis")

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
        manage("demo_account")
        manage("upgrade_embeddings")  # materials from before the quality embedder was on (a no-op when off)
        port = os.environ.get("PORT", "8000")
        children.append(
            subprocess.Popen(
                [
                    PYTHON,
                    "-m",
                    "gunicorn",
                    "config.wsgi",
                    "--config",
                    "python:config.gunicorn",
                    "--bind",
                    f"127.0.0.1:{port}",
                    "--workers",
                    "2",
                    "--threads",
                    "8",
                    "--worker-class",
                    "gthread",
                    "--timeout",
                    "120",
                    "--access-logfile",
                    "-",
                ],
                cwd=ROOT,
                env=ENV,
            )
        )
        worker = [PYTHON, "-m", "celery", "-A", "config", "worker", "--concurrency", "1", "--loglevel", "INFO"]
        children.append(subprocess.Popen([*worker, "-Q", "celery", "-n", "baeum@%h"], cwd=ROOT, env=ENV))
        # Quality re-embedding (e5) in the background, at low CPU priority so uploads and chat come first.
        children.append(
            subprocess.Popen([*worker, "-Q", "background", "-n", "background@%h"], cwd=ROOT, env=ENV, preexec_fn=lambda: os.nice(10))
        )
        print(
            f"\nBaeum is running at http://127.0.0.1:{port}/  (API docs: /api/v1/docs/, admin: /admin/). Ctrl-C stops everything.\n",
            flush=True,
        )
        while not stopping:
            if any(child.poll() is not None for child in children):
                print("A server process exited; stopping.", file=sys.stderr)
                break
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
