"""Pictures of original PDF pages for the page viewer, drawn on demand and kept beside the original."""

import shutil
from pathlib import Path

from baeum.extraction.pageimage import PageImageFailed, render_page_image

from ..models import Material

PAGE_IMAGE_DIRECTORY = "page-images"  # materials/<owner>/<refId>/page-images/page-0001.webp, removed with the material


class PageImageUnavailable(Exception):
    """This page has no picture: the material is not a PDF, the page does not exist, or it could not be drawn."""


def _directory(material: Material) -> Path:
    return Path(material.file.path).parent / PAGE_IMAGE_DIRECTORY


def material_has_page_images(material: Material) -> bool:
    """Whether the viewer can show the original pages (PDFs; text and Office files have no page pictures)."""
    return material.extension.lower() == ".pdf" and bool(material.file)


def material_page_image(*, material: Material, number: int) -> Path:
    """Return the picture (WebP) of page ``number`` of the (already access-checked) material, drawing it the first time."""
    if not material_has_page_images(material) or not 1 <= number <= material.page_count:
        raise PageImageUnavailable
    path = _directory(material) / f"page-{number:04d}.webp"
    if path.exists():
        return path
    original = Path(material.file.path)
    if not original.exists():
        raise PageImageUnavailable
    try:
        return render_page_image(original, number, path)
    except PageImageFailed as error:
        raise PageImageUnavailable from error


def material_page_images_delete(*, material: Material) -> None:
    """Remove the material's page pictures (they are the learner's content too)."""
    if material.file:
        shutil.rmtree(_directory(material), ignore_errors=True)
