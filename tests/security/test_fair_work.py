"""Fair, bounded work: early size limit, throttle scopes with de-duplication, a bounded page-limit check
that fails closed, and a /healthz that is cheap and tells details to staff only."""

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.throttling import ScopedRateThrottle

from baeum.extraction import readers as extract
from knowledge.models import Material
from plans.models import Plan
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db
TEXT = "Chapter 1 Registers\nA register is a small, fast storage location inside the processor. " * 3


def test_a_body_larger_than_any_upload_is_refused_from_its_content_length(api_client, settings):
    declared = settings.BAEUM["MAX_UPLOAD_BYTES"] + 5 * 1024 * 1024
    started = time.monotonic()
    response = api_client.generic(
        "POST", "/api/v1/materials/", b"x" * 10, content_type="multipart/form-data; boundary=x", CONTENT_LENGTH=str(declared)
    )
    assert response.status_code == 413 and response.json()["error"]["code"] == "file_too_large"
    assert time.monotonic() - started < 1 and Material.objects.unscoped().count() == 0
    page = Client().generic("POST", "/signup/", b"x", CONTENT_LENGTH=str(declared))
    assert page.status_code == 413


@pytest.fixture
def rates(monkeypatch):
    monkeypatch.setattr(
        ScopedRateThrottle, "THROTTLE_RATES", {**ScopedRateThrottle.THROTTLE_RATES, "reingest": "2/hour", "plans": "2/hour"}
    )
    from django.core.cache import cache

    cache.delete_pattern("throttle_*")


def test_reingest_has_its_own_throttle_and_never_queues_twice(api_client, other_api_client, user, other_user, ingest, rates):
    material = ingest(user, make_pdf([TEXT]), "a.pdf")
    theirs = ingest(other_user, make_pdf([TEXT]), "b.pdf")
    Material.objects.unscoped().filter(pk=material.pk).update(status=Material.Status.EXTRACTING)  # a worker has it
    busy = api_client.post(f"/api/v1/materials/{material.ref_id}/reingest")
    assert busy.status_code == 202 and busy.json()["status"] == "EXTRACTING"  # left as it is: nothing queued again
    Material.objects.unscoped().filter(pk=material.pk).update(status=Material.Status.READY)
    assert api_client.post(f"/api/v1/materials/{material.ref_id}/reingest").status_code == 202
    third = api_client.post(f"/api/v1/materials/{material.ref_id}/reingest")
    assert third.status_code == 429 and third.json()["error"]["code"] == "throttled"
    assert other_api_client.post(f"/api/v1/materials/{theirs.ref_id}/reingest").status_code == 202  # per learner


def test_plan_create_and_regenerate_have_their_own_throttle_and_regenerate_queues_once(
    api_client, user, ingest, rates, django_capture_on_commit_callbacks
):
    material = ingest(user, make_pdf([TEXT]), "a.pdf")
    with django_capture_on_commit_callbacks(execute=False) as queued:
        created = api_client.post("/api/v1/plans/", {"refIds": [material.ref_id]}, format="json")
    assert created.status_code == 202 and len(queued) == 1
    plan_id = created.json()["id"]
    assert Plan.objects.for_user(user).get(pk=plan_id).status == Plan.Status.PENDING  # queued, not started
    with django_capture_on_commit_callbacks(execute=False) as queued:
        again = api_client.post(f"/api/v1/plans/{plan_id}/regenerate")
    assert again.status_code == 202 and queued == []  # the queued generation reads the new snapshot: no second run
    third = api_client.post("/api/v1/plans/", {"refIds": [material.ref_id]}, format="json")
    assert third.status_code == 429


def test_the_page_limit_check_is_bounded_and_fails_closed(api_client, monkeypatch):
    monkeypatch.setattr(extract, "PROBE_WAIT_SECONDS", 0.2)
    slots = [extract._probe_slots.acquire(timeout=1) for _ in range(extract.PROBES_AT_ONCE)]  # every slot busy
    try:
        started = time.monotonic()
        response = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("book.pdf", make_pdf([TEXT]))}, format="multipart")
        assert response.status_code == 503 and response.json()["error"]["code"] == "busy"
        assert time.monotonic() - started < 5
        assert Material.objects.unscoped().count() == 0  # refused, never accepted unchecked
    finally:
        for taken in slots:
            if taken:
                extract._probe_slots.release()
    monkeypatch.setattr(extract, "PROBE_SECONDS", 0.0001)  # a PDF that cannot be opened in time is refused too
    slow = api_client.post("/api/v1/materials/", {"file": SimpleUploadedFile("book.pdf", make_pdf([TEXT]))}, format="multipart")
    assert slow.status_code == 400 and slow.json()["error"]["code"] == "too_slow"


def test_healthz_is_cheap_and_tells_reasons_to_staff_only(client):
    first = client.get("/healthz")
    assert set(first.json()) == {"status", "checks"} and first.json()["checks"]["worker"] in ("ok", "down")
    started = time.monotonic()
    for _ in range(10):
        client.get("/healthz")
    assert time.monotonic() - started < 2  # the worker's answer is remembered, not asked ten times
    client.force_login(UserFactory(is_staff=True))
    detailed = client.get("/healthz").json()
    if detailed["status"] == "down":
        assert detailed["down"]
    client.force_login(UserFactory())
    assert set(client.get("/healthz").json()) == {"status", "checks"}


def test_small_files_go_to_the_quick_queue_one_waiting_per_learner(user, other_user, settings):
    from django.core.cache import cache

    from knowledge import tasks
    from knowledge.services.materials import material_create

    settings.BAEUM_QUICK_QUEUE = "quick"
    for owner in (user, other_user):
        cache.delete(tasks._quick_key(owner.pk))

    def upload(owner, size=0):
        data = make_pdf([TEXT]) + b"%" * size
        return material_create(owner=owner, upload=SimpleUploadedFile("n.pdf", data), enqueue=False)

    def route(material):
        return tasks.route_ingestion("knowledge.tasks.ingest_material", [material.pk], {}, {})

    assert route(upload(user)) == {"queue": "quick"}
    assert route(upload(user)) is None  # this learner already has a small file waiting there: main queue
    assert route(upload(other_user)) == {"queue": "quick"}  # another learner is not held up by the first
    assert route(upload(other_user, size=tasks.QUICK_MAX_BYTES)) is None  # large files: main queue
    for owner in (user, other_user):
        cache.delete(tasks._quick_key(owner.pk))
    text = material_create(owner=other_user, upload=SimpleUploadedFile("n.md", b"# Notes\n" + b"words " * 50_000), enqueue=False)
    assert route(text) is None  # 300 KB of text is hundreds of chunks: what a file needs, not its bytes, decides
    from accounts.rls import rls_user

    scan = upload(user)
    with rls_user(None):  # queued after leaving the owner's context (OCR finishing a scan): still routed by its size
        assert route(scan) == {"queue": "quick"}
    cache.delete(tasks._quick_key(user.pk))
    assert tasks.route_ingestion("knowledge.tasks.generate_plan", [1], {}, {}) is None

    class Finished:  # the task's request as a worker sees it after taking it from the quick queue
        class request:  # noqa: N801
            delivery_info = {"routing_key": "quick"}

    tasks._release_quick_slot(Finished, user.pk)
    assert route(upload(user)) == {"queue": "quick"}  # its slot is free again


def test_every_stage_on_the_quick_queue_is_capped_and_the_vectors_made_before_a_move_are_kept(user, monkeypatch, settings):
    """A text file that reads fast but makes many chunks is stopped at the chunk cap before any embedding; one
    stopped while embedding keeps the vectors made so far (the main queue embeds only the rest)."""
    from baeum.extraction import readers as extract
    from knowledge.models import EmbeddingCache
    from knowledge.services.ingest import material_ingest
    from knowledge.services.materials import material_create

    settings.BAEUM = {**settings.BAEUM, "EMBED_BATCH_SIZE": 8}
    before = EmbeddingCache.objects.count()
    notes = "\n\n".join(f"## Part {number}\n" + f"Registers hold values number {number}. " * 40 for number in range(60))
    material = material_create(owner=user, upload=SimpleUploadedFile("notes.md", notes.encode()), enqueue=False)
    with pytest.raises(extract.Preempted, match="more than the cap"), extract.time_cap(60, max_chunks=10):
        material_ingest(material_id=material.pk, upgrade=False)
    assert EmbeddingCache.objects.count() == before  # stopped before embedding

    calls = []

    def over_time(filename, *, chunks=None):  # the time cap runs out after the first batch of vectors
        calls.append(chunks)
        if len(calls) > 3:
            raise extract.Preempted(f"{filename} is taking longer than the time cap")

    monkeypatch.setattr(extract, "check_cap", over_time)
    with pytest.raises(extract.Preempted, match="time cap"):
        material_ingest(material_id=material.pk, upgrade=False)
    kept = EmbeddingCache.objects.count() - before
    assert kept > 0  # one batch made before the move
    monkeypatch.undo()
    material = material_ingest(material_id=material.pk, upgrade=False)  # on the main queue: no cap
    assert material.status == "READY" and material.chunk_count > kept


def _hostile_pdf() -> bytes:
    """Eight pages of 2 M text operators each: ~3 s of PDFium CPU a page, 400 KB, "small"."""
    import zlib

    stream = zlib.compress(b"BT /F1 11 Tf 56 790 Td\n" + b"<0041> Tj\n" * 2_000_000 + b"ET\n", 9)
    return make_pdf([TEXT] * 9, raw_contents={index: stream for index in range(1, 9)})


@pytest.mark.slow
# transaction=True: real Celery worker processes read the rows, so they must be committed.
@pytest.mark.django_db(transaction=True)
def test_a_hostile_learner_does_not_hold_up_another_learners_small_upload(api_client, other_api_client, settings, capsys):
    """Real workers as make run starts them (main: celery+quick, quick: quick). A learner uploads two
    small but costly PDFs (the first takes the quick queue, is stopped after QUICK_EXTRACT_SECONDS and
    moves to the main queue); another learner's small upload is READY while they are still being read."""
    import os
    import subprocess
    import sys

    from django.core.cache import cache
    from django.db import connection

    from config.celery import app as celery_app
    from tests.conftest import ROOT

    settings.BAEUM_QUICK_QUEUE = "quick"
    cache.delete_pattern("ingest:quick:*")
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings.test",
        "BAEUM_DATABASE_NAME": connection.settings_dict["NAME"],
        "BAEUM_TEST_QUICK_QUEUE": "quick",
    }
    workers = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--concurrency",
                "1",
                "--pool",
                "solo",
                "-Q",
                queues,
                "-n",
                f"{name}-{os.getpid()}@%h",
                "--loglevel",
                "WARNING",
            ],
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )  # fmt: skip
        for name, queues in (("main", "celery,quick"), ("quick", "quick"))
    ]
    try:
        deadline = time.monotonic() + 120
        while len(celery_app.control.ping(timeout=0.5)) < 2:
            assert all(worker.poll() is None for worker in workers) and time.monotonic() < deadline
        celery_app.conf.task_always_eager = False
        hostile = []
        for number in range(2):  # the first takes the quick queue and is moved, the second waits on the main one
            upload = SimpleUploadedFile(f"hostile-{number}.pdf", _hostile_pdf())
            response = api_client.post("/api/v1/materials/", {"file": upload}, format="multipart")
            assert response.status_code == 202
            hostile.append(response.json()["refId"])
        time.sleep(1)  # the hostile files are being read
        started = time.monotonic()
        small = SimpleUploadedFile("handout.pdf", make_pdf([TEXT, TEXT]))
        ref_id = other_api_client.post("/api/v1/materials/", {"file": small}, format="multipart").json()["refId"]
        while other_api_client.get(f"/api/v1/materials/{ref_id}/").json()["status"] not in ("READY", "FAILED"):
            assert time.monotonic() - started < 120
            time.sleep(0.2)
        waited = time.monotonic() - started
        still_reading = [ref for ref in hostile if api_client.get(f"/api/v1/materials/{ref}/").json()["status"] not in ("READY", "FAILED")]
        with capsys.disabled():
            print(f"\nsmall upload READY {waited:.1f} s after it was sent, behind 2 hostile files of another learner")
        assert other_api_client.get(f"/api/v1/materials/{ref_id}/").json()["status"] == "READY"
        # Not a timed test (the seconds depend on the machine and its load; the load command measures them):
        # served first come first served, the small upload would wait for every costly file to end.
        assert still_reading, "the small upload waited for all of the hostile files"
        # The costly files still end, on the main queue, with the reason.
        deadline = time.monotonic() + 120
        while any(api_client.get(f"/api/v1/materials/{ref}/").json()["status"] not in ("READY", "FAILED") for ref in hostile):
            assert time.monotonic() < deadline
            time.sleep(0.5)
        failures = {api_client.get(f"/api/v1/materials/{ref}/").json()["failure"]["code"] for ref in hostile}
        assert failures and failures <= {"too_complex", "too_much_text"}  # refused for what they cost, with the reason
    finally:
        celery_app.conf.task_always_eager = True
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.wait(timeout=60)
