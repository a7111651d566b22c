"""Watching what the answer path decides, for fitting and measuring (never needed to answer).

An ``Observed`` is a named channel: code that decides something reports it (``report``, with a function so
nothing is computed when nobody watches), and a caller that wants the reports wraps its work in
``watching()``. ``fit_weights`` watches the candidate-sentence rankings (``baeum.answering.weights``) and
the answer-or-refuse decisions (``baeum.answering.evidence``).

    with RANKINGS.watching() as seen:
        extractive_answer(question, passages)
    seen  # one Ranking per choice among candidate sentences
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, TypeVar

T = TypeVar("T")


class Observed(Generic[T]):
    def __init__(self, name: str) -> None:
        self._seen: ContextVar[list[T] | None] = ContextVar(name, default=None)

    @contextmanager
    def watching(self) -> Iterator[list[T]]:
        """Collect every report made inside the block."""
        seen: list[T] = []
        token = self._seen.set(seen)
        try:
            yield seen
        finally:
            self._seen.reset(token)

    def report(self, make: Callable[[], T]) -> None:
        """Report ``make()`` to the block watching, if any (computed only then)."""
        seen = self._seen.get()
        if seen is not None:
            seen.append(make())
