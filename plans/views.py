from datetime import date

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from baeum.errors import NotFound
from core.providers import configured_llm
from knowledge import selectors as knowledge

from . import selectors, selectors_course, selectors_guide
from .choices import chosen_ranges, material_choice, minutes_chosen
from .services.plans import (
    CHOSEN_RANGES,
    PlanInputError,
    plan_create,
    plan_delete,
    plan_exam_date_set,
    plan_regenerate,
    plan_rename,
)
from .services.session_content import session_content


@login_required
def plan_list(request):
    materials = knowledge.material_list(user=request.user, status="READY")
    context = {
        "plans": selectors.plan_list(user=request.user),
        "course_plans": selectors_course.joined_course_plans(user=request.user),
        "materials": [material_choice(request.user, material.ref_id, material.title, material.page_count) for material in materials],
        "nav": "plans",
    }
    return render(request, "plans/plan_list.html", context)


def _exam_date(post) -> date | None:
    value = post.get("exam_date", "").strip()
    return date.fromisoformat(value) if value else None


@login_required
@require_POST
def plan_create_view(request):
    ref_ids = request.POST.getlist("ref_ids")
    try:
        plan = plan_create(
            owner=request.user,
            title=request.POST.get("title", ""),
            ref_ids=ref_ids,
            minutes_per_session=minutes_chosen(request.POST),
            ranges=chosen_ranges(request.POST, ref_ids, user=request.user),
            exam_date=_exam_date(request.POST),
        )
    except (PlanInputError, NotFound, ValueError) as error:
        messages.error(request, str(error) if str(error) else _("Choose at least one material."))
        return redirect("plan-list-page")
    return redirect("plan-page", plan_id=plan.pk)


def _with_printed_pages(user, rows: list, spans_of) -> list:
    """``rows`` (sessions or modules) with ``pages_shown``: the (refId, first, last) spans ``spans_of`` gives
    each, as the book prints the numbers ("61–68, 70")."""
    spans = [spans_of(row) for row in rows]
    shown = iter(selectors_guide.printed_ranges(user=user, ranges=[span for row in spans for span in row]))
    for row, row_spans in zip(rows, spans, strict=True):
        row.pages_shown = ", ".join(next(shown) for _ in row_spans)
    return rows


@login_required
def plan_detail(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    removed = selectors.removed_materials(user=request.user, plan=plan)
    context = {
        "plan": plan,
        "progress": selectors.plan_progress(plan, removed),
        "removed": list(removed.values()),
        "removed_ref_ids": set(removed),
        # Nothing left to regenerate from: the page says so instead of offering a button that can only fail.
        "nothing_left": bool(removed) and not (set(plan.ref_ids) - set(removed)),
        "removed_sessions": {session.number for session in plan.sessions.all() if selectors.session_is_removed(session, removed)},
        "sessions": _with_printed_pages(
            request.user, list(plan.sessions.all()), lambda session: [(item["refId"], *item["pages"]) for item in session.ranges]
        ),
        "modules": _with_printed_pages(
            request.user, list(plan.modules.all()), lambda module: [(module.ref_id, module.page_first, module.page_last)]
        ),
        "today": selectors_guide.plan_today(user=request.user, plan=plan),
        "choices": [
            material_choice(request.user, material.ref_id, material.title, material.page_count, plan.assumptions.get(CHOSEN_RANGES))
            for material in plan.snapshot.all()
            if material.ref_id not in removed
        ],
        "other_materials": [
            material for material in knowledge.material_list(user=request.user, status="READY") if material.ref_id not in plan.ref_ids
        ],
        "card_count": selectors_guide.plan_card_count(user=request.user, plan=plan),
        "nav": "plans",
    }
    return render(request, "plans/plan_detail.html", context)


@login_required
@require_POST
def plan_rename_view(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    title = request.POST.get("title", "").strip()
    if title:
        plan_rename(plan=plan, title=title)
    else:
        messages.error(request, _("A plan needs a title."))
    return redirect("plan-page", plan_id=plan.pk)


@login_required
@require_POST
def plan_delete_view(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    title = plan.title
    plan_delete(plan=plan)
    messages.success(request, _("Deleted the plan “%(title)s”.") % {"title": title})
    return redirect("plan-list-page")


@login_required
@require_POST
def plan_regenerate_view(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    ref_ids = request.POST.getlist("ref_ids")
    try:
        plan_regenerate(
            plan=plan,
            ref_ids=ref_ids,
            ranges=chosen_ranges(request.POST, ref_ids, user=request.user),
            minutes_per_session=minutes_chosen(request.POST),
        )
    except (PlanInputError, NotFound, ValueError) as error:
        messages.error(request, str(error))
    return redirect("plan-page", plan_id=plan.pk)


@login_required
@require_POST
def plan_exam_date_view(request, plan_id: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    try:
        exam_date = None if "clear" in request.POST else _exam_date(request.POST)
    except ValueError:
        messages.error(request, _("Give the exam date as a date."))
        return redirect("plan-page", plan_id=plan.pk)
    try:
        plan_exam_date_set(plan=plan, exam_date=exam_date)
    except PlanInputError as error:
        messages.error(request, str(error))
    return redirect("plan-page", plan_id=plan.pk)


@login_required
def notes_page(request):
    try:
        plan_id = int(request.GET["plan"]) if request.GET.get("plan") else None
    except ValueError:
        plan_id = None
    context = {
        "notes": selectors_guide.with_printed_citations(
            user=request.user, notes=list(selectors_guide.note_list(user=request.user, plan_id=plan_id))
        ),
        "plans": selectors.plan_list(user=request.user),
        "course_plans": selectors_course.joined_course_plans(user=request.user),
        "plan_id": plan_id,
        "nav": "notes",
    }
    return render(request, "plans/notes.html", context)


@login_required
def study_guide_page(request, ref_id: str):
    guide = selectors_guide.study_guide(user=request.user, ref_id=ref_id, llm=configured_llm())
    return render(request, "plans/guide.html", {"guide": guide, "nav": "library"})


@login_required
def session_detail(request, plan_id: int, number: int):
    plan = selectors.access_plan(user=request.user, plan_id=plan_id)
    session = selectors.access_session(user=request.user, plan=plan, number=number)
    content = session_content(user=request.user, plan=plan, session=session, llm=configured_llm())
    saved = selectors_guide.saved_note_texts(user=request.user, kind="key_point", texts=[point["text"] for point in content.key_points])
    context = {"plan": plan, "session": session, "content": content, "saved_points": saved, "nav": "plans"}
    return render(request, "plans/session.html", context)
