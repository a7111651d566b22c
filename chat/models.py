from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models

from accounts.scoping import OwnedManager
from knowledge.selectors import TOP_K


class Conversation(models.Model):
    """A chat about a fixed set of the owner's materials (a plan's snapshot or explicit refIds)."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="conversations")
    title = models.CharField(max_length=200, blank=True)
    ref_ids = ArrayField(models.CharField(max_length=32), default=list)  # validated at creation
    # Over "all my materials": the library as it is at each question (materials added later included).
    all_materials = models.BooleanField(default=False)
    # refId → title of the materials in scope, so a removed one can still be named (once, see removals_announced).
    material_titles = models.JSONField(default=dict, blank=True)
    removals_announced = ArrayField(models.CharField(max_length=32), default=list, blank=True)
    plan = models.ForeignKey("plans.Plan", on_delete=models.CASCADE, null=True, blank=True, related_name="conversations")
    session_number = models.PositiveIntegerField(null=True, blank=True)
    # "Ask about this session": only chunks inside these ranges are retrieved ([{"refId", "start", "end"}]).
    scope_ranges = models.JSONField(default=list, blank=True)
    top_k = models.PositiveSmallIntegerField(default=TOP_K)
    # Long-term memory, durable here; the working copy lives in Redis (see chat.services.memory).
    summary = models.TextField(blank=True)
    summary_turn = models.PositiveIntegerField(default=0)  # last turn folded into the summary
    entities = models.JSONField(default=list)  # [{"key", "value", "turn"}], at most 25
    turn_count = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["-updated_at", "-id"]
        indexes = [models.Index(fields=["owner", "-updated_at"])]

    def __str__(self) -> str:
        return self.title or f"Conversation {self.pk}"


class ConversationSource(models.Model):
    """One material a conversation over chosen materials searches (a snapshot of its refId and title).

    ``material`` is null once the material is deleted from the library: the conversation goes on over
    the others and says once which was removed (``Conversation.removals_announced``).
    """

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="sources")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    material = models.ForeignKey("knowledge.Material", on_delete=models.SET_NULL, null=True, blank=True, related_name="+")
    ref_id = models.CharField(max_length=32)
    title = models.CharField(max_length=300, blank=True)
    position = models.PositiveIntegerField()

    objects = OwnedManager()

    class Meta:
        ordering = ["conversation", "position"]
        constraints = [models.UniqueConstraint(fields=["conversation", "ref_id"], name="unique_source_per_conversation")]

    def __str__(self) -> str:
        return f"{self.conversation_id}:{self.ref_id}"

    @property
    def is_removed(self) -> bool:
        """The material was deleted from the library after the conversation chose it."""
        return self.material_id is None


class Message(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"

    conversation = models.ForeignKey(Conversation, on_delete=models.CASCADE, related_name="messages")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    turn = models.PositiveIntegerField()
    role = models.CharField(max_length=10, choices=Role.choices)
    content = models.TextField()
    citations = models.JSONField(default=list)
    refused = models.BooleanField(default=False)
    confidence = models.FloatField(default=0.0)
    mode = models.CharField(max_length=10, default="standard")
    steps = models.JSONField(default=list)
    usage = models.JSONField(default=dict)
    generator = models.CharField(max_length=80, blank=True)
    search_query = models.TextField(blank=True)  # the question after reference resolution
    created_at = models.DateTimeField(auto_now_add=True)

    objects = OwnedManager()

    class Meta:
        ordering = ["conversation", "turn", "id"]
        indexes = [models.Index(fields=["conversation", "turn"])]

    def __str__(self) -> str:
        return f"{self.conversation_id}#{self.turn} {self.role}"
