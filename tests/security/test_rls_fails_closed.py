"""The database wall fails closed: a session that says no learner sees no learner's rows.

Issue 18 found the policy let everything through when ``baeum.rls_user`` was empty or unset: a fresh
session as the application role saw every tenant, and workers and commands ran with no setting.
"""

import psycopg
import pytest
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import DatabaseError, connection, transaction

from accounts.rls import all_owned_tables, current, rls_owner_of, rls_system, rls_user
from accounts.scoping import UnscopedQueryError
from knowledge.models import Chunk, Material
from plans.models import Plan
from tests.pdfgen import make_pdf

# transaction=True: fresh sessions of other roles must see (or not see) committed rows.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def two_libraries(user, other_user, ingest):
    mine = ingest(user, make_pdf(["Chapter 1 Mine\nMy notes about registers."]), "mine.pdf")
    theirs = ingest(other_user, make_pdf(["Chapter 1 Theirs\nTheir notes about caches."]), "theirs.pdf")
    return mine, theirs


def _fresh_session():
    """A new connection as the application role, exactly as a forgotten code path would get one."""
    params = connection.get_connection_params()
    return psycopg.connect(dbname=params["dbname"], user=params["user"], host=params.get("host"), port=params.get("port"), autocommit=True)


def _owned_tables():
    return all_owned_tables()


def test_a_fresh_session_with_the_setting_unset_or_empty_sees_no_rows(two_libraries):
    with _fresh_session() as session:
        assert session.execute("SELECT current_setting('baeum.rls_user', true)").fetchone()[0] in (None, "")
        for table in _owned_tables():
            assert session.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
        session.execute("SELECT set_config('baeum.rls_user', '', false)")
        assert session.execute("SELECT count(*) FROM knowledge_chunk").fetchone()[0] == 0
        # Still 2 materials for a session that names its learner: the rows are there.
        mine, _ = two_libraries
        session.execute("SELECT set_config('baeum.rls_user', %s, false)", [str(mine.owner_id)])
        assert session.execute("SELECT count(*) FROM knowledge_material").fetchone()[0] == 1


def test_a_session_without_a_learner_cannot_write_rows(user):
    with rls_user(None), pytest.raises(DatabaseError, match="row-level security"), transaction.atomic():
        Material.objects.create(owner=user, title="planted", original_filename="x.pdf", extension=".pdf")
    assert not Material.objects.unscoped().filter(title="planted").exists()


def test_every_owned_table_has_the_closed_policy_forced():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_expr(p.polqual, p.polrelid), "
            "pg_get_expr(p.polwithcheck, p.polrelid) FROM pg_class c "
            "JOIN pg_policy p ON p.polrelid = c.oid AND p.polname = 'tenant_isolation' WHERE c.relname = ANY(%s)",
            [_owned_tables()],
        )
        rows = {name: (enabled, forced, qual, check) for name, enabled, forced, qual, check in cursor.fetchall()}
    assert set(rows) == set(_owned_tables())
    for name, (enabled, forced, qual, check) in rows.items():
        assert enabled and forced, name
        assert "coalesce" not in qual.lower() and " or " not in qual.lower(), (name, qual)
        assert qual == check, name


def test_the_system_role_bypasses_and_the_application_role_does_not():
    with connection.cursor() as cursor:
        cursor.execute("SELECT rolbypassrls, rolsuper FROM pg_roles WHERE rolname = session_user")
        assert cursor.fetchone() == (False, False)
        cursor.execute("SELECT rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = %s", [settings.BAEUM_DB_SYSTEM_ROLE])
        assert cursor.fetchone() == (True, False)


def test_contexts_nest_and_restore(user, other_user, two_libraries):
    assert current().kind == "system"  # the tests' default (settings.test)
    with rls_user(user.pk):
        assert set(Material.objects.unscoped().values_list("owner_id", flat=True)) == {user.pk}
        with rls_system(why="the test looks at every tenant"):
            assert Material.objects.unscoped().count() == 2
        assert Material.objects.unscoped().count() == 1
        with rls_user(None):
            assert Material.objects.unscoped().count() == 0
        assert Material.objects.unscoped().count() == 1
    assert Material.objects.unscoped().count() == 2


def test_a_new_connection_inherits_the_threads_context(user, two_libraries):
    with rls_user(user.pk):
        connection.close()
        assert set(Material.objects.unscoped().values_list("owner_id", flat=True)) == {user.pk}


def test_rls_system_needs_a_reason():
    with pytest.raises(ValueError, match="why"):
        rls_system(why="")


# --- The owned-model manager refuses to read without an owner --------------------------------


def test_the_default_manager_refuses_a_bare_read_outside_the_system_context(user, two_libraries):
    mine, _ = two_libraries
    with rls_user(user.pk):
        with pytest.raises(UnscopedQueryError):
            list(Material.objects.filter(pk=mine.pk))
        with pytest.raises(UnscopedQueryError):
            Material.objects.filter(pk=mine.pk).values_list("title", flat=True).first()
        with pytest.raises(UnscopedQueryError):
            Chunk.objects.count()
        with pytest.raises(UnscopedQueryError):
            Material.objects.filter(pk=mine.pk).update(title="x")
        with pytest.raises(UnscopedQueryError):
            Material.objects.all().delete()
        with pytest.raises(UnscopedQueryError):
            Material.objects.exists()
        # The ways in that say whose rows they want work.
        assert list(Material.objects.for_user(user).values_list("pk", flat=True)) == [mine.pk]
        assert Material.objects.unscoped().filter(pk=mine.pk).exists()  # the test's own row
        assert mine.chunks.count() == Chunk.objects.for_user(user).filter(material=mine).count() > 0  # through a row in scope
    with rls_user(None), pytest.raises(UnscopedQueryError):
        Material.objects.first()


# --- Workers act as the owner of the row they were given ------------------------------------


def test_tasks_run_under_the_owners_setting_from_a_closed_worker(user, other_user):
    from knowledge.services.materials import material_create
    from knowledge.tasks import ingest_material

    material = material_create(
        owner=other_user,
        upload=SimpleUploadedFile("n.pdf", make_pdf(["Chapter 1 Theirs\nTheir notes about caches and registers."])),
        enqueue=False,
    )
    with rls_user(None):  # a worker process: closed by default
        ingest_material.apply(args=[material.pk]).get()  # (and the OCR stage it may queue, eagerly)
    material.refresh_from_db()
    assert material.status == "READY" and material.chunk_count > 0


def test_rls_owner_of_limits_the_task_to_that_owner(user, other_user, two_libraries):
    mine, theirs = two_libraries
    with rls_user(None), rls_owner_of(Material, mine.pk) as owner_id:
        assert owner_id == user.pk
        assert list(Material.objects.unscoped().values_list("pk", flat=True)) == [mine.pk]
        with pytest.raises(DatabaseError), transaction.atomic():
            Material.objects.unscoped().filter(pk=mine.pk).update(owner_id=other_user.pk)
    with rls_user(None), rls_owner_of(Plan, 10**9) as owner_id:
        assert owner_id is None
        assert Material.objects.unscoped().count() == 0


def test_the_application_role_owns_no_table_and_cannot_lift_row_level_security():
    from django.db import ProgrammingError

    if not settings.BAEUM_DB_OWNER_ROLE:
        pytest.skip("migrations run as the application role (no BAEUM_DB_OWNER_ROLE)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
        assert {row[0] for row in cursor.fetchall()} == {settings.BAEUM_DB_OWNER_ROLE}
    for context in (rls_user(None), rls_system(why="the system role owns nothing either")):
        with context:
            for statement in (
                "ALTER TABLE knowledge_material NO FORCE ROW LEVEL SECURITY",
                "DROP POLICY tenant_isolation ON knowledge_chunk",
            ):
                with pytest.raises(ProgrammingError, match="must be owner"), transaction.atomic(), connection.cursor() as cursor:
                    cursor.execute(statement)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_has_role(session_user, %s, 'MEMBER')", [settings.BAEUM_DB_OWNER_ROLE])
        assert cursor.fetchone()[0] is False  # and cannot become the owner
