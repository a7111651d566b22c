"""Content managers teach: the group gains the courses app's permissions (accounts/content_managers.py)."""

from django.db import migrations


def sync_group(apps, schema_editor):
    from accounts.content_managers import content_managers_group_sync

    content_managers_group_sync(apps=apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0005_email_verification"),
        ("courses", "0001_initial"),
        ("knowledge", "0015_material_course"),
    ]

    operations = [migrations.RunPython(sync_group, migrations.RunPython.noop)]
