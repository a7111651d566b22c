"""Django's ``migrate``, always as the role that owns the tables.

With ``BAEUM_DB_OWNER_ROLE`` (the embedded server's ``baeum_owner``) migrations connect as that role,
so the tables belong to it and the application role only gets DML on them (it cannot ``ALTER TABLE``,
for instance to lift row-level security). Without it they run as the application role. Either way
never in the system context (``SET ROLE baeum_system``: tables created under it would belong to that
role) and with no learner setting: a data migration on user-owned rows sees none of them unless it
says whose rows it wants (``rls_system(why=...)`` around its queries).
"""

from django.core.management.commands.migrate import Command as DjangoMigrateCommand
from django.db import connections

from accounts import rls


class Command(DjangoMigrateCommand):
    def handle(self, *args, **options):
        with rls.owner_session(connections[options["database"]]):
            return super().handle(*args, **options)
