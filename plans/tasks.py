from celery import shared_task

from accounts.rls import rls_owner_of

from .models import Plan
from .services.plans import plan_generate


@shared_task(acks_late=True)
def generate_plan(plan_id: int) -> str | None:
    """Generate one plan under its owner's row-level-security setting."""
    with rls_owner_of(Plan, plan_id) as owner_id:
        if owner_id is None:
            return None  # deleted before the worker reached it
        try:
            plan = plan_generate(plan_id=plan_id)
        except Exception as error:
            Plan.objects.unscoped().filter(pk=plan_id).update(
                status=Plan.Status.FAILED, error_message=f"Plan generation failed: {error}. Try regenerating it."
            )  # the owner's row: limited by rls_owner_of
            raise
    return plan.status if plan else None
