"""Row-level security on the knowledge app's user-owned tables (see accounts/rls.py)."""

from django.db import migrations

from accounts.rls import OWNED_TABLES, disable_sql, enable_sql


class Migration(migrations.Migration):
    dependencies = [("knowledge", "0003_lexical_index")]

    operations = [
        migrations.RunSQL(sql=enable_sql(table), reverse_sql=disable_sql(table)) for table in OWNED_TABLES["knowledge"]
    ]
