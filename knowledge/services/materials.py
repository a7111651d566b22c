"""Create, delete, rename and re-ingest materials (re-embedding with another model: ``reembed``)."""

from __future__ import annotations

import hashlib
import logging
from pathlib import Path

from django.conf import settings
from django.core.files.uploadedfile import UploadedFile
from django.db import transaction
from django.utils.translation import gettext as _

from baeum.errors import BaeumError
from baeum.extraction import readers as extract
from courses.selectors import course_taught

from ..failure_reasons import reason_translate
from ..models import Material, RemovedMaterial
from ..selectors.materials import MaterialNotFound
from .page_images import material_page_images_delete
from .vector_indexes import vector_indexes_sync_later

logger = logging.getLogger(__name__)


class UploadRejected(BaeumError):
    """An upload refused before any work; ``status`` is the HTTP status the API answers with.

    The message is the English reason as written (what the CLI and the admin print); the API shows it
    in the learner's language.
    """

    def __init__(self, message: str, *, code: str, status: int = 400):
        super().__init__(message, code=code, status=status)

    def public_message(self) -> str:
        return reason_translate(message=self.message, code=self.code)


def _enqueue_ingest(material_id: int) -> None:
    from ..tasks import ingest_material  # tasks import services; import here to avoid a cycle

    transaction.on_commit(lambda: ingest_material.delay(material_id))


def _check_upload(upload: UploadedFile) -> str:
    name = Path(upload.name or "upload").name
    limit = settings.BAEUM["MAX_UPLOAD_BYTES"]
    if upload.size > limit:
        raise UploadRejected(
            f"“{name}” is {upload.size / 1_048_576:.1f} MB; the limit is {limit / 1_048_576:.0f} MB. Split or compress it.",
            code="file_too_large",
            status=413,
        )
    if extract.expected_kind(name) is None:
        raise UploadRejected(f"“{name}” is not a supported type. Upload {extract.SUPPORTED_NAMES}.", code="unsupported_type")
    return name


def _check_page_limit(material: Material) -> None:
    """Refuse a PDF over the page limit at upload; anything unreadable is left for the pipeline to report."""
    path = Path(material.file.path)
    with path.open("rb") as handle:
        if extract.sniff_kind(handle.read(1024)) != extract.PDF:
            return
    try:
        pages = extract.probe_pdf(path, filename=material.original_filename)
    except extract.ExtractionError as error:
        if error.code in extract.PROBE_REFUSALS:  # busy or too slow to open: refused, never accepted unchecked
            raise UploadRejected(error.message, code=error.code, status=503 if error.code == "busy" else 400) from error
        return
    if pages > settings.BAEUM["MAX_PAGES"]:
        raise UploadRejected(
            f"“{material.original_filename}” has {pages} pages; the limit is {settings.BAEUM['MAX_PAGES']}. Split it into smaller files.",
            code="too_many_pages",
        )


def material_create(*, owner, upload: UploadedFile, title: str = "", type: str = "material", enqueue: bool = True) -> Material:
    """Store an uploaded file as a PENDING material and queue its ingestion once the row is committed.

    ``enqueue=False`` leaves the ingestion to the caller (the CLI runs it in-process without a worker).
    """
    name = _check_upload(upload)
    digest = hashlib.sha256()
    for piece in upload.chunks():
        digest.update(piece)
    upload.seek(0)
    material = Material(
        owner=owner,
        title=(title or Path(name).stem)[:300],
        type=type or "material",
        original_filename=name[:300],
        extension=Path(name).suffix.lower(),
        size_bytes=upload.size,
        sha256=digest.hexdigest(),
    )
    # The same file deleted before: it comes back under its refId, and what cited it finds it again.
    removed = RemovedMaterial.objects.for_user(owner).filter(sha256=material.sha256).order_by("-removed_at").first()
    if removed is not None:
        material.ref_id = removed.ref_id
    material.file.save(name, upload, save=False)
    try:
        _check_page_limit(material)
    except UploadRejected:
        material.file.delete(save=False)
        raise
    with transaction.atomic():
        material.save()
        if removed is not None:
            removed.delete()
        if enqueue:
            _enqueue_ingest(material.pk)
    return material


def material_delete(*, material: Material) -> None:
    """Delete a material with its pages, chunks and vectors, then its stored file."""
    storage, file_name = material.file.storage, material.file.name
    with transaction.atomic():
        if material.sha256:
            RemovedMaterial.objects.for_user(material.owner).update_or_create(
                ref_id=material.ref_id, defaults={"owner_id": material.owner_id, "sha256": material.sha256, "title": material.title}
            )
        material.delete()
        transaction.on_commit(lambda: storage.delete(file_name) if file_name else None)
        transaction.on_commit(lambda: material_page_images_delete(material=material))
        transaction.on_commit(lambda: _remove_material_directory(storage, file_name))
        vector_indexes_sync_later(owner_id=material.owner_id)  # a library that shrank may lose its own index


def _remove_material_directory(storage, file_name: str) -> None:
    """What else was kept beside the original (text read by OCR, page pictures) goes with it: the
    directory ``materials/<owner>/<refId>/`` is the material's alone."""
    import shutil
    from pathlib import Path

    if not file_name or not hasattr(storage, "path"):
        return
    directory = Path(storage.path(file_name)).parent
    if directory.name and directory.parent.parent.name == "materials":
        shutil.rmtree(directory, ignore_errors=True)


def material_publish(*, user, material: Material, course_id: int | None) -> Material:
    """Publish one of the user's materials in a course they teach (``course_id``), or take it out of its
    course (None): the course's members read it from the next request on, or no longer."""
    if material.owner_id != user.pk:
        raise MaterialNotFound(material.ref_id)
    course = course_taught(user=user, course_id=course_id) if course_id is not None else None
    if course is not None and material.course_id not in (None, course.pk):
        # One course per material: moving it would empty the other course under its learners' feet.
        raise BaeumError(
            _("“%(title)s” is already in the course “%(course)s”: take it out there first, or upload another copy for this course.")
            % {"title": material.title, "course": material.course.title},
            code="in_another_course",
            status=409,
        )
    material.course = course
    material.save(update_fields=["course", "updated_at"])
    return material


def material_rename(*, material: Material, title: str) -> Material:
    """Give a material a title of the learner's choosing (the stored file keeps its name)."""
    material.title = title.strip()[:300]
    material.save(update_fields=["title", "updated_at"])
    return material


class RetryWillNotHelp(BaeumError):
    """Re-running a failure the same file meets every time (a password, a damaged or mislabelled file): 409,
    with the reason, which says what to do with the file instead."""

    code = "retry_will_not_help"
    status = 409


def material_reingest(*, material: Material) -> Material:
    """Run ingestion again from the kept original file (after a failure, or to apply new settings).
    A material already waiting or being processed is left as it is: nothing is queued twice. A failure
    reading the same bytes would meet again is ``RetryWillNotHelp``: nothing is queued."""
    if material.status not in (Material.Status.READY, Material.Status.FAILED):
        return material
    if material.status == Material.Status.FAILED and not material.retry_may_help:
        reason = reason_translate(message=material.error_message, code=material.error_code, filename=material.original_filename)
        raise RetryWillNotHelp(
            _("Reading the same file again would fail the same way. %(reason)s") % {"reason": reason},
            details={"refId": material.ref_id, "errorCode": material.error_code},
        )
    with transaction.atomic():
        Material.objects.unscoped().filter(pk=material.pk).update(
            status=Material.Status.PENDING, progress_done=0, progress_total=0, error_code="", error_message=""
        )
        _enqueue_ingest(material.pk)
    material.refresh_from_db()
    return material
