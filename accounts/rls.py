"""Row-level security: the database wall under the ORM's ``for_user`` scoping, closed unless opened.

Each user-owned table has a policy that lets a session see and write only rows whose ``owner_id``
equals the session setting ``baeum.rls_user``. Unset or empty, the setting matches no row: a fresh
session, a worker or a command that forgot to say whose work it does sees nothing and writes nothing.
FORCE applies the policy to the tables' owner too; superusers always bypass it, so the application
connects as an ordinary role (see ``baeum.runtime``).

A connection is in one of three contexts, tracked per thread and re-applied to every new connection:

- ``rls_user(user_id)``: one learner's rows. Web requests (``config.middleware``), Celery tasks working
  for one learner (``rls_owner_of``), commands acting for one learner.
- ``rls_system(why=...)``: every row, through ``SET ROLE`` to a role with BYPASSRLS (``baeum_system``).
  Only the staff admin, operator commands and a task's first look-up of whose row an id names; each
  call says why. The application role can become it, so this guards against forgetting, not against
  SQL written by an attacker (the ORM never builds such SQL from input).
- closed (no user): nothing. The default in the web server and the workers.

Management commands start in the system context (an operator at this machine's shell, who could
connect as the superuser anyway), tests too (fixtures write every tenant's rows); requests and tasks
inside them still narrow it to one learner.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from django.db import DatabaseError, connection
from django.db.backends.base.base import NO_DB_ALIAS
from django.db.backends.signals import connection_created

SETTING = "baeum.rls_user"
OWNED_TABLES = {
    "knowledge": ["knowledge_material", "knowledge_materialpage", "knowledge_chunk", "knowledge_chunkembedding", "knowledge_chunkterm"],
    "plans": ["plans_plan", "plans_planmaterial", "plans_module", "plans_studysession", "plans_card", "plans_review", "plans_note"],
    "chat": ["chat_conversation", "chat_message"],
}
# Owned tables made after the migrations that read the lists above (each enables row-level security in its
# own migration; adding it above would make those older migrations reach for a table not made yet).
LATER_OWNED_TABLES = {
    "chat": ["chat_conversationsource"],
    "knowledge": ["knowledge_gloss", "knowledge_removedmaterial", "knowledge_vocabularyword"],
    "plans": ["plans_sessionprogress"],
    "courses": ["courses_course", "courses_invitation", "courses_membership", "courses_feedback"],
}
# The column naming a row's owner, where it is not ``owner_id``: a membership belongs to the course's owner
# (the learner it names reads and deletes it through the ``member_self`` policies, ``course_member_sql``).
OWNER_COLUMN = {"courses_membership": "course_owner_id"}


def all_owned_tables() -> list[str]:
    """Every table of user-owned rows, each under the fail-closed policy."""
    return [table for group in (OWNED_TABLES, LATER_OWNED_TABLES) for tables in group.values() for table in tables]


# No setting, or an empty one, matches nothing (NULL = owner_id is never true): the wall fails closed.
CURRENT_USER_SQL = f"NULLIF(current_setting('{SETTING}', true), '')::bigint"
_CONDITION = f"owner_id = {CURRENT_USER_SQL}"
# The courses the session's learner belongs to (through ``courses_membership``'s ``member_self`` policy).
MEMBER_COURSES_SQL = f"SELECT m.course_id FROM courses_membership m WHERE m.user_id = {CURRENT_USER_SQL}"
DEFAULT_SYSTEM_ROLE = "baeum_system"


def for_each_learner(statement: str):
    """A data migration's step (``RunPython``) running ``statement`` once per learner, with row-level
    security narrowed to that learner: ``migrate`` runs with no learner set, under which the owned tables
    show no rows."""

    def run(apps, schema_editor):
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT id FROM accounts_user ORDER BY id")
            for (user_id,) in cursor.fetchall():
                cursor.execute("SELECT set_config(%s, %s, true)", [SETTING, str(user_id)])
                cursor.execute(statement)
            cursor.execute("SELECT set_config(%s, '', true)", [SETTING])

    return run


def enable_sql(table: str) -> list[str]:
    condition = f"{OWNER_COLUMN.get(table, 'owner_id')} = {CURRENT_USER_SQL}"
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"CREATE POLICY tenant_isolation ON {table} USING ({condition}) WITH CHECK ({condition})",
    ]


def course_member_sql(table: str) -> list[str]:
    """A second, read-only policy: a course's members read the course and the rows of its materials.
    Policies add up (a row is visible when any admits it); writing stays the owner's alone. Like the owner's
    policy it fails closed: with no learner set, no membership matches."""
    if table == "courses_membership":
        mine = f"user_id = {CURRENT_USER_SQL}"  # a learner sees and leaves their own memberships, never makes one
        return [
            "DROP POLICY IF EXISTS member_self ON courses_membership",
            f"CREATE POLICY member_self ON courses_membership FOR SELECT USING ({mine})",
            "DROP POLICY IF EXISTS member_leaves ON courses_membership",
            f"CREATE POLICY member_leaves ON courses_membership FOR DELETE USING ({mine})",
        ]
    if table == "plans_sessionprogress":  # not the members': the course's teacher reads each learner's progress
        return [
            "DROP POLICY IF EXISTS course_teacher ON plans_sessionprogress",
            f"CREATE POLICY course_teacher ON plans_sessionprogress FOR SELECT USING (course_owner_id = {CURRENT_USER_SQL})",
        ]
    if table == "courses_course":
        condition = f"id IN ({MEMBER_COURSES_SQL})"
    elif table in ("knowledge_material", "plans_plan"):
        condition = f"course_id IN ({MEMBER_COURSES_SQL})"
    elif table.startswith("plans_"):
        condition = f"plan_id IN (SELECT pp.id FROM plans_plan pp WHERE pp.course_id IN ({MEMBER_COURSES_SQL}))"
    else:
        condition = f"material_id IN (SELECT km.id FROM knowledge_material km WHERE km.course_id IN ({MEMBER_COURSES_SQL}))"
    return [
        f"DROP POLICY IF EXISTS course_member ON {table}",
        f"CREATE POLICY course_member ON {table} FOR SELECT USING ({condition})",
    ]


def course_member_reverse_sql(table: str) -> list[str]:
    names = {"courses_membership": ["member_self", "member_leaves"], "plans_sessionprogress": ["course_teacher"]}.get(
        table, ["course_member"]
    )
    return [f"DROP POLICY IF EXISTS {name} ON {table}" for name in names]


def disable_sql(table: str) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY",
    ]


@dataclass(frozen=True)
class Context:
    kind: str  # "closed", "user", "system"
    user_id: int | None = None


CLOSED = Context("closed")
SYSTEM = Context("system")
_current: ContextVar[Context | None] = ContextVar("baeum_rls_context", default=None)
_process_default = CLOSED


def set_process_default(kind: str) -> None:
    """Choose the context of connections no request or task has narrowed ("closed" or "system")."""
    global _process_default
    if kind not in ("closed", "system"):
        raise ValueError(f"Unknown row-level security default {kind!r}: 'closed' or 'system'.")
    _process_default = Context(kind)


def current() -> Context:
    return _current.get() or _process_default


def _system_role() -> str:
    from django.conf import settings

    return getattr(settings, "BAEUM_DB_SYSTEM_ROLE", DEFAULT_SYSTEM_ROLE)


def _apply(db, context: Context) -> None:
    role = _system_role() if context.kind == "system" else "none"
    value = str(int(context.user_id)) if context.kind == "user" else ""
    with db.cursor() as cursor:
        # set_config('role', ...) is SET ROLE; 'none' returns to the login role.
        cursor.execute("SELECT set_config('role', %s, false), set_config(%s, %s, false)", [role, SETTING, value])


def _apply_to_open_connection(context: Context) -> None:
    if connection.connection is None:
        return  # the next connection gets it from ``_on_connection_created``
    _apply(connection, context)


def _restore(context: Context) -> None:
    try:
        _apply_to_open_connection(context)
    except DatabaseError:
        # A broken connection, or an aborted transaction whose rollback restores the earlier context:
        # either way a connection made from now on starts in the right one.
        if not connection.in_atomic_block:
            connection.close()


def _on_connection_created(sender, connection, **kwargs) -> None:
    if connection.alias == NO_DB_ALIAS or getattr(connection, "baeum_owner_session", False):
        return  # creating or dropping databases, migrations: the login role, untouched
    context = current()
    if context.kind != "closed":  # a new session is closed by itself
        _apply(connection, context)


def install() -> None:
    connection_created.connect(_on_connection_created, dispatch_uid="baeum-rls")


@contextmanager
def _entered(context: Context):
    token = _current.set(context)
    try:
        _apply_to_open_connection(context)
        yield
    finally:
        _current.reset(token)
        _restore(current())


def rls_user(user_id: int | None):
    """Limit this thread's database session to ``user_id``'s rows (None or 0: to nothing)."""
    return _entered(Context("user", int(user_id)) if user_id else CLOSED)


def rls_system(*, why: str):
    """Lift the limit for every tenant's rows (BYPASSRLS). ``why`` names the reason, for the reader."""
    if not why:
        raise ValueError("Say why every tenant's rows are needed.")
    return _entered(SYSTEM)


@contextmanager
def rls_owner_of(model, pk):
    """Act as the owner of ``model`` row ``pk`` (a task given an id); yield the owner's id, None if gone."""
    with rls_system(why="learn whose row an id names, before acting as that learner"):
        owner_id = model.objects.unscoped().filter(pk=pk).values_list("owner_id", flat=True).first()
    with rls_user(owner_id):
        yield owner_id


@contextmanager
def owner_session(database):
    """Connect ``database`` as the role that owns the tables (``BAEUM_DB_OWNER_ROLE``) for the block:
    ``migrate``, and benchmarks that create a throwaway schema. Without that setting, as the login role
    with no learner. Never in the system context: tables created under it would belong to that role."""
    from django.conf import settings

    owner = settings.BAEUM_DB_OWNER_ROLE
    switch = bool(owner) and not database.in_atomic_block and database.settings_dict.get("USER") != owner
    saved = {key: database.settings_dict.get(key) for key in ("USER", "PASSWORD")}
    database.baeum_owner_session = True
    if switch:
        database.close()
        database.settings_dict["USER"] = owner
        database.settings_dict["PASSWORD"] = settings.BAEUM_DB_OWNER_PASSWORD
    elif database.connection is not None:
        apply_login_role(database)
    try:
        yield
    finally:
        database.baeum_owner_session = False
        if switch:
            database.close()
            database.settings_dict.update(saved)
        elif database.connection is not None:
            reapply(database)


def reapply(db) -> None:
    """Put an open connection back in this thread's context (after ``migrate`` used the login role)."""
    _apply(db, current())


def apply_login_role(db) -> None:
    """Return an open connection to its login role with no learner (``migrate``)."""
    _apply(db, CLOSED)
