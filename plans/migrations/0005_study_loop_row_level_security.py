"""Row-level security on the study loop's tables (see accounts/rls.py)."""

from django.db import migrations

from accounts.rls import disable_sql, enable_sql

TABLES = ["plans_card", "plans_review", "plans_note"]


class Migration(migrations.Migration):
    dependencies = [("plans", "0004_study_loop")]

    operations = [migrations.RunSQL(sql=enable_sql(table), reverse_sql=disable_sql(table)) for table in TABLES]
