"""Pictures of original PDF pages for the page viewer, drawn on demand and kept beside the original.

Drawing runs in a child process (``baeum.extraction.pageimage``) while a web thread waits, so it is rationed:
one drawing at a time per web process and per learner (others are told to come back in a moment, 503 with
``Retry-After``, which the viewer does), each child under a short CPU budget at low priority, and a page that
could not be drawn is remembered (a ``.failed`` marker beside the pictures): a hostile page costs its budget
once, not on every request. ``PAGE_IMAGE_REQUESTS_PER_MINUTE`` caps how many pictures a learner asks for.
"""

import shutil
import threading
from contextlib import contextmanager
from pathlib import Path

from django.core.cache import cache

from baeum.extraction.pageimage import PageImageBudget, PageImageFailed, render_page_image
from core.counters import count_in_window
from core.learner_cache import learner_key

from ..models import Material

PAGE_IMAGE_DIRECTORY = "page-images"  # materials/<owner>/<refId>/page-images/page-0001.webp, removed with the material
# A dense book page draws in 0.1-0.3 s here: a page that needs more than 5 s of CPU is hostile or broken.
PAGE_IMAGE_BUDGET = PageImageBudget(seconds=5.0)
PAGE_IMAGE_RETRY_SECONDS = 1  # what a busy answer asks the viewer to wait
PAGE_IMAGE_REQUESTS_PER_MINUTE = 120  # a learner paging quickly through a book asks for one or two a second
_DRAWING_HERE = threading.BoundedSemaphore(1)  # per web process (make run starts two)


class PageImageUnavailable(Exception):
    """This page has no picture: the material is not a PDF, the page does not exist, or it could not be drawn."""


class PageImageBusy(Exception):
    """Another picture is being drawn for this learner or in this process: ask again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int = PAGE_IMAGE_RETRY_SECONDS):
        super().__init__("a page picture is being drawn")
        self.retry_after = retry_after


class PageImageThrottled(PageImageBusy):
    """More than ``PAGE_IMAGE_REQUESTS_PER_MINUTE`` pictures asked for in a minute."""


def _directory(material: Material) -> Path:
    return Path(material.file.path).parent / PAGE_IMAGE_DIRECTORY


def material_has_page_images(material: Material) -> bool:
    """Whether the viewer can show the original pages (PDFs; text and Office files have no page pictures)."""
    return material.extension.lower() == ".pdf" and bool(material.file)


def material_page_image(*, material: Material, number: int) -> Path:
    """Return the picture (WebP) of page ``number`` of the (already access-checked) material, drawing it the
    first time. ``PageImageUnavailable`` when it has none (now or at an earlier try), ``PageImageBusy`` when
    it must wait its turn, ``PageImageThrottled`` past the learner's rate."""
    if not material_has_page_images(material) or not 1 <= number <= material.page_count:
        raise PageImageUnavailable
    _count_request(material.owner_id)
    path = _directory(material) / f"page-{number:04d}.webp"
    failed = path.with_suffix(".failed")
    if path.exists():
        return path
    if failed.exists():
        raise PageImageUnavailable  # drawn once and failed: the same file fails the same way
    original = Path(material.file.path)
    if not original.exists():
        raise PageImageUnavailable
    with _drawing_slot(material.owner_id):
        if path.exists():  # drawn by another request while this one waited
            return path
        try:
            return render_page_image(original, number, path, budget=PAGE_IMAGE_BUDGET)
        except PageImageFailed as error:
            failed.parent.mkdir(parents=True, exist_ok=True)
            failed.write_text(error.code)
            raise PageImageUnavailable from error


def _count_request(owner_id: int) -> None:
    key = learner_key(owner_id, "page-images", "requests")
    if count_in_window(key, 60) > PAGE_IMAGE_REQUESTS_PER_MINUTE:
        raise PageImageThrottled(retry_after=max(1, cache.ttl(key) or 60))


@contextmanager
def _drawing_slot(owner_id: int):
    """One drawing at a time in this process and for this learner (across processes); ``PageImageBusy`` at once
    otherwise: a web thread never waits for another's drawing, so sixteen requests for a hostile page hold
    one child and one thread, not sixteen."""
    if not _DRAWING_HERE.acquire(blocking=False):
        raise PageImageBusy
    key = learner_key(owner_id, "page-images", "drawing")
    try:
        if not cache.add(key, 1, timeout=int(PAGE_IMAGE_BUDGET.seconds) + 10):
            raise PageImageBusy
        try:
            yield
        finally:
            cache.delete(key)
    finally:
        _DRAWING_HERE.release()


def material_page_images_delete(*, material: Material) -> None:
    """Remove the material's page pictures (they are the learner's content too)."""
    if material.file:
        shutil.rmtree(_directory(material), ignore_errors=True)
