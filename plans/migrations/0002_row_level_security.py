"""Row-level security on the plans app's user-owned tables (see accounts/rls.py)."""

from django.db import migrations

from accounts.rls import OWNED_TABLES, disable_sql, enable_sql


class Migration(migrations.Migration):
    dependencies = [("plans", "0001_initial")]

    operations = [
        migrations.RunSQL(sql=enable_sql(table), reverse_sql=disable_sql(table)) for table in OWNED_TABLES["plans"]
    ]
