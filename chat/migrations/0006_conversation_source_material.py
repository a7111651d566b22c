"""A conversation's chosen materials as rows with a foreign key to the material (null once it is deleted):
removal is recorded by the database, not discovered by comparing refIds with the library at read time.
Existing conversations over chosen materials get a row for each refId they hold, linked to the material
when it still exists (a conversation over all materials follows the library and has none)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

from accounts.rls import disable_sql, enable_sql, for_each_learner

TABLE = "chat_conversationsource"

FILL = """
    INSERT INTO chat_conversationsource (conversation_id, owner_id, ref_id, title, material_id, position)
    SELECT c.id, c.owner_id, r.ref_id, left(coalesce(c.material_titles ->> r.ref_id, m.title, ''), 300), m.id, r.position - 1
    FROM chat_conversation c
    CROSS JOIN LATERAL unnest(c.ref_ids) WITH ORDINALITY AS r(ref_id, position)
    LEFT JOIN knowledge_material m ON m.ref_id = r.ref_id AND m.owner_id = c.owner_id
    WHERE NOT c.all_materials
    ON CONFLICT DO NOTHING
"""




class Migration(migrations.Migration):

    dependencies = [
        ('chat', '0005_conversation_sources'),
        ('knowledge', '0009_matter'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='ConversationSource',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('ref_id', models.CharField(max_length=32)),
                ('title', models.CharField(blank=True, max_length=300)),
                ('position', models.PositiveIntegerField()),
                ('conversation', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sources', to='chat.conversation')),
                ('material', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to='knowledge.material')),
                ('owner', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
            ],
            options={
                'ordering': ['conversation', 'position'],
                'constraints': [models.UniqueConstraint(fields=('conversation', 'ref_id'), name='unique_source_per_conversation')],
            },
        ),
        migrations.RunSQL(sql=enable_sql(TABLE), reverse_sql=disable_sql(TABLE)),
        migrations.RunPython(for_each_learner(FILL), migrations.RunPython.noop),
    ]
