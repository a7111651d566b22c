import pytest

from chat.models import Conversation, Message

pytestmark = pytest.mark.django_db


def test_conversation_flow_over_the_api(api_client, book):
    created = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json")
    assert created.status_code == 201
    conversation_id = created.json()["id"]
    assert created.json()["refIds"] == [book.ref_id]
    reply = api_client.post(f"/api/v1/conversations/{conversation_id}/messages", {"content": "What is the stack?"}, format="json")
    assert reply.status_code == 201
    body = reply.json()
    assert set(body) >= {"id", "answer", "citations", "refused", "confidence", "steps", "usage"}
    assert body["content"] == body["answer"] and body["role"] == "assistant"  # the stored message's shape, answer kept
    assert body["refused"] is False and body["citations"][0]["refId"] == book.ref_id
    assert set(body["citations"][0]) == {"n", "refId", "materialTitle", "chunkIndex", "pageNumber", "pageEnd", "quote"}
    detail = api_client.get(f"/api/v1/conversations/{conversation_id}/").json()
    assert [message["role"] for message in detail["messages"]] == ["user", "assistant"]
    listing = api_client.get("/api/v1/conversations/").json()
    assert listing["count"] == 1
    assert api_client.delete(f"/api/v1/conversations/{conversation_id}/").status_code == 204


def test_answers_stream_as_server_sent_events(api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    response = api_client.post(
        f"/api/v1/conversations/{conversation_id}/messages",
        {"content": "What is the stack?"},
        format="json",
        HTTP_ACCEPT="text/event-stream",
    )
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/event-stream")
    body = b"".join(response.streaming_content).decode()
    events = [block.split("\n")[0].removeprefix("event: ") for block in body.strip().split("\n\n")]
    assert events[0] == "token" and events[-2:] == ["citations", "done"]
    assert Message.objects.filter(conversation_id=conversation_id).count() == 2


def test_a_session_without_its_plan_is_refused_not_an_all_materials_conversation(api_client, book):
    response = api_client.post("/api/v1/conversations/", {"session": 1}, format="json")
    assert response.status_code == 400 and "planId" in response.json()["error"]["message"]
    assert response.json()["error"]["details"] == {"session": [response.json()["error"]["message"].split(": ", 1)[1]]}
    korean = api_client.post("/api/v1/conversations/", {"session": 1}, format="json", HTTP_ACCEPT_LANGUAGE="ko").json()["error"]
    assert (
        korean["message"] == "학습 세션: 학습 세션은 계획에 속합니다: planId를 함께 보내세요." and "session" in korean["details"]
    )  # the field named in Korean, the key kept
    assert Conversation.objects.count() == 0


def test_conversation_refuses_refids_that_are_not_yours(api_client, other_user, ingest):
    from tests.pdfgen import make_pdf

    theirs = ingest(other_user, make_pdf(["Chapter 1 Secret\nTheir private notes about caches."]))
    response = api_client.post("/api/v1/conversations/", {"refIds": [theirs.ref_id]}, format="json")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "not_found"
    assert Conversation.objects.count() == 0


def test_second_user_cannot_see_or_use_a_conversation(api_client, other_api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    api_client.post(f"/api/v1/conversations/{conversation_id}/messages", {"content": "What is the stack?"}, format="json")
    before = Message.objects.count()
    for method, url, body in [
        ("get", f"/api/v1/conversations/{conversation_id}/", None),
        ("delete", f"/api/v1/conversations/{conversation_id}/", None),
        ("post", f"/api/v1/conversations/{conversation_id}/messages", {"content": "What is the stack?"}),
    ]:
        response = getattr(other_api_client, method)(url, body, format="json") if body else getattr(other_api_client, method)(url)
        assert response.status_code == 404, url
    assert other_api_client.get("/api/v1/conversations/").json()["count"] == 0
    assert Message.objects.count() == before
    assert Conversation.objects.filter(pk=conversation_id).exists()


def test_empty_message_is_a_clear_400(api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    response = api_client.post(f"/api/v1/conversations/{conversation_id}/messages", {"content": "   "}, format="json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_create_answers_with_the_location_and_patch_renames(api_client, other_api_client, book):
    created = api_client.post("/api/v1/conversations", {"refIds": [book.ref_id]}, format="json")
    conversation_id = created.json()["id"]
    assert created.status_code == 201
    assert created["Location"] == f"http://testserver/api/v1/conversations/{conversation_id}/"
    renamed = api_client.patch(created["Location"], {"title": "Registers and the stack"}, format="json")
    assert renamed.status_code == 200 and renamed.json()["title"] == "Registers and the stack"
    stolen = other_api_client.patch(f"/api/v1/conversations/{conversation_id}", {"title": "mine"}, format="json")
    assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "not_found"
    assert Conversation.objects.unscoped().get(pk=conversation_id).title == "Registers and the stack"  # test inspection


def test_a_conversation_over_a_material_not_ready_is_refused_with_its_code(api_client, user):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from knowledge.services.materials import material_create

    pending = material_create(owner=user, upload=SimpleUploadedFile("notes.txt", b"Registers hold data."), enqueue=False)
    refused = api_client.post("/api/v1/conversations/", {"refIds": [pending.ref_id]}, format="json")
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "material_not_ready" and pending.ref_id in error["message"]
    assert not Conversation.objects.for_user(user).exists()
