"""One course's page, as its teacher and as a learner see it.

The course's rows live in ``courses`` (below the apps that read materials); this page brings together its
materials (``knowledge``), the tutor (``chat``) and what learners tell the teacher, so it sits above them.
No models here: every write goes through a service of the app that owns the rows.
"""

from functools import wraps

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from baeum.errors import BaeumError, NotFound
from chat.services.conversations import conversation_create
from courses import selectors as courses
from courses import services as course_services
from courses.models import Membership
from knowledge import selectors as knowledge
from knowledge.services.materials import material_publish
from plans import selectors_course as course_plans
from plans.choices import chosen_ranges, material_choice, minutes_chosen
from plans.services.course_plans import course_plan_create, course_session_edit, session_progress_record
from plans.services.plans import CHOSEN_RANGES
from plans.services.review import cards_from_key_points
from plans.services.session_content import SessionContent, session_content


def _course(request, course_id: int):
    try:
        return courses.course_get(user=request.user, course_id=course_id)
    except BaeumError as missing:
        raise Http404(str(missing)) from missing


@login_required
def course_page(request, course_id: int):
    course = _course(request, course_id)
    context = {"course": course, "nav": "courses", "materials": list(knowledge.course_materials(user=request.user, course_id=course_id))}
    plan = course_plans.course_plan(user=request.user, course_id=course_id)
    if plan is not None:
        mine = course_plans.my_progress(user=request.user, plan=plan)
        context["plan"] = plan
        context["sessions"] = [(session, mine.get(session.pk)) for session in course_plans.course_sessions(user=request.user, plan=plan)]
        # The learner's next step: the first session they have not finished.
        context["next_session"] = next(
            (session for session, progress in context["sessions"] if not (progress and progress.status == "completed")), None
        )
    teaching = courses.is_teacher(request.user, course)
    if teaching:
        published = {material.pk for material in context["materials"]}
        context |= {
            "teaching": True,
            # One course per material: those in another course are not offered (the service refuses a move too).
            "unpublished": list(
                knowledge.material_list(user=request.user, status="READY").filter(course__isnull=True).exclude(pk__in=published)
            ),
            "invitations": [invitation for invitation in courses.invitation_list(user=request.user, course_id=course_id)[:20]],
            "new_code": request.session.pop(f"course-{course_id}-new-code", ""),  # shown once, never in the address
            "emails_typed": request.session.pop(f"course-{course_id}-emails", ""),  # what a refused invitation held
        }
    else:
        context["membership"] = courses.membership_of(user=request.user, course_id=course_id)
    if teaching or context["membership"].role == Membership.Role.CO_TEACHER:
        context |= {
            "overseeing": True,  # the roster, progress, gaps and flags: the teacher's and a co-teacher's to read
            **_roster_page(request, course),
            "gaps": courses.gaps(user=request.user, course_id=course_id)[:20],
            "flags": courses.flags(user=request.user, course_id=course_id, limit=20),
        }
    return render(request, "classroom/course.html", context)


ROSTER_PAGE = 50  # learners a course page lists at once (a class of 500 is ten pages, each drawn in a blink)


def _roster_page(request, course) -> dict:
    try:
        page = max(1, int(request.GET.get("learners", 1)))
    except ValueError:
        page = 1
    total = courses.roster_count(user=request.user, course_id=course.pk)
    pages = max(1, -(-total // ROSTER_PAGE))
    page = min(page, pages)
    rows = course_plans.roster_progress(user=request.user, course_id=course.pk, offset=(page - 1) * ROSTER_PAGE, limit=ROSTER_PAGE)
    first = (page - 1) * ROSTER_PAGE + 1
    return {
        "roster": rows,
        "roster_page": page,
        "roster_pages": pages,
        "roster_first": first,
        "roster_last": first + len(rows) - 1,
        "roster_total": total,
    }


def _done(request, course_id: int, message: str = ""):
    if message:
        messages.success(request, message)
    return redirect("course-page", course_id=course_id)


def _refused(request, course_id: int, error: BaeumError):
    if isinstance(error, NotFound):
        raise Http404(error.public_message()) from error  # not theirs, or no such row: as for any other page
    messages.error(request, error.public_message())
    return redirect("course-page", course_id=course_id)


def course_action(view):
    """A form posted on a course page: 404 for a course the user neither teaches nor belongs to; a service's
    refusal comes back to the course page as its message (404 when the row is not theirs). ``view`` gets the
    course and returns its response."""

    @login_required
    @require_POST
    @wraps(view)
    def wrapped(request, course_id: int, **kwargs):
        course = _course(request, course_id)
        try:
            return view(request, course, **kwargs)
        except BaeumError as error:
            return _refused(request, course_id, error)

    return wrapped


@course_action
def course_publish(request, course):
    """The teacher puts one of their materials in the course, or takes it out (``remove``)."""
    material = knowledge.access_material(user=request.user, ref_id=request.POST.get("ref_id", ""))
    material_publish(user=request.user, material=material, course_id=None if request.POST.get("remove") else course.pk)
    return _done(request, course.pk)


@course_action
def course_invite(request, course):
    """A new code for anyone, or one invitation per address typed (one per line or comma)."""
    emails = [address.strip() for address in request.POST.get("emails", "").replace(",", "\n").splitlines() if address.strip()]
    if emails:
        role = Membership.Role.CO_TEACHER if request.POST.get("co_teacher") else Membership.Role.LEARNER
        try:
            made = course_services.invitations_for_emails(user=request.user, course_id=course.pk, emails=emails, role=role, request=request)
        except BaeumError:
            request.session[f"course-{course.pk}-emails"] = request.POST.get("emails", "")[:5000]  # typed again for the fix
            raise
        return _done(request, course.pk, _("%(count)d invitations sent by email: each works only for its address.") % {"count": len(made)})
    invitation = course_services.invitation_create(user=request.user, course_id=course.pk)
    request.session[f"course-{course.pk}-new-code"] = invitation.code
    return redirect(f"/courses/{course.pk}/#invite")


@course_action
def course_invitation_revoke(request, course, code: str):
    course_services.invitation_revoke(user=request.user, course_id=course.pk, code=code)
    return _done(request, course.pk, _("The code %(code)s no longer works.") % {"code": code})


@course_action
def course_member_remove(request, course, user_id: int):
    course_services.member_remove(user=request.user, course_id=course.pk, member_id=user_id)
    return _done(request, course.pk, _("The learner was removed from the course."))


@course_action
def course_ask(request, course):
    """A learner (or the teacher) starts a conversation over the course's materials."""
    ref_ids = [material.ref_id for material in knowledge.course_materials(user=request.user, course_id=course.pk, status="READY")]
    if not ref_ids:
        raise BaeumError(_("This course has no material ready yet."))
    conversation = conversation_create(owner=request.user, ref_ids=ref_ids)
    return redirect("chat-page", conversation_id=conversation.pk)


@course_action
def course_share_name(request, course):
    course_services.membership_update(user=request.user, course_id=course.pk, share_name=request.POST.get("share_name") == "on")
    return _done(request, course.pk, _("Saved."))


@course_action
def course_leave(request, course):
    course_services.course_leave(user=request.user, course_id=course.pk)
    messages.success(request, _("You left the course; its materials are no longer in your reach."))
    return redirect("course-list-page")


@course_action
def course_plan_build(request, course):
    """The teacher builds (or builds again) the course's study plan from the materials and chapters ticked."""
    ref_ids = request.POST.getlist("ref_ids")
    course_plan_create(
        user=request.user,
        course_id=course.pk,
        ref_ids=ref_ids or None,
        ranges=chosen_ranges(request.POST, ref_ids, user=request.user),
        minutes_per_session=minutes_chosen(request.POST),
    )
    return _done(request, course.pk, _("The study plan is being built; its sessions appear here in a moment."))


@login_required
def course_plan_edit_page(request, course_id: int):
    """The teacher's page for the course's plan: its sessions to rename and reorder, and the form that builds
    it (again) from the materials and chapters ticked. Apart from the course page, which it would slow: the
    chapters of twenty materials take a third of a second to list."""
    try:
        course = courses.course_taught(user=request.user, course_id=course_id)
    except NotFound as missing:
        raise Http404(missing.public_message()) from missing
    plan = course_plans.course_plan(user=request.user, course_id=course_id)
    chosen = plan.assumptions.get(CHOSEN_RANGES) if plan is not None else None
    context = {
        "course": course,
        "plan": plan,
        "sessions": course_plans.course_sessions(user=request.user, plan=plan) if plan is not None else [],
        "choices": [
            material_choice(request.user, material.ref_id, material.title, material.page_count, chosen)
            for material in knowledge.course_materials(user=request.user, course_id=course_id, status="READY")
        ],
        "plan_ref_ids": set(plan.ref_ids) if plan is not None else None,
        "nav": "courses",
    }
    return render(request, "classroom/plan_edit.html", context)


@course_action
def course_session_edit_view(request, course, number: int):
    """The teacher renames a session of the course's plan (``title``) or moves it up or down (``move``)."""
    title = request.POST.get("title")
    move = {"up": number - 1, "down": number + 1}.get(request.POST.get("move", ""))
    session = course_session_edit(user=request.user, course_id=course.pk, number=number, title=title, position=move)
    messages.success(request, _("Session %(number)d: %(title)s") % {"number": session.number, "title": session.title})
    return redirect(f"/courses/{course.pk}/plan/edit#sessions")


def _course_session(request, course, number: int):
    plan = course_plans.course_plan(user=request.user, course_id=course.pk)
    session = course_plans.course_session(user=request.user, plan=plan, number=number)
    if session is None:
        raise Http404(_("No such session in this course."))
    return plan, session


@login_required
def course_session_page(request, course_id: int, number: int):
    """One session of the course's plan: its objectives, key points and practice questions (each cited),
    and the learner's own progress on it."""
    plan, session = _course_session(request, _course(request, course_id), number)
    gone = course_plans.session_out_of_reach(user=request.user, session=session)
    content = SessionContent(removed_materials=gone) if gone else session_content(user=request.user, plan=plan, session=session)
    progress = course_plans.my_progress(user=request.user, plan=plan).get(session.pk)
    following = course_plans.course_session(user=request.user, plan=plan, number=session.number + 1)
    context = {
        "course": plan.course,
        "plan": plan,
        "session": session,
        "following": following,
        "content": content,
        "progress": progress,
        "answers": progress.answers if progress else {},  # the graded answers the question boxes show again
        "nav": "courses",
    }
    return render(request, "classroom/session.html", context)


@course_action
def course_session_complete(request, course, number: int):
    """The learner marks a session done (the questions they answered were graded and kept as they went)."""
    plan, session = _course_session(request, course, number)
    if course_plans.session_out_of_reach(user=request.user, session=session):
        raise BaeumError(_("The material of this session is no longer in the course."))
    session_progress_record(user=request.user, session=session, status="completed")
    made = cards_from_key_points(user=request.user, plan=plan, session=session)  # its key points come back for review
    return _done(
        request,
        course.pk,
        _("Session %(number)d done: %(cards)d key points added to your review.") % {"number": number, "cards": len(made)},
    )
