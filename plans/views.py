from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.llm import configured_llm
from knowledge import selectors as knowledge

from . import selectors
from .services.plans import PlanInputError, plan_create


@login_required
def plan_list(request):
    context = {
        "plans": selectors.plan_list(user=request.user),
        "materials": knowledge.material_list(user=request.user, status="READY"),
        "nav": "plans",
    }
    return render(request, "plans/plan_list.html", context)


@login_required
@require_POST
def plan_create_view(request):
    try:
        minutes = int(request.POST.get("minutes") or 25)
        plan = plan_create(
            owner=request.user,
            title=request.POST.get("title", ""),
            ref_ids=request.POST.getlist("ref_ids"),
            minutes_per_session=max(5, min(240, minutes)),
        )
    except (PlanInputError, ValueError) as error:
        messages.error(request, str(error) if str(error) else _("Choose at least one material."))
        return redirect("plan-list-page")
    return redirect("plan-page", plan_id=plan.pk)


@login_required
def plan_detail(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    removed = selectors.removed_materials(user=request.user, plan=plan)
    context = {
        "plan": plan,
        "progress": selectors.plan_progress(plan, removed),
        "removed": list(removed.values()),
        "removed_sessions": {session.number for session in plan.sessions.all() if selectors.session_is_removed(session, removed)},
        "sessions": plan.sessions.all(),
        "modules": plan.modules.all(),
        "nav": "plans",
    }
    return render(request, "plans/plan_detail.html", context)


@login_required
def session_detail(request, plan_id: int, number: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    session = selectors.access_session(user=request.user, plan=plan, number=number)
    content = selectors.session_content(user=request.user, plan=plan, session=session, llm=configured_llm())
    context = {"plan": plan, "session": session, "content": content, "nav": "plans"}
    return render(request, "plans/session.html", context)
