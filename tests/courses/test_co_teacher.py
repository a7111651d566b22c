"""A co-teacher: invited by the teacher as one, they read the course's roster, progress, gaps and flags as
the teacher does (page and API) and change nothing; a learner of the course, or a co-teacher of another
course, reads none of it; and the co-teacher never reads more than the course's owner would."""

import pytest
from rest_framework.test import APIClient

from accounts.content_managers import content_managers_group_sync
from accounts.rls import rls_user
from courses.models import Feedback, Membership
from courses.services import course_create, course_join, feedback_flag, feedback_uncovered, invitation_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _course(title: str):
    teacher = UserFactory(first_name=f"Teacher of {title}")
    teacher.groups.add(content_managers_group_sync())
    return teacher, course_create(user=teacher, title=title, language="en")


@pytest.fixture
def courses(client):
    teacher, course = _course("Algebra")
    co = UserFactory(first_name="Cora", email="cora@example.com")
    ana = UserFactory(first_name="Ana")
    invitation = invitation_create(user=teacher, course_id=course.pk, email="cora@example.com", role=Membership.Role.CO_TEACHER)
    assert course_join(user=co, code=invitation.code).role == Membership.Role.CO_TEACHER
    course_join(user=ana, code=invitation_create(user=teacher, course_id=course.pk).code)
    feedback_uncovered(user=ana, course_ids=[course.pk], question="What is a ring homomorphism?")
    feedback_flag(user=ana, course_id=course.pk, kind="wrong_answer", question="What is a group?", answer="A set.", quote="A group is")
    other_teacher, other = _course("Geometry")
    other_co = UserFactory(first_name="Otto")
    course_join(user=other_co, code=invitation_create(user=other_teacher, course_id=other.pk, role=Membership.Role.CO_TEACHER).code)
    return {"teacher": teacher, "course": course, "co": co, "ana": ana, "other_co": other_co}


def test_a_co_teacher_reads_the_roster_gaps_and_flags_on_the_page_and_through_the_api(client, courses):
    course = courses["course"]
    client.force_login(courses["co"])
    page = client.get(f"/courses/{course.pk}/")
    assert page.status_code == 200 and page.context["overseeing"] and not page.context.get("teaching")
    assert {row["membership"].user.first_name for row in page.context["roster"]} == {"Cora", "Ana"}
    assert [gap["count"] for gap in page.context["gaps"]] == [1]
    assert [flag.question for flag in page.context["flags"]] == ["What is a group?"]
    text = page.content.decode()
    assert "ring homomorphism" in text and "Remove from the course" not in text and 'id="invite"' not in text

    api = APIClient()
    api.force_login(courses["co"])
    assert {row["name"] for row in api.get(f"/api/v1/courses/{course.pk}/progress").json()} == {"Cora", "Ana"}
    assert api.get(f"/api/v1/courses/{course.pk}/members/").json()["count"] == 2
    assert api.get(f"/api/v1/courses/{course.pk}/gaps").json()[0]["questions"][0]["text"] == "What is a ring homomorphism?"
    assert api.get(f"/api/v1/courses/{course.pk}/flags").json()["count"] == 1


def test_a_co_teacher_changes_nothing_and_others_read_nothing(client, courses):
    course, ana = courses["course"], courses["ana"]
    co = APIClient()
    co.force_login(courses["co"])
    assert co.post(f"/api/v1/courses/{course.pk}/invitations/", {}, format="json").status_code == 404
    assert co.delete(f"/api/v1/courses/{course.pk}/members/{ana.pk}").status_code == 404
    assert co.post(f"/api/v1/courses/{course.pk}/plan", {}, format="json").status_code == 404
    assert Membership.objects.unscoped().filter(course=course).count() == 2
    # A learner of the course and a co-teacher of another course read no teacher view.
    for user in (ana, courses["other_co"]):
        api = APIClient()
        api.force_login(user)
        for path in ("progress", "members/", "gaps", "flags"):
            assert api.get(f"/api/v1/courses/{course.pk}/{path}").status_code == 404, (user.first_name, path)
    client.force_login(ana)
    assert not client.get(f"/courses/{course.pk}/").context.get("overseeing")
    # Outside the selectors, row-level security still gives the co-teacher nothing of the teacher's rows.
    with rls_user(courses["co"].pk):
        assert not Feedback.objects.unscoped().exists()
        assert list(Membership.objects.unscoped().values_list("user_id", flat=True)) == [courses["co"].pk]
