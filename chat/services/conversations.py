from django.utils.translation import gettext as _

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
        kept = [ref_id for ref_id in snapshot if ref_id in existing]
        return Conversation.objects.create(
            owner=owner,
            ref_ids=kept,
            material_titles=_titles(owner, kept),
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
            raise ValueError(_("Material %(refId)s is not READY yet; wait for it or leave it out.") % {"refId": not_ready[0]})
    every = not ref_ids
    if every:
        ref_ids = list(materials_in_scope(user=owner).values_list("ref_id", flat=True))
    ref_ids = list(dict.fromkeys(ref_ids))
    return Conversation.objects.create(
        owner=owner, ref_ids=ref_ids, all_materials=every, material_titles=_titles(owner, ref_ids), title=title[:200]
    )


def _titles(owner, ref_ids: list[str]) -> dict[str, str]:
    return dict(materials_in_scope(user=owner, ready_only=False).filter(ref_id__in=ref_ids).values_list("ref_id", "title"))


def conversation_sources(*, conversation: Conversation) -> tuple[list[str], list[str]]:
    """Return the refIds a question is searched in now and those removed from the library since.

    A conversation over all materials follows the library (a material uploaded later is searched);
    one over chosen materials keeps those still there. A material being re-read is skipped for the
    moment, not counted as removed.
    """
    library = dict(materials_in_scope(user=conversation.owner, ready_only=False).values_list("ref_id", "status"))
    if conversation.all_materials:
        return [ref_id for ref_id, status in library.items() if status == "READY"], []
    searched = [ref_id for ref_id in conversation.ref_ids if library.get(ref_id) == "READY"]
    removed = [ref_id for ref_id in conversation.ref_ids if ref_id not in library]
    return searched, removed


def conversation_sources_update(*, conversation: Conversation, ref_ids: list[str] | None) -> Conversation:
    """Change what a conversation searches: chosen materials (each must be the owner's), or all (``None``)."""
    every = ref_ids is None
    if every:
        ref_ids = list(materials_in_scope(user=conversation.owner).values_list("ref_id", flat=True))
    else:
        materials_in_scope(user=conversation.owner, ref_ids=ref_ids, ready_only=False)  # raises if one is not theirs
    conversation.ref_ids = list(dict.fromkeys(ref_ids))
    conversation.all_materials = every
    conversation.material_titles = {**conversation.material_titles, **_titles(conversation.owner, conversation.ref_ids)}
    conversation.save(update_fields=["ref_ids", "all_materials", "material_titles", "updated_at"])
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    memory_forget(conversation_id=conversation.pk)
    conversation.delete()


def conversation_rename(*, conversation: Conversation, title: str) -> Conversation:
    """Give a conversation a title of the learner's choosing."""
    conversation.title = title.strip()[:200]
    conversation.save(update_fields=["title", "updated_at"])
    return conversation
