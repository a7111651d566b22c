"""Invitations by address are checked and sent; a removed learner stays out unless invited by address; the
learner count is the same for everyone; signing up from an invitation link comes back to it."""

import pytest
from django.core import mail
from rest_framework.test import APIClient

from accounts.content_managers import content_managers_group_sync
from courses.models import Invitation, Membership
from courses.services import course_create, course_join, invitation_create, member_remove
from tests.factories import UserFactory

PASSWORD = "a long and unusual passphrase 7"

pytestmark = pytest.mark.django_db


@pytest.fixture
def course():
    teacher = UserFactory(first_name="김선생", email="teacher@example.com")
    teacher.groups.add(content_managers_group_sync())
    return course_create(user=teacher, title="자료구조 101")


def test_invitations_by_address_are_checked_first_and_each_sent_its_link(client, course):
    client.force_login(course.owner)
    page = client.post(f"/courses/{course.pk}/invite", {"emails": "ana@example.com\nnot-an-email"}, follow=True)
    assert "not-an-email" in page.content.decode() and not Invitation.objects.unscoped().filter(course=course).exists()
    assert "ana@example.com\nnot-an-email</textarea>" in page.content.decode()  # kept to correct, not typed again
    assert mail.outbox == []
    client.post(f"/courses/{course.pk}/invite", {"emails": "teacher@example.com"})
    assert not Invitation.objects.unscoped().filter(course=course).exists()  # the teacher's own address

    client.post(f"/courses/{course.pk}/invite", {"emails": "Ana@example.com, ben@example.com", "co_teacher": "on"})
    invitations = Invitation.objects.unscoped().filter(course=course)
    assert sorted(invitations.values_list("email", flat=True)) == ["ana@example.com", "ben@example.com"]
    assert set(invitations.values_list("role", flat=True)) == {"co_teacher"}
    assert sorted(message.to[0] for message in mail.outbox) == ["ana@example.com", "ben@example.com"]
    letter = mail.outbox[0]
    code = invitations.get(email=letter.to[0]).code
    assert "자료구조 101" in letter.subject and f"/courses/join/{code}" in letter.body and "김선생" in letter.body

    api = APIClient()
    api.force_login(course.owner)
    made = api.post(f"/api/v1/courses/{course.pk}/invitations/", {"emails": ["cy@example.com"], "role": "co_teacher"}, format="json")
    assert made.status_code == 201 and made.json()[0]["role"] == "co_teacher"  # the API passes the role on
    refused = api.post(f"/api/v1/courses/{course.pk}/invitations/", {"emails": ["@@"]}, format="json")
    assert refused.status_code == 400 and Invitation.objects.unscoped().filter(course=course).count() == 3


def test_a_removed_learner_cannot_come_back_with_a_code_but_can_with_an_invitation_to_their_address(course):
    ana = UserFactory(email="ana@example.com")
    code = invitation_create(user=course.owner, course_id=course.pk).code
    course_join(user=ana, code=code)
    member_remove(user=course.owner, course_id=course.pk, member_id=ana.pk)
    from baeum.errors import BaeumError

    with pytest.raises(BaeumError) as refused:
        course_join(user=ana, code=code)
    assert refused.value.code == "removed_from_course"
    assert not Membership.objects.unscoped().filter(user=ana).exists()
    personal = invitation_create(user=course.owner, course_id=course.pk, email="ana@example.com")
    assert course_join(user=ana, code=personal.code).course_id == course.pk
    member_remove(user=course.owner, course_id=course.pk, member_id=ana.pk)
    course.refresh_from_db()
    assert course.removed_members == [ana.pk]


def test_everyone_reads_the_same_learner_count(client, course):
    learners = [UserFactory() for _ in range(3)]
    code = invitation_create(user=course.owner, course_id=course.pk).code
    for learner in learners:
        course_join(user=learner, code=code)
    co = UserFactory(email="co@example.com")
    course_join(user=co, code=invitation_create(user=course.owner, course_id=course.pk, email="co@example.com", role="co_teacher").code)
    for user in (course.owner, learners[0], co):
        client.force_login(user)
        assert client.get(f"/courses/{course.pk}/").context["course"].learner_count == 3
        api = APIClient()
        api.force_login(user)
        assert api.get(f"/api/v1/courses/{course.pk}/").json()["memberCount"] == 3


@pytest.mark.parametrize("verification", [False, True])
def test_signing_up_from_an_invitation_link_comes_back_to_it(client, course, settings, verification):
    settings.BAEUM_REQUIRE_EMAIL_VERIFICATION = verification
    link = f"/courses/join/{invitation_create(user=course.owner, course_id=course.pk).code}"
    login = client.get(link, follow=True)
    assert f"/signup/?next={link}" in login.content.decode()
    page = client.post(f"/signup/?next={link}", {"email": "new@example.com", "password": PASSWORD, "next": link})
    if not verification:
        assert page.status_code == 302 and page["Location"] == link
        return
    letter = mail.outbox[-1].body
    confirm = next(word for word in letter.split() if "/verify/" in word)
    path = confirm[confirm.index("/verify/") :]
    assert client.post(path)["Location"] == link  # the same browser, once the address is confirmed
    assert client.get("/signup/?next=https://evil.example/")["Location"] == "/library/"  # signed in: never off the site
    client.logout()
    assert (
        'name="next" value=' not in client.get("/signup/?next=https://evil.example/").content.decode()
    )  # the language form's own is not ours
    assert client.post("/signup/", {"email": "x@example.com", "password": PASSWORD, "next": "https://evil.example/"}).get(
        "Location", ""
    ) in ("", "/library/")
