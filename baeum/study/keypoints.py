"""What a session's key point may not be, as named rules (``baeum.rules``): each says when it fires and can be
switched off (``eval_study --without NAME``) to measure what it is worth on the check part.

A key point is read alone, on a list, away from the page: an exercise's instruction or a line that introduces
what follows it on the page (a listing, a formula) reads as noise there.
"""

from __future__ import annotations

import re

from baeum import rules

# Exercises and instructions: "Write a function called circle…", "Hint: …", "Exercise 3.2 …", "…작성해 보시오."
_INSTRUCTION = re.compile(
    r"^(?:(?:hint|exercise|note)\b\s*[\d.:]|(?:write|modify|rewrite|draw|download|type|run|try|test|implement|create)\s)"
    r"|(?:시오|세요|보자|봅시다)[.!]?\s*$",
    re.IGNORECASE,
)


def is_instruction(sentence: str) -> bool:
    return bool(_INSTRUCTION.search(sentence.strip()))


def is_lead_in(sentence: str) -> bool:
    """A sentence that ends with a colon introduces what the page shows next, which a key point cannot show."""
    return sentence.rstrip().endswith((":", "："))


NOT_KEY_POINTS = rules.register(
    rules.Rule(
        "keypoint:instruction",
        is_instruction,
        "Write a function called circle that takes a turtle and a radius.",
        "an exercise's instruction, not a statement of what the book teaches",
    ),
    rules.Rule(
        "keypoint:lead-in",
        is_lead_in,
        "To remove more than one element, you can use del with a slice index:",
        "a line introducing a listing or formula the key point cannot show",
    ),
)


def not_a_key_point(sentence: str) -> bool:
    """Whether a rule above keeps ``sentence`` off the key points (it may still be quoted or asked about)."""
    return any(rules.applies(rule, sentence) for rule in NOT_KEY_POINTS)
