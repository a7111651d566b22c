"""The learner's course pages: the courses they belong to, and joining one by link or code."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from baeum.errors import BaeumError

from . import selectors, services
from .models import Membership


@login_required
@require_http_methods(["GET", "POST"])
def course_list_page(request):
    """My courses, and a form to join one with a code."""
    error = ""
    if request.method == "POST" and request.POST.get("action") == "create":
        try:
            course = services.course_create(
                user=request.user,
                title=request.POST.get("title", ""),
                description=request.POST.get("description", ""),
                language=request.POST.get("language") if request.POST.get("language") in ("ko", "en") else "ko",
            )
        except BaeumError as refused:
            error = refused.public_message()
        else:
            return redirect("course-page", course_id=course.pk)
    elif request.method == "POST":
        try:
            membership = services.course_join(user=request.user, code=request.POST.get("code", ""))
        except BaeumError as refused:
            error = refused.public_message()
        else:
            messages.success(request, _joined_message(membership))
            return redirect("course-page", course_id=membership.course_id)
    courses = selectors.course_list(user=request.user)
    context = {"courses": courses, "error": error, "nav": "courses", "may_teach": services.may_teach(request.user)}
    return render(request, "courses/course_list.html", context, status=400 if error else 200)


def _joined_message(membership: Membership) -> str:
    if membership.role == Membership.Role.CO_TEACHER:
        joined = _(
            "You joined %(title)s as a co-teacher: its page shows the learners, their progress, the questions the materials "
            "don't cover and the flags."
        )
    else:
        joined = _("You joined %(title)s. Ask the tutor about its materials.")
    return joined % {"title": membership.course.title}


@require_http_methods(["GET", "POST"])
def course_join_page(request, code: str):
    """The page an invitation link opens: which course it is for, and a button to join. Signed out, it shows
    the course too (the link is the capability) and leads to signing in or up, then back here."""
    invitation = selectors.invitation_preview(code=code)
    if not request.user.is_authenticated:
        if request.method == "POST":
            return redirect_to_login(request.get_full_path())
        return render(request, "courses/course_join.html", {"invitation": invitation, "code": code}, status=200 if invitation else 404)
    if request.method == "POST" and invitation is not None:
        try:
            membership = services.course_join(user=request.user, code=code)
        except BaeumError as refused:
            messages.error(request, refused.public_message())
            return redirect("course-list-page")
        messages.success(request, _joined_message(membership))
        return redirect("course-page", course_id=membership.course_id)
    return render(request, "courses/course_join.html", {"invitation": invitation, "code": code}, status=200 if invitation else 404)
