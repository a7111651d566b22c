"""The courses API, as a teacher and learners use it: make a course, publish a book, invite, join by code
on a phone (token), search and read the course's pages; a learner of another course, a removed member
and a teacher of another course see nothing of it."""

import pytest
from rest_framework.test import APIClient

from accounts.content_managers import content_managers_group_sync
from knowledge.models import Material
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

BOOK = ["제1장 파이프라인\n파이프라인은 여러 명령어의 단계를 겹쳐 실행하여 매 사이클마다 명령어 하나를 끝낸다."]


def _client(user, *, token: bool = False) -> APIClient:
    client = APIClient()
    if token:
        from accounts.models import DeviceToken

        _instance, key = DeviceToken.objects.create(user, name="phone")
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    else:
        client.force_login(user)
    return client


def _teacher():
    teacher = UserFactory()
    teacher.groups.add(content_managers_group_sync())  # a content manager teaches (the group as migrations make it)
    return teacher


@pytest.fixture
def course(ingest):
    teacher = _teacher()
    api = _client(teacher)
    made = api.post("/api/v1/courses/", {"title": "컴퓨터 구조", "language": "ko"}, format="json")
    assert made.status_code == 201, made.content
    assert made.json()["role"] == "teacher"
    book = ingest(teacher, make_pdf(BOOK), "pipeline.pdf")
    published = api.patch(f"/api/v1/materials/{book.ref_id}", {"courseId": made.json()["id"]}, format="json")
    assert published.json()["courseId"] == made.json()["id"]
    codes = api.post(f"/api/v1/courses/{made.json()['id']}/invitations/", {"days": 7}, format="json").json()
    return {"teacher": teacher, "api": api, "id": made.json()["id"], "book": book, "code": codes[0]["code"], "link": codes[0]["link"]}


def test_a_learner_joins_by_code_on_a_phone_and_searches_and_reads_the_course(course):
    learner = UserFactory()
    phone = _client(learner, token=True)
    assert phone.get(f"/api/v1/courses/{course['id']}/").status_code == 404  # not yet a member
    joined = phone.post("/api/v1/courses/join", {"code": course["code"]}, format="json")
    assert joined.status_code == 200 and joined.json()["role"] == "learner" and joined.json()["memberCount"] == 1
    assert course["link"].endswith(f"/courses/join/{course['code']}")
    assert [item["id"] for item in phone.get("/api/v1/courses/").json()["results"]] == [course["id"]]
    listed = phone.get(f"/api/v1/materials/?courseId={course['id']}").json()
    assert [item["refId"] for item in listed["results"]] == [course["book"].ref_id]
    assert phone.get("/api/v1/materials/").json()["count"] == 0  # their own library is still their own
    hits = phone.post("/api/v1/search", {"query": "파이프라인은 무엇을 겹쳐 실행하나요?"}, format="json").json()
    assert hits and hits[0]["refId"] == course["book"].ref_id
    pages = phone.get(f"/api/v1/materials/{course['book'].ref_id}/pages").json()
    assert "파이프라인" in str(pages)
    # Reading is not owning: no renaming, deleting, re-reading or downloading the teacher's file.
    ref = course["book"].ref_id
    assert phone.patch(f"/api/v1/materials/{ref}", {"title": "mine now"}, format="json").status_code == 404
    assert phone.delete(f"/api/v1/materials/{ref}").status_code == 404
    assert phone.post(f"/api/v1/materials/{ref}/reingest").status_code == 404
    assert phone.get(f"/api/v1/materials/{ref}/file").status_code == 404
    assert Material.objects.unscoped().get(pk=course["book"].pk).title == course["book"].title
    # The teacher's roster names the learner; the learner cannot read it.
    roster = course["api"].get(f"/api/v1/courses/{course['id']}/members/").json()
    assert [member["email"] for member in roster["results"]] == [learner.email]
    assert phone.get(f"/api/v1/courses/{course['id']}/members/").status_code == 404
    assert phone.post(f"/api/v1/courses/{course['id']}/invitations/", {}, format="json").status_code == 404


def test_leaving_or_removal_takes_the_course_away_at_once(course):
    leaver, removed = UserFactory(), UserFactory()
    for learner in (leaver, removed):
        assert _client(learner).post("/api/v1/courses/join", {"code": course["code"]}, format="json").status_code == 200
    assert _client(leaver).post(f"/api/v1/courses/{course['id']}/leave").status_code == 204
    assert course["api"].delete(f"/api/v1/courses/{course['id']}/members/{removed.pk}").status_code == 204
    for learner in (leaver, removed):
        client = _client(learner, token=True)
        assert client.get(f"/api/v1/courses/{course['id']}/").status_code == 404
        assert client.get(f"/api/v1/materials/?courseId={course['id']}").status_code == 404
        assert client.get(f"/api/v1/materials/{course['book'].ref_id}/pages").status_code == 404
        assert client.post("/api/v1/search", {"query": "파이프라인"}, format="json").json() == []


def test_learners_and_teachers_of_another_course_see_nothing_of_this_one(course, ingest):
    other_teacher = _teacher()
    other_api = _client(other_teacher, token=True)
    other_course = other_api.post("/api/v1/courses/", {"title": "Other"}, format="json").json()
    code = other_api.post(f"/api/v1/courses/{other_course['id']}/invitations/", {}, format="json").json()[0]["code"]
    other_learner = UserFactory()
    assert _client(other_learner).post("/api/v1/courses/join", {"code": code}, format="json").status_code == 200
    for outsider in (_client(other_learner, token=True), other_api):
        assert outsider.get(f"/api/v1/courses/{course['id']}/").status_code == 404
        assert outsider.get(f"/api/v1/courses/{course['id']}/members/").status_code == 404
        assert outsider.get(f"/api/v1/materials/?courseId={course['id']}").status_code == 404
        assert outsider.get(f"/api/v1/materials/{course['book'].ref_id}/pages").status_code == 404
        assert outsider.post("/api/v1/search", {"query": "파이프라인"}, format="json").json() == []
        assert (
            outsider.patch(f"/api/v1/materials/{course['book'].ref_id}", {"courseId": other_course["id"]}, format="json").status_code == 404
        )
    # The teacher of this course cannot publish into another's course, nor read that course's learners.
    assert (
        course["api"].patch(f"/api/v1/materials/{course['book'].ref_id}", {"courseId": other_course["id"]}, format="json").status_code
        == 404
    )
    assert course["api"].get(f"/api/v1/courses/{other_course['id']}/members/").status_code == 404


def test_only_teachers_make_courses_and_bad_codes_get_one_answer(course):
    learner = _client(UserFactory())
    refused = learner.post("/api/v1/courses/", {"title": "Mine"}, format="json")
    assert refused.status_code == 403 and refused.json()["error"]["code"] == "not_a_teacher"
    for code in ("NOSUCH23", "", "x" * 17):
        response = learner.post("/api/v1/courses/join", {"code": code}, format="json")
        assert response.status_code in (400, 404)
    assert learner.post("/api/v1/courses/join", {"code": "NOSUCH23"}, format="json").json()["error"]["code"] == "invitation_invalid"
    revoked = course["api"].delete(f"/api/v1/courses/{course['id']}/invitations/{course['code']}")
    assert revoked.status_code == 204
    assert learner.post("/api/v1/courses/join", {"code": course["code"]}, format="json").json()["error"]["code"] == "invitation_invalid"
    assert course["api"].post("/api/v1/courses/join", {"code": course["code"]}, format="json").status_code == 404
