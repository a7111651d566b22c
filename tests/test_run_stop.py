"""`make stop` stops a running `make run` of the same checkout (its web server, workers and embedded
databases), not only the databases (a learner's walkthrough: gunicorn and Celery kept running)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from scripts import run


def test_make_stop_stops_a_running_make_run(tmp_path, monkeypatch):
    pid_file = tmp_path / "run.pid"
    monkeypatch.setattr(run, "run_pid_file", lambda: pid_file)
    stopped = []
    monkeypatch.setattr(run.runtime, "stop_redis", lambda: stopped.append("redis"))  # the suite's own servers keep running
    monkeypatch.setattr(run.runtime, "stop_postgres", lambda: stopped.append("postgres"))
    # Stands in for scripts/run.py: "run.py" on its command line, stopped by SIGTERM.
    make_run = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "run.py"])
    try:
        _wait_for_exec(make_run.pid, "run.py")
        pid_file.write_text(str(make_run.pid))
        assert run.running_run() == make_run.pid

        assert run.stop_everything().startswith("Baeum stopped")
        assert make_run.wait(timeout=5) != 0  # ended by the signal
        assert stopped == ["redis", "postgres"]
        assert run.running_run() is None and not pid_file.exists()
    finally:
        make_run.kill()


def _wait_for_exec(pid: int, marker: str, seconds: float = 10) -> None:
    """Until the child has exec'd its command line (on a busy machine /proc shows the forked parent's for a moment)."""
    deadline = time.monotonic() + seconds
    while marker not in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace") and time.monotonic() < deadline:
        time.sleep(0.01)


def test_a_stale_pid_file_is_not_a_running_make_run(tmp_path, monkeypatch):
    pid_file = tmp_path / "run.pid"
    monkeypatch.setattr(run, "run_pid_file", lambda: pid_file)
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])  # some other process took the id
    try:
        _wait_for_exec(other.pid, "time.sleep")
        pid_file.write_text(str(other.pid))
        assert run.running_run() is None and not pid_file.exists()
        assert other.poll() is None  # never signalled
    finally:
        other.kill()
