"""Counting events in a time window in the cache (sign-in attempts, page pictures asked for)."""

from __future__ import annotations

from django.core.cache import cache


def count_in_window(key: str, seconds: int) -> int:
    """Add one to ``key``'s count and return it; the window of ``seconds`` starts with the first event."""
    cache.add(key, 0, timeout=seconds)
    try:
        return cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, timeout=seconds)
        return 1
