from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand

from accounts.services import user_token_issue

DEMO_EMAIL = "demo@baeum.local"
DEMO_PASSWORD = "baeum-demo-2026"  # noqa: S105 - the published demo login, reset on every `make run`


class Command(BaseCommand):
    help = "Create (or reset) the demo learner account and print how to sign in."

    def handle(self, *args, **options):
        User = get_user_model()
        user = User.objects.filter(email=DEMO_EMAIL).first() or User.objects.create_user(email=DEMO_EMAIL, password=DEMO_PASSWORD)
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
        token = user_token_issue(user=user)
        self.stdout.write(f"Demo learner: {DEMO_EMAIL} / {DEMO_PASSWORD}   API token: {token}")
