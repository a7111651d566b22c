"""Create the "Content managers" group (see accounts/content_managers.py)."""

from django.db import migrations


# The group's permissions when this migration was written (later apps' permissions do not exist yet here).
PERMISSIONS = {
    "knowledge": ["view_material", "add_material", "change_material", "view_chunk"],
    "plans": ["view_plan", "change_plan", "view_module", "view_studysession"],
    "chat": ["view_conversation", "change_conversation", "view_message"],
    "accounts": ["view_user"],
}


def create_group(apps, schema_editor):
    from accounts.content_managers import content_managers_group_sync

    content_managers_group_sync(apps=apps, permissions=PERMISSIONS)


def delete_group(apps, schema_editor):
    from accounts.content_managers import GROUP_NAME

    apps.get_model("auth", "Group").objects.filter(name=GROUP_NAME).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0003_device_tokens"),
        ("auth", "0012_alter_user_first_name_max_length"),
        ("contenttypes", "0002_remove_content_type_name"),
        ("knowledge", "0009_matter"),
        ("plans", "0005_study_loop_row_level_security"),
        ("chat", "0005_conversation_sources"),
    ]

    operations = [migrations.RunPython(create_group, delete_group)]
