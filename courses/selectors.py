"""Reads of courses, memberships and invitations, each scoped to the requesting user."""

from __future__ import annotations

import re
from contextlib import contextmanager

from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.scoping import owner_id_of
from baeum.errors import NotFound
from baeum.language.analysis import analyze

from .models import Course, Feedback, Invitation, Membership


class CourseNotFound(NotFound):
    """No such course for this user: it does not exist, or they neither teach nor belong to it (never said which)."""

    def __init__(self, course_id):
        from django.utils.translation import gettext as _

        super().__init__(_("No course %(id)s among yours.") % {"id": course_id})


def member_course_ids(user) -> QuerySet:
    """The ids of the courses ``user`` belongs to, as a subquery: what widens their reading scope to the
    courses' materials (``knowledge.models.ReadableQuerySet.for_reader``). Row-level security says the same
    in the database (``accounts.rls.course_member_sql``)."""
    return Membership.objects.own(user).values("course_id")


def course_list(*, user) -> QuerySet:
    """The courses ``user`` teaches or belongs to, newest first (``Course.learner_count`` counts their learners)."""
    me = owner_id_of(user)
    return (
        Course.objects.unscoped()  # scoped just below: taught by or joined by the user
        .filter(Q(owner_id=me) | Q(id__in=member_course_ids(user)))
        .select_related("owner")
    )


def course_get(*, user, course_id: int) -> Course:
    """A course ``user`` teaches or belongs to, or ``CourseNotFound``."""
    course = course_list(user=user).filter(pk=course_id).first()
    if course is None:
        raise CourseNotFound(course_id)
    return course


def course_taught(*, user, course_id: int) -> Course:
    """A course ``user`` owns (the teacher's actions), or ``CourseNotFound``: a member is no teacher."""
    course = Course.objects.for_user(user).filter(pk=course_id).first()
    if course is None:
        raise CourseNotFound(course_id)
    return course


def is_teacher(user, course: Course) -> bool:
    return course.owner_id == owner_id_of(user)


def oversees(user, course_id: int) -> bool:
    """Whether ``user`` may read the course's teacher views (roster, progress, gaps, flags): its owner, or a
    member the owner invited as co-teacher."""
    course = course_list(user=user).filter(pk=course_id).first()
    return course is not None and (
        is_teacher(user, course) or Membership.objects.own(user).filter(course_id=course_id, role=Membership.Role.CO_TEACHER).exists()
    )


@contextmanager
def teacher_view(*, user, course_id: int):
    """Read a course's teacher views as its owner or a co-teacher: yields ``(course, teacher)``, the course and
    its owner, in whose scope to read. A co-teacher reads what the owner reads and no more, in the system
    context (row-level security admits the owner's rows only), after their membership says co-teacher;
    anyone else gets ``CourseNotFound``. Evaluate every query inside the block."""
    from accounts.rls import rls_system

    course = course_get(user=user, course_id=course_id)
    if is_teacher(user, course):
        yield course, user
        return
    if not Membership.objects.own(user).filter(course_id=course_id, role=Membership.Role.CO_TEACHER).exists():
        raise CourseNotFound(course_id)
    with rls_system(why="a co-teacher reads the roster, progress and feedback of a course they co-teach"):
        yield course, course.owner


def membership_of(*, user, course_id: int) -> Membership:
    """The user's own membership of ``course_id``, or ``CourseNotFound``."""
    membership = Membership.objects.own(user).filter(course_id=course_id).first()
    if membership is None:
        raise CourseNotFound(course_id)
    return membership


def course_members(teacher, course) -> QuerySet:
    """The memberships of ``course`` in its owner ``teacher``'s scope: call it inside ``teacher_view``."""
    return Membership.objects.for_user(teacher).filter(course=course).select_related("user")


def roster(*, user, course_id: int, offset: int = 0, limit: int | None = None) -> list[Membership]:
    """The memberships of a course ``user`` teaches or co-teaches, oldest first (``offset``/``limit``: a page)."""
    with teacher_view(user=user, course_id=course_id) as (course, teacher):
        members = course_members(teacher, course)
        return list(members[offset : offset + limit] if limit is not None else members[offset:])


def roster_count(*, user, course_id: int) -> int:
    with teacher_view(user=user, course_id=course_id) as (course, teacher):
        return course_members(teacher, course).count()


def invitation_list(*, user, course_id: int) -> QuerySet:
    course = course_taught(user=user, course_id=course_id)
    return Invitation.objects.for_user(user).filter(course=course)


def invitation_usable(invitation: Invitation) -> bool:
    return invitation.revoked_at is None and invitation.expires_at > timezone.now()


def invitation_preview(*, code: str) -> Invitation | None:
    """The usable invitation ``code`` names, with its course, for the page a link opens (the learner is not a
    member yet, so it is read as the system); None for a code that is unknown, expired or revoked."""
    from accounts.rls import rls_system

    with rls_system(why="show the course an invitation link is for, before the learner joins"):
        invitation = Invitation.objects.unscoped().select_related("course", "course__owner").filter(code=code.strip().upper()).first()
        if invitation is not None:
            invitation.course.owner.get_full_name()  # read now, inside the system context
    return invitation if invitation is not None and invitation_usable(invitation) else None


# --- What the materials don't cover -------------------------------------------------------------------

TOPIC_OVERLAP = 0.34  # questions sharing a third of their terms (Jaccard) are about one topic


def _topic_terms(text: str) -> frozenset[str]:
    """The words a question is about: no number alone ("2" of "2의 보수"), no one-letter piece ("수" of "음수"),
    no sub-word pieces."""
    return frozenset(term for term in analyze(text) if not term.startswith("~") and not term.isdigit() and len(term) > 1)


def _as_written(term: str, questions: list[dict]) -> str:
    """A topic's term as a question writes it ("interleaving" for the stem "interleav")."""
    for question in questions:
        word = re.search(rf"(?<!\w){re.escape(term)}\w*", question["text"], re.IGNORECASE)
        if word:
            return word.group(0)
    return term


def gaps(*, user, course_id: int) -> list[dict]:
    """The questions a course's learners asked that the tutor could not answer from its materials, grouped
    by topic (shared terms, in either language), biggest group first: ``[{topic, count, questions: [{text,
    askedAt, learner}]}]``. Question text only; a learner's name only where they share it."""
    with teacher_view(user=user, course_id=course_id) as (course, teacher):
        rows = list(Feedback.objects.for_user(teacher).filter(course=course, kind=Feedback.Kind.UNCOVERED).select_related("learner")[:2000])
    groups: list[dict] = []
    for row in rows:
        terms = _topic_terms(row.question)
        best, best_overlap = None, 0.0
        for group in groups:
            union = terms | group["terms"]
            overlap = len(terms & group["terms"]) / len(union) if union else 0.0
            if overlap > best_overlap:
                best, best_overlap = group, overlap
        if best is None or best_overlap < TOPIC_OVERLAP:
            best = {"terms": terms, "counts": {}, "questions": []}
            groups.append(best)
        best["terms"] = best["terms"] | terms
        for term in terms:
            best["counts"][term] = best["counts"].get(term, 0) + 1
        best["questions"].append(
            {
                "text": row.question,
                "askedAt": row.created_at,
                "learner": (row.learner.get_full_name() or row.learner.email) if row.learner else None,
            }
        )
    groups.sort(key=lambda group: -len(group["questions"]))
    return [
        {
            "topic": ", ".join(
                _as_written(term, group["questions"])
                for term, _count in sorted(group["counts"].items(), key=lambda item: (-item[1], item[0]))[:3]
            ),
            "count": len(group["questions"]),
            "questions": group["questions"],
        }
        for group in groups
    ]


MAX_FLAGS = 1000  # the newest flags a teacher's list holds


def flags(*, user, course_id: int, limit: int = MAX_FLAGS) -> list[Feedback]:
    """The answers a course's learners flagged, newest first, with the quote and page they cited."""
    with teacher_view(user=user, course_id=course_id) as (course, teacher):
        rows = Feedback.objects.for_user(teacher).filter(course=course).exclude(kind=Feedback.Kind.UNCOVERED).select_related("learner")
        return list(rows[:limit])
