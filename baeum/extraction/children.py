"""Reader children: an untrusted file is read by a child process with a memory and CPU limit, as an
unprivileged account when we are root (no Django imports). A hostile page kills only its child; the parent
reports it (``spawn_reader``, used by the PDF, Office, OCR and page-picture readers).
"""

from __future__ import annotations

import math
import os
import pwd
import resource
import signal
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

# CPU seconds a reader child may use in all (RLIMIT_CPU; SIGXCPU at the limit, SIGKILL a second later).
# The wall-clock budget alone let a child spin on one hostile content stream for the whole deadline.
DEFAULT_CHILD_CPU_SECONDS = 300
# The unprivileged account reader children run as when Baeum runs as root (the file is handed over open).
CHILD_USER = os.environ.get("BAEUM_CHILD_USER", "nobody")
# How a child stopped by its CPU limit ends.
CPU_LIMIT_RETURNCODES = (-signal.SIGXCPU, 128 + signal.SIGXCPU)


def _limits(memory_bytes: int, cpu_seconds: float, nice: int = 5) -> Callable[[], None]:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
        cpu = max(1, math.ceil(cpu_seconds))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # a child ended by SIGXCPU writes no core file
        os.nice(nice)

    return apply


def unprivileged_account() -> tuple[int, int] | None:
    """(uid, gid) to run a child as, or None: not root, no such user, or the interpreter is out of its
    reach (a Python under /root, mode 0700: the child could not start; then it keeps running as root,
    still under its memory and CPU limits)."""
    if os.geteuid() != 0:
        return None
    try:
        account = pwd.getpwnam(CHILD_USER)
    except KeyError:
        return None
    for directory in Path(sys.executable).resolve().parents:
        if not directory.stat().st_mode & stat.S_IXOTH:
            return None
    return account.pw_uid, account.pw_gid


def spawn_reader(
    module: str,
    args: list[str],
    *,
    memory_bytes: int,
    cpu_seconds: float = DEFAULT_CHILD_CPU_SECONDS,
    input_path: Path | None = None,
    nice: int = 5,
) -> subprocess.Popen:
    """Start a reader child (``python -m module args``) under memory and CPU-time limits, its output as
    UTF-8 text: how PDFs and Office files are read, so a hostile file kills a child, never the caller.

    With ``input_path``, the child gets that file already open (``fd:N`` replaces the path in ``args``)
    and, when Baeum runs as root, runs as an unprivileged user who could not open it, or anything else.
    """
    descriptor = None
    account = None
    if input_path is not None:
        descriptor = os.open(input_path, os.O_RDONLY)
        args = [f"fd:{descriptor}" if argument == str(input_path) else argument for argument in args]
        account = unprivileged_account()
    try:
        return subprocess.Popen(
            [sys.executable, "-m", module, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_limits(memory_bytes, cpu_seconds, nice),
            cwd=str(Path(__file__).resolve().parents[2]),
            text=True,
            encoding="utf-8",
            pass_fds=(descriptor,) if descriptor is not None else (),
            user=account[0] if account else None,
            group=account[1] if account else None,
            extra_groups=[] if account else None,
            umask=0o077,
        )
    finally:
        if descriptor is not None:
            os.close(descriptor)  # the child has its own copy
