"""A plan's snapshot rows point at their material (null once it is deleted): removal is recorded by the
database, not discovered by comparing refIds with the library at read time. Existing rows are linked to
their material when it still exists; those whose material is gone stay null, i.e. removed."""

import django.db.models.deletion
from django.db import migrations, models

FILL = """
    UPDATE plans_planmaterial p SET material_id = m.id
    FROM knowledge_material m
    WHERE m.ref_id = p.ref_id AND m.owner_id = p.owner_id
"""


def _for_each_owner(statement: str):
    """Run ``statement`` once per learner with row-level security narrowed to that learner: ``migrate``
    runs with no learner set, under which the owned tables show no rows (see accounts/rls.py)."""

    def run(apps, schema_editor):
        with schema_editor.connection.cursor() as cursor:
            cursor.execute("SELECT id FROM accounts_user ORDER BY id")
            for (user_id,) in cursor.fetchall():
                cursor.execute("SELECT set_config('baeum.rls_user', %s, true)", [str(user_id)])
                cursor.execute(statement)
            cursor.execute("SELECT set_config('baeum.rls_user', '', true)")

    return run


class Migration(migrations.Migration):

    dependencies = [
        ('knowledge', '0009_matter'),
        ('plans', '0006_session_status_labels'),
    ]

    operations = [
        migrations.AddField(
            model_name='planmaterial',
            name='material',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='knowledge.material'),
        ),
        migrations.RunPython(_for_each_owner(FILL), migrations.RunPython.noop),
    ]
