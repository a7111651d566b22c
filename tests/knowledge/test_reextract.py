"""Materials read by an older extractor are found and read again from their kept original."""

import pytest
from django.core.management import call_command

from knowledge.models import Chunk, Material
from knowledge.services.ingest import EXTRACTOR

pytestmark = pytest.mark.django_db


def test_reextract_reads_old_materials_again_and_leaves_current_ones(
    user, other_user, ingest, english_pdf, capsys, django_capture_on_commit_callbacks
):
    old = ingest(user, english_pdf, "old.pdf")
    current = ingest(other_user, english_pdf, "current.pdf")
    Material.objects.unscoped().filter(pk=old.pk).update(extractor="")  # as pypdf-era ingestion left it
    Chunk.objects.unscoped().filter(material=old).update(page_starts=[])

    call_command("reextract", "--check")
    said = capsys.readouterr().out
    assert "1 material(s) read by an older extractor (pypdf): citations may point one page early" in said
    assert "manage.py reextract" in said

    with django_capture_on_commit_callbacks(execute=True):  # the queued tasks run in-process in tests
        call_command("reextract")
    assert "Queued 1 material(s)" in capsys.readouterr().out

    old.refresh_from_db()
    current.refresh_from_db()
    assert old.status == Material.Status.READY and old.extractor == EXTRACTOR
    assert all(chunk.page_starts for chunk in Chunk.objects.for_user(user).filter(material=old))
    assert current.attempts == 1  # untouched
    call_command("reextract", "--check")
    assert capsys.readouterr().out == ""


def test_the_check_says_what_re_reading_fixes_for_each_older_extractor(user, ingest, english_pdf, capsys):
    tables = ingest(user, english_pdf, "tables.pdf")
    Material.objects.unscoped().filter(pk=tables.pk).update(extractor="pdfium-2")  # before tables were kept whole
    call_command("reextract", "--check")
    assert "1 material(s) read by an older extractor (pdfium-2): tables may be cut mid-row" in capsys.readouterr().out
