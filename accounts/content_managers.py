"""The "Content managers" group: staff who look after learners' materials, plans and conversations in
the admin (fix a title, re-run a failed ingestion, upload a file for a learner) without managing users,
groups or permissions. Users are visible read-only, so a learner's page lists their materials and plans.

Created by migration ``accounts.0004_content_managers_group``; ``manage.py content_managers`` brings
the group up to date and can add staff to it.
"""

from django.apps import apps as global_apps
from django.contrib.auth.management import create_permissions

GROUP_NAME = "Content managers"
PERMISSIONS: dict[str, list[str]] = {  # app label → permission codenames
    "knowledge": ["view_material", "add_material", "change_material", "view_chunk"],
    "plans": ["view_plan", "change_plan", "view_module", "view_studysession"],
    "chat": ["view_conversation", "change_conversation", "view_message"],
    "accounts": ["view_user"],
    # Teachers: a content manager makes courses, publishes materials in them and invites learners (issue #31).
    "courses": [
        "add_course",
        "view_course",
        "change_course",
        "delete_course",
        "view_membership",
        "add_membership",
        "change_membership",
        "delete_membership",
        "view_invitation",
        "add_invitation",
        "change_invitation",
        "delete_invitation",
    ],
}


def content_managers_group_sync(*, apps=global_apps, permissions: dict[str, list[str]] | None = None):
    """Create or update the group so it holds exactly ``permissions`` (default ``PERMISSIONS``); return it.
    A migration passes the list of its own time: a later app's permissions cannot exist yet when it runs.

    ``apps`` is a migration's historical registry or the live one. Permissions are created first when
    missing: Django makes them after ``migrate``, later than a migration on a new database runs.
    """
    permissions = PERMISSIONS if permissions is None else permissions
    for label in permissions:
        config = apps.get_app_config(label)
        models_module = getattr(config, "models_module", None)
        config.models_module = models_module or True  # a migration's configs have none; create_permissions skips those
        try:
            create_permissions(config, apps=apps, verbosity=0)
        finally:
            config.models_module = models_module
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    group, _ = group_model.objects.get_or_create(name=GROUP_NAME)
    wanted = []
    for label, codenames in permissions.items():
        found = list(permission_model.objects.filter(content_type__app_label=label, codename__in=codenames))
        missing = set(codenames) - {permission.codename for permission in found}
        if missing:
            raise LookupError(f"Permissions missing for {label}: {sorted(missing)}")
        wanted += found
    group.permissions.set(wanted)
    return group
