"""The date an account's email address was confirmed. Accounts made before count as confirmed (they signed
up when no confirmation was asked), so turning BAEUM_REQUIRE_EMAIL_VERIFICATION on locks nobody out."""

from django.db import migrations, models
from django.db.models import F


def confirm_existing(apps, schema_editor):
    apps.get_model("accounts", "User").objects.update(email_verified_at=F("date_joined"))


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0004_content_managers_group"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="email_verified_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(confirm_existing, migrations.RunPython.noop),
    ]
