"""A material's files: everything kept beside its original goes when it is deleted."""

import pytest

pytestmark = pytest.mark.django_db


def test_deleting_a_material_removes_everything_kept_beside_its_original(user, ingest, django_capture_on_commit_callbacks):
    from pathlib import Path

    from knowledge.services.materials import material_delete

    material = ingest(user, b"Notes about registers and stacks.", "notes.txt")
    directory = Path(material.file.path).parent
    (directory / "ocr").mkdir(exist_ok=True)
    (directory / "ocr" / "page-0001.txt").write_text("text read by OCR")
    with django_capture_on_commit_callbacks(execute=True):
        material_delete(material=material)
    assert not directory.exists()
