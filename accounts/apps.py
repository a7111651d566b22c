from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.conf import settings

        from . import rls, schema  # noqa: F401 - schema registers the token scheme with drf-spectacular

        rls.set_process_default(settings.BAEUM_RLS_DEFAULT)
        rls.install()
