"""Reads for what a learner keeps and reviews outside a session: notes, a plan's schedule, a material's
study guide (its headings, key points and the terms it defines, each with its page)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from baeum.errors import NotFound
from baeum.study.definitions import find_definitions
from core.learner_cache import learner_key
from knowledge import selectors as knowledge

from .models import Card, Note, Plan, StudySession
from .selectors import removed_materials, reviewable_cards, session_is_removed
from .services.session_content import prose_of, session_content


class NoteNotFound(NotFound):
    def __init__(self, note_id):
        super().__init__(f"No note {note_id}.")


def note_list(*, user, plan_id: int | None = None):
    """Return the user's notes, newest first; only those filed under ``plan_id`` when it is given."""
    notes = Note.objects.for_user(user).select_related("plan")
    return notes.filter(plan_id=plan_id) if plan_id is not None else notes


def with_printed_citations(*, user, notes: list[Note]) -> list[Note]:
    """``notes``, each with ``printed_citations``: its citations with the numbers the book prints on their
    pages (``pageLabel``), for showing (the stored ``citations`` stay as they are)."""
    labelled = iter(knowledge.with_page_labels(user=user, citations=[citation for note in notes for citation in note.citations or []]))
    for note in notes:
        note.printed_citations = [next(labelled) for _ in note.citations or []]
    return notes


def saved_note_texts(*, user, kind: str, texts: list[str]) -> set[str]:
    """Which of ``texts`` the user has saved as notes of ``kind`` (a page shows "Saved" for them, not the button)."""
    if not texts:
        return set()
    return set(Note.objects.for_user(user).filter(kind=kind, text__in=[text.strip() for text in texts]).values_list("text", flat=True))


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
        "cardsDue": reviewable_cards(user=user).filter(plan=plan, due__lte=timezone.now()).count(),
    }


# --- A material's structure ------------------------------------------------------------------------


def material_chapters(*, user, ref_id: str) -> list[dict]:
    """The chapters a learner can choose from, ``[{"title", "pages": [first, last], "labels": [first, last]}]``
    (``labels``: the numbers the book prints on those pages): the top-level
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
    # The pages as the book prints them, to show ("p. 53–64"); ``pages`` stay file positions, which a plan reads.
    printed = knowledge.page_labels(user=user, pages=[(ref_id, page) for chapter in chapters for page in chapter["pages"]])
    for chapter in chapters:
        chapter["labels"] = [printed.get((ref_id, page), str(page)) for page in chapter["pages"]]
    return chapters


# --- Study guide -----------------------------------------------------------------------------------

# Part of the cache key of a material's headings and glossary: a deploy that changes them never reads older entries.
READING_VERSION = 1
READING_CACHE_SECONDS = 7 * 24 * 3600  # keyed by the material's ingestion time: a re-read material misses


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
    material = knowledge.read_material(user=user, ref_id=ref_id)
    reading = material_reading(user=user, material=material)
    guide = StudyGuide(ref_id=material.ref_id, title=material.title, page_count=material.page_count, glossary=reading["glossary"])
    guide.sections = [{**heading, "keyPoints": []} for heading in reading["headings"]]
    plan, points = _key_points(user=user, ref_id=ref_id, llm=llm)
    guide.plan_id = plan.pk if plan else None
    unplaced = {"title": "", "level": 0, "pageNumber": 0, "chunkIndex": -1, "keyPoints": []}
    for point in points:
        # Under the last heading before it (a heading later on the same page of the same chunk is not told apart).
        where = (point["chunkIndex"], point["pageNumber"])
        section = next(
            (section for section in reversed(guide.sections) if (section["chunkIndex"], section["pageNumber"]) <= where), unplaced
        )
        section["keyPoints"].append(point)
    if unplaced["keyPoints"]:
        guide.sections.insert(0, unplaced)  # key points before the first heading (a material without headings)
    # The numbers the book prints, where they differ from the positions (``pageLabel``), as citations show them:
    # sections, their key points and the glossary read in one query, then dealt back in order.
    rows = [*guide.sections, *(point for section in guide.sections for point in section["keyPoints"]), *guide.glossary]
    labelled = iter(knowledge.with_page_labels(user=user, citations=[{**row, "refId": ref_id} for row in rows]))
    sections = [next(labelled) for _ in guide.sections]
    guide.sections = [{**section, "keyPoints": [next(labelled) for _ in section["keyPoints"]]} for section in sections]
    guide.glossary = [next(labelled) for _ in guide.glossary]
    return guide


def printed_ranges(*, user, ranges: list[tuple[str, int, int]]) -> list[str]:
    """Each (refId, first page, last page) as the book prints the numbers ("61–68" for positions 73–80)."""
    labels = knowledge.page_labels(user=user, pages=[(ref_id, page) for ref_id, first, last in ranges for page in (first, last)])
    shown = []
    for ref_id, first, last in ranges:
        first_shown, last_shown = labels.get((ref_id, first), str(first)), labels.get((ref_id, last), str(last))
        shown.append(first_shown if first == last else f"{first_shown}–{last_shown}")
    return shown


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
    points: dict[str, dict] = {}  # by text: a sentence a book repeats is one key point
    for session in plan.sessions.all():
        if any(item["refId"] == ref_id for item in session.ranges):
            content = session_content(user=user, plan=plan, session=session, llm=llm)
            for point in content.key_points:
                if point["refId"] == ref_id:
                    points.setdefault(" ".join(point["text"].split()), point)
    return plan, sorted(points.values(), key=lambda point: point["chunkIndex"])


def material_reading(*, user, material) -> dict:
    """One pass over the material's body (front and back matter left out): ``{"headings": [{"title",
    "level", "pageNumber", "chunkIndex"}], "glossary": [...]}``. Headings are read from the text's lines
    as the chunker recognises them (a sub-heading may sit inside a chunk); the glossary holds the terms
    the material defines (``baeum.study.definitions``), one entry per term (its first definition), alphabetical,
    each with the page of its defining sentence. Cached per ingestion."""
    from django.core.cache import cache

    key = learner_key(
        material.owner_id, "plans", "reading", READING_VERSION, material.pk, material.ready_at.timestamp() if material.ready_at else 0
    )
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - Redis unavailable: compute it
        cached = None
    if isinstance(cached, dict) and cached.keys() == {"headings", "glossary"}:
        return cached
    headings: list[dict] = []
    terms: dict[str, dict] = {}
    for chunk in _body_chunks(user=user, material=material):
        offset = chunk.overlap_chars  # the overlap was read at the end of the previous chunk
        # The headings chunking found (numbered, set large, or both), not those the lines' numbering alone shows.
        for start, end, level in chunk.heading_spans:
            if start >= offset:
                page = chunk.pages_between(start, end)[0]
                title = " ".join(chunk.content[start:end].split())
                headings.append({"title": title, "level": level, "pageNumber": page, "chunkIndex": chunk.chunk_index})
        if chunk.section_level and chunk.content[offset:].startswith(chunk.section_title):
            offset += len(chunk.section_title)  # the heading line would be read as the first sentence's start
        for definition in find_definitions(prose_of(chunk, offset)):
            name = definition.term.casefold()
            if name in terms:
                continue
            first, last = chunk.pages_between(offset + definition.start, offset + definition.end)
            terms[name] = {
                "term": definition.term,
                "aliases": list(definition.aliases),
                "definition": definition.sentence,
                "pageNumber": first,
                "pageEnd": last,
            }
    reading = {"headings": headings, "glossary": sorted(terms.values(), key=lambda entry: entry["term"].casefold())}
    try:
        cache.set(key, reading, READING_CACHE_SECONDS)
    except Exception:  # noqa: BLE001, S110 - a cache write failure only costs the next view time
        pass
    return reading


def _body_chunks(*, user, material):
    for window in range(0, material.chunk_count, knowledge.MAX_RANGE):
        for chunk in knowledge.chunk_range(user=user, ref_id=material.ref_id, start=window, end=window + knowledge.MAX_RANGE - 1):
            if not chunk.matter:  # title pages, contents, index: their "X is Y" lines are not the book's definitions
                yield chunk


def plan_deck(*, user, plan: Plan) -> list[Card]:
    """What the plan's deck downloads hold: its review cards (questions answered, key points of completed
    sessions) and every practice question of its sessions not answered yet, as cards not saved (``pk`` None, no
    due date), in session order. A question's card has the question's id as its key, so an Anki import of a
    later download updates the same note."""
    cards = list(Card.objects.for_user(user).filter(plan=plan).order_by("session_number", "created_at", "id"))
    known = {card.key for card in cards}
    removed = removed_materials(user=user, plan=plan)
    for session in StudySession.objects.for_user(user).filter(plan=plan).order_by("number"):
        if session_is_removed(session, removed):
            continue
        for question in session_content(user=user, plan=plan, session=session).questions:
            if question.get("id") in known:
                continue
            cards.append(
                Card(
                    owner=user,
                    plan=plan,
                    key=question["id"],
                    session_number=session.number,
                    kind=question["kind"],
                    prompt=question["question"],
                    answer=question["answer"],
                    choices=question.get("choices", []),
                    accepted=question.get("accepted", []),
                    citation=question["citation"],
                    due=None,
                )
            )
    return sorted(cards, key=lambda card: card.session_number or 0)


def plan_card_count(*, user, plan: Plan) -> int:
    """How many cards the plan's deck downloads hold (``plan_deck``)."""
    return len(plan_deck(user=user, plan=plan))
