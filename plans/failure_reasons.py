"""Why a plan failed, as a stable code and a reason in the learner's language, translated where shown.

Plans store only the English reason (``Plan.error_message``, written by ``plan_generate`` and the
``generate_plan`` task); the code is read back from it, so clients get the same ``{code, message}``
pair as for a failed material without a schema change.
"""

from django.utils.translation import get_language, gettext, gettext_noop

from .models import Plan

MATERIAL_REMOVED = "material_removed"  # a material of the snapshot was deleted while the plan was generated
GENERATION_FAILED = "generation_failed"  # anything else the generation task raised

REASONS_BY_CODE: dict[str, str] = {
    MATERIAL_REMOVED: gettext_noop(
        "A material of this plan was deleted while the plan was being made. Regenerate the plan from what is left."
    ),
    GENERATION_FAILED: gettext_noop("The plan could not be made. Regenerate it; if it fails again, tell an administrator."),
}
_REMOVED_MARK = "It was deleted after the plan was created"  # the words plan_generate writes for MATERIAL_REMOVED


def plan_failure_code(plan: Plan) -> str:
    """Return the code of a failed plan's reason, or "" when it has not failed."""
    if plan.status != Plan.Status.FAILED:
        return ""
    return MATERIAL_REMOVED if _REMOVED_MARK in plan.error_message else GENERATION_FAILED


def plan_failure_reason(plan: Plan) -> str:
    """Return why the plan failed in the active language ("" when it has not failed).

    English keeps the stored wording with its detail; other languages get the sentence for its code.
    """
    code = plan_failure_code(plan)
    if not code:
        return ""
    if (get_language() or "en").startswith("en") and plan.error_message:
        return plan.error_message
    return gettext(REASONS_BY_CODE[code])
