"""Each material keeps the sum of its chunks' term counts, so BM25 reads a library's average chunk length
from its material rows instead of counting every chunk at each query. Filled for existing materials,
learner by learner (``migrate`` runs with no learner set, under which owned tables show no rows)."""

from django.db import migrations, models

FILL = """
    UPDATE knowledge_material m SET term_total = coalesce(
        (SELECT sum(c.term_count) FROM knowledge_chunk c WHERE c.material_id = m.id), 0)
"""


def fill(apps, schema_editor):
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT id FROM accounts_user ORDER BY id")
        for (user_id,) in cursor.fetchall():
            cursor.execute("SELECT set_config('baeum.rls_user', %s, true)", [str(user_id)])
            cursor.execute(FILL)
        cursor.execute("SELECT set_config('baeum.rls_user', '', true)")


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0009_matter"),
    ]

    operations = [
        migrations.AddField(
            model_name="material",
            name="term_total",
            field=models.BigIntegerField(default=0),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
