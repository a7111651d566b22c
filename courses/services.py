"""Writes of courses: create and edit a course, invite, join, leave, remove a member.

A course is made by a teacher: a user allowed to add courses (the "Content managers" group has the
permission; ``manage.py content_managers --add EMAIL``). Joining happens only here, after the code is
checked: row-level security lets no learner write a membership (``courses_membership``'s owner is the
course's owner), so the insert runs in the system context with the reason said.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.rls import rls_system
from accounts.scoping import owner_id_of
from baeum.errors import BaeumError, NotFound
from core.learner_cache import learner_cache_forget

from .models import Course, Feedback, Invitation, Membership
from .selectors import course_taught, invitation_usable, membership_of

INVITATION_DAYS = 14  # how long a new invitation is good for, unless the teacher says otherwise
MAX_INVITATION_DAYS = 365


class NotATeacher(BaeumError, PermissionError):
    """The user may not make courses: teachers are users given the permission (the "Content managers" group)."""

    code = "not_a_teacher"
    status = 403


class InvitationInvalid(NotFound):
    """No usable invitation has this code: unknown, expired, revoked, or for another address (never said which
    of the first three, so codes cannot be probed)."""

    code = "invitation_invalid"


def may_teach(user) -> bool:
    return bool(user and user.is_authenticated and user.has_perm("courses.add_course"))


def course_create(*, user, title: str, description: str = "", language: str = Course.Language.KOREAN) -> Course:
    if not may_teach(user):
        raise NotATeacher(_("Only teachers can make courses. Ask an administrator to make you a content manager."))
    title = title.strip()
    if not title:
        raise BaeumError(_("A course needs a title."), code="invalid")
    return Course.objects.create(owner=user, title=title[:200], description=description.strip(), language=language)


def course_update(*, user, course_id: int, **fields) -> Course:
    course = course_taught(user=user, course_id=course_id)
    for name in ("title", "description", "language"):
        if fields.get(name) is not None:
            setattr(course, name, fields[name].strip() if name != "language" else fields[name])
    if not course.title:
        raise BaeumError(_("A course needs a title."), code="invalid")
    course.save()
    return course


def course_delete(*, user, course_id: int) -> None:
    """Delete a course the user teaches; its materials stay in the teacher's library, its members lose them."""
    course = course_taught(user=user, course_id=course_id)
    member_ids = list(Membership.objects.for_user(user).filter(course=course).values_list("user_id", flat=True))
    course.delete()
    for member_id in member_ids:
        learner_cache_forget(member_id)


def invitation_create(
    *, user, course_id: int, email: str = "", days: int = INVITATION_DAYS, role: str = Membership.Role.LEARNER
) -> Invitation:
    course = course_taught(user=user, course_id=course_id)
    if not 1 <= days <= MAX_INVITATION_DAYS:
        raise BaeumError(
            _("An invitation lasts 1 to %(days)d days.") % {"days": MAX_INVITATION_DAYS}, code="invalid", details={"days": days}
        )
    for _attempt in range(5):  # a code already taken (1 in 10^11) is drawn again
        try:
            with transaction.atomic():
                return Invitation.objects.create(
                    course=course, owner=user, email=email.strip().lower(), role=role, expires_at=timezone.now() + timedelta(days=days)
                )
        except IntegrityError:
            continue
    raise RuntimeError("Could not draw an unused invitation code.")


def invitations_for_emails(
    *, user, course_id: int, emails: list[str], days: int = INVITATION_DAYS, role: str = Membership.Role.LEARNER, request=None
) -> list[Invitation]:
    """One invitation per address (each usable only by that address's account), duplicates once; ``role``
    co_teacher lets them read the roster, progress, gaps and flags too. Every address is checked first
    (``invalid`` naming the ones refused: not an address, the teacher's own), and nothing is made unless all
    pass. With ``request``, each address is sent its link by email (EMAIL_BACKEND)."""
    from django.core.exceptions import ValidationError
    from django.core.validators import validate_email

    course = course_taught(user=user, course_id=course_id)
    wanted = list(dict.fromkeys(address.strip().lower() for address in emails if address.strip()))
    refused = []
    for address in wanted:
        try:
            validate_email(address)
        except ValidationError:
            refused.append(address)
    if refused:
        raise BaeumError(
            _("Not an email address: %(addresses)s. Nothing was sent; correct them and try again.") % {"addresses": ", ".join(refused)},
            code="invalid",
            details={"emails": refused},
        )
    if (user.email or "").lower() in wanted:
        raise BaeumError(_("That is your own address: you teach this course already."), code="invalid", details={"emails": [user.email]})
    made = [invitation_create(user=user, course_id=course_id, email=address, days=days, role=role) for address in wanted]
    if request is not None:
        for invitation in made:
            _invitation_send(invitation, course=course, teacher=user, request=request)
    return made


def _invitation_send(invitation: Invitation, *, course: Course, teacher, request) -> None:
    from django.conf import settings
    from django.core.mail import send_mail
    from django.template.loader import render_to_string
    from django.urls import reverse

    context = {
        "course": course,
        "teacher": teacher.get_full_name() or teacher.email,
        "link": request.build_absolute_uri(reverse("course-join-page", args=[invitation.code])),
        "code": invitation.code,
        "expires": invitation.expires_at,
        "co_teacher": invitation.role == Membership.Role.CO_TEACHER,
    }
    subject = render_to_string("courses/invitation_email_subject.txt", context).strip()
    send_mail(subject, render_to_string("courses/invitation_email.txt", context), settings.DEFAULT_FROM_EMAIL, [invitation.email])


def invitation_revoke(*, user, course_id: int, code: str) -> Invitation:
    course = course_taught(user=user, course_id=course_id)
    invitation = Invitation.objects.for_user(user).filter(course=course, code=code.strip().upper()).first()
    if invitation is None:
        raise InvitationInvalid(_("No invitation %(code)s for this course.") % {"code": code})
    if invitation.revoked_at is None:
        invitation.revoked_at = timezone.now()
        invitation.save(update_fields=["revoked_at"])
    return invitation


def course_join(*, user, code: str) -> Membership:
    """Join the course an invitation ``code`` is for; joining again returns the membership already held.
    A teacher joining their own course is refused: they read it as its owner already."""
    me = owner_id_of(user)
    refused = InvitationInvalid(
        _("This invitation code is not valid: it may have expired or been revoked. Ask your teacher for a new one.")
    )
    with rls_system(why="a learner joins by code: read the invitation the code names and write the membership"), transaction.atomic():
        invitation = Invitation.objects.unscoped().select_related("course").filter(code=code.strip().upper()).first()
        if invitation is None or not invitation_usable(invitation):
            raise refused
        if invitation.email and invitation.email != (user.email or "").lower():
            raise refused
        course = invitation.course
        if course.owner_id == me:
            raise BaeumError(_("You teach this course already."), code="own_course", status=409)
        if me in course.removed_members:
            if not invitation.email:  # removed by the teacher: only an invitation to their own address lets them back
                raise BaeumError(
                    _("Your teacher removed you from this course. Ask them to invite you by your email address."),
                    code="removed_from_course",
                    status=403,
                )
            Course.objects.unscoped().filter(pk=course.pk).update(
                removed_members=[other for other in course.removed_members if other != me]
            )
        membership, made = Membership.objects.unscoped().get_or_create(
            course=course, user_id=me, defaults={"course_owner_id": course.owner_id, "role": invitation.role}
        )
        if made:
            Invitation.objects.unscoped().filter(pk=invitation.pk).update(uses=F("uses") + 1)
    return membership


def course_leave(*, user, course_id: int) -> None:
    """Leave a course: its materials are out of the learner's reach at once (scoped reads, row-level
    security, and the cached conversation memory that may quote them)."""
    membership_of(user=user, course_id=course_id).delete()  # not a member: CourseNotFound
    learner_cache_forget(owner_id_of(user))


def member_remove(*, user, course_id: int, member_id: int) -> None:
    """The teacher removes a member; the same at once as the member leaving, and a code no longer lets them
    back (an invitation to their address does)."""
    course = course_taught(user=user, course_id=course_id)
    with transaction.atomic():
        deleted, _rows = Membership.objects.for_user(user).filter(course=course, user_id=member_id).delete()
        if not deleted:
            raise NotFound(_("No such member in this course."))
        if member_id not in course.removed_members:
            course.removed_members = [*course.removed_members, member_id]
            course.save(update_fields=["removed_members", "updated_at"])
    learner_cache_forget(member_id)


# --- What learners tell the teacher -----------------------------------------------------------------


def _shared_learner(membership: Membership) -> int | None:
    return membership.user_id if membership.share_name else None


def feedback_uncovered(*, user, course_ids: list[int], question: str) -> int:
    """Record a question the tutor refused for each of ``course_ids`` whose materials it searched (the
    learner's memberships only); return how many rows were written. The question text alone, and the
    learner's name only where they share it."""
    question = question.strip()[:2000]
    if not question or not course_ids:
        return 0
    memberships = list(Membership.objects.own(user).filter(course_id__in=course_ids).select_related("course"))
    with rls_system(why="a learner's unanswered question goes to the teachers of the courses it searched"):
        Feedback.objects.bulk_create(
            Feedback(
                course_id=membership.course_id,
                owner_id=membership.course_owner_id,
                kind=Feedback.Kind.UNCOVERED,
                question=question,
                learner_id=_shared_learner(membership),
            )
            for membership in memberships
        )
    return len(memberships)


def feedback_flag(
    *,
    user,
    course_id: int,
    kind: str,
    question: str,
    answer: str,
    quote: str = "",
    ref_id: str = "",
    page_number: int | None = None,
    comment: str = "",
) -> Feedback:
    """A learner flags an answer over a course's material as wrong, or its citation as off the point."""
    if kind not in (Feedback.Kind.WRONG_ANSWER, Feedback.Kind.CITATION_OFF):
        raise BaeumError(_("A flag says the answer is wrong or its citation is off the point."), code="invalid", details={"kind": kind})
    membership = membership_of(user=user, course_id=course_id)
    with rls_system(why="a learner's flag goes to the course's teacher"):
        return Feedback.objects.create(
            course_id=course_id,
            owner_id=membership.course_owner_id,
            kind=kind,
            question=question.strip()[:2000],
            answer=answer.strip()[:5000],
            quote=quote.strip()[:2000],
            ref_id=ref_id,
            page_number=page_number,
            comment=comment.strip()[:2000],
            learner_id=_shared_learner(membership),
        )


def membership_update(*, user, course_id: int, share_name: bool) -> Membership:
    """The learner's own choice: whether the teacher sees their name beside their questions and flags."""
    membership = membership_of(user=user, course_id=course_id)
    with rls_system(why="a learner changes their own membership (the row is the teacher's)"):
        Membership.objects.unscoped().filter(pk=membership.pk).update(share_name=share_name)
    membership.share_name = share_name
    return membership
