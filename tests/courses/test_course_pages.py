"""The learner's course pages: an invitation link shows its course and joins it; a code typed on the
courses page joins too; a bad code gets one clear answer and joins nothing."""

import pytest
from django.contrib.auth.models import Permission

from courses.models import Membership
from courses.services import course_create, invitation_create, invitation_revoke
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def invitation():
    teacher = UserFactory(first_name="김선생")
    teacher.user_permissions.add(Permission.objects.get(codename="add_course"))
    teacher = type(teacher).objects.get(pk=teacher.pk)
    course = course_create(user=teacher, title="자료구조 101", description="연결 리스트와 트리")
    return invitation_create(user=teacher, course_id=course.pk)


def test_an_invitation_link_shows_the_course_and_joins_it(client, invitation):
    learner = UserFactory()
    client.force_login(learner)
    page = client.get(f"/courses/join/{invitation.code}", HTTP_ACCEPT_LANGUAGE="ko")
    assert page.status_code == 200
    assert "자료구조 101" in page.content.decode() and "김선생" in page.content.decode()
    assert not Membership.objects.unscoped().filter(user=learner).exists()  # opening the link alone joins nothing
    joined = client.post(f"/courses/join/{invitation.code}", follow=True)
    assert Membership.objects.unscoped().filter(user=learner, course=invitation.course).exists()
    assert "자료구조 101" in joined.content.decode()


def test_a_code_typed_on_the_courses_page_joins_and_a_bad_one_says_why(client, invitation):
    learner = UserFactory()
    client.force_login(learner)
    refused = client.post("/courses/", {"code": "WRONG234"})
    assert refused.status_code == 400 and 'role="alert"' in refused.content.decode()
    assert client.post("/courses/", {"code": invitation.code.lower()}).status_code == 302
    assert "자료구조 101" in client.get("/courses/").content.decode()
    invitation_revoke(user=invitation.course.owner, course_id=invitation.course_id, code=invitation.code)
    stranger = UserFactory()
    client.force_login(stranger)
    assert client.get(f"/courses/join/{invitation.code}").status_code == 404
    assert client.post(f"/courses/join/{invitation.code}").status_code == 404
    assert not Membership.objects.unscoped().filter(user=stranger).exists()


@pytest.mark.django_db(transaction=True)
def test_the_library_lists_the_materials_of_the_courses_joined_to_read_and_not_after_leaving(client, ingest):
    from courses.services import course_join, course_leave
    from knowledge.services.materials import material_publish
    from tests.pdfgen import make_pdf

    teacher = UserFactory(first_name="김선생")
    teacher.user_permissions.add(Permission.objects.get(codename="add_course"))
    teacher = type(teacher).objects.get(pk=teacher.pk)
    course = course_create(user=teacher, title="자료구조 101")
    book = ingest(teacher, make_pdf(["A stack is a collection where the last element added is removed first."]), "stacks.pdf")
    material_publish(user=teacher, material=book, course_id=course.pk)
    learner = UserFactory()
    course_join(user=learner, code=invitation_create(user=teacher, course_id=course.pk).code)
    client.force_login(learner)
    page = client.get("/library/")
    assert [material.ref_id for material in page.context["course_materials"]] == [book.ref_id]
    text = page.content.decode()
    assert 'id="course-materials"' in text and f"/library/{book.ref_id}/" in text and f"/courses/{course.pk}/" in text
    assert book.ref_id not in client.get("/library/rows").content.decode()  # not among the learner's own (no delete, no rename)
    client.force_login(teacher)
    assert client.get("/library/").context["course_materials"] == []  # the teacher's own book is in their own list
    # The learner's own copy of the same book and the course's are told apart in the tutor's sources.
    ingest(learner, make_pdf(["A stack is a collection where the last element added is removed first."]), "stacks.pdf")
    client.force_login(learner)
    conversation = client.post("/api/v1/conversations/", {}, content_type="application/json").json()["id"]
    titles = sorted(item["title"] for item in client.get(f"/chat/{conversation}/").context["sources"]["library"])
    assert titles == ["stacks", "stacks (course: 자료구조 101)"]
    course_leave(user=learner, course_id=course.pk)
    assert client.get("/library/").context["course_materials"] == []


def test_a_signed_out_visitor_sees_which_course_a_link_is_for_and_joins_nothing(client, invitation):
    page = client.get(f"/courses/join/{invitation.code}", HTTP_ACCEPT_LANGUAGE="ko")
    text = page.content.decode()
    assert page.status_code == 200 and "자료구조 101" in text and "김선생" in text
    assert f"/signup/?next=/courses/join/{invitation.code}" in text and f"/login/?next=/courses/join/{invitation.code}" in text
    posted = client.post(f"/courses/join/{invitation.code}")
    assert posted.status_code == 302 and posted["Location"].startswith("/login/")
    assert not Membership.objects.unscoped().exists()
    assert client.get("/courses/join/NOTACODE").status_code == 404
