"""A conversation about a plan's session follows it when the plan's owner reorders the sessions. Only the
plan's owner has such conversations (a course's learners ask over the course's materials, not a session)."""

from django.db.models import Case, Value, When
from django.dispatch import receiver

from accounts.rls import rls_system
from knowledge.signals import material_ready
from plans.signals import sessions_renumbered

from .models import Conversation, ConversationSource


@receiver(sessions_renumbered, dispatch_uid="chat-conversations-follow-their-session")
def conversations_follow_their_session(sender, plan, renumbered: dict[int, int], **kwargs) -> None:
    change = Case(*[When(session_number=old, then=Value(new)) for old, new in renumbered.items()])
    Conversation.objects.for_user(plan.owner).filter(plan=plan, session_number__in=renumbered).update(session_number=change)


@receiver(material_ready, dispatch_uid="chat-conversations-rejoin-a-material-uploaded-again")
def conversations_rejoin_their_material(sender, material, **kwargs) -> None:
    """The same file uploaded again comes back under its refId: the conversations that searched it search it
    again, and would say so once more if it were deleted again."""
    # The owner's conversations, written by the ingestion worker: as the system, saying why.
    with rls_system(why="a deleted material uploaded again: the owner's conversations over it rejoin it"):
        ConversationSource.objects.unscoped().filter(owner_id=material.owner_id, ref_id=material.ref_id, material__isnull=True).update(
            material=material
        )
        for conversation in Conversation.objects.unscoped().filter(
            owner_id=material.owner_id, removals_announced__contains=[material.ref_id]
        ):
            conversation.removals_announced = [ref_id for ref_id in conversation.removals_announced if ref_id != material.ref_id]
            conversation.save(update_fields=["removals_announced"])
