"""Each material keeps the sum of its chunks' term counts, so BM25 reads a library's average chunk length
from its material rows instead of counting every chunk at each query. Filled for existing materials,
learner by learner (``migrate`` runs with no learner set, under which owned tables show no rows)."""

from django.db import migrations, models

from accounts.rls import for_each_learner

FILL = """
    UPDATE knowledge_material m SET term_total = coalesce(
        (SELECT sum(c.term_count) FROM knowledge_chunk c WHERE c.material_id = m.id), 0)
"""


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
        migrations.RunPython(for_each_learner(FILL), migrations.RunPython.noop),
    ]
