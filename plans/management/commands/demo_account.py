"""`manage.py demo_account`: the demo learner with something to study from the first minute.

Creates (or resets the password of) the demo learner, ingests the sample study guides that ship in
``demo/`` (English and Korean, written for Baeum) in this process, and builds a plan for each, so a
newcomer can open a session and ask the tutor as soon as the site answers. Idempotent: a material
already READY with the same content and a plan already made are kept. Refused outside local settings
(the demo login is published), unless ``--force``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandError

from accounts.services import user_token_issue
from knowledge.models import Material
from knowledge.services.ingest import material_ingest
from knowledge.services.materials import material_create
from plans.models import Plan
from plans.services.plans import plan_create, plan_generate

DEMO_EMAIL = "demo@baeum.local"
DEMO_PASSWORD = "baeum-demo-2026"  # noqa: S105 - the published demo login of a local install
DEMO_DIR = Path(settings.BASE_DIR) / "demo"
DEMO_FILES = [("how-we-learn.md", "How We Learn"), ("우리는-어떻게-배우는가.md", "우리는 어떻게 배우는가")]
DEMO_MINUTES_PER_SESSION = 10  # the guides are short: a few sessions each


class Command(BaseCommand):
    help = "Create (or reset) the demo learner with the sample study guides READY and a plan for each."

    def add_arguments(self, parser):
        parser.add_argument("--force", action="store_true", help="also outside local settings (the login is public!)")
        parser.add_argument("--no-materials", action="store_true", help="only the account, no sample materials")

    def handle(self, *args, **options):
        if not settings.DEMO_ACCOUNT_ALLOWED and not options["force"]:
            raise CommandError("The demo account is for local installs only (its password is published); pass --force to create it anyway.")
        User = get_user_model()
        user = User.objects.filter(email=DEMO_EMAIL).first() or User.objects.create_user(email=DEMO_EMAIL, password=DEMO_PASSWORD)
        user.set_password(DEMO_PASSWORD)
        user.save(update_fields=["password"])
        token = user_token_issue(user=user)
        if not options["no_materials"]:
            for filename, title in DEMO_FILES:
                material = self._material(user, filename, title)
                if material.status == Material.Status.READY:
                    self._plan(user, material)
        self.stdout.write(f"Demo learner: {DEMO_EMAIL} / {DEMO_PASSWORD}   API token: {token}")

    def _material(self, user, filename: str, title: str) -> Material:
        data = (DEMO_DIR / filename).read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        existing = Material.objects.for_user(user).filter(sha256=digest).exclude(status=Material.Status.FAILED).first()
        if existing is not None:
            return existing
        material = material_create(owner=user, upload=SimpleUploadedFile(filename, data), title=title, enqueue=False)
        self.stdout.write(f"Preparing the sample material “{title}”…")
        material_ingest(material_id=material.pk)  # queues the background quality upgrade, as the worker does
        material.refresh_from_db()
        if material.status != Material.Status.READY:
            self.stderr.write(f"The sample material “{title}” failed: {material.error_message}")
        return material

    def _plan(self, user, material: Material) -> None:
        if Plan.objects.for_user(user).filter(snapshot__ref_id=material.ref_id).exists():
            return
        plan = plan_create(
            owner=user, title=material.title, ref_ids=[material.ref_id], minutes_per_session=DEMO_MINUTES_PER_SESSION, enqueue=False
        )
        plan_generate(plan_id=plan.pk)
        self.stdout.write(f"Made the plan “{plan.title}”.")
