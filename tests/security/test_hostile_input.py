"""Hostile and broken input ends READY or FAILED with a reason — never a crash, a hang or a lost file."""

import random
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from knowledge.models import Material, MaterialPage
from tests.conftest import ENGLISH_PAGES
from tests.pdfgen import make_pdf

# transaction=True: hostile files are read by reader children and a worker that see only committed rows.
pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def _pdf_with_stream(stream: bytes, *, filter_name: str = "/FlateDecode") -> bytes:
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >>",
        b"<< /Length %d /Filter %s >>\nstream\n" % (len(stream), filter_name.encode()) + stream + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    for offset in offsets:
        out += b"%010d 00000 n \n" % offset
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _decompression_bomb() -> bytes:
    compressor = zlib.compressobj(9)
    chunk = b"0" * (1 << 20)
    body = b"".join(compressor.compress(chunk) for _ in range(1024)) + compressor.flush()  # 1 GiB of zeros
    return _pdf_with_stream(body)


def _deep_nesting() -> bytes:
    return _pdf_with_stream(b"[" * 200_000 + b"]" * 200_000, filter_name="/None")


def _mutations(seed: int, count: int) -> list[bytes]:
    original = make_pdf(ENGLISH_PAGES)
    rng = random.Random(seed)
    mutated = []
    for _ in range(count):
        data = bytearray(original)
        for _ in range(rng.randint(1, 40)):
            position = rng.randrange(len(data))
            action = rng.random()
            if action < 0.6:
                data[position] = rng.randrange(256)
            elif action < 0.8:
                del data[position : position + rng.randint(1, 64)]
            else:
                data[position:position] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 64)))
        mutated.append(bytes(data))
    return mutated


def _assert_outcome(material):
    assert material.status in (Material.Status.READY, Material.Status.FAILED), material.status
    if material.status == Material.Status.FAILED:
        assert material.error_message and material.original_filename in material.error_message
    assert Path(material.file.path).exists()


def test_decompression_bomb_is_stopped_within_budget(user, ingest):
    started = time.monotonic()
    material = ingest(user, _decompression_bomb(), "bomb.pdf")
    assert time.monotonic() - started < 60
    _assert_outcome(material)
    assert material.status == Material.Status.FAILED


def test_deeply_nested_objects_do_not_crash_the_worker(user, ingest):
    material = ingest(user, _deep_nesting(), "nested.pdf")
    _assert_outcome(material)
    assert material.status == Material.Status.FAILED


def test_fuzzed_pdfs_end_ready_or_failed_with_a_reason(user, ingest, english_pdf):
    good = ingest(user, english_pdf, "good.pdf")
    outcomes = []
    for number, data in enumerate(_mutations(seed=20261122, count=15)):
        material = ingest(user, data, f"fuzz-{number}.pdf")
        _assert_outcome(material)
        outcomes.append(material.status)
    assert Material.Status.FAILED in outcomes  # the mutator really breaks files
    good.refresh_from_db()
    assert good.status == Material.Status.READY and good.chunk_count > 0


@pytest.mark.parametrize("sample", sorted((ROOT.parent / "shared" / "samples").glob("*/*.pdf")), ids=lambda path: path.name)
def test_shared_samples_end_in_a_clear_state(user, ingest, sample):
    """Every real sample beside the project (bad, scanned, and the real books) ends READY or FAILED."""
    if sample.stat().st_size > 400_000:
        pytest.skip("large real books are measured by bench_ingest, not in the suite")
    material = ingest(user, sample.read_bytes(), sample.name)
    _assert_outcome(material)
    if sample.parent.name == "bad":
        assert material.status == (Material.Status.READY if "owner-password-only" in sample.name else Material.Status.FAILED)
    if sample.parent.name == "scanned":  # read by OCR (Tesseract), then searchable like any other material
        assert material.status == Material.Status.READY, material.error_message
        assert MaterialPage.objects.for_user(user).filter(material=material, ocr=True).exists()


def test_production_settings_pass_the_deploy_check_and_refuse_insecure_config():
    env = {
        "DJANGO_SETTINGS_MODULE": "config.settings.production",
        "DJANGO_SECRET_KEY": "x" * 60 + "-not-a-dev-key",
        "DJANGO_ALLOWED_HOSTS": "baeum.example.com",
        "PATH": "/usr/bin:/bin",
    }
    import os

    env = {**os.environ, **env}
    check = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stderr + check.stdout
    for broken in ({"DJANGO_SECRET_KEY": ""}, {"DJANGO_DEBUG": "true"}):
        refused = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env={**env, **broken}, capture_output=True, text=True)
        assert refused.returncode != 0
        assert "ImproperlyConfigured" in refused.stderr
