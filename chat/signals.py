"""A conversation about a plan's session follows it when the plan's owner reorders the sessions. Only the
plan's owner has such conversations (a course's learners ask over the course's materials, not a session)."""

from django.db.models import Case, Value, When
from django.dispatch import receiver

from plans.signals import sessions_renumbered

from .models import Conversation


@receiver(sessions_renumbered, dispatch_uid="chat-conversations-follow-their-session")
def conversations_follow_their_session(sender, plan, renumbered: dict[int, int], **kwargs) -> None:
    change = Case(*[When(session_number=old, then=Value(new)) for old, new in renumbered.items()])
    Conversation.objects.for_user(plan.owner).filter(plan=plan, session_number__in=renumbered).update(session_number=change)
