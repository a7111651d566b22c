"""Rerankers as pure functions over first-stage candidates. No Django imports.

- keyword-weighted: vector score × (1 − w) + keyword overlap × w (w = 0.3)
- MMR: maximal marginal relevance over the stored embeddings (λ = 0.5) for diverse results
- LLM scores: parsed defensively; on any parse failure the original order stands
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence

import numpy as np

KEYWORD_WEIGHT = 0.3


def keyword_overlap(query_terms: Counter[str], passage_terms: Counter[str]) -> float:
    """Share of the query's distinct terms that occur in the passage (0..1)."""
    if not query_terms:
        return 0.0
    return sum(1 for term in query_terms if term in passage_terms) / len(query_terms)


def keyword_weighted(*, vector_scores: Sequence[float], keyword_scores: Sequence[float], weight: float = KEYWORD_WEIGHT) -> list[float]:
    return [vector * (1 - weight) + keyword * weight for vector, keyword in zip(vector_scores, keyword_scores, strict=True)]


def mmr(query_vector: np.ndarray, vectors: Sequence[np.ndarray], *, k: int, diversity: float = 0.5) -> list[int]:
    """Return indexes of ``vectors`` chosen by maximal marginal relevance (λ = 1 − ``diversity``)."""
    if not vectors:
        return []
    matrix = np.vstack(vectors)
    matrix = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)
    query = query_vector / max(float(np.linalg.norm(query_vector)), 1e-9)
    relevance = matrix @ query
    chosen: list[int] = []
    remaining = list(range(len(vectors)))
    lam = 1 - diversity
    while remaining and len(chosen) < k:
        if chosen:
            redundancy = (matrix[remaining] @ matrix[chosen].T).max(axis=1)
        else:
            redundancy = np.zeros(len(remaining))
        scores = lam * relevance[remaining] - (1 - lam) * redundancy
        best = remaining[int(np.argmax(scores))]
        chosen.append(best)
        remaining.remove(best)
    return chosen


_SCORE_LINE = re.compile(r"\[?(\d+)\]?\s*[:=\-]\s*(\d+(?:\.\d+)?)")


def parse_llm_scores(text: str, count: int) -> list[float] | None:
    """Read relevance scores for ``count`` passages from an LLM reply (JSON list/object or "n: score"
    lines). Return None when the reply cannot be trusted, so the caller keeps the original order."""
    text = text.strip()
    try:
        if "{" in text:
            data = json.loads(text[text.find("{") : text.rfind("}") + 1])
        elif "[" in text:
            data = json.loads(text[text.find("[") : text.rfind("]") + 1])
        else:
            data = json.loads(text)
        if isinstance(data, dict):
            data = [data.get(str(index)) for index in range(1, count + 1)]
        scores = [float(value) for value in data]
        return scores if len(scores) == count else None
    except (ValueError, TypeError):
        pass
    found: dict[int, float] = {}
    for match in _SCORE_LINE.finditer(text):
        index = int(match.group(1))
        if 1 <= index <= count:
            found[index] = float(match.group(2))
    if len(found) != count:
        return None
    return [found[index] for index in range(1, count + 1)]
