"""A course's plan: the teacher builds it from the course's book; learners study its sessions and their
progress is their own; the teacher's roster shows each learner's sessions done and questions right;
nobody else reads any of it, and no learner can change the plan."""

import pytest

from accounts.content_managers import content_managers_group_sync
from accounts.rls import rls_user
from courses.services import course_create, course_join, invitation_create
from knowledge.services.materials import material_publish
from plans.models import Plan, SessionProgress, StudySession
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

BOOK = [
    "Chapter 1 Stacks\nA stack is a collection where the last element added is the first one removed. The push operation adds "
    "an element on top and the pop operation removes the top element. A stack overflow happens when a full stack receives a push.",
    "Chapter 2 Queues\nA queue is a collection where the first element added is the first one removed. The enqueue operation adds "
    "an element at the back and the dequeue operation removes the element at the front. A circular buffer can hold a queue.",
]


@pytest.fixture
def course_with_plan(client, ingest, django_capture_on_commit_callbacks):
    teacher = UserFactory(first_name="Teacher")
    teacher.groups.add(content_managers_group_sync())
    book = ingest(teacher, make_pdf(BOOK), "structures.pdf")
    course = course_create(user=teacher, title="Data structures", language="en")
    material_publish(user=teacher, material=book, course_id=course.pk)
    client.force_login(teacher)
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(f"/courses/{course.pk}/plan").status_code == 302
    plan = Plan.objects.unscoped().get(course=course)
    assert plan.status == Plan.Status.READY and plan.owner_id == teacher.pk
    code = invitation_create(user=teacher, course_id=course.pk).code
    learners = [UserFactory(first_name=name) for name in ("Ana", "Ben")]
    for learner in learners:
        course_join(user=learner, code=code)
    return {"teacher": teacher, "course": course, "plan": plan, "learners": learners}


def test_a_learner_studies_a_session_and_the_teacher_sees_their_progress(client, course_with_plan):
    course, plan, (ana, ben) = course_with_plan["course"], course_with_plan["plan"], course_with_plan["learners"]
    client.force_login(ana)
    listed = client.get("/plans/")  # the Plans page lists the course's plan too, leading to the course
    assert [plan.pk for plan in listed.context["course_plans"]] == [plan.pk] and f"/courses/{course.pk}/#plan" in listed.content.decode()
    page = client.get(f"/courses/{course.pk}/").content.decode()
    assert f"/courses/{course.pk}/sessions/1/" in page
    session = client.get(f"/courses/{course.pk}/sessions/1/")
    assert session.status_code == 200
    text = session.content.decode()
    assert "stack" in text.lower() and 'class="answer-form"' in text  # key points and graded questions of the teacher's plan
    questions = session.context["content"].questions
    assert len(questions) >= 2
    # Graded as in one's own plan, kept on the learner's own progress: one right, one wrong.
    base = f"/api/v1/courses/{course.pk}/sessions/1/questions"
    right = client.post(f"{base}/{questions[0]['id']}/answer", {"response": questions[0]["answer"]}, content_type="application/json")
    assert right.status_code == 200 and right.json()["verdict"] == "correct"
    wrong = client.post(f"{base}/{questions[1]['id']}/answer", {"response": "zzz qqq"}, content_type="application/json")
    assert wrong.json()["verdict"] == "wrong"
    assert client.post(f"{base}/nope/answer", {"response": "x"}, content_type="application/json").status_code == 404
    assert client.get(f"/courses/{course.pk}/sessions/1/").context["answers"][questions[0]["id"]]["verdict"] == "correct"
    client.post(f"/courses/{course.pk}/sessions/1/complete")
    progress = SessionProgress.objects.unscoped().get(owner=ana)
    assert progress.status == "completed" and progress.questions_right == 1 and progress.questions_answered == 2
    assert "✓" in client.get(f"/courses/{course.pk}/").content.decode()
    # Its key points are the learner's review cards now; the review page shows them.
    from plans.models import Card

    cards = Card.objects.unscoped().filter(owner=ana, plan=plan)
    # The key points became review cards, beside the two questions answered.
    assert cards.filter(kind__in=["key_point", "cloze"]).count() >= len(session.context["content"].key_points) > 0
    assert client.get("/review/").status_code == 200 and client.get("/api/v1/review/").json()["stats"]["cards"] == cards.count()
    # Two reviews of those cards, one remembered and one forgotten: the teacher's roster reads 50 % of 2.
    first, second = cards[:2] if cards.count() > 1 else (cards[0], cards[0])
    assert client.post(f"/api/v1/review/cards/{first.pk}/rate", {"rating": 3}, content_type="application/json").status_code == 200
    assert client.post(f"/api/v1/review/cards/{second.pk}/rate", {"rating": 1}, content_type="application/json").status_code == 200

    client.force_login(course_with_plan["teacher"])
    roster = client.get(f"/courses/{course.pk}/").context["roster"]
    by_name = {row["membership"].user.first_name: row for row in roster}
    assert by_name["Ana"]["completed"] == 1 and by_name["Ana"]["right"] == 1 and by_name["Ana"]["sessions"] == plan.sessions.count()
    assert by_name["Ana"]["reviews"] == 2 and by_name["Ana"]["retention"] == 0.5
    assert by_name["Ben"]["completed"] == 0 and by_name["Ben"]["retention"] is None
    assert "remembered 50% of 2 reviews" in client.get(f"/courses/{course.pk}/").content.decode()

    # Another learner of the course sees only their own progress; nobody outside it sees the plan at all.
    with rls_user(ben.pk):
        assert not SessionProgress.objects.unscoped().exists()
        assert Plan.objects.for_reader(ben).filter(pk=plan.pk).exists()
    stranger = UserFactory()
    client.force_login(stranger)
    assert client.get(f"/courses/{course.pk}/sessions/1/").status_code == 404
    assert client.post(f"/courses/{course.pk}/sessions/1/complete").status_code == 404
    assert client.get(f"/api/v1/plans/{plan.pk}/").status_code == 404
    with rls_user(stranger.pk):
        assert not StudySession.objects.unscoped().filter(plan=plan).exists()


def test_leaving_the_course_takes_its_review_cards_and_keeps_the_review_page_working(client, course_with_plan):
    from courses.services import course_leave
    from plans.models import Card

    course, ana = course_with_plan["course"], course_with_plan["learners"][0]
    client.force_login(ana)
    client.post(f"/courses/{course.pk}/sessions/1/complete")
    assert Card.objects.unscoped().filter(owner=ana).exists()
    course_leave(user=ana, course_id=course.pk)
    assert not Card.objects.unscoped().filter(owner=ana).exists()
    assert client.get("/review/").status_code == 200


def test_learners_read_the_course_plan_and_never_change_it(course_with_plan):
    plan, ana = course_with_plan["plan"], course_with_plan["learners"][0]
    with rls_user(ana.pk):
        assert StudySession.objects.unscoped().filter(plan=plan).count() == plan.sessions.count() > 0
        assert Plan.objects.unscoped().filter(pk=plan.pk).update(title="mine now") == 0
        assert StudySession.objects.unscoped().filter(plan=plan).delete()[0] == 0
    assert Plan.objects.unscoped().get(pk=plan.pk).title == "Data structures"


def test_the_course_plan_through_the_api(course_with_plan):
    from rest_framework.test import APIClient

    course, (ana, _ben) = course_with_plan["course"], course_with_plan["learners"]
    phone = APIClient()
    phone.force_login(ana)
    plan = phone.get(f"/api/v1/courses/{course.pk}/plan").json()
    assert plan["sessions"] and {session["myStatus"] for session in plan["sessions"]} == {"not_started"}
    session = phone.get(f"/api/v1/courses/{course.pk}/sessions/1/").json()
    assert session["keyPoints"] and all(point["refId"] for point in session["keyPoints"])
    done = phone.post(f"/api/v1/courses/{course.pk}/sessions/1/progress", {"status": "completed", "answered": 3, "right": 2}, format="json")
    assert done.json()["status"] == "completed" and done.json()["questionsRight"] == 2
    assert phone.get(f"/api/v1/courses/{course.pk}/plan").json()["sessions"][0]["myStatus"] == "completed"
    assert phone.get(f"/api/v1/courses/{course.pk}/progress").status_code == 404  # the roster is the teacher's
    teacher = APIClient()
    teacher.force_login(course_with_plan["teacher"])
    rows = {row["name"]: row for row in teacher.get(f"/api/v1/courses/{course.pk}/progress").json()}
    assert rows["Ana"]["sessionsCompleted"] == 1 and rows["Ana"]["questionsRight"] == 2 and rows["Ben"]["sessionsCompleted"] == 0
    assert rows["Ana"]["reviews"] == 0 and rows["Ana"]["retention"] is None  # nothing reviewed yet
    stranger = APIClient()
    stranger.force_login(UserFactory())
    for path in ("plan", "sessions/1/", "progress"):
        assert stranger.get(f"/api/v1/courses/{course.pk}/{path}").status_code == 404


def test_a_material_in_one_course_is_not_moved_to_another_and_a_session_whose_material_left_says_so(client, course_with_plan):
    from baeum.errors import BaeumError
    from courses.services import course_create
    from knowledge.models import Material
    from knowledge.services.materials import material_publish

    teacher, course, ana = course_with_plan["teacher"], course_with_plan["course"], course_with_plan["learners"][0]
    book = Material.objects.unscoped().get(course=course)
    other = course_create(user=teacher, title="Another course")
    with pytest.raises(BaeumError, match="already in the course"):
        material_publish(user=teacher, material=book, course_id=other.pk)  # the walkthrough: it emptied the first course
    assert Material.objects.unscoped().get(pk=book.pk).course_id == course.pk
    client.force_login(teacher)
    assert book.ref_id not in str(client.get(f"/courses/{other.pk}/").context["unpublished"])  # not offered either

    material_publish(user=teacher, material=book, course_id=None)  # the teacher takes it out of the course
    client.force_login(ana)
    page = client.get(f"/courses/{course.pk}/sessions/1/")
    assert page.status_code == 200 and page.context["content"].key_points == [] and 'role="alert"' in page.content.decode()
    client.post(f"/courses/{course.pk}/sessions/1/complete")
    assert not SessionProgress.objects.unscoped().filter(owner=ana).exists()
