"""Each material records whether it is written in Korean (most of its chunks mostly Hangul, as
``baeum.language.text.written_in_korean`` decides at ingestion). Filled for existing materials from their first 200
chunks, learner by learner (``migrate`` runs with no learner set, under which owned tables show no rows)."""

from django.db import migrations, models

from accounts.rls import for_each_learner

FILL = """
    UPDATE knowledge_material m SET korean = sample.heavy * 2 > sample.chunks
    FROM (
        SELECT c.material_id,
               count(*) AS chunks,
               count(*) FILTER (WHERE 10 * length(regexp_replace(c.content, '[^가-힣]', '', 'g'))
                                   >= 3 * length(regexp_replace(c.content, '[^가-힣A-Za-z]', '', 'g'))
                                  AND c.content ~ '[가-힣A-Za-z]') AS heavy
        FROM knowledge_chunk c
        WHERE c.chunk_index < 200
        GROUP BY c.material_id
    ) AS sample
    WHERE sample.material_id = m.id
"""


class Migration(migrations.Migration):
    dependencies = [
        ("knowledge", "0011_chunk_note_spans"),
    ]

    operations = [
        migrations.AddField(
            model_name="material",
            name="korean",
            field=models.BooleanField(blank=True, null=True),
        ),
        migrations.RunPython(for_each_learner(FILL), migrations.RunPython.noop),
    ]
