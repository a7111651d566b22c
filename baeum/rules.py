"""Named rules that say when they fire, and can be switched off to measure what each is worth.

A heuristic that rejects, cleans or chooses is a ``Rule``: a name, the test, and an example it fires on.
Where a rule decides, the code asks ``rules.applies(rule, value)``: the test runs unless the rule is
switched off (``rules.switched_off``, the evaluation commands' ``--without NAME``), and a firing is
counted in every ``rules.counting()`` block around it (an evaluation run, one chat turn). A rule whose
removal changes nothing on the check part of the evaluation sets has not earned its place.

    with rules.counting() as fired:
        is_readable_sentence("4.4 The CALL and RET Instructions")
    fired == Counter({"sentence:heading": 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass(frozen=True)
class Rule:
    name: str  # "<stage>:<what it catches>", e.g. "sentence:heading"
    test: Callable
    example: str  # a value the rule fires on (tests check that it does)
    why: str = ""  # one line: what the rule guards against

    def __call__(self, *args) -> bool:
        return bool(self.test(*args))


_COUNTERS: ContextVar[tuple[Counter, ...]] = ContextVar("baeum_rule_counters", default=())
_OFF: frozenset[str] = frozenset()  # process-wide: evaluation commands switch rules off for a whole run
REGISTRY: dict[str, Rule] = {}


def register(*found: Rule) -> tuple[Rule, ...]:
    """Record ``found`` under their names (each name once) and return them, in order."""
    for rule in found:
        if REGISTRY.get(rule.name, rule) is not rule:
            raise ValueError(f"two rules are named {rule.name}")
        REGISTRY[rule.name] = rule
    return found


def applies(rule: Rule, *args) -> bool:
    """Whether ``rule`` fires on ``args`` (never when switched off); a firing is counted."""
    if rule.name in _OFF or not rule(*args):
        return False
    fired(rule.name)
    return True


def cleaned(rule: Rule, text: str) -> str:
    """``text`` after ``rule`` (a cleaner: its test returns the cleaned text), unless switched off; a change
    is counted as a firing."""
    if rule.name in _OFF:
        return text
    result = rule.test(text)
    if result != text:
        fired(rule.name)
    return result


def resolved(rule: Rule, *args):
    """What ``rule`` (a resolver: its test returns a result or None) makes of ``args``, unless switched off;
    a result is counted as a firing."""
    if rule.name in _OFF:
        return None
    result = rule.test(*args)
    if result is not None:
        fired(rule.name)
    return result


def is_on(rule: Rule) -> bool:
    """Whether ``rule`` is switched on (for a caller that must do more work before it can ask ``applies``)."""
    return rule.name not in _OFF


def fired(name: str) -> None:
    for counter in _COUNTERS.get():
        counter[name] += 1


@contextmanager
def counting() -> Iterator[Counter]:
    """Count the rules that fire inside the block (nested blocks each count what fires inside them)."""
    counter: Counter = Counter()
    token = _COUNTERS.set((*_COUNTERS.get(), counter))
    try:
        yield counter
    finally:
        _COUNTERS.reset(token)


@contextmanager
def switched_off(names: list[str] | tuple[str, ...]) -> Iterator[None]:
    """Run the block with the named rules switched off (unknown names are an error listing the known ones)."""
    global _OFF
    unknown = sorted(set(names) - set(REGISTRY))
    if unknown:
        raise KeyError(f"no rule named {', '.join(unknown)}; the rules are: {', '.join(sorted(REGISTRY))}")
    saved, _OFF = _OFF, frozenset(names)
    try:
        yield
    finally:
        _OFF = saved
