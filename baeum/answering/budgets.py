"""Token budgets of the tutor's prompt: whole passages and lines, best first, while they fit."""

from __future__ import annotations

from baeum.answering.answers import Passage
from baeum.language.text import estimate_tokens

# Tokens of the tutor's prompt each part may take (estimate_tokens): the passages and the recent turns
# get most, the summary and the learner's stated facts a little; together with the system prompt they
# stay well under the smallest context window the providers offer.
BUDGETS = {"memory": 500, "entities": 200, "recent": 1500, "passages": 1500}


PASSAGE_HEADER_TOKENS = 12  # the "[n] (title, p.N)" line that introduces a passage in the prompt


def fit_passages(passages: list[Passage], budget: int = BUDGETS["passages"]) -> list[Passage]:
    """Keep whole passages, best first, while they fit the token budget (never cut one in half)."""
    kept, used = [], 0
    for passage in passages:
        cost = estimate_tokens(passage.text) + PASSAGE_HEADER_TOKENS
        if kept and used + cost > budget:
            continue
        kept.append(passage)
        used += cost
    return kept


def fit_text(lines: list[str], budget: int) -> list[str]:
    """Keep the first lines (most recent/important first) that fit the budget, whole."""
    kept, used = [], 0
    for line in lines:
        cost = estimate_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept
