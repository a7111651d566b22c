"""A bounded load run against a running Baeum (for example `make run`): learners chatting and
uploaders uploading through the public API, then a check that nothing was lost.

    .venv/bin/python manage.py load_test --url http://127.0.0.1:8000 --learners 50 --uploaders 5 --duration 300 --json

Only loopback URLs are accepted. Each simulated user registers, so the run leaves its accounts behind
(named load-*@baeum.invalid); the command deletes them at the end unless --keep is given.
"""

import secrets
import threading
import time
from collections import defaultdict
from urllib.parse import urlparse

import httpx2
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from baeum.metrics import percentile

QUESTIONS = [
    "What is a register?",
    "What does an interrupt handler do?",
    "Where is the return address stored when a function is called?",
    "Which register points to the top of the stack?",
    "What is the capital of France?",
    "레지스터는 무엇인가요?",
]
MATERIAL = (
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU. The EAX register is the accumulator.\n\n"
    "Chapter 2 Interrupts\nAn interrupt handler is the routine that processes the interrupt.\n\n"
    "Chapter 3 The Stack\nWhen a function is called, the return address is pushed on the stack. The ESP register points to the top of the stack.\n"
)


class Recorder:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.errors: dict[str, int] = defaultdict(int)
        self.samples: list[str] = []

    def call(self, client, name: str, method: str, url: str, **kwargs):
        began = time.perf_counter()
        try:
            response = client.request(method, url, **kwargs)
            failed = response.status_code >= 400
        except httpx2.HTTPError as error:
            response, failed = None, True
            detail = type(error).__name__
        else:
            detail = f"{response.status_code} {response.text[:120]}"
        elapsed = (time.perf_counter() - began) * 1000
        with self.lock:
            self.latencies[name].append(elapsed)
            if failed:
                self.errors[name] += 1
                if len(self.samples) < 10:
                    self.samples.append(f"{name}: {detail}")
        return None if failed else response


class Command(BaseCommand):
    help = "Run learners chatting and uploaders uploading against a local server; report latency and losses."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--learners", type=int, default=50)
        parser.add_argument("--uploaders", type=int, default=5)
        parser.add_argument("--duration", type=int, default=300, help="seconds of load")
        parser.add_argument("--think", type=float, default=1.0, help="seconds a learner pauses between questions")
        parser.add_argument("--keep", action="store_true")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, url, learners, uploaders, duration, think, keep, json: bool, **options):
        import json as json_module
        import logging

        logging.getLogger("httpx2").setLevel(logging.WARNING)
        host = urlparse(url).hostname
        if host not in ("127.0.0.1", "localhost", "::1") and not (host or "").startswith("127."):
            raise CommandError("load_test only targets this machine (a loopback URL).")
        recorder = Recorder()
        deadline = time.monotonic() + duration
        sent_messages: dict[int, int] = defaultdict(int)
        uploaded: list[tuple[str, str]] = []
        tokens: list[str] = []
        tag = secrets.token_hex(3)

        # Accounts are made up front (sign-up is rate-limited per address, and is not the load under test).
        from accounts.services import user_token_issue

        User = get_user_model()
        prepared = {
            index: user_token_issue(user=User.objects.create_user(email=f"load-{tag}-{index}@baeum.invalid", password=None)).key
            for index in [*range(learners), *range(10_000, 10_000 + uploaders)]
        }

        def register(client, index: int) -> str:
            return prepared[index]

        def learner(index: int) -> None:
            with httpx2.Client(timeout=60) as client:
                token = register(client, index)
                tokens.append(token)
                client.headers["Authorization"] = f"Token {token}"
                files = {"file": (f"notes-{index}.txt", MATERIAL.encode(), "text/plain")}
                created = recorder.call(client, "POST materials", "POST", f"{url}/api/v1/materials/", files=files)
                if created is None:
                    return
                ref_id = created.json()["refId"]
                uploaded.append((token, ref_id))
                while time.monotonic() < deadline:
                    detail = recorder.call(client, "GET materials/{refId}", "GET", f"{url}/api/v1/materials/{ref_id}/")
                    if detail is not None and detail.json()["status"] in ("READY", "FAILED"):
                        break
                    time.sleep(1)
                conversation = recorder.call(
                    client, "POST conversations", "POST", f"{url}/api/v1/conversations/", json={"refIds": [ref_id]}
                )
                if conversation is None:
                    return
                conversation_id = conversation.json()["id"]
                turn = 0
                while time.monotonic() < deadline:
                    question = QUESTIONS[(index + turn) % len(QUESTIONS)]
                    if (
                        recorder.call(
                            client,
                            "POST messages",
                            "POST",
                            f"{url}/api/v1/conversations/{conversation_id}/messages",
                            json={"content": question},
                        )
                        is not None
                    ):
                        sent_messages[conversation_id] += 1
                    turn += 1
                    time.sleep(think)
                recorder.call(client, "GET conversations/{id}", "GET", f"{url}/api/v1/conversations/{conversation_id}/")

        def uploader(index: int) -> None:
            with httpx2.Client(timeout=120) as client:
                token = register(client, 10_000 + index)
                tokens.append(token)
                client.headers["Authorization"] = f"Token {token}"
                number = 0
                while time.monotonic() < deadline:
                    text = MATERIAL + f"\n\nUpload {index}-{number}: " + " ".join(secrets.token_hex(3) for _ in range(200))
                    files = {"file": (f"upload-{index}-{number}.txt", text.encode(), "text/plain")}
                    created = recorder.call(client, "POST materials", "POST", f"{url}/api/v1/materials/", files=files)
                    if created is not None:
                        uploaded.append((token, created.json()["refId"]))
                    number += 1
                    time.sleep(10)

        started = time.monotonic()
        threads = [threading.Thread(target=learner, args=(index,)) for index in range(learners)]
        threads += [threading.Thread(target=uploader, args=(index,)) for index in range(uploaders)]
        for thread in threads:
            thread.start()
            time.sleep(0.05)
        for thread in threads:
            thread.join()
        elapsed = time.monotonic() - started

        # Nothing lost: every upload reaches a final state, every answered message is stored.
        ready = failed = pending = 0
        settle_deadline = time.monotonic() + 300
        with httpx2.Client(timeout=30) as client:
            for token, ref_id in uploaded:
                while True:
                    response = client.get(f"{url}/api/v1/materials/{ref_id}/", headers={"Authorization": f"Token {token}"})
                    status = response.json().get("status") if response.status_code == 200 else "MISSING"
                    if status in ("READY", "FAILED", "MISSING") or time.monotonic() > settle_deadline:
                        break
                    time.sleep(1)
                ready += status == "READY"
                failed += status == "FAILED"
                pending += status not in ("READY", "FAILED")
        from chat.models import Conversation

        # A turn is counted when its question and answer were saved (older messages may have been
        # dropped by the per-conversation FIFO cap, so messages themselves are not the measure).
        stored = dict(
            Conversation.objects.unscoped().filter(pk__in=list(sent_messages)).values_list("pk", "turn_count")
        )  # the run's own conversations
        lost = sum(max(0, sent - stored.get(conversation_id, 0)) for conversation_id, sent in sent_messages.items())
        report = {
            "learners": learners,
            "uploaders": uploaders,
            "seconds": round(elapsed, 1),
            "requests": sum(len(values) for values in recorder.latencies.values()),
            "throughput_rps": round(sum(len(values) for values in recorder.latencies.values()) / elapsed, 1),
            "errors": sum(recorder.errors.values()),
            "error_samples": recorder.samples,
            "endpoints": {
                name: {
                    "n": len(values),
                    "p50_ms": round(percentile(values, 0.5), 1),
                    "p95_ms": round(percentile(values, 0.95), 1),
                    "errors": recorder.errors.get(name, 0),
                }
                for name, values in sorted(recorder.latencies.items())
            },
            "uploads": {"total": len(uploaded), "ready": ready, "failed": failed, "not_final": pending},
            "messages": {"answered": sum(sent_messages.values()), "turns_stored": sum(stored.values()), "lost": lost},
        }
        if not keep:
            from knowledge.models import Material
            from knowledge.services.materials import material_delete

            for material in Material.objects.unscoped().filter(owner__email__startswith=f"load-{tag}-"):  # the run's own accounts
                material_delete(material=material)
            get_user_model().objects.filter(email__startswith=f"load-{tag}-").delete()
        self.stdout.write(json_module.dumps(report, ensure_ascii=False, indent=None if json else 2))
