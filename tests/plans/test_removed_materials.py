"""A material deleted after a plan was made: its sessions are marked removed (not counted in progress,
not a 404) in the API and the browser, and regeneration builds the plan from what is left."""

import pytest

from baeum.errors import MaterialsRemoved
from plans.models import Plan
from plans.services.plans import plan_create, plan_generate, plan_regenerate
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

STACK = [f"Chapter {n} Stack part {n}\n" + "The stack is a last-in first-out structure used for calls. " * 30 for n in (1, 2)]
CLOUDS = [f"Chapter {n} Clouds part {n}\n" + "Clouds form when water vapour condenses around particles. " * 30 for n in (1, 2)]


def _plan(user, *materials):
    plan = plan_create(owner=user, title="Both", ref_ids=[material.ref_id for material in materials], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    return Plan.objects.for_user(user).get(pk=plan.pk)


def test_sessions_of_a_removed_material_are_marked_and_regeneration_drops_it(
    user, api_client, client, ingest, django_capture_on_commit_callbacks
):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    plan = _plan(user, stack, clouds)
    total = plan.sessions.count()
    api_client.delete(f"/api/v1/materials/{clouds.ref_id}/")

    detail = api_client.get(f"/api/v1/plans/{plan.pk}/").json()
    removed = [session["number"] for session in detail["sessions"] if session["removed"]]
    assert removed and len(removed) < total
    assert detail["progress"]["removedSessions"] == len(removed) and detail["progress"]["total"] == total - len(removed)
    session = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{removed[0]}/")
    assert session.status_code == 200 and session.json()["removed"] and session.json()["removedMaterials"] == ["Cloud notes"]

    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/sessions/{removed[0]}/")
    assert page.status_code == 200 and "Cloud notes" in page.content.decode()
    assert "Regenerate the plan from what is left" in client.get(f"/plans/{plan.pk}/").content.decode()

    with django_capture_on_commit_callbacks(execute=True):
        assert api_client.post(f"/api/v1/plans/{plan.pk}/regenerate").status_code == 202
    regenerated = api_client.get(f"/api/v1/plans/{plan.pk}/").json()
    assert regenerated["status"] == "READY" and [material["refId"] for material in regenerated["materials"]] == [stack.ref_id]
    assert not any(session["removed"] for session in regenerated["sessions"])


def test_a_plan_whose_every_material_was_removed_says_so_on_regeneration(user, client, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf")
    plan = _plan(user, stack)
    from knowledge.services.materials import material_delete

    material_delete(material=stack)

    with pytest.raises(MaterialsRemoved, match="Every material of this plan was removed"):
        plan_regenerate(plan=plan)
    # The page says so at once, with no "Regenerate from what is left" button that can only fail (a walkthrough).
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/").content.decode()
    assert "Every material of this plan was removed" in page and 'id="regenerate"' not in page


def test_the_same_file_uploaded_again_brings_its_plan_conversation_and_cards_back(user, other_user, api_client, ingest):
    """A walkthrough deleted a book and uploaded it again: its plan stayed "removed", its conversation said the
    book was gone, its cards were never due again. The same file now comes back under its refId."""
    from chat.models import Conversation, ConversationSource
    from chat.services.conversations import conversation_create
    from plans.models import Card
    from plans.selectors import removed_materials, reviewable_cards

    data = make_pdf(STACK)
    stack = ingest(user, data, "stack.pdf", title="Stack notes")
    plan = _plan(user, stack)
    conversation = conversation_create(owner=user, ref_ids=[stack.ref_id])
    Card.objects.create(owner=user, plan=plan, key="lifo", kind="short_answer", prompt="A stack is?", answer="lifo",
                        citation={"refId": stack.ref_id, "chunkIndex": 0, "pageNumber": 1}, due=plan.created_at)  # fmt: skip
    assert api_client.delete(f"/api/v1/materials/{stack.ref_id}/").status_code == 204
    assert removed_materials(user=user, plan=Plan.objects.for_user(user).get(pk=plan.pk)) == {stack.ref_id: "Stack notes"}
    assert not reviewable_cards(user=user).exists()

    stranger = ingest(other_user, data, "stack.pdf")  # another learner's copy of the same file is theirs alone
    assert stranger.ref_id != stack.ref_id
    again = ingest(user, data, "stack (1).pdf")
    assert again.ref_id == stack.ref_id and again.status == "READY"
    assert removed_materials(user=user, plan=Plan.objects.for_user(user).get(pk=plan.pk)) == {}
    assert not any(session["removed"] for session in api_client.get(f"/api/v1/plans/{plan.pk}/").json()["sessions"])
    assert ConversationSource.objects.for_user(user).get(conversation=conversation).material_id == again.pk
    assert Conversation.objects.for_user(user).get(pk=conversation.pk).ref_ids == [stack.ref_id]
    assert reviewable_cards(user=user).count() == 1

    other = ingest(user, make_pdf(CLOUDS), "clouds.pdf")  # another file never takes a deleted one's place
    assert other.ref_id != stack.ref_id
