"""Reads for what a learner keeps and reviews outside a session: notes, a plan's schedule, a material's
study guide (its headings, key points and the terms it defines, each with its page)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from baeum.definitions import find_definitions
from baeum.errors import NotFound
from knowledge import selectors as knowledge

from .models import Card, Note, Plan, StudySession
from .selectors import removed_materials, session_content, session_is_removed


class NoteNotFound(NotFound):
    def __init__(self, note_id):
        super().__init__(f"No note {note_id}.")


def note_list(*, user, plan_id: int | None = None):
    """Return the user's notes, newest first; only those filed under ``plan_id`` when it is given."""
    notes = Note.objects.for_user(user).select_related("plan")
    return notes.filter(plan_id=plan_id) if plan_id is not None else notes


def access_note(*, user, note_id) -> Note:
    """Return the user's note or raise ``NoteNotFound`` (same error when it is someone else's)."""
    try:
        note_id = int(note_id)
    except (TypeError, ValueError):
        raise NoteNotFound(note_id) from None
    note = Note.objects.for_user(user).filter(pk=note_id).select_related("plan").first()
    if note is None:
        raise NoteNotFound(note_id)
    return note


# --- A plan's days ---------------------------------------------------------------------------------


def plan_today(*, user, plan: Plan, today: date | None = None) -> dict:
    """What the exam date asks of today: ``{examDate, daysLeft, dueSessions, cardsDue}`` — the sessions
    scheduled for today or earlier and not completed (numbers, in order), and the plan's cards due now."""
    from django.utils import timezone

    today = today or timezone.localdate()
    removed = removed_materials(user=user, plan=plan)
    due = [
        session.number
        for session in sorted(plan.sessions.all(), key=lambda session: session.number)
        if session.scheduled_for
        and session.scheduled_for <= today
        and session.status != StudySession.Status.COMPLETED
        and not session_is_removed(session, removed)
    ]
    return {
        "examDate": plan.exam_date,
        "daysLeft": (plan.exam_date - today).days if plan.exam_date else None,
        "dueSessions": due,
        "cardsDue": Card.objects.for_user(user).filter(plan=plan, due__lte=timezone.now()).count(),
    }


# --- A material's structure ------------------------------------------------------------------------


def material_headings(*, user, ref_id: str) -> list[dict]:
    """The material's headings in order, front and back matter left out:
    ``[{"title", "level", "pageNumber", "chunkIndex"}]`` (a heading opens the chunk it is on)."""
    return [
        {"title": row["section_title"], "level": row["section_level"], "pageNumber": row["page_number"], "chunkIndex": row["chunk_index"]}
        for row in knowledge.chunk_outline(user=user, ref_id=ref_id)
        if row["section_level"] and row["section_title"] and not row["matter"]
    ]


def material_chapters(*, user, ref_id: str) -> list[dict]:
    """The chapters a learner can choose from, ``[{"title", "pages": [first, last]}]``: the top-level
    headings (chapters, or sections when there are fewer than two chapters) of the body, each up to the
    next. Empty when the material has no such structure (pages are chosen by number then)."""
    outline = [row for row in knowledge.chunk_outline(user=user, ref_id=ref_id) if not row["matter"]]
    for level in (1, 2):
        starts = [position for position, row in enumerate(outline) if row["section_level"] == level and row["section_title"]]
        if len(starts) >= 2:
            break
    else:
        return []
    chapters = []
    for number, start in enumerate(starts):
        end = (starts[number + 1] if number + 1 < len(starts) else len(outline)) - 1
        first, last = outline[start]["page_number"], max(outline[start]["page_number"], outline[end]["page_end"])
        chapters.append({"title": outline[start]["section_title"], "pages": [first, last]})
    return chapters


# --- Study guide -----------------------------------------------------------------------------------

# Part of the glossary's cache key: a deploy that changes what the glossary holds never reads older entries.
GLOSSARY_VERSION = 1
GLOSSARY_CACHE_SECONDS = 7 * 24 * 3600  # keyed by the material's ingestion time: a re-read material misses


@dataclass
class StudyGuide:
    ref_id: str
    title: str
    page_count: int
    sections: list[dict] = field(default_factory=list)  # [{"title", "level", "pageNumber", "keyPoints": [...]}]
    glossary: list[dict] = field(default_factory=list)  # [{"term", "aliases", "definition", "pageNumber", "pageEnd"}]
    plan_id: int | None = None  # the plan whose sessions gave the key points (None: no plan reads this material)


def study_guide(*, user, ref_id: str, llm=None) -> StudyGuide:
    """A material's study guide: its headings with their pages, under each the key points of the plan
    sessions that read it (the newest ready plan with this material), and a glossary of the terms it
    defines, each with the page of its defining sentence."""
    material = knowledge.access_material(user=user, ref_id=ref_id)
    guide = StudyGuide(ref_id=material.ref_id, title=material.title, page_count=material.page_count)
    guide.sections = [{**heading, "keyPoints": []} for heading in material_headings(user=user, ref_id=ref_id)]
    plan, points = _key_points(user=user, ref_id=ref_id, llm=llm)
    guide.plan_id = plan.pk if plan else None
    unplaced = {"title": "", "level": 0, "pageNumber": 0, "chunkIndex": -1, "keyPoints": []}
    for point in points:
        section = next((section for section in reversed(guide.sections) if section["chunkIndex"] <= point["chunkIndex"]), unplaced)
        section["keyPoints"].append(point)
    if unplaced["keyPoints"]:
        guide.sections.insert(0, unplaced)  # key points before the first heading (a material without headings)
    guide.glossary = glossary(user=user, material=material)
    return guide


def _key_points(*, user, ref_id: str, llm=None) -> tuple[Plan | None, list[dict]]:
    """The key points of this material's sessions in the newest ready plan that reads it, in text order."""
    plan = (
        Plan.objects.for_user(user)
        .filter(status=Plan.Status.READY, snapshot__ref_id=ref_id)
        .order_by("-created_at", "-id")
        .prefetch_related("snapshot", "sessions")
        .first()
    )
    if plan is None:
        return None, []
    points: list[dict] = []
    for session in plan.sessions.all():
        if any(item["refId"] == ref_id for item in session.ranges):
            content = session_content(user=user, plan=plan, session=session, llm=llm)
            points += [point for point in content.key_points if point["refId"] == ref_id]
    return plan, sorted(points, key=lambda point: point["chunkIndex"])


def glossary(*, user, material) -> list[dict]:
    """The terms the material defines (``baeum.definitions``), one entry per term (its first
    definition), alphabetical, each with the page of its defining sentence. Cached per ingestion."""
    from django.core.cache import cache

    key = f"plans:glossary:{GLOSSARY_VERSION}:{material.pk}:{material.ready_at.timestamp() if material.ready_at else 0}"
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - Redis unavailable: compute it
        cached = None
    if isinstance(cached, list):
        return cached
    entries: dict[str, dict] = {}
    for window in range(0, material.chunk_count, knowledge.MAX_RANGE):
        for chunk in knowledge.chunk_range(user=user, ref_id=material.ref_id, start=window, end=window + knowledge.MAX_RANGE - 1):
            if chunk.matter:
                continue  # title pages, contents, index: their "X is Y" lines are not the book's definitions
            offset = chunk.overlap_chars
            for definition in find_definitions(chunk.content[offset:]):
                name = definition.term.casefold()
                if name in entries:
                    continue
                first, last = chunk.pages_between(offset + definition.start, offset + definition.end)
                entries[name] = {
                    "term": definition.term,
                    "aliases": list(definition.aliases),
                    "definition": definition.sentence,
                    "pageNumber": first,
                    "pageEnd": last,
                    "chunkIndex": chunk.chunk_index,
                }
    terms = sorted(entries.values(), key=lambda entry: entry["term"].casefold())
    try:
        cache.set(key, terms, GLOSSARY_CACHE_SECONDS)
    except Exception:  # noqa: BLE001, S110 - a cache write failure only costs the next view time
        pass
    return terms


def plan_card_count(*, user, plan: Plan) -> int:
    """How many review cards the plan has (what its deck downloads hold)."""
    return Card.objects.for_user(user).filter(plan=plan).count()
