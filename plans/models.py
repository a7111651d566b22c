from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.scoping import OwnedManager, OwnedQuerySet, owner_id_of
from courses.scoping import readable_manager


class Plan(models.Model):
    class Status(models.TextChoices):
        PENDING = "PENDING"
        GENERATING = "GENERATING"
        READY = "READY"
        FAILED = "FAILED"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="plans")
    # The course whose plan it is (its owner teaches the course): members read it, their progress is their own
    # (``SessionProgress``). A course deleted leaves the plan in its owner's plans.
    course = models.ForeignKey("courses.Course", on_delete=models.SET_NULL, null=True, blank=True, related_name="plans")
    title = models.CharField(max_length=200)
    goal = models.TextField(blank=True)
    minutes_per_session = models.PositiveIntegerField(default=25)
    language = models.CharField(max_length=8, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    error_message = models.TextField(blank=True)
    # The pace sessions are sized with, stored so a learner can see (and we can change) the assumption.
    assumptions = models.JSONField(default=dict)
    exam_date = models.DateField(null=True, blank=True)  # sessions and reviews are spread over the days left
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = readable_manager("course")

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.title

    @property
    def ref_ids(self) -> list[str]:
        return [material.ref_id for material in self.snapshot.all()]


class PlanMaterial(models.Model):
    """The plan's snapshot: which materials (and how many chunks) it was built from.

    ``material`` is the material itself while it is in the library; deleting it sets it to null, and
    that is how every reader knows it was removed (``is_removed``): the refId and title stay to name it.
    """

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="snapshot")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    material = models.ForeignKey("knowledge.Material", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    ref_id = models.CharField(max_length=32)
    title = models.CharField(max_length=300)
    chunk_count = models.PositiveIntegerField()
    page_count = models.PositiveIntegerField()
    position = models.PositiveIntegerField()

    objects = readable_manager("plan__course")

    class Meta:
        ordering = ["plan", "position"]
        constraints = [models.UniqueConstraint(fields=["plan", "ref_id"], name="unique_material_per_plan")]

    def __str__(self) -> str:
        return f"{self.plan_id}:{self.ref_id}"

    @property
    def is_removed(self) -> bool:
        """The material was deleted from the library after the plan was made."""
        return self.material_id is None


class Module(models.Model):
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="modules")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    position = models.PositiveIntegerField()
    title = models.CharField(max_length=300)
    ref_id = models.CharField(max_length=32)
    chunk_start = models.PositiveIntegerField()
    chunk_end = models.PositiveIntegerField()
    page_first = models.PositiveIntegerField()
    page_last = models.PositiveIntegerField()
    tokens = models.PositiveIntegerField()
    optional = models.BooleanField(default=False)  # front or back matter: optional reading, no session

    objects = readable_manager("plan__course")

    class Meta:
        ordering = ["plan", "position"]

    def __str__(self) -> str:
        return f"{self.plan_id}.{self.position} {self.title}"


class StudySession(models.Model):
    class Status(models.TextChoices):
        NOT_STARTED = "not_started", _("Not started")
        STARTED = "started", _("Started")
        COMPLETED = "completed", _("Completed")

    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="sessions")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()  # 1-based order
    title = models.CharField(max_length=300)
    objectives = models.JSONField(default=list)
    ranges = models.JSONField(default=list)  # [{"refId", "chunkRange": [start, end], "pages": [first, last]}]
    tokens = models.PositiveIntegerField()
    estimated_minutes = models.PositiveIntegerField()
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.NOT_STARTED)
    answers = models.JSONField(default=dict)
    started_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)
    scheduled_for = models.DateField(null=True, blank=True)  # the day the exam date spreads it to

    objects = readable_manager("plan__course")

    class Meta:
        ordering = ["plan", "number"]
        constraints = [models.UniqueConstraint(fields=["plan", "number"], name="unique_session_number")]

    def __str__(self) -> str:
        return f"{self.plan_id}#{self.number} {self.title}"


class Card(models.Model):
    """Something to remember, scheduled with FSRS: an answered practice question or a session's key point.
    The card keeps its own copy of the prompt, answer and citation, so it outlives regenerated sessions."""

    class Kind(models.TextChoices):
        DEFINITION = "definition"
        CLOZE = "cloze"
        TRUE_FALSE = "true_false"
        CHOICE = "choice"
        SHORT_ANSWER = "short_answer"
        KEY_POINT = "key_point"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="cards")
    session_number = models.PositiveIntegerField(null=True, blank=True)
    key = models.CharField(max_length=40)  # the question's id: the same question answered twice is one card
    kind = models.CharField(max_length=16, choices=Kind.choices)
    prompt = models.TextField()
    answer = models.TextField()
    choices = models.JSONField(default=list, blank=True)
    accepted = models.JSONField(default=list, blank=True)  # other answers the text allows (synonyms, abbreviations)
    citation = models.JSONField(default=dict)  # {"refId", "chunkIndex", "pageNumber", "pageEnd", "quote"}
    scheduling = models.JSONField(default=dict)  # fsrs.Card.to_dict()
    due = models.DateTimeField(db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["due", "id"]
        constraints = [models.UniqueConstraint(fields=["owner", "plan", "key"], name="unique_card_per_plan")]

    def __str__(self) -> str:
        return f"{self.kind}: {self.prompt[:60]}"


class Review(models.Model):
    """One rating of a card (Again 1, Hard 2, Good 3, Easy 4), with the learner's answer when it was graded."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="reviews")
    rating = models.PositiveSmallIntegerField()
    response = models.TextField(blank=True)
    correct = models.BooleanField(null=True)
    reviewed_at = models.DateTimeField(db_index=True)
    # An answer checked while studying the session, not a review of a card come due: counted for the streak, not
    # as a reviewed card or in retention.
    in_session = models.BooleanField(default=False)

    objects = OwnedManager()

    class Meta:
        ordering = ["-reviewed_at", "-id"]

    def __str__(self) -> str:
        return f"{self.card_id}@{self.reviewed_at:%Y-%m-%d}: {self.rating}"


class Note(models.Model):
    """A saved answer, key point or passage with its citations (page references), or the learner's own words."""

    class Kind(models.TextChoices):
        ANSWER = "answer"
        KEY_POINT = "key_point"
        PASSAGE = "passage"
        OWN = "own"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    plan = models.ForeignKey(Plan, on_delete=models.SET_NULL, null=True, blank=True, related_name="notes")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.OWN)
    text = models.TextField()
    comment = models.TextField(blank=True)
    citations = models.JSONField(default=list, blank=True)  # [{"refId", "title", "pageNumber", "pageEnd", "quote"}]
    source = models.CharField(max_length=300, blank=True)  # where it was saved from, e.g. a conversation's title
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.text[:60]


class ProgressQuerySet(OwnedQuerySet):
    def for_teacher(self, user):
        """The progress rows of the courses ``user`` teaches (every learner's); ``ScopeError`` with no user."""
        return self._scoped().filter(course_owner_id=owner_id_of(user))


class SessionProgress(models.Model):
    """A learner's progress on one session of a course's plan: the plan is the teacher's, the progress the
    learner's. The course's owner is copied so the teacher's roster reads it (row-level security's
    ``course_teacher`` policy) without reading any other table."""

    class Status(models.TextChoices):
        STARTED = "started", _("Started")
        COMPLETED = "completed", _("Completed")

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    course_owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    plan = models.ForeignKey(Plan, on_delete=models.CASCADE, related_name="progress")
    session = models.ForeignKey(StudySession, on_delete=models.CASCADE, related_name="progress")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.STARTED)
    questions_answered = models.PositiveIntegerField(default=0)
    questions_right = models.PositiveIntegerField(default=0)
    # Reviews of the cards the session gave the learner (answer checks while studying are not reviews), and
    # how many were remembered (not rated Again): the roster's review retention.
    reviews = models.PositiveIntegerField(default=0)
    remembered = models.PositiveIntegerField(default=0)
    # The learner's graded answers to the session's questions, as a session of their own plan keeps them
    # (``StudySession.answers``): {question id: {response, verdict}}.
    answers = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    completed_at = models.DateTimeField(null=True, blank=True)

    objects = OwnedManager.from_queryset(ProgressQuerySet)()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["owner", "session"], name="one_progress_per_learner_and_session")]
        indexes = [models.Index(fields=["plan", "owner"]), models.Index(fields=["course_owner", "plan"])]

    def __str__(self) -> str:
        return f"{self.owner_id} on {self.session_id}: {self.status}"
