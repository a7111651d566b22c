from knowledge.selectors import materials_in_scope

from ..models import Conversation
from .memory import memory_forget


def conversation_create(*, owner, ref_ids: list[str], title: str = "") -> Conversation:
    """Start a conversation over some of the owner's READY materials (all of them when none given)."""
    if ref_ids:
        materials = materials_in_scope(user=owner, ref_ids=ref_ids)  # raises MaterialNotFound if any is not theirs
        ready = set(materials.values_list("ref_id", flat=True))
        not_ready = [ref_id for ref_id in ref_ids if ref_id not in ready]
        if not_ready:
            raise ValueError(f"Material {not_ready[0]} is not READY yet; wait for it or leave it out.")
    else:
        ref_ids = list(materials_in_scope(user=owner).values_list("ref_id", flat=True))
    return Conversation.objects.create(owner=owner, ref_ids=list(dict.fromkeys(ref_ids)), title=title[:200])


def conversation_delete(*, conversation: Conversation) -> None:
    memory_forget(conversation_id=conversation.pk)
    conversation.delete()
