"""Runtime: the embedded PostgreSQL and Redis a fresh machine runs on, and loading the models before a
process serves. No Django imports: settings call it before Django is configured.

Only entry points import it (settings, ``scripts/run.py``, health checks, commands): nothing in the
other stages does.
"""

from baeum.runtime.postgres import (
    APP_ROLE,
    OWNER_ROLE,
    SYSTEM_ROLE,
    EmbeddedPostgres,
    ensure_postgres,
    postgres_bin,
    postgres_crashes,
    postgres_log,
    recent_postgres_crashes,
    share_postgres_socket,
    stop_postgres,
    system_user,
)
from baeum.runtime.redis import ensure_redis, redis_answers, redis_password, stop_redis
from baeum.runtime.state import STARTED_HERE, free_port, local_secret_key, state_dir, upgrade_notes

__all__ = [
    "APP_ROLE",
    "OWNER_ROLE",
    "STARTED_HERE",
    "SYSTEM_ROLE",
    "EmbeddedPostgres",
    "ensure_postgres",
    "ensure_redis",
    "free_port",
    "local_secret_key",
    "postgres_bin",
    "postgres_crashes",
    "postgres_log",
    "recent_postgres_crashes",
    "redis_answers",
    "redis_password",
    "share_postgres_socket",
    "state_dir",
    "stop_postgres",
    "stop_redis",
    "system_user",
    "upgrade_notes",
]
