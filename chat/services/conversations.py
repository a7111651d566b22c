from django.db import transaction

from baeum.errors import MaterialNotReady
from knowledge.models import Material
from knowledge.selectors import SESSION_TOP_K, TOP_K, materials_in_scope, member_materials, not_ready_message

from ..models import Conversation, ConversationSource
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
            ranges = [item.as_dict() for item in session_scope(session=session).ranges]
            title = title or session.title
        # The whole snapshot, a removed material included: its source row says so, and the first answer names
        # it ("… is no longer in your library or courses"), instead of "No ready material" and a bare refusal.
        removed_titles = {material.ref_id: material.title for material in plan.snapshot.all() if material.is_removed}
        return _created(
            owner=owner,
            ref_ids=list(plan.ref_ids),
            titles=removed_titles,
            plan=plan,
            session_number=session_number,
            scope_ranges=ranges,
            top_k=SESSION_TOP_K if ranges else TOP_K,
            title=title[:200],  # a plan-wide conversation is titled by its first question: many start from one plan
        )
    if ref_ids:
        # MaterialNotFound if any is not theirs; the first one not READY is named, with what to do about it
        materials = materials_in_scope(user=owner, ref_ids=ref_ids, ready_only=False)
        not_ready = next((material for material in materials if material.status != Material.Status.READY), None)
        if not_ready is not None:
            raise MaterialNotReady(not_ready_message(not_ready), ref_id=not_ready.ref_id)
    every = not ref_ids
    if every:
        ref_ids = list(materials_in_scope(user=owner).values_list("ref_id", flat=True))
    return _created(owner=owner, ref_ids=list(dict.fromkeys(ref_ids)), all_materials=every, title=title[:200])


@transaction.atomic
def _created(*, owner, ref_ids: list[str], titles: dict[str, str] | None = None, **fields) -> Conversation:
    """A new conversation over ``ref_ids``, with a source row for each (see ``_record_sources``); ``titles``
    name those no longer in the library."""
    material_titles = {**(titles or {}), **_titles(owner, ref_ids)}
    conversation = Conversation.objects.create(owner=owner, ref_ids=ref_ids, material_titles=material_titles, **fields)
    _record_sources(conversation)
    return conversation


def _titles(owner, ref_ids: list[str]) -> dict[str, str]:
    return dict(materials_in_scope(user=owner, ready_only=False).filter(ref_id__in=ref_ids).values_list("ref_id", "title"))


def _record_sources(conversation: Conversation) -> None:
    """Keep one ``ConversationSource`` per chosen refId, linked to its material: deleting the material
    sets the link to null, which is how the conversation knows it was removed. A conversation over all
    materials follows the library instead and has none."""
    owner = conversation.owner
    rows = ConversationSource.objects.for_user(owner).filter(conversation=conversation)
    if conversation.all_materials:
        rows.delete()
        return
    rows.exclude(ref_id__in=conversation.ref_ids).delete()
    known = set(rows.values_list("ref_id", flat=True))
    materials = {material.ref_id: material for material in Material.objects.for_reader(owner).filter(ref_id__in=conversation.ref_ids)}
    ConversationSource.objects.bulk_create(
        [
            ConversationSource(
                conversation=conversation,
                owner=owner,
                material=materials.get(ref_id),
                ref_id=ref_id,
                title=conversation.material_titles.get(ref_id, "")[:300],
                position=position,
            )
            for position, ref_id in enumerate(conversation.ref_ids)
            if ref_id not in known
        ]
    )
    for position, ref_id in enumerate(conversation.ref_ids):
        if ref_id in known:
            rows.filter(ref_id=ref_id).update(position=position)


def conversation_sources(*, conversation: Conversation) -> tuple[list[str], list[str]]:
    """Return the refIds a question is searched in now and those removed from the library since.

    A conversation over all materials follows the library (a material uploaded later is searched);
    one over chosen materials keeps those still there: a removed one is recorded on its source row
    (its material is null). A material being re-read is skipped for the moment, not counted as removed.
    """
    if conversation.all_materials:
        return list(materials_in_scope(user=conversation.owner).values_list("ref_id", flat=True)), []
    sources = list(ConversationSource.objects.for_user(conversation.owner).filter(conversation=conversation))
    # What the learner may still read (their own, their courses'): a course they left reads like a removal.
    readable = {
        material.pk: material
        for material in Material.objects.for_reader(conversation.owner).filter(
            pk__in=[source.material_id for source in sources if not source.is_removed]
        )
    }
    searched = [
        source.ref_id
        for source in sources
        if source.material_id in readable and readable[source.material_id].status == Material.Status.READY
    ]
    removed = [source.ref_id for source in sources if source.is_removed or source.material_id not in readable]
    return searched, removed


def conversation_course_ids(*, conversation: Conversation, ref_ids: list[str]) -> list[int]:
    """The courses whose materials among ``ref_ids`` the conversation's learner reads as a member (not
    their own materials): where a question the tutor could not answer is worth telling the teacher."""
    return sorted(set(member_materials(user=conversation.owner, ref_ids=ref_ids).values()))


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
    with transaction.atomic():
        conversation.save(update_fields=["ref_ids", "all_materials", "material_titles", "updated_at"])
        _record_sources(conversation)
    return conversation


def conversation_delete(*, conversation: Conversation) -> None:
    memory_forget(conversation=conversation)
    conversation.delete()


def conversation_rename(*, conversation: Conversation, title: str) -> Conversation:
    """Give a conversation a title of the learner's choosing."""
    conversation.title = title.strip()[:200]
    conversation.save(update_fields=["title", "updated_at"])
    return conversation
