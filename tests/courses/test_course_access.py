"""Courses widen a learner's reading scope to the course's materials, in the ORM's one place
(``for_reader``) and in row-level security, and take it back at once when they leave or are removed."""

from datetime import timedelta

import psycopg
import pytest
from django.contrib.auth.models import Permission
from django.db import DatabaseError, connection, transaction
from django.utils import timezone

from accounts.rls import rls_user
from baeum.errors import NotFound
from courses import selectors as course_selectors
from courses.models import Invitation, Membership
from courses.services import (
    InvitationInvalid,
    NotATeacher,
    course_create,
    course_join,
    course_leave,
    invitation_create,
    invitation_revoke,
    member_remove,
)
from knowledge.models import Chunk, Material
from knowledge.selectors import MaterialNotFound, read_material
from knowledge.selectors.retrieval import Scope, retrieve
from knowledge.services.materials import material_publish
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

COURSE_PAGE = "Chapter 1 Pipelining\nA pipeline overlaps the stages of several instructions so the processor finishes one every cycle."
PRIVATE_PAGE = "Chapter 1 Diary\nMy private diary says the lighthouse keeper paints the stairs every spring."


def _teacher():
    teacher = UserFactory()
    teacher.user_permissions.add(Permission.objects.get(codename="add_course"))
    return type(teacher).objects.get(pk=teacher.pk)  # permissions are cached per instance


@pytest.fixture
def course_world(ingest):
    teacher, learner, outsider = _teacher(), UserFactory(), UserFactory()
    course = course_create(user=teacher, title="컴퓨터 구조", language="ko")
    book = ingest(teacher, make_pdf([COURSE_PAGE]), "pipeline.pdf")
    material_publish(user=teacher, material=book, course_id=course.pk)
    diary = ingest(learner, make_pdf([PRIVATE_PAGE]), "diary.pdf")
    invitation = invitation_create(user=teacher, course_id=course.pk)
    return {
        "teacher": teacher,
        "learner": learner,
        "outsider": outsider,
        "course": course,
        "book": book,
        "diary": diary,
        "invitation": invitation,
    }


def _library_refs(user, query: str) -> set[str]:
    with rls_user(user.pk):
        return {hit.ref_id for hit in retrieve(user=user, scope=Scope.library(), query=query, k=5)}


def test_a_member_searches_the_course_material_beside_their_own_and_loses_it_on_leaving(course_world):
    learner, book, diary, course = course_world["learner"], course_world["book"], course_world["diary"], course_world["course"]
    assert _library_refs(learner, "What does a pipeline overlap?") == {diary.ref_id}  # not a member yet
    course_join(user=learner, code=course_world["invitation"].code.lower())
    assert book.ref_id in _library_refs(learner, "What does a pipeline overlap?")
    with rls_user(learner.pk):
        assert read_material(user=learner, ref_id=book.ref_id).pk == book.pk
    # The outsider and the teacher see what they should: the teacher never the learner's diary.
    assert _library_refs(course_world["outsider"], "What does a pipeline overlap?") == set()
    assert diary.ref_id not in _library_refs(course_world["teacher"], "lighthouse keeper diary stairs")
    with rls_user(course_world["teacher"].pk), pytest.raises(MaterialNotFound):
        read_material(user=course_world["teacher"], ref_id=diary.ref_id)
    course_leave(user=learner, course_id=course.pk)
    assert _library_refs(learner, "What does a pipeline overlap?") == {diary.ref_id}
    with rls_user(learner.pk), pytest.raises(MaterialNotFound):
        read_material(user=learner, ref_id=book.ref_id)


def test_a_removed_member_loses_the_course_at_once(course_world):
    learner, teacher, course, book = course_world["learner"], course_world["teacher"], course_world["course"], course_world["book"]
    course_join(user=learner, code=course_world["invitation"].code)
    member_remove(user=teacher, course_id=course.pk, member_id=learner.pk)
    with rls_user(learner.pk):
        assert not Material.objects.for_reader(learner).filter(pk=book.pk).exists()
        assert not Chunk.objects.unscoped().filter(material=book).exists()  # the database agrees


def test_row_level_security_lets_members_read_course_rows_and_never_write_them(course_world):
    learner, book = course_world["learner"], course_world["book"]
    with rls_user(learner.pk):
        assert Chunk.objects.unscoped().filter(material=book).count() == 0
    course_join(user=learner, code=course_world["invitation"].code)
    with rls_user(learner.pk):
        assert Chunk.objects.unscoped().filter(material=book).count() == book.chunk_count > 0
        assert Material.objects.unscoped().filter(pk=book.pk).update(title="defaced") == 0  # read, never write
        assert Chunk.objects.unscoped().filter(material=book).delete()[0] == 0
    assert Material.objects.unscoped().get(pk=book.pk).title != "defaced"


def test_a_learner_cannot_write_a_membership_by_hand(course_world):
    learner, course = course_world["learner"], course_world["course"]
    with rls_user(learner.pk), pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
        Membership.objects.create(course=course, user=learner, course_owner_id=course.owner_id)
    assert not Membership.objects.unscoped().filter(user=learner).exists()


def test_a_fresh_session_without_a_learner_sees_no_course_rows(course_world):
    course_join(user=course_world["learner"], code=course_world["invitation"].code)
    params = connection.get_connection_params()
    with psycopg.connect(
        dbname=params["dbname"], user=params["user"], host=params.get("host"), port=params.get("port"), autocommit=True
    ) as session:
        for table in ("courses_course", "courses_membership", "courses_invitation", "knowledge_material", "knowledge_chunk"):
            assert session.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        session.execute("SELECT set_config('baeum.rls_user', %s, false)", [str(course_world["learner"].pk)])
        # The learner's own diary, and the course's book through the membership.
        assert session.execute("SELECT count(*) FROM knowledge_material").fetchone()[0] == 2
        assert session.execute("SELECT count(*) FROM courses_invitation").fetchone()[0] == 0  # the teacher's rows
        assert session.execute("SELECT count(*) FROM courses_course").fetchone()[0] == 1


def test_invitations_that_expired_were_revoked_or_name_another_address_are_refused_alike(course_world):
    teacher, learner, course = course_world["teacher"], course_world["learner"], course_world["course"]
    expired = invitation_create(user=teacher, course_id=course.pk)
    Invitation.objects.unscoped().filter(pk=expired.pk).update(expires_at=timezone.now() - timedelta(minutes=1))
    revoked = invitation_revoke(user=teacher, course_id=course.pk, code=invitation_create(user=teacher, course_id=course.pk).code)
    personal = invitation_create(user=teacher, course_id=course.pk, email="someone.else@example.com")
    messages = set()
    for code in (expired.code, revoked.code, personal.code, "NOSUCH23"):
        with pytest.raises(InvitationInvalid) as refused:
            course_join(user=learner, code=code)
        messages.add(str(refused.value))
    assert len(messages) == 1  # one answer: a code cannot be probed
    assert not Membership.objects.unscoped().filter(user=learner).exists()
    # Joining twice keeps one membership and counts one use.
    first = course_join(user=learner, code=course_world["invitation"].code)
    assert course_join(user=learner, code=course_world["invitation"].code).pk == first.pk
    assert Invitation.objects.unscoped().get(pk=course_world["invitation"].pk).uses == 1


def test_only_teachers_make_courses_and_only_the_owner_manages_one(course_world):
    learner, outsider, course = course_world["learner"], course_world["outsider"], course_world["course"]
    with pytest.raises(NotATeacher):
        course_create(user=learner, title="Mine")
    course_join(user=learner, code=course_world["invitation"].code)
    other_teacher = _teacher()
    for stranger in (learner, outsider, other_teacher):  # a member, a stranger, a teacher of another course
        with rls_user(stranger.pk):
            with pytest.raises(NotFound):
                course_selectors.roster(user=stranger, course_id=course.pk)
            with pytest.raises(NotFound):
                invitation_create(user=stranger, course_id=course.pk)
            with pytest.raises(NotFound):
                member_remove(user=stranger, course_id=course.pk, member_id=learner.pk)
            with pytest.raises(MaterialNotFound):
                material_publish(user=stranger, material=course_world["book"], course_id=course.pk)
    with rls_user(course_world["teacher"].pk):
        assert [m.user_id for m in course_selectors.roster(user=course_world["teacher"], course_id=course.pk)] == [learner.pk]
    with rls_user(learner.pk):
        assert [c.pk for c in course_selectors.course_list(user=learner)] == [course.pk]
    with rls_user(outsider.pk):
        assert list(course_selectors.course_list(user=outsider)) == []
