from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from accounts.rls import rls_user
from core.workers import worker_available
from knowledge.services.materials import UploadRejected, material_create

from ._ingesting import final_line, run_to_end


class Command(BaseCommand):
    help = "Ingest files (PDF, .txt, .md) for a user and wait for each to be READY or FAILED."

    def add_arguments(self, parser):
        parser.add_argument("files", nargs="+")
        parser.add_argument("--user", required=True, help="Email of the owner.")
        parser.add_argument("--create-user", action="store_true", help="Create the user if missing (unusable password).")
        parser.add_argument("--title", default="", help="Title (only with a single file).")
        parser.add_argument("--type", default="material")
        parser.add_argument("--in-process", action="store_true", help="Run the pipeline here even if a worker is up.")

    def handle(self, *args, files, user, create_user, title, type, in_process, **options):
        User = get_user_model()
        owner = User.objects.filter(email__iexact=user).first()
        if owner is None:
            if not create_user:
                raise CommandError(f"No user {user}. Pass --create-user to create one.")
            owner = User.objects.create_user(email=user, password=None)
        use_worker = not in_process and self._worker_up()
        self.stderr.write(f"Ingesting with {'the Celery worker' if use_worker else 'an in-process pipeline (no worker running)'}.")
        with rls_user(owner.pk):  # the command acts for one learner: the database sees that learner's rows only
            failed = self._ingest(files, owner=owner, title=title, type=type, use_worker=use_worker)
        if failed:
            raise SystemExit(1)

    def _ingest(self, files, *, owner, title, type, use_worker) -> int:
        failed = 0
        for name in files:
            path = Path(name)
            if not path.is_file():
                self.stdout.write(f"{name} REJECTED no such file")
                failed += 1
                continue
            try:
                with path.open("rb") as handle:
                    material = material_create(
                        owner=owner,
                        upload=File(handle, name=path.name),
                        title=title if len(files) == 1 else "",
                        type=type,
                        enqueue=use_worker,
                    )
            except UploadRejected as error:
                self.stdout.write(f"{path.name} REJECTED {error}")
                failed += 1
                continue
            material = run_to_end(material, in_process=not use_worker, stream=self.stderr._out, label=path.name)
            self.stdout.write(final_line(material))
            failed += material.status != material.Status.READY
        return failed

    def _worker_up(self) -> bool:
        try:
            return worker_available(timeout=1.0)
        except Exception:  # noqa: BLE001 - broker unreachable means no worker
            return False
