from knowledge.selectors import materials_in_scope

from ..models import Conversation
from .memory import memory_forget


def conversation_create(
    *, owner, ref_ids: list[str], title: str = "", plan_id: int | None = None, session_number: int | None = None
) -> Conversation:
    """Start a conversation over some of the owner's READY materials (all of them when none given),
    over a plan's snapshot (``plan_id``), or over one study session's ranges (top-K 3)."""
    if plan_id is not None:
        from plans.selectors import access_plan, access_session, session_scope

        plan = access_plan(user=owner, plan_id=plan_id)
        ranges: list[dict] = []
        if session_number is not None:
            session = access_session(user=owner, plan=plan, number=session_number)
            ranges = session_scope(session=session)
            title = title or session.title
        snapshot = plan.ref_ids
        existing = set(materials_in_scope(user=owner).filter(ref_id__in=snapshot).values_list("ref_id", flat=True))
        return Conversation.objects.create(
            owner=owner,
            ref_ids=[ref_id for ref_id in snapshot if ref_id in existing],
            plan=plan,
            session_number=session_number,
            scope_ranges=ranges,
            top_k=3 if ranges else 5,
            title=(title or plan.title)[:200],
        )
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
