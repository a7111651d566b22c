"""`manage.py bench_course`: a course at the size of a school year, measured as its teacher and a learner use it.

    .venv/bin/python manage.py bench_course [--learners 500] [--sessions 30] [--materials 20] [--json] [--keep]

Builds a course with ``--materials`` text materials (read by the real pipeline, in this process), a plan of
``--sessions`` sessions, ``--learners`` members and their progress on every session (completed for about
two thirds, with question results), in the configured database. Then it measures, through the real web
stack (Django's test client: URL routing, middleware, row-level security, templates):

- the teacher's course page (roster with every learner's progress, gaps, flags) and the progress API, p95;
- a learner's tutor turn over the course's materials (``POST /api/v1/conversations/{id}/messages``), p95.

Targets (issue #31, this machine): both p95 ≤ 300 ms. Everything it made is deleted at the end unless
``--keep``. The plan's sessions are written directly (30 sessions of the materials' chunks, as the
generator would cut them), so the bench measures reading a course, not building one.
"""

from __future__ import annotations

import json
import secrets
import time

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import BaseCommand
from django.db import transaction
from django.test import Client
from django.utils import timezone

from accounts.rls import rls_system
from baeum.metrics import percentile
from courses.models import Course, Invitation, Membership
from knowledge.models import Material
from knowledge.services.ingest import material_ingest_in_process
from knowledge.services.materials import material_create, material_publish
from plans.models import Plan, PlanMaterial, SessionProgress, StudySession

TARGETS = {"teacher_course_page_p95_ms": 300.0, "teacher_progress_api_p95_ms": 300.0, "learner_tutor_turn_p95_ms": 300.0}
TOPICS = [
    ("stack", "A stack returns the last element pushed first; push adds on top and pop removes the top."),
    ("queue", "A queue returns the first element added first; enqueue adds at the back and dequeue removes the front."),
    ("heap", "A binary heap keeps the smallest element at the root so extracting the minimum takes logarithmic time."),
    ("hash table", "A hash table maps keys to buckets with a hash function so lookups take constant time on average."),
    ("binary search", "Binary search halves a sorted range at every step, so it finds an element in logarithmic time."),
    ("linked list", "A linked list chains nodes by pointers, so inserting after a known node takes constant time."),
    ("graph", "A graph is a set of vertices joined by edges; breadth-first search visits them level by level."),
    ("tree", "A binary search tree keeps smaller keys on the left and larger keys on the right of every node."),
    ("sorting", "Merge sort splits the list in halves, sorts each half and merges them in linear time."),
    ("recursion", "A recursive function calls itself on a smaller input until it reaches a base case."),
]


def _material_text(number: int) -> bytes:
    chooser = secrets.SystemRandom(number)
    parts = []
    for chapter in range(1, 6):
        name, sentence = TOPICS[(number + chapter) % len(TOPICS)]
        extra = " ".join(f"Example {number}.{chapter}.{line} of the {name} uses {chooser.randrange(10**5)} items." for line in range(20))
        parts.append(f"# Chapter {chapter}: the {name} (book {number})\n\n{sentence} {extra}\n")
    return "\n".join(parts).encode()


class Command(BaseCommand):
    help = "Build a course of N learners × S sessions and time the teacher's roster page and a learner's tutor turn."

    def add_arguments(self, parser):
        parser.add_argument("--learners", type=int, default=500)
        parser.add_argument("--sessions", type=int, default=30)
        parser.add_argument("--materials", type=int, default=20)
        parser.add_argument("--requests", type=int, default=30, help="timed requests of each kind (default 30)")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--keep", action="store_true", help="keep the accounts and course made")

    def handle(self, *args, learners: int, sessions: int, materials: int, requests: int, keep: bool, **options):
        say = (lambda text: None) if options["json"] else (lambda text: self.stderr.write(text))
        users = get_user_model()
        run = secrets.token_hex(4)
        teacher = users.objects.create_user(
            email=f"bench-teacher-{run}@example.com", password=secrets.token_urlsafe(16), first_name="Bench teacher"
        )
        made_users = [teacher.pk]
        try:
            with rls_system(why="the bench builds a course for many learners at once"):
                report = self._run(teacher, run, learners, sessions, materials, requests, say, made_users)
        finally:
            if not keep:
                with rls_system(why="the bench removes what it made"):
                    for material in Material.objects.unscoped().filter(owner_id=teacher.pk):
                        material.file.delete(save=False)
                    users.objects.filter(pk__in=made_users).delete()
        report["targets"] = TARGETS
        report["met"] = {name: report["measured"][name] <= limit for name, limit in TARGETS.items()}
        if options["json"]:
            self.stdout.write(json.dumps(report))
        else:
            for name, value in report["measured"].items():
                self.stdout.write(
                    f"{name:32} {value:8.1f} ms   target ≤ {TARGETS[name]:.0f}   {'met' if report['met'][name] else 'MISSED'}"
                )
            self.stdout.write(f"built in {report['built_seconds']:.1f} s: {report['size']}")

    def _run(self, teacher, run, learners, sessions, materials, requests, say, made_users) -> dict:
        started = time.perf_counter()
        course = Course.objects.create(owner=teacher, title=f"Bench course {run}", language="en")
        books = []
        for number in range(materials):
            say(f"reading material {number + 1}/{materials}")
            upload = SimpleUploadedFile(f"book-{number}.md", _material_text(number))
            material = material_create(owner=teacher, upload=upload, title=f"Book {number}", enqueue=False)
            material_ingest_in_process(material_id=material.pk)
            material.refresh_from_db()
            material_publish(user=teacher, material=material, course_id=course.pk)
            books.append(material)
        plan = Plan.objects.create(owner=teacher, course=course, title=course.title, status=Plan.Status.READY)
        PlanMaterial.objects.bulk_create(
            PlanMaterial(
                plan=plan, owner=teacher, material=book, ref_id=book.ref_id, title=book.title, chunk_count=book.chunk_count,
                page_count=book.page_count, position=position,
            )
            for position, book in enumerate(books)
        )  # fmt: skip
        rows = []
        for number in range(1, sessions + 1):
            book = books[(number - 1) % len(books)]
            rows.append(
                StudySession(
                    plan=plan, owner=teacher, number=number, title=f"Session {number}: {book.title}", objectives=[],
                    ranges=[{"refId": book.ref_id, "chunkRange": [0, max(0, book.chunk_count - 1)], "pages": [1, max(1, book.page_count)]}],
                    tokens=2000, estimated_minutes=25,
                )
            )  # fmt: skip
        plan_sessions = StudySession.objects.bulk_create(rows)
        say(f"{learners} learners")
        users = get_user_model()
        password = teacher.password  # one hash for all: signing in is not what is measured
        members = users.objects.bulk_create(
            users(email=f"bench-{run}-{index}@example.com", username=f"bench-{run}-{index}@example.com", password=password, first_name=f"Learner {index}")
            for index in range(learners)
        )  # fmt: skip
        made_users += [member.pk for member in members]
        Membership.objects.bulk_create(Membership(course=course, user=member, course_owner=teacher) for member in members)
        Invitation.objects.create(course=course, owner=teacher, expires_at=timezone.now() + timezone.timedelta(days=1))
        chooser = secrets.SystemRandom(7)
        progress = []
        for member in members:
            for session in plan_sessions:
                if chooser.random() < 0.9:
                    done = chooser.random() < 0.7
                    reviews = chooser.randrange(12) if done else 0  # the counts a learner's reviews leave on the row
                    progress.append(
                        SessionProgress(
                            owner=member, course_owner=teacher, plan=plan, session=session,
                            status="completed" if done else "started", questions_answered=6, questions_right=chooser.randrange(7),
                            completed_at=timezone.now() if done else None,
                            reviews=reviews, remembered=chooser.randrange(reviews + 1),
                        )
                    )  # fmt: skip
        with transaction.atomic():
            SessionProgress.objects.bulk_create(progress, batch_size=5000)
        built = time.perf_counter() - started
        measured = {
            "teacher_course_page_p95_ms": self._p95(teacher, f"/courses/{course.pk}/", requests),
            "teacher_progress_api_p95_ms": self._p95(teacher, f"/api/v1/courses/{course.pk}/progress", requests),
            "learner_tutor_turn_p95_ms": self._turns(members[0], requests),
        }
        size = {"learners": learners, "sessions": sessions, "materials": materials, "progress_rows": len(progress),
                "chunks": sum(book.chunk_count for book in books)}  # fmt: skip
        return {"measured": measured, "built_seconds": built, "size": size}

    @staticmethod
    def _p95(user, path: str, requests: int) -> float:
        client = Client()
        client.force_login(user)
        assert client.get(path).status_code == 200, path  # warm: the first request loads templates
        times = []
        for _ in range(requests):
            began = time.perf_counter()
            response = client.get(path)
            times.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 200, (path, response.status_code)
        return percentile(times, 0.95)

    @staticmethod
    def _turns(learner, requests: int) -> float:
        client = Client()
        client.force_login(learner)
        conversation = client.post("/api/v1/conversations/", {}, content_type="application/json").json()["id"]
        path = f"/api/v1/conversations/{conversation}/messages"
        questions = [f"What does a {name} do?" for name, _ in TOPICS] + [f"Why is the {name} useful?" for name, _ in TOPICS]
        client.post(path, {"content": questions[0]}, content_type="application/json")  # warm: models loaded, caches filled
        times = []
        for index in range(requests):
            began = time.perf_counter()
            response = client.post(path, {"content": questions[index % len(questions)]}, content_type="application/json")
            times.append((time.perf_counter() - began) * 1000)
            assert response.status_code == 201, response.content[:300]
        return percentile(times, 0.95)
