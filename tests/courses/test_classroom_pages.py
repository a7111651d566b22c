"""The course page in the browser: a teacher makes a course, adds a material, makes a code, sees the
roster, the gaps and the flags; a learner joins by the link, reads the materials, asks the tutor about
the course, shares their name and leaves. A stranger gets 404 everywhere."""

import re

import pytest

from accounts.content_managers import content_managers_group_sync
from courses.models import Course, Membership
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_teacher_builds_a_course_a_learner_joins_asks_and_leaves(client, ingest):
    teacher = UserFactory(first_name="박교사")
    teacher.groups.add(content_managers_group_sync())
    book = ingest(
        teacher, make_pdf(["제1장 스택\n스택은 마지막에 넣은 원소를 먼저 꺼내는 자료구조이다. 푸시와 팝 연산을 제공한다."]), "stack.pdf"
    )
    client.force_login(teacher)
    made = client.post("/courses/", {"action": "create", "title": "자료구조", "language": "ko"})
    course = Course.objects.unscoped().get(owner=teacher)
    assert made.status_code == 302 and made["Location"] == f"/courses/{course.pk}/"
    page = client.get(f"/courses/{course.pk}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "stack" in page and 'id="publish"' in page  # the book is offered, not yet in the course
    client.post(f"/courses/{course.pk}/publish", {"ref_id": book.ref_id})
    invited = client.post(f"/courses/{course.pk}/invite")
    assert "code" not in invited["Location"]  # never in the address (browser history, shared screens)
    page = client.get(invited["Location"]).content.decode()
    code = re.search(r'<strong class="code">([A-Z0-9]+)</strong>', page).group(1)
    assert f"/courses/join/{code}" in page
    assert f'<strong class="code">{code}</strong>' not in client.get(f"/courses/{course.pk}/").content.decode()  # shown once

    learner = UserFactory(first_name="이학생")
    client.force_login(learner)
    joined = client.post(f"/courses/join/{code}")
    assert joined["Location"] == f"/courses/{course.pk}/"
    page = client.get(f"/courses/{course.pk}/").content.decode()
    assert f"/library/{book.ref_id}/" in page and "박교사" in page and 'id="roster"' not in page
    assert client.get(f"/library/{book.ref_id}/").status_code == 200  # the viewer reads the course's book
    asked = client.post(f"/courses/{course.pk}/ask")
    assert asked.status_code == 302 and asked["Location"].startswith("/chat/")
    client.post(f"/courses/{course.pk}/share-name", {"share_name": "on"})
    assert Membership.objects.unscoped().get(user=learner).share_name is True

    client.force_login(teacher)
    page = client.get(f"/courses/{course.pk}/").content.decode()
    assert "이학생" in page and 'id="gaps"' in page and 'id="flags"' in page

    stranger = UserFactory()
    client.force_login(stranger)
    assert client.get(f"/courses/{course.pk}/").status_code == 404
    for action in ("publish", "invite", "ask", "share-name", "leave"):
        assert client.post(f"/courses/{course.pk}/{action}", {"ref_id": book.ref_id}).status_code in (302, 404)
    assert Course.objects.unscoped().get(pk=course.pk).materials.count() == 1  # nothing the stranger did changed it
    assert not Membership.objects.unscoped().filter(user=stranger).exists()

    client.force_login(learner)
    left = client.post(f"/courses/{course.pk}/leave")
    assert left["Location"] == "/courses/"
    assert client.get(f"/courses/{course.pk}/").status_code == 404
    assert client.get(f"/library/{book.ref_id}/").status_code == 404
