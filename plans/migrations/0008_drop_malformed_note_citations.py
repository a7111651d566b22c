"""Citations saved before notes checked their refId (``a/b`` broke the notes page: its link cannot be
made): dropped, the rest of each note kept."""

from django.db import migrations

from accounts.rls import for_each_learner

SHAPE = "'^[A-Za-z0-9_-]{1,32}$'"  # plans.services.notes.REF_ID_SHAPE
DROP = f"""
    UPDATE plans_note SET citations = (
        SELECT coalesce(jsonb_agg(item ORDER BY position), '[]'::jsonb)
        FROM jsonb_array_elements(citations) WITH ORDINALITY AS kept(item, position)
        WHERE coalesce(item ->> 'refId', '') ~ {SHAPE}
    )
    WHERE jsonb_typeof(citations) = 'array' AND EXISTS (
        SELECT 1 FROM jsonb_array_elements(citations) AS cited(item) WHERE NOT coalesce(item ->> 'refId', '') ~ {SHAPE}
    )
"""


class Migration(migrations.Migration):
    dependencies = [("plans", "0007_planmaterial_material")]
    operations = [migrations.RunPython(for_each_learner(DROP), migrations.RunPython.noop)]
