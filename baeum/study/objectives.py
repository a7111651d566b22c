"""A session's objectives in the reader's language (no Django imports). A plan writes its offline objectives
from templates in its material's language ("Explain the stack", "스택 설명하기", "Define recursion", "재귀의 뜻
말하기"); a learner whose interface is in the other language reads the template's words in theirs, the subject as
the book writes it: "Explain emitter.eventNames()" is "emitter.eventNames() 설명하기" on a Korean screen. An
objective written otherwise (a teacher's, an LLM's, a Korean heading that names its action) is left as it is."""

from __future__ import annotations

import re

_ENGLISH = (
    (re.compile(r"^Explain why (?P<subject>.+)$"), "왜 “{subject}”인지 설명하기"),
    (re.compile(r"^Explain (?P<subject>.+)$"), "{subject} 설명하기"),
    (re.compile(r"^Define (?P<subject>.+)$"), "{subject}의 뜻 말하기"),
)
_KOREAN = (
    (re.compile(r"^(?P<subject>.+)의 뜻 말하기$"), "Define {subject}"),
    (re.compile(r"^(?P<subject>.+) 설명하기$"), "Explain {subject}"),
)


def objective_in(objective: str, *, korean: bool) -> str:
    """``objective`` with the template's words in Korean (``korean``) or English."""
    if korean:
        for pattern, template in _ENGLISH:
            match = pattern.match(objective)
            if match:
                return template.format(subject=match.group("subject"))
        return objective
    for pattern, template in _KOREAN:
        match = pattern.match(objective)
        if match:
            return template.format(subject=match.group("subject"))
    return objective


def objectives_in(objectives: list[str], *, korean: bool) -> list[str]:
    return [objective_in(objective, korean=korean) for objective in objectives]
