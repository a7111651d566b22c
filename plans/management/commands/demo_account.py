"""`manage.py demo_account`: the demo learner with something to study from the first minute.

Creates (or resets the password of) the demo learner, ingests the sample study guides that ship in
``demo/`` (English and Korean, written for Baeum) in this process, and builds a plan for each, so a
newcomer can open a session and ask the tutor as soon as the site answers. Also a demo teacher (a content
manager) with a course over the Korean guide, its plan and an invitation code to join it with. Idempotent:
a material already READY with the same content, a plan, a course and a usable code already made are kept.
Refused outside local settings (the demo logins are published), unless ``--force``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from accounts.content_managers import content_managers_group_sync
from accounts.services import user_token_issue
from courses.models import Course, Invitation
from courses.services import course_create, invitation_create
from knowledge.models import Material
from knowledge.services.ingest import material_ingest
from knowledge.services.materials import material_create, material_publish
from plans.models import Plan
from plans.services.course_plans import course_plan_create
from plans.services.plans import plan_create, plan_generate

DEMO_EMAIL = "demo@baeum.local"
DEMO_TEACHER_EMAIL = "teacher@baeum.local"
DEMO_COURSE_TITLE = "우리는 어떻게 배우는가 (데모 강좌)"
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
        if not options["no_materials"]:
            code = self._course(User)
            if code:
                self.stdout.write(f"Demo teacher: {DEMO_TEACHER_EMAIL} / {DEMO_PASSWORD}   course “{DEMO_COURSE_TITLE}”, join code {code}")

    def _course(self, User) -> str:
        """The demo teacher's course over the Korean guide (their own copy), with its plan and a usable code."""
        teacher = User.objects.filter(email=DEMO_TEACHER_EMAIL).first() or User.objects.create_user(
            email=DEMO_TEACHER_EMAIL, password=DEMO_PASSWORD, first_name="데모 선생님"
        )
        teacher.set_password(DEMO_PASSWORD)
        teacher.save(update_fields=["password"])
        teacher.groups.add(content_managers_group_sync())
        teacher = User.objects.get(pk=teacher.pk)  # permissions are cached per instance
        filename, title = DEMO_FILES[1]
        material = self._material(teacher, filename, title)
        if material.status != Material.Status.READY:
            return ""
        course = Course.objects.for_user(teacher).filter(title=DEMO_COURSE_TITLE).first()
        if course is None:
            course = course_create(
                user=teacher, title=DEMO_COURSE_TITLE, description="배움의 과학을 다루는 데모 강좌입니다.", language="ko"
            )
        if material.course_id != course.pk:
            material_publish(user=teacher, material=material, course_id=course.pk)
        plan = Plan.objects.for_user(teacher).filter(course=course).first()
        if plan is None:
            plan = course_plan_create(user=teacher, course_id=course.pk, minutes_per_session=DEMO_MINUTES_PER_SESSION, enqueue=False)
            plan_generate(plan_id=plan.pk)
        invitation = Invitation.objects.for_user(teacher).filter(
            course=course, revoked_at=None, expires_at__gt=timezone.now(), email=""
        ).first() or invitation_create(user=teacher, course_id=course.pk, days=365)
        return invitation.code

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
