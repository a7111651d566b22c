"""The plans API as a mobile client uses it: create, rename, regenerate, field names, the second user."""

import pytest

from plans.models import Plan
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

PAGES = [
    "Chapter 1 Variables\n" + "A variable is a name that refers to a value. Assignment statements create variables. " * 8,
    "Chapter 2 Functions\n" + "A function is a named sequence of statements. Calling a function runs its body. " * 8,
]


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(PAGES), "python.pdf", title="Think Python excerpt")


@pytest.fixture
def plan_id(api_client, book, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = api_client.post(
            "/api/v1/plans/", {"title": "Learn Python", "refIds": [book.ref_id], "minutesPerSession": 5}, format="json"
        )
    assert created.status_code == 202
    return created.json()["id"]


def test_create_and_regenerate_answer_with_the_plan_location(api_client, book, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        created = api_client.post("/api/v1/plans", {"title": "Learn Python", "refIds": [book.ref_id]}, format="json")
    plan_id = created.json()["id"]
    assert created.status_code == 202
    assert created["Location"] == f"http://testserver/api/v1/plans/{plan_id}/"
    assert api_client.get(created["Location"]).json()["status"] == Plan.Status.READY
    with django_capture_on_commit_callbacks(execute=True):
        again = api_client.post(f"/api/v1/plans/{plan_id}/regenerate/")
    assert again.status_code == 202 and again["Location"] == created["Location"]


def test_patch_renames_a_plan_and_only_its_owner_can(api_client, other_api_client, plan_id):
    renamed = api_client.patch(f"/api/v1/plans/{plan_id}/", {"title": "Python, the first week"}, format="json")
    assert renamed.status_code == 200
    assert renamed.json()["title"] == "Python, the first week"
    assert renamed.json()["sessions"], "the detail shape, sessions included"
    assert api_client.get(f"/api/v1/plans/{plan_id}").json()["title"] == "Python, the first week"
    assert api_client.patch(f"/api/v1/plans/{plan_id}/", {}, format="json").status_code == 400
    for path in (f"/api/v1/plans/{plan_id}/", f"/api/v1/plans/{plan_id}"):
        stolen = other_api_client.patch(path, {"title": "mine now"}, format="json")
        assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "not_found"
    assert Plan.objects.unscoped().get(pk=plan_id).title == "Python, the first week"  # test inspection


def test_plan_fields_match_the_material_fields(api_client, plan_id):
    plan = api_client.get(f"/api/v1/plans/{plan_id}/").json()
    assert plan["processing"] == plan["generation"]
    assert set(plan["processing"]) == {"stage", "done", "total"} and plan["processing"]["stage"] == "READY"
    assert plan["failure"] is None and plan["error"] == "" and plan["errorCode"] == ""


def test_a_failed_plan_has_the_failure_shape_in_the_requested_language(api_client, user, book):
    from knowledge.services.materials import material_delete
    from plans.services.plans import plan_create, plan_generate

    plan = plan_create(owner=user, title="Doomed", ref_ids=[book.ref_id], enqueue=False)
    material_delete(material=book)
    plan_generate(plan_id=plan.pk)
    english = api_client.get(f"/api/v1/plans/{plan.pk}/").json()
    assert english["status"] == "FAILED"
    assert english["failure"] == {"code": "material_removed", "message": english["error"]}
    assert english["errorCode"] == "material_removed" and book.ref_id in english["error"]
    korean = api_client.get(f"/api/v1/plans/{plan.pk}/", HTTP_ACCEPT_LANGUAGE="ko").json()
    assert korean["failure"]["code"] == "material_removed"
    assert any("\uac00" <= char <= "\ud7a3" for char in korean["failure"]["message"]), korean["failure"]["message"]


def test_regenerating_a_plan_whose_every_material_was_removed_answers_409_materials_removed(api_client, book, plan_id):
    from knowledge.services.materials import material_delete

    material_delete(material=book)
    refused = api_client.post(f"/api/v1/plans/{plan_id}/regenerate/")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "materials_removed" and refused.json()["error"]["details"] == {}
    assert api_client.get(f"/api/v1/plans/{plan_id}/").json()["status"] == Plan.Status.READY  # nothing was queued


def test_objectives_read_in_the_learners_language(api_client, client, user, plan_id):
    """The walkthrough's Korean screen read "학습 목표: Explain Event: 'newListener'" over an English book: the
    template's words follow the reader's language, the subject stays as the book writes it."""
    from baeum.study.objectives import objective_in
    from plans.models import StudySession

    assert objective_in("Explain emitter.eventNames()", korean=True) == "emitter.eventNames() 설명하기"
    assert objective_in("Define recursion", korean=True) == "recursion의 뜻 말하기"
    assert objective_in("스택 설명하기", korean=False) == "Explain 스택"
    assert objective_in("파일로부터 배열을 읽기", korean=False) == "파일로부터 배열을 읽기"  # a heading naming its action
    assert objective_in("Describe assignment statements", korean=True) == "Describe assignment statements"  # not ours
    session = StudySession.objects.for_user(user).filter(plan_id=plan_id).order_by("number").first()
    session.objectives = ["Explain the stack", "Define recursion"]
    session.save(update_fields=["objectives"])
    english = api_client.get(f"/api/v1/plans/{plan_id}/sessions/{session.number}/").json()
    korean = api_client.get(f"/api/v1/plans/{plan_id}/sessions/{session.number}/", HTTP_ACCEPT_LANGUAGE="ko").json()
    assert english["objectives"] == ["Explain the stack", "Define recursion"]
    assert korean["objectives"] == ["the stack 설명하기", "recursion의 뜻 말하기"]
    client.force_login(user)
    page = client.get(f"/plans/{plan_id}/sessions/{session.number}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "the stack 설명하기 · recursion의 뜻 말하기" in page
