"""A course: a content manager's materials published to the learners who join it.

The course's owner owns its materials (``knowledge.Material.course``) and every row made from them; a
member reads them through the course (``courses.access``, and row-level security's ``course_member``
policy), never writes them. Memberships carry the course's owner too, so the policy that lets a teacher
see the roster reads no other table (a policy reading ``courses_course``, whose own policy reads
memberships, would recurse).
"""

import secrets

from django.conf import settings
from django.db import models
from django.utils.functional import cached_property
from django.utils.translation import gettext_lazy as _

from accounts.scoping import OwnedManager, OwnedQuerySet, owner_id_of

# Invitation codes: no 0/O, 1/I/L; 8 letters of 31 is 2^39 codes, and joining is throttled.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
CODE_LENGTH = 8


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class Course(models.Model):
    class Language(models.TextChoices):
        KOREAN = "ko", "한국어"
        ENGLISH = "en", "English"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="courses_taught")
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    language = models.CharField(max_length=2, choices=Language.choices, default=Language.KOREAN)
    # The learners the teacher removed: a code no longer lets them in; an invitation to their address does.
    removed_members = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["owner", "-created_at"])]

    def __str__(self) -> str:
        return self.title

    @cached_property
    def learner_count(self) -> int:
        """How many learners joined (co-teachers not counted). A count and no names, read as the system: row-level
        security shows a learner only their own membership, and the count is the same for everyone."""
        from accounts.rls import rls_system

        with rls_system(why="how many learners a course has: a count, no names"):
            return Membership.objects.unscoped().filter(course_id=self.pk, role=Membership.Role.LEARNER).count()


class MembershipQuerySet(OwnedQuerySet):
    def for_user(self, user):
        """The memberships ``user`` may see: their own, and those of the courses they teach."""
        me = owner_id_of(user)
        return self._scoped().filter(models.Q(user_id=me) | models.Q(course_owner_id=me))

    def own(self, user):
        """The courses ``user`` belongs to, as their memberships (not those of the courses they teach)."""
        return self._scoped().filter(user_id=owner_id_of(user))


class MembershipManager(OwnedManager.from_queryset(MembershipQuerySet)):
    pass


class Membership(models.Model):
    class Role(models.TextChoices):
        LEARNER = "learner", _("Learner")
        CO_TEACHER = "co_teacher", _("Co-teacher")

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="course_memberships")
    # The course's owner, copied: row-level security lets the teacher see the roster without reading courses_course.
    course_owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.LEARNER)
    # Whether the teacher may see this learner's name beside the questions they asked and the answers they
    # flagged (off by default: the teacher sees the question text alone).
    share_name = models.BooleanField(default=False)
    joined_at = models.DateTimeField(auto_now_add=True)

    objects = MembershipManager()

    class Meta:
        ordering = ["joined_at", "id"]
        constraints = [models.UniqueConstraint(fields=["course", "user"], name="one_membership_per_course")]
        indexes = [models.Index(fields=["user", "course"]), models.Index(fields=["course_owner"])]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.course_id} ({self.role})"


class Invitation(models.Model):
    """A code (or link holding it) that lets whoever has it join, until it expires or is revoked; with an
    ``email``, only the account of that address may use it."""

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="invitations")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    code = models.CharField(max_length=16, unique=True, default=new_code, editable=False)
    email = models.EmailField(blank=True)
    role = models.CharField(max_length=16, choices=Membership.Role.choices, default=Membership.Role.LEARNER)
    expires_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    uses = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.code} → {self.course_id}"


class Feedback(models.Model):
    """What a course's learners tell its teacher without meaning to or on purpose: a question the tutor could
    not answer from the course's materials (``uncovered``), or an answer a learner flagged as wrong or whose
    citation is off the point. The row is the teacher's (row-level security: the course's owner), written
    in the system context when the learner asks or flags; it holds the question and what the tutor quoted,
    and the learner only when they chose to share their name (``Membership.share_name``)."""

    class Kind(models.TextChoices):
        UNCOVERED = "uncovered", _("Not covered by the materials")
        WRONG_ANSWER = "wrong_answer", _("Answer flagged as wrong")
        CITATION_OFF = "citation_off", _("Citation off the point")

    course = models.ForeignKey(Course, on_delete=models.CASCADE, related_name="feedback")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    question = models.TextField()
    answer = models.TextField(blank=True)
    quote = models.TextField(blank=True)
    ref_id = models.CharField(max_length=32, blank=True)
    page_number = models.PositiveIntegerField(null=True, blank=True)
    comment = models.TextField(blank=True)
    # Only when the learner lets the teacher see their name; otherwise the row names nobody.
    learner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["course", "kind", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.kind}: {self.question[:60]}"
