from celery import shared_task

from .models import Plan
from .services.plans import plan_generate


@shared_task(acks_late=True)
def generate_plan(plan_id: int) -> str | None:
    try:
        plan = plan_generate(plan_id=plan_id)
    except Exception as error:
        Plan.objects.unscoped().filter(pk=plan_id).update(
            status=Plan.Status.FAILED, error_message=f"Plan generation failed: {error}. Try regenerating it."
        )  # system task
        raise
    return plan.status if plan else None
