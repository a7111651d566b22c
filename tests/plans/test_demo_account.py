"""The first run teaches: the demo learner has the sample study guides READY, a plan for each, and a
tutor that answers from them with citations — from the material that ships in demo/."""

import pytest
from django.core.management import CommandError, call_command

from accounts.models import User
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from knowledge.models import Material
from plans.management.commands.demo_account import DEMO_EMAIL, DEMO_FILES
from plans.models import Plan

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


@pytest.fixture
def demo_allowed(settings):
    settings.DEMO_ACCOUNT_ALLOWED = True


def test_the_demo_learner_gets_ready_materials_plans_and_a_cited_tutor(demo_allowed):
    call_command("demo_account")
    call_command("demo_account")  # idempotent: nothing is duplicated on the next `make run`

    learner = User.objects.get(email=DEMO_EMAIL)
    materials = list(Material.objects.for_user(learner))
    assert sorted(material.title for material in materials) == sorted(title for _, title in DEMO_FILES)
    assert all(material.status == Material.Status.READY and material.chunk_count > 3 for material in materials)
    plans = list(Plan.objects.for_user(learner))
    assert len(plans) == 2 and all(plan.status == Plan.Status.READY for plan in plans)
    assert all(plan.sessions.count() >= 2 for plan in plans)

    english = next(material for material in materials if material.title == "How We Learn")
    conversation = conversation_create(owner=learner, ref_ids=[english.ref_id])
    reply = chat_reply(conversation=conversation, content="What is spaced repetition?")
    assert not reply.refused, reply.content
    assert "spaced repetition" in reply.content.lower()
    assert reply.citations and reply.citations[0]["refId"] == english.ref_id

    # The demo teacher's course over the Korean guide, with its plan and a code to join it with.
    from courses.models import Course, Invitation
    from plans.management.commands.demo_account import DEMO_TEACHER_EMAIL

    teacher = User.objects.get(email=DEMO_TEACHER_EMAIL)
    course = Course.objects.for_user(teacher).get()
    assert Plan.objects.for_user(teacher).get(course=course).status == Plan.Status.READY
    assert Material.objects.for_user(teacher).get(course=course).status == Material.Status.READY
    assert Invitation.objects.for_user(teacher).filter(course=course).count() == 1  # kept on the second run

    korean = next(material for material in materials if material.title != "How We Learn")
    conversation = conversation_create(owner=learner, ref_ids=[korean.ref_id])
    reply = chat_reply(conversation=conversation, content="간격 반복이란 무엇인가요?")
    assert not reply.refused, reply.content
    assert "간격 반복" in reply.content and reply.citations


def test_the_demo_account_is_refused_outside_local_settings(settings):
    settings.DEMO_ACCOUNT_ALLOWED = False

    with pytest.raises(CommandError, match="local installs only"):
        call_command("demo_account")
    assert not User.objects.filter(email=DEMO_EMAIL).exists()
