from django.core.management.base import BaseCommand, CommandError

from accounts.content_managers import GROUP_NAME, PERMISSIONS, content_managers_group_sync
from accounts.models import User


class Command(BaseCommand):
    help = f'Create or update the "{GROUP_NAME}" group; with --add EMAIL, make those users staff members of it.'

    def add_arguments(self, parser):
        parser.add_argument("--add", nargs="*", default=[], metavar="EMAIL", help="users to make content managers (staff)")

    def handle(self, *args, **options):
        group = content_managers_group_sync()
        count = sum(len(codenames) for codenames in PERMISSIONS.values())
        self.stdout.write(f"“{GROUP_NAME}”: {count} permissions ({', '.join(sorted(PERMISSIONS))}); no user or permission admin.")
        for email in options["add"]:
            user = User.objects.filter(email__iexact=email).first()
            if user is None:
                raise CommandError(f"No user {email}.")
            User.objects.filter(pk=user.pk).update(is_staff=True)
            user.groups.add(group)
            self.stdout.write(f"{user.email} is a content manager (staff, in “{GROUP_NAME}”).")
