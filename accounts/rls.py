"""Row-level security: defence in depth under the ORM's ``for_user`` scoping.

Each user-owned table gets a policy that lets a session see and write only rows whose ``owner_id``
equals the session setting ``baeum.rls_user``. The web middleware sets it for every request (the
signed-in user's id, or 0 for anonymous), so even a query that forgets ``for_user()`` returns nothing
of anyone else's. When the setting is empty -- Celery tasks, management commands, migrations, and the
staff-only admin -- the policy lets the query through; that code reaches rows by id and scopes by owner
itself. FORCE applies the policy to the table's owner too; superusers always bypass it, so the
application connects as an ordinary role (see ``baeum.runtime``).
"""

from contextlib import contextmanager

from django.db import connection

SETTING = "baeum.rls_user"
OWNED_TABLES = {
    "knowledge": ["knowledge_material", "knowledge_materialpage", "knowledge_chunk", "knowledge_chunkembedding", "knowledge_chunkterm"],
    "plans": ["plans_plan", "plans_planmaterial", "plans_module", "plans_studysession", "plans_card", "plans_review", "plans_note"],
    "chat": ["chat_conversation", "chat_message"],
}
_CONDITION = f"coalesce(current_setting('{SETTING}', true), '') = '' OR owner_id = NULLIF(current_setting('{SETTING}', true), '')::bigint"


def enable_sql(table: str) -> list[str]:
    return [
        f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} FORCE ROW LEVEL SECURITY",
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"CREATE POLICY tenant_isolation ON {table} USING ({_CONDITION}) WITH CHECK ({_CONDITION})",
    ]


def disable_sql(table: str) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"ALTER TABLE {table} NO FORCE ROW LEVEL SECURITY",
        f"ALTER TABLE {table} DISABLE ROW LEVEL SECURITY",
    ]


def set_rls_user(user_id: int | None) -> None:
    """Limit this connection to ``user_id``'s rows (0: none); None lifts the limit (system context)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, false)", [SETTING, "" if user_id is None else str(int(user_id))])


@contextmanager
def rls_user(user_id: int | None):
    set_rls_user(user_id)
    try:
        yield
    finally:
        set_rls_user(None)
