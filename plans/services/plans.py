"""Create and generate learning plans; record study progress."""

from __future__ import annotations

import logging
import re
from datetime import date, timedelta

from django.db import transaction
from django.db.models import Case, F, Value, When
from django.utils import timezone
from django.utils.translation import gettext, ngettext

from baeum.errors import BaeumError, MaterialNotReady, MaterialsRemoved, NotFound
from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy
from baeum.study import curriculum
from baeum.study import phrasing as study
from core.providers import configured_llm
from knowledge import selectors as knowledge
from knowledge.models import Material

from ..models import Module, Plan, PlanMaterial, StudySession
from ..selectors import ranges_scope
from .session_content import characteristic_terms, session_content

logger = logging.getLogger(__name__)


# Where the learner's choice of chapters or pages is kept: with the other terms the plan is built under.
CHOSEN_RANGES = "chosenRanges"


class PlanInputError(BaeumError, ValueError):
    """A plan request that cannot be honoured (400 ``invalid``); says which refId and why."""

    code = "invalid"
    status = 400

    def __init__(self, message: str, *, ref_id: str = ""):
        super().__init__(message, details={"refId": ref_id} if ref_id else None)
        self.ref_id = ref_id


def plan_create(
    *,
    owner,
    title: str,
    ref_ids: list[str],
    goal: str = "",
    minutes_per_session: int = 25,
    language: str = "",
    ranges: list[dict] | None = None,
    exam_date: date | None = None,
    enqueue: bool = True,
    course=None,
) -> Plan:
    """Snapshot the owner's READY materials and queue the plan's generation (``enqueue=False``: the caller
    runs ``plan_generate`` itself, as the demo account does before the web server starts). ``ranges``
    (``[{"refId", "pages": [first, last]}]``) narrow materials to the chapters or pages chosen;
    ``exam_date`` spreads the sessions over the days before it."""
    if not ref_ids:
        raise PlanInputError(gettext("Choose at least one material (refIds)."))
    _check_exam_date(exam_date)
    ref_ids = list(dict.fromkeys(ref_ids))
    materials = _ready_materials(owner=owner, ref_ids=ref_ids)
    with transaction.atomic():
        plan = Plan.objects.create(
            owner=owner,
            course=course,
            title=title.strip()[:200] or default_title(owner, [materials[ref_id].title for ref_id in ref_ids]),
            goal=goal,
            minutes_per_session=minutes_per_session,
            language=language,
            exam_date=exam_date,
            assumptions={
                "tokensPerMinute": curriculum.TOKENS_PER_MINUTE,
                "note": "study pace ≈ 150 English words or ≈ 300 Korean syllables a minute",
                CHOSEN_RANGES: _clean_ranges(ranges, ref_ids),
            },
        )
        _snapshot(plan, [materials[ref_id] for ref_id in ref_ids])
        if enqueue:
            from ..tasks import generate_plan

            transaction.on_commit(lambda: generate_plan.delay(plan.pk))
    return plan


def default_title(owner, titles: list[str]) -> str:
    """A plan's title when the learner gives none: its materials' titles ("killall-ko · fuser-ko"; from three on,
    "A · B + 2 more"), numbered when another of the owner's plans has it already ("node-child-process (2)").
    Walkthrough 18 had a plan over two Korean manuals named for the first, and two plans of one name apiece."""
    if len(titles) <= 2:
        title = " · ".join(titles)
    else:
        more = len(titles) - 2
        title = " · ".join(titles[:2]) + " " + ngettext("+ %(count)d more", "+ %(count)d more", more) % {"count": more}
    title = title[:190]
    taken = set(Plan.objects.for_user(owner).filter(title__startswith=title).values_list("title", flat=True))
    number = 1
    named = title
    while named in taken:
        number += 1
        named = f"{title} ({number})"
    return named


def plan_rename(*, plan: Plan, title: str) -> Plan:
    """Give a plan a title of the learner's choosing."""
    plan.title = title.strip()[:200]
    plan.save(update_fields=["title", "updated_at"])
    return plan


def session_rename(*, session: StudySession, title: str) -> StudySession:
    """Give a session a title of the plan owner's choosing (its number, content and progress stay)."""
    title = " ".join(title.split())[:300]
    if not title:
        raise PlanInputError(gettext("A session needs a title."))
    session.title = title
    session.save(update_fields=["title"])
    return session


# A number no plan reaches, added while sessions change places (each number is unique within its plan).
_RENUMBERING = 100_000


def session_move(*, session: StudySession, to: int) -> StudySession:
    """Move a session to place ``to`` (1-based, clamped to the plan); the sessions between shift by one.
    What is filed under a session's number moves with it: the cards made from it (every learner's, for a
    course's plan) and, through ``sessions_renumbered``, the conversations about it. With an exam date the
    days are spread again in the new order."""
    from ..signals import sessions_renumbered

    plan = session.plan
    owner = plan.owner
    sessions = list(StudySession.objects.for_user(owner).filter(plan=plan).order_by("number"))
    order = [other for other in sessions if other.pk != session.pk]
    order.insert(max(0, min(len(order), to - 1)), session)
    renumbered = {other.number: number for number, other in enumerate(order, start=1) if other.number != number}
    if not renumbered:
        return session
    with transaction.atomic():
        moving = StudySession.objects.for_user(owner).filter(plan=plan, number__in=renumbered)
        moving.update(number=F("number") + _RENUMBERING)
        StudySession.objects.for_user(owner).filter(plan=plan, number__gte=_RENUMBERING).update(
            number=Case(*[When(number=old + _RENUMBERING, then=Value(new)) for old, new in renumbered.items()])
        )
        _renumber_cards(plan, renumbered)
        sessions_renumbered.send(sender=Plan, plan=plan, renumbered=renumbered)
        if plan.exam_date:
            plan_schedule(plan=plan)
    session.refresh_from_db()
    return session


def _renumber_cards(plan: Plan, renumbered: dict[int, int]) -> None:
    from accounts.rls import rls_system

    from ..models import Card

    change = Case(*[When(session_number=old, then=Value(new)) for old, new in renumbered.items()])
    if plan.course_id is None:
        Card.objects.for_user(plan.owner).filter(plan=plan, session_number__in=renumbered).update(session_number=change)
        return
    # A course's plan: its learners' cards are theirs; the teacher reorders, so the change is the system's.
    with rls_system(why="a teacher reordered a course plan's sessions: the learners' cards follow their session"):
        Card.objects.unscoped().filter(plan=plan, session_number__in=renumbered).update(session_number=change)


def plan_regenerate(
    *, plan: Plan, ref_ids: list[str] | None = None, ranges: list[dict] | None = None, minutes_per_session: int | None = None
) -> Plan:
    """Build the plan again from its materials still in the library (removed ones leave the snapshot).

    ``ref_ids`` replaces the materials (any READY ones of the owner), ``ranges`` the chapters or pages
    chosen (``[]``: whole materials; ``None``: keep the choice), ``minutes_per_session`` the session size.
    Completed sessions whose ranges come out the same keep their progress."""
    from ..selectors import removed_materials
    from ..tasks import generate_plan

    owner = plan.owner
    removed = removed_materials(user=owner, plan=plan)
    if ref_ids is None and removed and len(removed) == len(plan.ref_ids):
        raise MaterialsRemoved(
            gettext("Every material of this plan was removed from your library; create a new plan from your current materials.")
        )
    wanted = [ref_id for ref_id in (plan.ref_ids if ref_ids is None else dict.fromkeys(ref_ids)) if ref_id not in removed]
    if not wanted:
        raise PlanInputError(gettext("Choose at least one material (refIds)."))
    materials = _ready_materials(owner=owner, ref_ids=[ref_id for ref_id in wanted if ref_id not in plan.ref_ids])
    if ranges is None:  # the choice kept, for the materials that stay
        ranges = [item for item in plan.assumptions.get(CHOSEN_RANGES, []) if item["refId"] in wanted]
    assumptions = {**plan.assumptions, CHOSEN_RANGES: _clean_ranges(ranges, wanted)}
    with transaction.atomic():
        # A generation still queued reads the new snapshot when it starts: one queued run is enough.
        already_queued = Plan.objects.for_user(owner).filter(pk=plan.pk, status=Plan.Status.PENDING).exists()
        PlanMaterial.objects.for_user(owner).filter(plan=plan).exclude(ref_id__in=wanted).delete()
        _snapshot(plan, list(materials.values()))
        for position, ref_id in enumerate(wanted):  # the order the learner gave
            PlanMaterial.objects.for_user(owner).filter(plan=plan, ref_id=ref_id).update(position=position)
        Plan.objects.for_user(owner).filter(pk=plan.pk).update(
            status=Plan.Status.PENDING,
            progress_done=0,
            progress_total=0,
            error_message="",
            assumptions=assumptions,
            minutes_per_session=minutes_per_session or plan.minutes_per_session,
            updated_at=timezone.now(),
        )
        if not already_queued:
            transaction.on_commit(lambda: generate_plan.delay(plan.pk))
    plan.refresh_from_db()
    return plan


def _ready_materials(*, owner, ref_ids: list[str]) -> dict[str, Material]:
    """The owner's materials ``ref_ids`` (``MaterialNotFound`` when one is not theirs), each READY."""
    if not ref_ids:
        return {}
    materials = {material.ref_id: material for material in knowledge.materials_in_scope(user=owner, ref_ids=ref_ids, ready_only=False)}
    for ref_id in ref_ids:
        if materials[ref_id].status != Material.Status.READY:
            raise MaterialNotReady(knowledge.not_ready_message(materials[ref_id]), ref_id=ref_id)
    return {ref_id: materials[ref_id] for ref_id in ref_ids}


def _snapshot(plan: Plan, materials: list[Material]) -> None:
    start = PlanMaterial.objects.for_user(plan.owner).filter(plan=plan).count()
    PlanMaterial.objects.bulk_create(
        [
            PlanMaterial(
                plan=plan,
                owner=plan.owner,
                material=material,
                ref_id=material.ref_id,
                title=material.title,
                chunk_count=material.chunk_count,
                page_count=material.page_count,
                position=start + offset,
            )
            for offset, material in enumerate(materials)
        ]
    )


def _clean_ranges(ranges: list[dict] | None, ref_ids: list[str]) -> list[dict]:
    """``[{"refId", "pages": [first, last]}]`` limited to the plan's materials, pages in order."""
    cleaned = []
    for item in ranges or []:
        first, last = sorted(int(page) for page in item["pages"])
        if item["refId"] not in ref_ids:
            raise PlanInputError(
                gettext("Pages were chosen in %(refId)s, which is not one of the plan's materials.") % {"refId": item["refId"]},
                ref_id=item["refId"],
            )
        if last < 1:
            continue
        cleaned.append({"refId": item["refId"], "pages": [max(1, first), last]})
    return cleaned


def chosen_chunks(chunks: list[curriculum.ChunkInfo], ranges: list[dict]) -> list[list[curriculum.ChunkInfo]]:
    """The chunks a learner chose, as runs of consecutive chunks (each run is cut into modules alone).
    A chunk is chosen when it starts on a chosen page; without ranges the whole material is one run."""
    if not ranges:
        return [chunks] if chunks else []
    runs: list[list[curriculum.ChunkInfo]] = []
    for chunk in chunks:
        if not any(first <= chunk.page_start <= last for first, last in (item["pages"] for item in ranges)):
            continue
        if runs and runs[-1][-1].index == chunk.index - 1:
            runs[-1].append(chunk)
        else:
            runs.append([chunk])
    return runs


def _update(plan: Plan, **fields) -> None:
    for name, value in fields.items():
        setattr(plan, name, value)
    Plan.objects.unscoped().filter(pk=plan.pk).update(updated_at=timezone.now(), **fields)  # id re-fetched by the task


HEADING_PASSAGES = 10  # passages an LLM reads to title a session: enough to cover its sections, one short prompt


def _llm_headings(*, owner, session, terms: list[str], llm, korean: bool) -> tuple[str, list[str]] | None:
    """With an LLM: title and objectives from the session's best passages (hybrid retrieval inside the
    session's ranges), checked against those passages."""
    query = " ".join([session.title, *terms])
    hits = knowledge.retrieve(user=owner, scope=ranges_scope(session.ranges), query=query, k=HEADING_PASSAGES)
    if not hits:
        return None
    return study.session_title(llm, passages=[hit.chunk.content for hit in hits], language="ko" if korean else "en")


def plan_generate(*, plan_id: int, llm=None) -> Plan | None:
    """Build modules and sessions from the snapshot; keep completed sessions whose ranges are unchanged.

    Titles and objectives come from the material's headings and characteristic terms; with an LLM
    configured (or passed), from the session's passages, checked against them before use.
    """
    plan = Plan.objects.unscoped().filter(pk=plan_id).select_related("owner").first()  # system task: id from the owner's request
    if plan is None:
        return None
    snapshot = list(plan.snapshot.all())
    _update(plan, status=Plan.Status.GENERATING, progress_done=0, progress_total=len(snapshot) + 1, error_message="")
    budget = plan.minutes_per_session * curriculum.TOKENS_PER_MINUTE
    chosen = plan.assumptions.get(CHOSEN_RANGES) or []
    try:
        modules, chunks_by_ref = _modules_of_snapshot(plan, snapshot, chosen=chosen, budget=budget)
    except NotFound as error:
        _update(
            plan, status=Plan.Status.FAILED, error_message=f"{error} It was deleted after the plan was created; remove it from the plan."
        )
        return plan
    if chosen and not any(chunks_by_ref.values()):
        _update(plan, status=Plan.Status.FAILED, error_message="The chapters or pages you chose hold no text; choose others.")
        return plan
    sessions = curriculum.build_sessions(modules, chunks_by_ref, session_tokens=budget)
    llm = llm if llm is not None else configured_llm()
    created = _replace_modules_and_sessions(plan, modules, sessions, chunks_by_ref, llm=llm)
    # Prepare each session's text, key points and questions now (generation work), so the session
    # page opens at once; they are cached per session (see plans.services.session_content).
    for session in created:
        content = session_content(user=plan.owner, plan=plan, session=session, llm=llm)
        taught = objectives_taught(session.objectives, content, korean=is_hangul_heavy(" ".join(session.objectives)))
        if taught != session.objectives:
            StudySession.objects.for_user(plan.owner).filter(pk=session.pk).update(objectives=taught)
    if plan.exam_date:
        plan_schedule(plan=plan)
    _update(plan, status=Plan.Status.READY, progress_done=len(snapshot) + 1)
    return plan


def _modules_of_snapshot(
    plan: Plan, snapshot: list[PlanMaterial], *, chosen: list[dict], budget: int
) -> tuple[list[curriculum.ModuleSpec], dict[str, list[curriculum.ChunkInfo]]]:
    """Cut each material of the snapshot (its chosen chapters or pages only) into modules, recording
    progress a material at a time. A material removed since the plan was made is ``MaterialNotFound``."""
    modules: list[curriculum.ModuleSpec] = []
    chunks_by_ref: dict[str, list[curriculum.ChunkInfo]] = {}
    for done, entry in enumerate(snapshot, start=1):
        if entry.is_removed:  # recorded when the material was deleted
            raise knowledge.MaterialNotFound(entry.ref_id)
        outline = knowledge.chunk_outline(user=plan.owner, ref_id=entry.ref_id)
        printed = knowledge.page_labels(
            user=plan.owner, pages=[(entry.ref_id, row[key]) for row in outline for key in ("page_number", "page_end")]
        )
        chunks = _chunk_infos(outline, {number: label for (_, number), label in printed.items()})
        vectors = knowledge.chunk_vectors(user=plan.owner, ref_id=entry.ref_id)
        aligned = vectors is not None and len(vectors) == len(chunks)
        positions = {chunk.index: position for position, chunk in enumerate(chunks)}
        runs = chosen_chunks(chunks, [item for item in chosen if item["refId"] == entry.ref_id])
        chunks_by_ref[entry.ref_id] = [chunk for run in runs for chunk in run]
        for run in runs:
            rows = vectors[positions[run[0].index] : positions[run[-1].index] + 1] if aligned else None
            modules += curriculum.build_modules(entry.ref_id, entry.title, run, vectors=rows, session_tokens=budget)
        _update(plan, progress_done=done)
    return modules, chunks_by_ref


def _chunk_infos(outline: list[dict], labels: dict[int, str] | None = None) -> list[curriculum.ChunkInfo]:
    """What the curriculum needs of each chunk; its tokens without the overlap it repeats (read once), and the
    numbers the book prints on its pages (``labels``: page position → label) where they differ."""
    labels = labels or {}
    return [
        curriculum.ChunkInfo(
            index=row["chunk_index"],
            tokens=max(1, round(row["token_count"] * (1 - row["overlap_chars"] / max(1, row["content_length"])))),
            page_start=row["page_number"],
            page_end=row["page_end"],
            section_level=row["section_level"],
            section_title=row["section_title"],
            matter=row["matter"],
            label_start=labels.get(row["page_number"], ""),
            label_end=labels.get(row["page_end"], ""),
            release_entry=row.get("release_entry", False),
        )
        for row in outline
    ]


def _session_in_korean(session, korean_by_ref: dict, *, default: bool) -> bool:
    """Whether a session's objectives are written in Korean, by the materials it reads: a plan over a Korean and an
    English book writes each session's in its own book's language (walkthrough 22's "Explain 인터페이스" over the
    Kiwipiepy guide, in a plan whose other book was the English Expat reference)."""
    known = [korean_by_ref.get(item["refId"]) for item in session.ranges]
    known = [value for value in known if value is not None]
    return sum(known) * 2 > len(known) if known else default


def _written_in_korean(korean_by_ref: dict, modules) -> bool:
    """Whether a plan's objectives are written in Korean: its materials are mostly Korean text (``Material.korean``,
    by refId), or, where that is not known, its module titles are (a file named "vimtutor-ko.txt" titles its modules
    in Latin letters over Korean text: its objectives had read "Explain 텍스트")."""
    known = [korean for korean in korean_by_ref.values() if korean is not None]
    if known:
        return sum(known) * 2 >= len(known)
    return is_hangul_heavy(" ".join(module.title for module in modules))


def _replace_modules_and_sessions(plan: Plan, modules, sessions, chunks_by_ref: dict, *, llm) -> list[StudySession]:
    """Write the new modules and sessions in place of the old ones; a session whose ranges are unchanged
    keeps its progress (status, answers, dates)."""
    owner = plan.owner
    korean_by_ref = {item.ref_id: item.material.korean for item in plan.snapshot.select_related("material") if item.material}
    korean = plan.language == "ko" or (not plan.language and _written_in_korean(korean_by_ref, modules))
    objectives = [characteristic_terms(user=owner, plan=plan, ranges=session.ranges, limit=5) for session in sessions]
    with transaction.atomic():
        kept = {
            _range_key(session.ranges): session
            for session in StudySession.objects.for_user(owner).filter(plan=plan).exclude(status=StudySession.Status.NOT_STARTED)
        }
        Module.objects.for_user(owner).filter(plan=plan).delete()
        StudySession.objects.for_user(owner).filter(plan=plan).delete()
        Module.objects.bulk_create([_module_row(plan, position, module) for position, module in enumerate(modules, start=1)])
        rows = []
        for number, (session, terms) in enumerate(zip(sessions, objectives, strict=True), start=1):
            in_korean = korean if plan.language else _session_in_korean(session, korean_by_ref, default=korean)
            title, goals = session.title, session_objectives(session, chunks_by_ref, terms, korean=in_korean)
            written = _llm_headings(owner=owner, session=session, terms=terms, llm=llm, korean=in_korean) if llm else None
            if written:
                title, goals = written
            rows.append(_session_row(plan, number, session, title, goals, previous=kept.get(_range_key(session.ranges))))
        return StudySession.objects.bulk_create(rows)


def _module_row(plan: Plan, position: int, module) -> Module:
    return Module(
        plan=plan,
        owner=plan.owner,
        position=position,
        title=module.title[:300],
        ref_id=module.ref_id,
        chunk_start=module.start,
        chunk_end=module.end,
        page_first=module.page_first,
        page_last=module.page_last,
        tokens=module.tokens,
        optional=module.optional,
    )


def _session_row(plan: Plan, number: int, session, title: str, goals: list[str], *, previous: StudySession | None) -> StudySession:
    return StudySession(
        plan=plan,
        owner=plan.owner,
        number=number,
        title=title[:300],
        objectives=goals,
        ranges=session.ranges,
        tokens=session.tokens,
        estimated_minutes=session.minutes,
        status=previous.status if previous else StudySession.Status.NOT_STARTED,
        answers=previous.answers if previous else {},
        started_at=previous.started_at if previous else None,
        completed_at=previous.completed_at if previous else None,
    )


MAX_HEADING_OBJECTIVES = 3  # the sections a session covers, by name; then its most characteristic terms
# The sections read as candidates: those the key points and questions speak of are the objectives (a reference's
# session covers a dozen entries; its first three need not be the ones its key points come from).
CANDIDATE_HEADINGS = 12
MIN_OBJECTIVES = 3
_SECTION_NUMBER = re.compile(r"^(?:chapter\s+\d+\s*|제\s*\d+\s*[장절]\s*|\d+(?:\.\d+)*\.?\s+)", re.IGNORECASE)


# Section headings that name a part of the book, not something it teaches.
_NOT_A_TOPIC = re.compile(
    r"^(?:glossary|exercises?|summary|review(?: questions)?|references|bibliography|further reading|notes|problems|"
    r"another example|examples?|연습\s*문제|요약|정리|참고\s*문헌|용어\s*정리|예제|"
    # a manual's or a report's formal parts ("Explain AUTHOR" in walkthrough 20's bzip2 manual)
    r"authors?|acknowledge?ments?|copyright|licen[cs]e|see also|(?:reporting )?bugs|credits|contributors|availability|"
    r"name|synopsis|저자|저작권|같이\s*보기|버그)$",
    re.IGNORECASE,
)


def session_objectives(session, chunks_by_ref: dict, terms: list[str], *, korean: bool) -> list[str]:
    """What a session teaches, in the material's language: the sections it covers by their headings
    ("Explain the CALL and RET Instructions", "스택 프레임 설명하기"), then characteristic terms it uses."""
    headings: list[str] = []
    for item in session.ranges:
        start, end = item["chunkRange"]
        for chunk in chunks_by_ref.get(item["refId"], []):
            if start <= chunk.index <= end and chunk.section_level >= 2 and chunk.section_title:
                heading = _SECTION_NUMBER.sub("", chunk.section_title).strip()
                if _NOT_A_TOPIC.match(heading):
                    continue  # "Explain Exercises" teaches nothing
                if heading and heading not in headings and not session.title.endswith(heading):
                    headings.append(heading)
    named = [_objective(heading, korean=korean, heading=True) for heading in headings[:CANDIDATE_HEADINGS]]
    covered = " ".join(headings).casefold()
    rest = [_objective(term, korean=korean) for term in terms if term.casefold() not in covered]
    return (named + rest)[: max(MIN_OBJECTIVES, len(named))]  # terms only fill in where headings are few


def objectives_taught(objectives: list[str], content, *, korean: bool) -> list[str]:
    """The session's objectives as its content teaches them: those whose subject its key points or questions
    speak of (the first ``MAX_HEADING_OBJECTIVES`` of the candidates), then "Define X" ("X의 뜻 말하기") for the
    terms its questions ask about, up to ``MIN_OBJECTIVES`` or the number there was. An objective the page does not
    teach ("Explain the first program" over key points on formal languages) goes; when none is taught, the first
    candidates stay."""
    taught_text = " ".join([point["text"] for point in content.key_points] + [f"{q['question']} {q['answer']}" for q in content.questions])
    taught_terms = set(content_terms(taught_text))
    kept = [objective for objective in objectives if _mostly_taught(_subject_of(objective, korean=korean), taught_terms)]
    kept = kept[:MAX_HEADING_OBJECTIVES]
    asked = [question.get("term") or "" for question in content.questions if question.get("kind") in ("definition", "short_answer")]
    for term in dict.fromkeys(term for term in asked if term):
        if len(kept) >= max(MIN_OBJECTIVES, min(len(objectives), MAX_HEADING_OBJECTIVES)):
            break
        objective = f"{term}의 뜻 말하기" if korean else f"Define {term}"
        if not any(term.casefold() in existing.casefold() for existing in kept):
            kept.append(objective)
    return kept or objectives[: max(MIN_OBJECTIVES, MAX_HEADING_OBJECTIVES)]


def _mostly_taught(subject: str, taught_terms: set[str]) -> bool:
    """Whether most of a subject's words are what the key points and questions speak of: "Event: 'close'" is not
    taught by "The 'resume' event is emitted …", whose one shared word is "event"."""
    terms = set(content_terms(subject))
    return bool(terms) and len(terms & taught_terms) * 2 > len(terms)


def _subject_of(objective: str, *, korean: bool) -> str:
    return objective.removesuffix(" 설명하기") if korean else objective.removeprefix("Explain ").removeprefix("why ")


# A heading that is a statement about a plural subject ("Lists are mutable", "Strings are immutable").
_PLURAL_STATEMENT = re.compile(r"^[A-Z][a-z]+s (?:are|were|can|cannot|must|have) (?!an? |the )\S")
_GERUND = re.compile(r"^[A-Z][a-z]{2,}ing\b")  # "Traversing a list", "Debugging"


def _objective(subject: str, *, korean: bool, heading: bool = False) -> str:
    """An objective a teacher would write: "Explain why lists are mutable" for the heading "Lists are
    mutable", "Explain traversing a list", "Explain the stack"; a Korean heading that already names an
    action ("파일로부터 배열을 읽기", "소수 찾기") is the objective itself."""
    if korean:
        return subject if heading and subject.endswith("기") else f"{subject} 설명하기"
    if heading and subject.isupper() and sum(len(word) > 2 for word in subject.split()) >= 2:
        subject = subject.lower()  # a heading set in capitals: "Explain recovering data from damaged files"
    title_case = all(word[:1].isupper() for word in subject.split()[1:] if word[:1].isalpha() and len(word) > 3)
    if heading and (
        subject.split(" ", 1)[0] in ("The", "A", "An") or not title_case and (_GERUND.match(subject) or _PLURAL_STATEMENT.match(subject))
    ):
        subject = subject[0].lower() + subject[1:]  # a common word, not a name: "Explain the stack", not "Explain The stack"
    if heading and _PLURAL_STATEMENT.match(subject[0].upper() + subject[1:]):
        return f"Explain why {subject}"
    return f"Explain {subject}"


def _range_key(ranges: list[dict]) -> str:
    return "|".join(f"{item['refId']}:{item['chunkRange'][0]}-{item['chunkRange'][1]}" for item in ranges)


def session_progress_record(*, session: StudySession, status: str, answers: dict | None = None) -> StudySession:
    """Record that a session was started or completed (with the learner's answers, if any)."""
    now = timezone.now()
    session.status = status
    if status == StudySession.Status.STARTED and session.started_at is None:
        session.started_at = now
    if status == StudySession.Status.COMPLETED:
        session.started_at = session.started_at or now
        session.completed_at = now
    if answers:
        session.answers = {**session.answers, **answers}
    session.save(update_fields=["status", "started_at", "completed_at", "answers"])
    return session


# A generation running meanwhile may commit new sessions after the delete has collected the old ones;
# the plan's row then still has children and the delete fails. Collecting again removes them.
PLAN_DELETE_ATTEMPTS = 3


def plan_delete(*, plan: Plan) -> None:
    """Delete a plan with its sessions, modules and cards (its notes stay, filed under no plan)."""
    from django.db import IntegrityError

    plan_id = plan.pk
    for attempt in range(PLAN_DELETE_ATTEMPTS):
        try:
            with transaction.atomic():
                plan.delete()
            return
        except IntegrityError:  # a row its generation committed meanwhile (foreign keys are checked at commit)
            plan.pk = plan_id  # the collector cleared it before the commit failed; collect again, that row too
            if attempt == PLAN_DELETE_ATTEMPTS - 1:
                raise


def plan_exam_date_set(*, plan: Plan, exam_date: date | None, today: date | None = None) -> Plan:
    """Set (or clear) the plan's exam date and spread its sessions over the days left before it."""
    _check_exam_date(exam_date, today=today)
    plan.exam_date = exam_date
    plan.save(update_fields=["exam_date", "updated_at"])
    plan_schedule(plan=plan, today=today)
    return plan


# An exam date is a day of this study: at most a year ago (a plan kept for review), at most ten years ahead.
EXAM_DATE_PAST_DAYS = 366
EXAM_DATE_FUTURE_DAYS = 3653


def _check_exam_date(exam_date: date | None, *, today: date | None = None) -> None:
    """Refuse an exam date no study has (0001-01-01, 9999-12-31): the schedule and review count days to it."""
    if exam_date is None:
        return
    today = today or timezone.localdate()
    earliest, latest = today - timedelta(days=EXAM_DATE_PAST_DAYS), today + timedelta(days=EXAM_DATE_FUTURE_DAYS)
    if not earliest <= exam_date <= latest:
        raise PlanInputError(
            gettext("The exam date must be between %(earliest)s and %(latest)s (it was %(date)s).")
            % {"earliest": earliest.isoformat(), "latest": latest.isoformat(), "date": exam_date.isoformat()}
        )


def plan_schedule(*, plan: Plan, today: date | None = None) -> None:
    """Give each session still to study a day (``scheduled_for``) from today to the day before the exam,
    evenly and in order (several a day when days are fewer than sessions; the exam day is left for
    review). Completed sessions keep the day they had; without an exam date no session has a day."""
    from ..selectors import removed_materials, session_is_removed

    sessions = StudySession.objects.for_user(plan.owner).filter(plan=plan).order_by("number")
    if plan.exam_date is None:
        sessions.update(scheduled_for=None)
        return
    today = today or timezone.localdate()
    removed = removed_materials(user=plan.owner, plan=plan)
    pending = [
        session for session in sessions if session.status != StudySession.Status.COMPLETED and not session_is_removed(session, removed)
    ]
    days = max(1, (plan.exam_date - today).days)
    for position, session in enumerate(pending):
        session.scheduled_for = today + timedelta(days=position * days // len(pending))
    StudySession.objects.for_user(plan.owner).bulk_update(pending, ["scheduled_for"])
