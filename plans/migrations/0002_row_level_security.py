"""Row-level security on the plans app's user-owned tables (see accounts/rls.py)."""

from django.db import migrations

from accounts.rls import disable_sql, enable_sql

# The tables of this migration, written out: later tables get their own migration.
TABLES = ["plans_plan", "plans_planmaterial", "plans_module", "plans_studysession"]


class Migration(migrations.Migration):
    dependencies = [("plans", "0001_initial")]

    operations = [
        migrations.RunSQL(sql=enable_sql(table), reverse_sql=disable_sql(table)) for table in TABLES
    ]
