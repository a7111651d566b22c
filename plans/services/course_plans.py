"""A course's plan: the teacher builds it from the course's materials; each learner's progress on its
sessions is their own row (``SessionProgress``), which the teacher's roster reads."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from baeum.errors import BaeumError, NotFound
from baeum.study import grading
from courses.selectors import course_taught
from knowledge import selectors as knowledge

from ..models import Plan, SessionProgress, StudySession
from ..selectors_course import newest_plan
from .plans import plan_create, session_move, session_rename


def course_plan_create(
    *,
    user,
    course_id: int,
    minutes_per_session: int = 25,
    ref_ids: list[str] | None = None,
    ranges: list[dict] | None = None,
    enqueue: bool = True,
) -> Plan:
    """Build (or build again) the plan of a course the user teaches, from its READY materials (``ref_ids``:
    some of them; ``ranges``: the chapters or pages chosen, as for one's own plan; none, every material
    whole). The newest plan of a course is the one its learners study: building again starts their progress
    afresh on the new plan."""
    course = course_taught(user=user, course_id=course_id)
    ready = [material.ref_id for material in knowledge.course_materials(user=user, course_id=course.pk, status="READY")]
    ref_ids = [ref_id for ref_id in ready if ref_ids is None or ref_id in ref_ids]
    if not ref_ids:
        raise BaeumError(_("Add a material that is ready to the course first."), code="invalid")
    return plan_create(
        owner=user,
        title=course.title,
        ref_ids=ref_ids,
        minutes_per_session=minutes_per_session,
        ranges=ranges,
        course=course,
        enqueue=enqueue,
    )


def course_plan_taught(*, user, course_id: int) -> Plan:
    """The newest plan of a course the user teaches, to change it; ``NotFound`` before one is built."""
    course = course_taught(user=user, course_id=course_id)
    plan = newest_plan(Plan.objects.for_user(user), course)
    if plan is None:
        raise NotFound(_("This course has no study plan yet."))
    return plan


def course_session_edit(*, user, course_id: int, number: int, title: str | None = None, position: int | None = None) -> StudySession:
    """The teacher renames session ``number`` of their course's plan and/or moves it to ``position``; the
    learners' progress, cards and conversations stay with the session."""
    plan = course_plan_taught(user=user, course_id=course_id)
    session = StudySession.objects.for_user(user).filter(plan=plan, number=number).first()
    if session is None:
        raise NotFound(_("No session %(number)d in this course's plan.") % {"number": number})
    if title is not None:
        session = session_rename(session=session, title=title)
    if position is not None:
        session = session_move(session=session, to=position)
    return session


def _progress_row(*, user, session: StudySession, status: str = SessionProgress.Status.STARTED) -> SessionProgress:
    """The learner's progress row on a session of a course's plan, made (``status``) the first time."""
    plan = session.plan
    if plan.course_id is None:
        raise BaeumError(_("This session is not part of a course's plan."), code="invalid")
    progress = SessionProgress.objects.for_user(user).filter(session=session).first()
    if progress is None:
        try:
            with transaction.atomic():
                progress = SessionProgress.objects.create(
                    owner=user, course_owner_id=plan.owner_id, plan=plan, session=session, status=status
                )
        except IntegrityError:  # the same learner's other tab made it first
            progress = SessionProgress.objects.for_user(user).get(session=session)
    return progress


def session_progress_record(*, user, session: StudySession, status: str, answered: int = 0, right: int = 0) -> SessionProgress:
    """A learner's progress on a session of a course's plan (read through their membership): started or
    completed, and how many of its questions they answered and got right (each count only grows)."""
    if status not in SessionProgress.Status.values:
        raise BaeumError(_("Progress is started or completed."), code="invalid", details={"status": status})
    progress = _progress_row(user=user, session=session, status=status)
    if status == SessionProgress.Status.COMPLETED and progress.status != status:
        progress.status, progress.completed_at = status, timezone.now()
    progress.questions_answered = max(progress.questions_answered, answered)
    progress.questions_right = max(progress.questions_right, min(right, max(progress.questions_answered, answered)))
    progress.save()
    return progress


def session_answer_record(*, user, session: StudySession, question_id: str, response: str, verdict: str) -> SessionProgress:
    """Keep a learner's graded answer to a question of a course's session on their own progress row (the
    session is the teacher's); the counts the roster reads follow: questions answered, and right."""
    with transaction.atomic():
        progress = _progress_row(user=user, session=session)
        progress = SessionProgress.objects.for_user(user).select_for_update().get(pk=progress.pk)
        progress.answers = {**progress.answers, question_id: {"response": response[:500], "verdict": verdict}}
        right = sum(1 for answer in progress.answers.values() if answer["verdict"] == grading.CORRECT)
        progress.questions_answered = max(progress.questions_answered, len(progress.answers))
        progress.questions_right = max(progress.questions_right, right)
        progress.save()
    return progress
