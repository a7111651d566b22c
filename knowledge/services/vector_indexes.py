"""A vector index of its own for each large library (``LARGE_LIBRARY_VECTORS`` vectors of one model).

The shared HNSW index per model serves every learner; filtered to one owner among many it loses recall
on a teacher-sized library, and the exact scan the planner falls back to grows with the library. An
owner's own index (a partial HNSW index on ``owner_id`` and ``model``) keeps both small: made in the
background once a library passes the threshold, dropped when it falls below half of it (or the owner is
gone). Indexes are made by the role that owns the tables (``accounts.rls.owner_session``), concurrently,
so searches and uploads go on meanwhile.
"""

from __future__ import annotations

import logging
import time

from django.db import connection

from accounts import rls

from ..selectors.search import (
    LARGE_LIBRARY_VECTORS,
    OWNER_INDEX_PREFIX,
    owner_index_name,
    owner_index_names,
    owner_indexes,
    owner_indexes_forget,
)

logger = logging.getLogger(__name__)


def _vector_counts(cursor, owner_id: int | None) -> dict[tuple[int, str], tuple[int, int]]:
    """(owner, model) → (vectors, dimension), for one owner or for every owner with a large library."""
    where, params = ("WHERE owner_id = %s", [owner_id]) if owner_id is not None else ("", [])
    cursor.execute(
        f"SELECT owner_id, model, count(*), max(dimension) FROM knowledge_chunkembedding {where} GROUP BY owner_id, model",
        params,
    )
    return {(owner, model): (count, dimension) for owner, model, count, dimension in cursor.fetchall()}


def owner_index_create(cursor, *, owner_id: int, model: str, dimension: int, concurrently: bool = True) -> str:
    """Build ``owner_id``'s own HNSW index for ``model`` (a partial index on owner and model, cosine, the
    shared index's parameters); return its name. ``concurrently`` keeps the table writable meanwhile."""
    name = owner_index_name(owner_id, model)
    cursor.execute(
        f"CREATE INDEX {'CONCURRENTLY ' if concurrently else ''}IF NOT EXISTS {name} ON knowledge_chunkembedding "
        f"USING hnsw ((embedding::vector({int(dimension)})) vector_cosine_ops) WHERE owner_id = %s AND model = %s",
        [int(owner_id), model],
    )
    return name


def vector_indexes_sync(*, owner_id: int | None = None) -> dict[str, list[str]]:
    """Make the missing own indexes of large libraries and drop those of libraries that shrank below half
    the threshold; ``owner_id`` limits the work to one learner. Return what was made and dropped."""
    done: dict[str, list[str]] = {"made": [], "dropped": []}
    with rls.rls_system(why="count every library's vectors to decide which need an index of their own"):
        with connection.cursor() as cursor:
            counts = _vector_counts(cursor, owner_id)
    existing = set(owner_index_names())
    wanted = {
        owner_index_name(owner, model): (owner, model, dimension)
        for (owner, model), (count, dimension) in counts.items()
        if count >= LARGE_LIBRARY_VECTORS
    }
    keep = {owner_index_name(owner, model) for (owner, model), (count, _) in counts.items() if count >= LARGE_LIBRARY_VECTORS // 2}
    if owner_id is not None:
        existing = {name for name in existing if name.startswith(f"{OWNER_INDEX_PREFIX}{int(owner_id)}_")}
    with rls.owner_session(connection), connection.cursor() as cursor:
        for name, (owner, model, dimension) in sorted(wanted.items()):
            if name in existing:
                continue
            started = time.monotonic()
            owner_index_create(cursor, owner_id=owner, model=model, dimension=dimension)
            logger.info("made %s in %.1f s", name, time.monotonic() - started)
            done["made"].append(name)
        for name in sorted(existing - keep):
            cursor.execute(f"DROP INDEX CONCURRENTLY IF EXISTS {name}")
            done["dropped"].append(name)
    if done["made"] or done["dropped"]:
        owner_indexes_forget()
    return done


def vector_indexes_sync_later(*, owner_id: int) -> bool:
    """Queue ``vector_indexes_sync`` for a learner whose library changed, when it may need to make or drop
    an index (near the threshold or already indexed); return whether it was queued. Cheap: one sum."""
    from django.db import transaction
    from django.db.models import Sum

    from ..models import Material
    from ..tasks import sync_vector_indexes

    chunks = Material.objects.unscoped().filter(owner_id=owner_id).aggregate(total=Sum("chunk_count"))["total"] or 0  # the owner's rows
    indexed = any(name.startswith(f"{OWNER_INDEX_PREFIX}{int(owner_id)}_") for name in owner_indexes())
    if chunks < LARGE_LIBRARY_VECTORS // 2 and not indexed:
        return False
    transaction.on_commit(lambda: sync_vector_indexes.delay(owner_id))
    return True
