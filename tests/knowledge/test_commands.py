import json

import pytest
from django.core.management import call_command

from knowledge.models import Material, VocabularyWord
from tests.pdfgen import make_pdf

# transaction=True: management commands commit as they go and run ingestion in a thread of their own.
pytestmark = pytest.mark.django_db(transaction=True)


def test_ingest_command_prints_one_line_per_file_and_fails_on_bad_ones(tmp_path, capsys, english_pdf):
    good = tmp_path / "good.pdf"
    good.write_bytes(english_pdf)
    bad = tmp_path / "scan.pdf"
    bad.write_bytes(make_pdf([], blank_pages=1))
    with pytest.raises(SystemExit) as exited:
        call_command("ingest", str(good), str(bad), "--user", "cli@example.com", "--create-user", "--in-process")
    assert exited.value.code == 1
    lines = capsys.readouterr().out.strip().splitlines()
    good_material = Material.objects.get(original_filename="good.pdf")
    assert lines[0] == f"{good_material.ref_id} READY pages=3 chunks={good_material.chunk_count}"
    bad_material = Material.objects.get(original_filename="scan.pdf")
    assert lines[1].startswith(f"{bad_material.ref_id} FAILED Text recognition found no text in “scan.pdf”")  # a blank scan, read by OCR


def test_ingest_command_succeeds_quietly_for_good_files(tmp_path, capsys, user, english_pdf):
    path = tmp_path / "notes.md"
    path.write_text("# Title\n\nSome study notes about recursion and base cases.")
    call_command("ingest", str(path), "--user", user.email, "--in-process")
    assert capsys.readouterr().out.strip().endswith("READY pages=1 chunks=1")


def test_ingest_command_requires_an_existing_user_unless_asked(tmp_path):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="--create-user"):
        call_command("ingest", str(tmp_path / "x.pdf"), "--user", "ghost@example.com")


def test_bench_ingest_prints_the_fixed_keys_and_cleans_up(tmp_path, capsys, english_pdf):
    path = tmp_path / "bench.pdf"
    path.write_bytes(english_pdf)
    call_command("bench_ingest", str(path), "--json")
    result = json.loads(capsys.readouterr().out)
    assert set(result) >= {"pages", "chunks", "seconds", "pages_per_s", "chunks_per_s", "embed_model"}
    assert result["pages"] == 3 and result["chunks"] >= 3 and result["embed_model"] == "use-multilingual-v3"
    assert Material.objects.unscoped().count() == 0  # test check: no throwaway data left


def test_reindex_lexical_writes_the_vocabularies_materials_stored_before_them_lack(capsys, user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    words = VocabularyWord.objects.for_user(user).filter(material=material)
    stored = sorted(words.values_list("word", flat=True))
    assert stored  # an English book's words, each with its vector
    words.delete()  # as a material stored before vocabularies
    call_command("reindex_lexical", "--missing-vocabularies")
    assert sorted(words.values_list("word", flat=True)) == stored
    assert "Wrote the vocabularies of 1 materials" in capsys.readouterr().out
    call_command("reindex_lexical", "--missing-vocabularies")  # nothing missing: nothing written, nothing said
    assert capsys.readouterr().out == ""
