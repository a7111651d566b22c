"""Template filters for plan pages: what the plan stores, in the learner's language."""

from django import template

from ..failure_reasons import plan_failure_reason

register = template.Library()


@register.filter
def plan_failure(plan) -> str:
    """Why the plan failed, in the active language (translated where shown; the stored reason is English)."""
    return plan_failure_reason(plan)
