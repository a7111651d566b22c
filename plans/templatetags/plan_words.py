"""Template filters for plan pages: what the plan stores, in the learner's language."""

from django import template

from baeum.extraction.pages import text_blocks

from ..failure_reasons import plan_failure_reason
from ..selectors import objectives_for_reader

register = template.Library()


@register.filter
def plan_failure(plan) -> str:
    """Why the plan failed, in the active language (translated where shown; the stored reason is English)."""
    return plan_failure_reason(plan)


@register.filter
def reader_objectives(objectives) -> list[str]:
    """A session's objectives with the template's words in the active language ("Explain X" → "X 설명하기")."""
    return objectives_for_reader(objectives)


@register.filter
def blocks(part: dict) -> list[dict]:
    """A part of a session's text as a reader sees it (``text_blocks``): headings, code as laid out, flowing
    paragraphs. A part cached before it carried ``lineKinds`` reads as one paragraph per line."""
    return text_blocks(part["text"], part.get("lineKinds") or [])
