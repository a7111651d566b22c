"""`manage.py bench_fairness --url URL`: one learner's heavy work against everyone else's, on a running Baeum.

    make run                       # in one terminal (web, main, quick and background workers)
    .venv/bin/python manage.py bench_fairness --url http://127.0.0.1:8000 [--json] [--keep]

Run with the same settings and database as the server (the accounts are made directly, as ``load_test``
does). Two scenes, each with targets (issue #30):

1. *Uploads.* A library of another learner is re-embedding with the quality model (its upgrade starts by
   itself when ``BAEUM_QUALITY_EMBEDDER`` is on), and a heavy learner uploads two text-heavy Markdown files
   (1.9 MB, about 2,000 chunks each). Then another learner's 1 KB note must be READY within 5 s, and a
   one-page scan (page 1 of ``--scan``) read by OCR and READY within 20 s.
2. *Page pictures.* A learner asks for the picture of a hostile page (a PDF whose page fills the whole
   page 200,000 times) 16 times at once, each asking again a second later (or after ``Retry-After``) for
   ``--picture-seconds``, while another learner's ``GET /api/v1/me`` must keep a p95 within 200 ms.

Everything the run made is deleted at the end unless ``--keep``.
"""

from __future__ import annotations

import io
import json
import secrets
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import urlparse

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from baeum.metrics import percentile

SCAN = Path(settings.BASE_DIR).parent / "shared" / "samples" / "scanned" / "wikipedia_ocr_article_scanned.pdf"
TARGETS = {"small_upload_ready_s": 5.0, "one_page_scan_ready_s": 20.0, "other_learner_api_p95_ms": 200.0}
HEAVY_FILE_BYTES = 1_900_000
WORDS = (
    "register stack memory cache pointer array function compiler loop branch interrupt process thread "
    "signal queue tree graph vector matrix kernel driver buffer socket packet router switch table index"
).split()


def markdown_notes(size: int, seed: int) -> bytes:
    """Markdown of ``size`` bytes: headed sections of varied sentences (no two alike, so nothing is cached)."""
    chooser = secrets.SystemRandom(seed)
    parts, total, number = [], 0, 0
    while total < size:
        number += 1
        sentences = " ".join(
            f"The {chooser.choice(WORDS)} keeps the {chooser.choice(WORDS)} near the {chooser.choice(WORDS)} {chooser.randrange(10**6)}."
            for _ in range(12)
        )
        part = f"## Section {seed}.{number}\n\n{sentences}\n\n"
        parts.append(part)
        total += len(part.encode())
    return "".join(parts).encode()


def hostile_pdf(fills: int = 200_000) -> bytes:
    """One page of a line of text that then fills the whole page ``fills`` times: cheap to read for text
    (READY without OCR), very costly to draw."""
    words = b"BT /F1 12 Tf 72 760 Td (A page of text about registers, drawn over and over again.) Tj ET\n"
    stream = zlib.compress(words + b"0.5 g\n" + b"0 0 595 842 re f\n" * fills, 9)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R"
        b" /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
    ]
    out = io.BytesIO()
    out.write(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def first_page(path: Path) -> bytes:
    """Page 1 of the PDF at ``path`` as a PDF of its own."""
    import pypdfium2 as pdfium

    source = pdfium.PdfDocument(str(path))
    single = pdfium.PdfDocument.new()
    single.import_pages(source, [0])
    buffer = io.BytesIO()
    single.save(buffer)
    return buffer.getvalue()


class Command(BaseCommand):
    help = "Measure fairness on a running Baeum: small uploads and scans behind heavy work, the API behind hostile page pictures."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--scan", default=str(SCAN), help="a scanned PDF; its first page is the scan uploaded")
        parser.add_argument("--library", type=int, default=3, help="materials of the library that re-embeds")
        parser.add_argument("--picture-seconds", type=float, default=20.0, help="how long the page pictures are asked for")
        parser.add_argument("--heavy-bytes", type=int, default=HEAVY_FILE_BYTES, help="size of each of the heavy learner's two files")
        parser.add_argument("--library-bytes", type=int, default=300_000, help="size of each material of the library that re-embeds")
        parser.add_argument("--fills", type=int, default=200_000, help="how many times the hostile page fills the page")
        parser.add_argument("--keep", action="store_true", help="keep the accounts and materials the run made")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, url: str, scan: str, library: int, picture_seconds: float, heavy_bytes: int, keep: bool, json: bool, **options):
        self.library_bytes, self.fills = options["library_bytes"], options["fills"]
        import logging

        import httpx2

        logging.getLogger("httpx2").setLevel(logging.WARNING)
        host = urlparse(url).hostname or ""
        if host not in ("localhost", "::1") and not host.startswith("127."):
            raise CommandError("bench_fairness only targets this machine (a loopback URL).")
        if not Path(scan).is_file():
            raise CommandError(f"No scanned PDF at {scan}: give one with --scan.")
        self.url, self.quiet, self.tag = url.rstrip("/"), json, secrets.token_hex(3)
        self.client = httpx2.Client(timeout=60)
        try:
            self.client.get(f"{self.url}/healthz")
        except httpx2.HTTPError as error:
            raise CommandError(f"Nothing answers at {url}: start Baeum first (make run). ({error})") from error
        try:
            report = {"uploads": self._uploads(scan, library, heavy_bytes), "page_pictures": self._pictures(picture_seconds)}
        finally:
            if not keep:
                self._clean_up()
        report["targets"] = TARGETS
        pictures = report["page_pictures"]
        report["met"] = {
            "small_upload_ready_s": (report["uploads"]["small_upload_ready_s"] or 1e9) <= TARGETS["small_upload_ready_s"],
            "one_page_scan_ready_s": (report["uploads"]["one_page_scan_ready_s"] or 1e9) <= TARGETS["one_page_scan_ready_s"],
            # not met by an empty list: every one of the other learner's requests has to have been answered
            "other_learner_api_p95_ms": bool(pictures["other_learner_api_requests"])
            and not pictures["other_learner_api_failures"]
            and pictures["other_learner_api_p95_ms"] <= TARGETS["other_learner_api_p95_ms"],
        }
        self.stdout.write(json_dumps(report, indent=None if json else 2))

    # --- accounts -------------------------------------------------------------------------------------------

    def _learner(self, name: str) -> tuple[object, dict[str, str]]:
        from accounts.services import user_token_issue

        user = get_user_model().objects.create_user(email=f"bench-{self.tag}-{name}@baeum.invalid", password=None)
        return user, {"Authorization": f"Token {user_token_issue(user=user, name='bench_fairness').key}"}

    def _session_cookie(self, user) -> dict[str, str]:
        """A signed-in browser session of ``user`` (page pictures are a browser page's, not the API's)."""
        from importlib import import_module

        from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

        store = import_module(settings.SESSION_ENGINE).SessionStore()
        store[SESSION_KEY], store[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        return {settings.SESSION_COOKIE_NAME: store.session_key}

    def _clean_up(self) -> None:
        from knowledge.models import Material
        from knowledge.services.materials import material_delete

        for material in Material.objects.unscoped().filter(owner__email__startswith=f"bench-{self.tag}-"):  # the run's own accounts
            material_delete(material=material)
        get_user_model().objects.filter(email__startswith=f"bench-{self.tag}-").delete()

    def _say(self, text: str) -> None:
        if not self.quiet:
            self.stderr.write(text)

    # --- scene 1: uploads -----------------------------------------------------------------------------------

    def _upload(self, headers: dict, name: str, data: bytes) -> str:
        response = self.client.post(f"{self.url}/api/v1/materials/", headers=headers, files={"file": (name, data)})
        if response.status_code != 202:
            raise CommandError(f"Uploading {name} answered {response.status_code}: {response.text[:300]}")
        return response.json()["refId"]

    def _material(self, headers: dict, ref_id: str) -> dict:
        return self.client.get(f"{self.url}/api/v1/materials/{ref_id}/", headers=headers).json()

    def _wait_ready(self, headers: dict, ref_id: str, *, limit: float = 600) -> float | None:
        started = time.monotonic()
        while time.monotonic() - started < limit:
            status = self._material(headers, ref_id)["status"]
            if status == "READY":
                return round(time.monotonic() - started, 2)
            if status == "FAILED":
                return None
            time.sleep(0.1)
        return None

    def _uploads(self, scan: str, library: int, heavy_bytes: int) -> dict:
        _, reader = self._learner("library")
        shelf = [
            self._upload(reader, f"library-{number}.md", markdown_notes(self.library_bytes, 100 + number)) for number in range(library)
        ]
        self._say(f"library of {library} materials uploaded; waiting for it to be READY …")
        for ref_id in shelf:
            self._wait_ready(reader, ref_id)
        upgrading = [ref_id for ref_id in shelf if self._material(reader, ref_id).get("embeddingUpgrade")]
        _, heavy = self._learner("heavy")
        heavy_files = [self._upload(heavy, f"heavy-{number}.md", markdown_notes(heavy_bytes, number)) for number in range(2)]
        self._say(f"{len(upgrading)} of the library re-embedding; two heavy files uploaded; another learner uploads 1 KB and a scan …")
        time.sleep(min(2.0, heavy_bytes / 1_000_000))  # the heavy files are being read and embedded (2 s for 1.9 MB)
        _, small = self._learner("small")
        sent = time.monotonic()
        note = self._upload(small, "note.txt", b"Registers are small, fast storage inside the CPU. " * 20)
        _, scanner = self._learner("scanner")
        scanned = self._upload(scanner, "scan.pdf", first_page(Path(scan)))
        small_ready = self._wait_ready(small, note, limit=120)
        small_ready = round(time.monotonic() - sent, 2) if small_ready is not None else None
        scan_ready = self._wait_ready(scanner, scanned, limit=300)
        scan_ready = round(time.monotonic() - sent, 2) if scan_ready is not None else None
        heavy_state = [self._material(heavy, ref_id)["status"] for ref_id in heavy_files]
        still_upgrading = sum(1 for ref_id in shelf if self._material(reader, ref_id).get("embeddingUpgrade"))
        return {
            "small_upload_ready_s": small_ready,
            "one_page_scan_ready_s": scan_ready,
            "library_re_embedding": f"{len(upgrading)} of {library} when the small upload was sent, {still_upgrading} still after",
            "heavy_files_status_after": heavy_state,
        }

    # --- scene 2: page pictures -----------------------------------------------------------------------------

    def _pictures(self, seconds: float) -> dict:
        import httpx2

        owner, owner_headers = self._learner("pictures")
        hostile = self._upload(owner_headers, "hostile.pdf", hostile_pdf(self.fills))
        ingested = self._wait_ready(owner_headers, hostile, limit=120)
        _, other = self._learner("other")
        cookies = self._session_cookie(owner)
        statuses: dict[int, int] = {}
        latencies: list[float] = []
        failures: list[str] = []
        lock = threading.Lock()
        # The phase starts once every thread is running: under load, starting 17 threads can take longer than a
        # short phase, and a deadline set before them left the other learner no time for a single request.
        deadline: list[float] = []
        start_phase = threading.Barrier(17, action=lambda: deadline.append(time.monotonic() + seconds)).wait

        def phase_over() -> bool:
            return time.monotonic() >= deadline[0]

        def ask_for_pictures() -> None:
            start_phase()
            with httpx2.Client(timeout=60, cookies=cookies) as client:
                while not phase_over():
                    wait = 1.0  # asked again a second later, as a learner reloading the page would
                    try:
                        response = client.get(f"{self.url}/library/{hostile}/pages/1.webp")
                        code = response.status_code
                        if code in (429, 503):  # as the viewer does: again after Retry-After
                            wait = min(float(response.headers.get("Retry-After", "1")), 5.0)
                    except httpx2.HTTPError:
                        code = 0
                    with lock:
                        statuses[code] = statuses.get(code, 0) + 1
                    time.sleep(wait)

        def other_learner() -> None:
            start_phase()
            with httpx2.Client(timeout=60, headers=other) as client:
                while True:  # at least one request, however short the phase
                    began = time.perf_counter()
                    try:
                        response = client.get(f"{self.url}/api/v1/me")
                        response.raise_for_status()
                        latencies.append((time.perf_counter() - began) * 1000)
                    except httpx2.HTTPError as error:
                        failures.append(f"{type(error).__name__}: {error}")
                    if phase_over():
                        break
                    time.sleep(0.1)

        self._say(f"16 requests at a time for a hostile page's picture for {seconds:.0f} s; another learner reads /api/v1/me …")
        threads = [threading.Thread(target=ask_for_pictures) for _ in range(16)] + [threading.Thread(target=other_learner)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            self._say(f"The other learner's requests failed {len(failures)} times; the first: {failures[0]}")
        return {
            "hostile_pdf_ingested_s": ingested,
            "picture_answers": {str(code): count for code, count in sorted(statuses.items())},
            "other_learner_api_requests": len(latencies),
            "other_learner_api_failures": len(failures),
            "other_learner_api_p50_ms": round(percentile(latencies, 0.5), 1),
            "other_learner_api_p95_ms": round(percentile(latencies, 0.95), 1),
        }


def json_dumps(report: dict, indent: int | None) -> str:
    return json.dumps(report, indent=indent, ensure_ascii=False)
