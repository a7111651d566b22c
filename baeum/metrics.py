"""Retrieval and latency metrics for the evaluation commands. No Django imports."""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], fraction: float) -> float:
    """Return the ``fraction`` percentile (0..1) of ``values`` by linear interpolation."""
    if not values:
        return 0.0
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def rank_of(gold: str, ranked: Sequence[str]) -> int | None:
    """Return the 1-based rank of ``gold`` in ``ranked`` (duplicates already removed), or None."""
    try:
        return ranked.index(gold) + 1
    except ValueError:
        return None


def retrieval_summary(ranks: Sequence[int | None], latencies_ms: Sequence[float], *, mode: str) -> dict:
    """Summarise single-gold ranks as recall@1/5/10, MRR@10 and nDCG@10, with latency percentiles."""
    count = len(ranks)

    def recall(k: int) -> float:
        return sum(1 for rank in ranks if rank is not None and rank <= k) / count if count else 0.0

    mrr = sum(1 / rank for rank in ranks if rank is not None and rank <= 10) / count if count else 0.0
    ndcg = sum(1 / math.log2(rank + 1) for rank in ranks if rank is not None and rank <= 10) / count if count else 0.0
    return {
        "mode": mode,
        "n": count,
        "recall@1": round(recall(1), 4),
        "recall@5": round(recall(5), 4),
        "recall@10": round(recall(10), 4),
        "mrr@10": round(mrr, 4),
        "ndcg@10": round(ndcg, 4),
        "latency_ms": {"p50": round(percentile(latencies_ms, 0.5), 1), "p95": round(percentile(latencies_ms, 0.95), 1)},
    }


def dedupe(items: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(items))
