"""Django's ``migrate``, always as the login role that owns the tables.

Management commands start in the row-level-security system context (``SET ROLE baeum_system``); tables
created under it would belong to that role. Migrations therefore run with the connection's own role
and no learner setting, whatever context the process is in.
"""

from django.core.management.commands.migrate import Command as DjangoMigrateCommand
from django.db import connections

from accounts import rls


class Command(DjangoMigrateCommand):
    def handle(self, *args, **options):
        database = connections[options["database"]]
        database.baeum_owner_session = True
        if database.connection is not None:
            rls.apply_login_role(database)
        try:
            return super().handle(*args, **options)
        finally:
            database.baeum_owner_session = False
            if database.connection is not None:
                rls.reapply(database)
