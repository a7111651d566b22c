"""Materials removed, kept or added: a conversation goes on over what is left and says once which
material was removed; a conversation over all materials searches what was uploaded after it began."""

import pytest

from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from knowledge.services.materials import material_delete
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

STACK = ["Chapter 1 The Stack\nThe stack is a last-in first-out structure. PUSH stores a value on the top of the stack."]
VOLCANO = ["Chapter 1 Volcanoes\nA stratovolcano is a tall, conical volcano built up by many layers of hardened lava and ash."]
CLOUDS = ["Chapter 1 Clouds\nClouds form when water vapour condenses around tiny particles in the air."]


def test_a_removed_material_is_named_once_and_the_conversation_goes_on(user, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    volcano = ingest(user, make_pdf(VOLCANO), "volcano.pdf", title="Volcano notes")
    conversation = conversation_create(owner=user, ref_ids=[stack.ref_id, volcano.ref_id])
    material_delete(material=volcano)

    first = chat_reply(conversation=conversation, content="What is the stack?")
    assert not first.refused, first.content
    assert "“Volcano notes” is no longer in your library or courses" in first.content.splitlines()[0]
    assert first.citations and first.citations[0]["refId"] == stack.ref_id

    second = chat_reply(conversation=conversation, content="What does PUSH do?")
    assert "removed" not in second.content  # said once
    assert chat_reply(conversation=conversation, content="What is a stratovolcano?").refused  # its material is gone


def test_every_material_removed_is_refused_with_the_note_not_an_error(user, api_client, ingest):
    volcano = ingest(user, make_pdf(VOLCANO), "volcano.pdf", title="Volcano notes")
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [volcano.ref_id]}, format="json").json()
    api_client.delete(f"/api/v1/materials/{volcano.ref_id}/")

    response = api_client.post(
        f"/api/v1/conversations/{conversation['id']}/messages", {"content": "What is a stratovolcano?"}, format="json"
    )

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["refused"] and "Volcano notes" in body["answer"]
    assert "no materials left" in body["answer"] and "Change sources" in body["answer"]  # what to do, not "not found"
    assert "remaining materials" not in body["answer"]  # a walkthrough: the note said it answers from what is left
    again = api_client.post(f"/api/v1/conversations/{conversation['id']}/messages", {"content": "스택이 뭐야?"}, format="json").json()
    assert again["refused"] and "자료 바꾸기" in again["answer"]


def test_a_conversation_over_an_empty_library_says_there_is_nothing_ready_to_search(user, ingest):
    """A walkthrough: after deleting the only material, "What is dynamic programming?" got "I couldn't find this"."""
    stack = ingest(user, make_pdf(STACK), "stack.pdf")
    conversation = conversation_create(owner=user, ref_ids=[])
    material_delete(material=stack)
    english = chat_reply(conversation=conversation, content="What is the stack?")
    assert english.refused and "no ready material" in english.content and "upload one" in english.content
    korean = chat_reply(conversation=conversation, content="스택이 뭐야?")
    assert korean.refused and "준비된 자료가 없습니다" in korean.content


def test_a_conversation_over_all_materials_searches_what_is_uploaded_later(user, other_user, ingest):
    ingest(user, make_pdf(STACK), "stack.pdf")
    conversation = conversation_create(owner=user, ref_ids=[])
    assert chat_reply(conversation=conversation, content="How do clouds form?").refused

    ingest(user, make_pdf(CLOUDS), "clouds.pdf")
    ingest(other_user, make_pdf(VOLCANO), "volcano.pdf")  # someone else's upload is never searched

    later = chat_reply(conversation=conversation, content="How do clouds form?")
    assert not later.refused, later.content
    assert "water vapour" in later.content
    assert chat_reply(conversation=conversation, content="What is a stratovolcano?").refused


def test_sources_are_listed_and_changed_over_the_api(user, other_user, api_client, other_api_client, ingest):
    stack = ingest(user, make_pdf(STACK), "stack.pdf", title="Stack notes")
    clouds = ingest(user, make_pdf(CLOUDS), "clouds.pdf", title="Cloud notes")
    theirs = ingest(other_user, make_pdf(VOLCANO), "volcano.pdf")
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [stack.ref_id]}, format="json").json()
    url = f"/api/v1/conversations/{conversation['id']}/"

    detail = api_client.get(url).json()
    assert detail["sources"] == [{"refId": stack.ref_id, "title": "Stack notes", "removed": False}] and not detail["allMaterials"]

    changed = api_client.patch(url, {"refIds": [clouds.ref_id], "title": "Weather"}, format="json").json()
    assert [source["refId"] for source in changed["sources"]] == [clouds.ref_id] and changed["title"] == "Weather"
    assert api_client.patch(url, {"allMaterials": True}, format="json").json()["allMaterials"]

    assert api_client.patch(url, {"refIds": [theirs.ref_id]}, format="json").status_code == 404  # not theirs: not found
    assert other_api_client.patch(url, {"title": "x"}, format="json").status_code == 404
    assert api_client.get(url).json()["title"] == "Weather"  # the denied writes changed nothing
