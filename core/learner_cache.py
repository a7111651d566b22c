"""Cache keys that hold a learner's own data (conversation memory, a session's key points, a material's
reading guide) start with ``learner:<owner id>:``, so deleting an account removes every one of them with a
single pattern (``learner_cache_forget``), whichever module wrote them. Keys holding no learner data
(throttle counters, health answers) do not use it.
"""

from __future__ import annotations

from django.core.cache import cache

PREFIX = "learner"


def learner_key(owner_id: int, *parts: object) -> str:
    """``learner:<owner id>:<parts joined by ':'>`` (``learner_key(7, "chat", "memory", 12)``)."""
    return ":".join([PREFIX, str(int(owner_id)), *(str(part) for part in parts)])


def learner_cache_forget(owner_id: int) -> int:
    """Delete every cached value of the learner; return how many keys went."""
    return cache.delete_pattern(f"{PREFIX}:{int(owner_id)}:*") or 0
