"""Row-level security fails closed: every owned table's policy is replaced by one that matches no row
when ``baeum.rls_user`` is unset or empty (see accounts/rls.py). Earlier policies let such sessions
through; databases made from now on get the closed policy from the apps' own migrations already."""

from django.db import migrations

from accounts.rls import OWNED_TABLES, enable_sql

_OPEN = (
    "coalesce(current_setting('baeum.rls_user', true), '') = '' OR "
    "owner_id = NULLIF(current_setting('baeum.rls_user', true), '')::bigint"
)


def _open_sql(table: str) -> list[str]:
    return [
        f"DROP POLICY IF EXISTS tenant_isolation ON {table}",
        f"CREATE POLICY tenant_isolation ON {table} USING ({_OPEN}) WITH CHECK ({_OPEN})",
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0001_initial"),
        ("knowledge", "0004_row_level_security"),
        ("plans", "0005_study_loop_row_level_security"),
        ("chat", "0004_row_level_security"),
    ]

    operations = [
        migrations.RunSQL(sql=enable_sql(table), reverse_sql=_open_sql(table))
        for tables in OWNED_TABLES.values()
        for table in tables
    ]
