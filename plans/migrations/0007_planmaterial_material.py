"""A plan's snapshot rows point at their material (null once it is deleted): removal is recorded by the
database, not discovered by comparing refIds with the library at read time. Existing rows are linked to
their material when it still exists; those whose material is gone stay null, i.e. removed."""

import django.db.models.deletion
from django.db import migrations, models

from accounts.rls import for_each_learner

FILL = """
    UPDATE plans_planmaterial p SET material_id = m.id
    FROM knowledge_material m
    WHERE m.ref_id = p.ref_id AND m.owner_id = p.owner_id
"""




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
        migrations.RunPython(for_each_learner(FILL), migrations.RunPython.noop),
    ]
