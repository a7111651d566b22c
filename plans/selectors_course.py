"""Reads of a course's plan: the plan its learners study, and each learner's progress on it."""

from __future__ import annotations

from django.db.models import Count, Q, Sum

from courses.selectors import course_get, course_members, member_course_ids, teacher_view
from knowledge import selectors as knowledge

from .models import Plan, SessionProgress, StudySession


def newest_plan(plans, course) -> Plan | None:
    """The plan of ``course`` its learners study, among ``plans`` (a scoped queryset): the newest built."""
    return plans.filter(course=course).order_by("-created_at", "-id").first()


def course_plan(*, user, course_id: int) -> Plan | None:
    """The newest plan of a course the user teaches or belongs to (None before the teacher builds one)."""
    return newest_plan(Plan.objects.for_reader(user), course_get(user=user, course_id=course_id))


def joined_course_plans(*, user) -> list[Plan]:
    """The newest plan of each course the user joined (not those they teach), with its course: what the
    Plans page lists under "From your courses"."""
    newest: dict[int, Plan] = {}
    for plan in (
        Plan.objects.for_reader(user).filter(course__in=member_course_ids(user)).select_related("course").order_by("-created_at", "-id")
    ):
        newest.setdefault(plan.course_id, plan)
    return sorted(newest.values(), key=lambda plan: plan.course.title)


def course_sessions(*, user, plan: Plan) -> list[StudySession]:
    return list(StudySession.objects.for_reader(user).filter(plan=plan).order_by("number"))


def course_session(*, user, plan: Plan | None, number: int) -> StudySession | None:
    """Session ``number`` of the course's plan (None when there is no plan or no such session)."""
    return StudySession.objects.for_reader(user).filter(plan=plan, number=number).first() if plan is not None else None


def session_out_of_reach(*, user, session: StudySession) -> list[str]:
    """The titles of the session's materials the user may no longer read (taken out of the course, or the
    course left): such a session is shown as gone, not served from the teacher's cached content."""
    wanted = {item["refId"] for item in session.ranges}
    readable = set(knowledge.material_list(user=user, with_courses=True).filter(ref_id__in=wanted).values_list("ref_id", flat=True))
    titles = {material.ref_id: material.title for material in session.plan.snapshot.all()}
    return [titles.get(ref_id, ref_id) for ref_id in sorted(wanted - readable)]


def my_progress(*, user, plan: Plan) -> dict[int, SessionProgress]:
    """The user's own progress on the plan's sessions, by session id."""
    return {progress.session_id: progress for progress in SessionProgress.objects.for_user(user).filter(plan=plan)}


def roster_progress(*, user, course_id: int, offset: int = 0, limit: int | None = None) -> list[dict]:
    """The learners of a course the user teaches or co-teaches (in the order they joined; ``offset``/``limit``
    for a page of them), each with their progress on its newest plan: sessions completed of all, questions
    answered and right, reviews of the cards its sessions gave them and the share remembered. Three
    queries, whatever the number of learners."""
    totals: dict[int, dict] = {}
    sessions = 0
    with teacher_view(user=user, course_id=course_id) as (course, teacher):
        members = course_members(teacher, course)
        members = list(members[offset : offset + limit] if limit is not None else members[offset:])
        plan = newest_plan(Plan.objects.for_user(teacher), course)
        if plan is not None:
            sessions = plan.sessions.count()
            rows = (
                SessionProgress.objects.for_teacher(teacher)
                .filter(plan=plan, owner_id__in=[membership.user_id for membership in members])
                .values("owner_id")
                .annotate(
                    completed=Count("id", filter=Q(status=SessionProgress.Status.COMPLETED)),
                    answered=Sum("questions_answered"),
                    right=Sum("questions_right"),
                    reviews=Sum("reviews"),
                    remembered=Sum("remembered"),
                )
            )
            totals = {row["owner_id"]: row for row in rows}
    result = []
    for membership in members:
        total = totals.get(membership.user_id, {})
        reviews = total.get("reviews") or 0
        retention = round((total.get("remembered") or 0) / reviews, 3) if reviews else None
        result.append(
            {
                "membership": membership,
                "sessions": sessions,
                "completed": total.get("completed", 0),
                "answered": total.get("answered") or 0,
                "right": total.get("right") or 0,
                "reviews": reviews,
                # Remembered of reviewed (not rated Again), as the learner's own review page counts it.
                "retention": retention,
                "retention_percent": round(100 * retention) if retention is not None else None,
            }
        )
    return result
