"""What a session's key point may not be, as named rules (``baeum.rules``): each says when it fires and can be
switched off (``eval_study --without NAME``) to measure what it is worth on the check part.

A key point is read alone, on a list, away from the page: a line that introduces what follows it on the page
(a listing, a formula) reads as noise there. What a session teaches is in its running text: a footnote or a
side note (``Chunk.note_spans``) is neither a key point nor a question (``keypoint:aside``). (``keypoint:instruction``, an exercise's instruction, was tried
and removed: switched off, nothing changed on the check part — docs/evaluation.md#eval_study.)
"""

from __future__ import annotations

import re

from baeum import rules


def is_lead_in(sentence: str) -> bool:
    """A sentence that ends with a colon introduces what the page shows next, which a key point cannot show."""
    return sentence.rstrip().endswith((":", "："))


NOT_KEY_POINTS = rules.register(
    rules.Rule(
        "keypoint:lead-in",
        is_lead_in,
        "To remove more than one element, you can use del with a slice index:",
        "a line introducing a listing or formula the key point cannot show",
    ),
)


def in_aside(where: tuple[int, list]) -> bool:
    """``where`` = (a sentence's offset in its chunk, the chunk's ``note_spans``): the sentence is in a footnote
    or a side note, an aside to the running text, never what a session teaches."""
    offset, spans = where
    return any(start <= offset < end for start, end in spans)


ASIDE = rules.register(
    rules.Rule(
        "keypoint:aside",
        in_aside,
        (130, [[120, 170]]),  # "¹ The distance is named after V…" at 130, in the footnote that runs 120-170
        "a footnote or a side note made a key point or a question ('What is ¹ The distance called?')",
    ),
)[0]


# A sentence's end: its full stop (or a Korean "…다" / "…요"), a closing quote or bracket, and maybe the
# footnote marker typeset after it ("…명시하고 있다.274", "…삽입한다339 .", "…the opposite transformation.5").
_SENTENCE_END = re.compile(r"(?:[.!?:。]|[다요]\.?)[\"'”’)\]]*\s*(?:\d{1,3}|[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})?\s*[.!?]?\s*$")


def is_cut_off(sentence: str) -> bool:
    """A sentence that stops without its end, cut by a chunk's or a page's end ("… node a appears before node
    b in the"): the end the tutor's answers need (``baeum.answering.sentences.ENDS_LIKE_A_SENTENCE``), or a
    Korean "…다", each maybe with a footnote marker after it."""
    return not _SENTENCE_END.search(sentence)


CUT_OFF = rules.register(
    rules.Rule(
        "keypoint:cut-off",
        is_cut_off,
        "The comparison operator is defined so that the points are sorted primarily by the",
        "a sentence without its end (the page or the chunk ended first)",
    ),
)[0]


def not_a_key_point(sentence: str) -> bool:
    """Whether a rule above keeps ``sentence`` off the key points (it may still be quoted or asked about)."""
    return any(rules.applies(rule, sentence) for rule in NOT_KEY_POINTS)
