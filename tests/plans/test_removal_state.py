"""Removing a material is a recorded state: the plan's snapshot rows and the conversation's source rows
point at the material, and deleting it sets that link to null. Every reader (plan progress, session
content, regeneration, the tutor) reads the link, not a comparison of refIds with the library."""

import pytest
from django.db import connection

from chat.models import ConversationSource
from chat.services.conversations import conversation_create, conversation_sources, conversation_sources_update
from chat.services.reply import chat_reply
from knowledge.services.materials import material_delete
from plans import selectors
from plans.models import Plan, PlanMaterial
from plans.services.plans import plan_create, plan_generate
from plans.services.session_content import session_content
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

STACK = [f"Chapter {n} Stack part {n}\n" + "The stack is a last-in first-out structure used for calls. " * 30 for n in (1, 2)]
CLOUDS = [f"Chapter {n} Clouds part {n}\n" + "Clouds form when water vapour condenses around particles. " * 30 for n in (1, 2)]


def _plan(user, *materials):
    plan = plan_create(owner=user, title="Both", ref_ids=[material.ref_id for material in materials], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    return Plan.objects.for_user(user).get(pk=plan.pk)


def test_deleting_a_material_sets_the_plan_snapshot_link_to_null_and_every_reader_sees_it(user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    plan = _plan(user, stack, clouds)
    rows = PlanMaterial.objects.for_user(user).filter(plan=plan)
    assert dict(rows.values_list("ref_id", "material_id")) == {stack.ref_id: stack.pk, clouds.ref_id: clouds.pk}

    material_delete(material=clouds)

    assert dict(rows.values_list("ref_id", "material_id")) == {stack.ref_id: stack.pk, clouds.ref_id: None}
    plan = selectors.access_plan(user=user, plan_id=plan.pk)
    assert selectors.removed_materials(user=user, plan=plan) == {clouds.ref_id: "Cloud notes"}
    removed = selectors.removed_materials(user=user, plan=plan)
    marked = [session for session in plan.sessions.all() if selectors.session_is_removed(session, removed)]
    assert marked and selectors.plan_progress(plan, removed)["removedSessions"] == len(marked)
    content = session_content(user=user, plan=plan, session=marked[0])
    assert content.removed_materials == ["Cloud notes"] and not content.parts
    # A session over several ranges of the removed material names it once.
    marked[0].ranges = [*marked[0].ranges, *marked[0].ranges]
    assert session_content(user=user, plan=plan, session=marked[0]).removed_materials == ["Cloud notes"]


def test_generation_of_a_plan_with_a_removed_material_fails_as_before(user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf")
    plan = plan_create(owner=user, title="Both", ref_ids=[stack.ref_id, clouds.ref_id], minutes_per_session=5, enqueue=False)
    material_delete(material=clouds)
    plan = plan_generate(plan_id=plan.pk)
    assert plan.status == Plan.Status.FAILED
    assert (
        plan.error_message
        == f"No material {clouds.ref_id!r} in your library. It was deleted after the plan was created; remove it from the plan."
    )


def test_the_removal_is_read_from_the_link_not_from_the_library(user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    plan = _plan(user, stack)
    conversation = conversation_create(owner=user, ref_ids=[stack.ref_id])
    # The link cut by hand, the material still in the library: the readers follow the recorded state.
    PlanMaterial.objects.for_user(user).filter(plan=plan).update(material=None)
    ConversationSource.objects.for_user(user).filter(conversation=conversation).update(material=None)
    assert selectors.removed_materials(user=user, plan=selectors.access_plan(user=user, plan_id=plan.pk)) == {stack.ref_id: "Stack notes"}
    assert conversation_sources(conversation=conversation) == ([], [stack.ref_id])


def test_a_conversation_records_its_sources_and_says_once_which_was_removed(user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    conversation = conversation_create(owner=user, ref_ids=[stack.ref_id, clouds.ref_id])
    sources = ConversationSource.objects.for_user(user).filter(conversation=conversation)
    assert list(sources.values_list("ref_id", "material_id", "title", "position")) == [
        (stack.ref_id, stack.pk, "Stack notes", 0),
        (clouds.ref_id, clouds.pk, "Cloud notes", 1),
    ]

    material_delete(material=clouds)

    assert list(sources.values_list("ref_id", "material_id")) == [(stack.ref_id, stack.pk), (clouds.ref_id, None)]
    assert conversation_sources(conversation=conversation) == ([stack.ref_id], [clouds.ref_id])
    first = chat_reply(conversation=conversation, content="What is the stack?")
    assert "“Cloud notes” is no longer in your library or courses" in first.content.splitlines()[0]
    assert "removed" not in chat_reply(conversation=conversation, content="What is a stack used for?").content

    conversation_sources_update(conversation=conversation, ref_ids=[stack.ref_id])  # the removed one dropped
    assert list(sources.values_list("ref_id", flat=True)) == [stack.ref_id]
    assert conversation_sources(conversation=conversation) == ([stack.ref_id], [])


def test_source_rows_are_the_owners_only(user, other_user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf")
    conversation_create(owner=user, ref_ids=[stack.ref_id])
    assert ConversationSource.objects.for_user(other_user).count() == 0
    everything = conversation_create(owner=user, ref_ids=[])  # follows the library: nothing to record
    assert not ConversationSource.objects.for_user(user).filter(conversation=everything).exists()
    conversation_sources_update(conversation=everything, ref_ids=[stack.ref_id])
    assert list(ConversationSource.objects.for_user(user).filter(conversation=everything).values_list("ref_id", flat=True)) == [
        stack.ref_id
    ]
    conversation_sources_update(conversation=everything, ref_ids=None)
    assert not ConversationSource.objects.for_user(user).filter(conversation=everything).exists()
    with connection.cursor() as cursor:
        cursor.execute("SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'chat_conversationsource'")
        assert cursor.fetchone() == (True, True)  # row-level security under the ORM's scoping, as on every owned table


# transaction=True: migrations run in the test switch to the owner role, which needs a connection outside the test's transaction.
@pytest.mark.django_db(transaction=True)
def test_the_migrations_link_existing_rows_and_leave_gone_materials_removed(user):
    """The data migrations fill the links of rows made before them (per learner, under row-level security)."""
    from django.core.management import call_command

    from knowledge.models import Material

    kept = Material.objects.create(owner=user, title="Kept", original_filename="a.pdf", extension=".pdf", status="READY")
    gone = Material.objects.create(owner=user, title="Gone", original_filename="b.pdf", extension=".pdf", status="READY")
    plan = Plan.objects.create(owner=user, title="Old plan", minutes_per_session=25)
    for position, material in enumerate((kept, gone)):
        PlanMaterial.objects.create(
            plan=plan,
            owner=user,
            material=material,
            ref_id=material.ref_id,
            title=material.title,
            chunk_count=0,
            page_count=0,
            position=position,
        )
    conversation = conversation_create(owner=user, ref_ids=[kept.ref_id, gone.ref_id])
    try:
        call_command("migrate", "chat", "0005", verbosity=0)
        call_command("migrate", "plans", "0006", verbosity=0)
        with connection.cursor() as cursor:  # deleted while the old schema was in place: nothing recorded it
            cursor.execute("DELETE FROM knowledge_material WHERE id = %s", [gone.pk])
    finally:
        call_command("migrate", verbosity=0)
    rows = PlanMaterial.objects.for_user(user).filter(plan=plan).order_by("position")
    assert list(rows.values_list("ref_id", "material_id")) == [(kept.ref_id, kept.pk), (gone.ref_id, None)]
    sources = ConversationSource.objects.for_user(user).filter(conversation=conversation)
    assert list(sources.values_list("ref_id", "material_id", "title", "position")) == [
        (kept.ref_id, kept.pk, "Kept", 0),
        (gone.ref_id, None, "Gone", 1),
    ]
    assert conversation_sources(conversation=conversation) == ([kept.ref_id], [gone.ref_id])
    assert selectors.removed_materials(user=user, plan=selectors.access_plan(user=user, plan_id=plan.pk)) == {gone.ref_id: "Gone"}


def test_the_plans_page_names_a_removed_material_instead_of_linking_its_guide(user, client, ingest):
    """A walkthrough: the plans list kept a "Study guide: pcasm-book-english" link to a deleted book (a bare 404)."""
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    _plan(user, stack, clouds)
    material_delete(material=clouds)
    client.force_login(user)
    page = client.get("/plans/").content.decode()
    assert f"/library/{stack.ref_id}/guide/" in page
    assert clouds.ref_id not in page and "Cloud notes (removed from your library)" in page


def test_a_removed_materials_guide_is_a_page_of_the_site_not_a_bare_error(user, client, ingest):
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    material_delete(material=clouds)
    client.force_login(user)
    response = client.get(f"/library/{clouds.ref_id}/guide/")
    assert response.status_code == 404
    page = response.content.decode()
    assert "no longer yours to read" in page and 'href="/library/"' in page  # styled, with a way back


def test_asking_about_a_plan_whose_material_was_removed_names_it(user, ingest):
    """A walkthrough: "Ask the tutor about this plan" after its only book was deleted showed "No ready material."
    and answered "I couldn't find this in your materials.", as if the book lacked the answer."""
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    plan = _plan(user, clouds)
    material_delete(material=clouds)
    conversation = conversation_create(owner=user, ref_ids=[], plan_id=plan.pk)
    assert conversation_sources(conversation=conversation) == ([], [clouds.ref_id])
    reply = chat_reply(conversation=conversation, content="How do clouds form?")
    assert reply.refused
    assert "“Cloud notes” is no longer in your library or courses" in reply.content and "no materials left" in reply.content
