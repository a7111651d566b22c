"""Reads of the plans app: plans, sessions with their text, key points and practice questions."""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from django.utils.translation import gettext

from baeum import quiz, study
from baeum.chunking import looks_like_code
from baeum.definitions import find_definitions
from baeum.errors import NotFound
from baeum.grounding import content_terms, is_readable_sentence, without_leading_heading
from baeum.text import is_hangul_heavy, sentence_spans
from knowledge import selectors as knowledge

from .models import Card, Plan, Review, StudySession


class PlanNotFound(NotFound):
    def __init__(self, plan_id):
        super().__init__(gettext("No plan %(id)s.") % {"id": plan_id})


class SessionNotFound(NotFound):
    def __init__(self, number):
        super().__init__(gettext("No session %(number)s in this plan.") % {"number": number})


def plan_list(*, user):
    """Return the user's plans, newest first, with their snapshot and sessions prefetched."""
    return Plan.objects.for_user(user).prefetch_related("snapshot", "sessions")


def access_plan(*, user, plan_id) -> Plan:
    """Return the user's plan or raise ``PlanNotFound`` (same error when it is someone else's)."""
    try:
        plan_id = int(plan_id)
    except (TypeError, ValueError):
        raise PlanNotFound(plan_id) from None
    plan = Plan.objects.for_user(user).filter(pk=plan_id).prefetch_related("snapshot", "modules", "sessions").first()
    if plan is None:
        raise PlanNotFound(plan_id)
    return plan


def access_session(*, user, plan: Plan, number) -> StudySession:
    session = StudySession.objects.for_user(user).filter(plan=plan, number=number).first()
    if session is None:
        raise SessionNotFound(number)
    return session


def library_ref_ids(*, user) -> set[str]:
    """The refIds in the user's library now (one query, shared by every plan on a page)."""
    return set(knowledge.materials_in_scope(user=user, ready_only=False).values_list("ref_id", flat=True))


def removed_materials(*, user, plan: Plan, library: set[str] | None = None) -> dict[str, str]:
    """refId → title of the plan's materials deleted from the library since (recorded on the snapshot
    row: its ``material`` is null). ``library`` is not needed any more; callers may still pass it."""
    return {material.ref_id: material.title for material in plan.snapshot.all() if material.is_removed}


def session_is_removed(session: StudySession, removed: dict[str, str]) -> bool:
    """A session reading a removed material cannot be studied: it is marked, not counted, not a 404."""
    return any(item["refId"] in removed for item in session.ranges)


def plan_progress(plan: Plan, removed: dict[str, str] | None = None) -> dict:
    """Return ``{percentComplete, completed, total, nextSession, removedSessions}`` from the (prefetched)
    sessions; sessions of removed materials (``removed_materials``) are left out of the count."""
    every = sorted(plan.sessions.all(), key=lambda session: session.number)
    sessions = [session for session in every if not session_is_removed(session, removed or {})]
    completed = sum(1 for session in sessions if session.status == StudySession.Status.COMPLETED)
    upcoming = next((session.number for session in sessions if session.status != StudySession.Status.COMPLETED), None)
    return {
        "percentComplete": round(100 * completed / len(sessions)) if sessions else 0,
        "completed": completed,
        "total": len(sessions),
        "nextSession": upcoming,
        "removedSessions": len(every) - len(sessions),
    }


# --- Session content -------------------------------------------------------------------------


def characteristic_terms(*, user, plan: Plan, ranges: list[dict], limit: int = 5) -> list[str]:
    """Return the terms the ranges define ("A stack is …", "… is called a nibble"), in order; where they
    define none and have no section headings either, the terms most characteristic of them against the
    whole plan (TF-IDF), as they appear in the text. Used for offline objectives: nothing is invented."""
    chunks = [chunk for chunk in _range_chunks(user, ranges) if not chunk.matter]
    text = "\n".join(chunk.content for chunk in chunks)
    defined = list(dict.fromkeys(definition.term for definition in find_definitions(text)))
    if defined or any(chunk.section_level >= 2 and chunk.section_title for chunk in chunks):
        return defined[:limit]  # with section headings to name, a frequent word is not an objective
    return [term for term, _ in _weighted_terms(user, plan, text)[:limit]]


def ranges_scope(ranges: list[dict]) -> knowledge.Scope:
    """The retrieval scope of a session's ranges (``[{"refId", "chunkRange": [start, end], …}]``)."""
    return knowledge.Scope.within(knowledge.ChunkRange(item["refId"], *item["chunkRange"]) for item in ranges)


def _range_chunks(user, ranges: list[dict]):
    """The chunks of the ranges, range by range in order (``MaterialNotFound`` when a material is gone)."""
    if not ranges:
        return []
    return knowledge.retrieve_chunks(user=user, scope=ranges_scope(ranges))


def _source(chunk, start: int = 0, end: int | None = None) -> dict:
    """Where a part, key point or question comes from -- ``chunk.content[start:end]`` -- with the page
    that text is on (and where it ends): what the page viewer needs to open and highlight it."""
    first, last = chunk.pages_between(start, len(chunk.content) if end is None else end)
    return {"refId": chunk.material.ref_id, "chunkIndex": chunk.chunk_index, "pageNumber": first, "pageEnd": last}


def _page_parts(chunk, offset: int) -> list[dict]:
    """Cut the chunk's text from ``offset`` at its page breaks: each part is shown under its own page."""
    breaks = [start for start, _ in chunk.page_starts if start > offset] + [len(chunk.content)]
    parts, start = [], offset
    for end in breaks:
        text = chunk.content[start:end].strip()
        if text:
            parts.append({**_source(chunk, start, end), "text": text})
        start = end
    return parts


# Text that reads as a sentence but is not one a learner should be quizzed on: a table or figure caption
# inside it ("… Table 3.5: Uses of boolean operations"), a footnote glued on ("… remove the parame2 It is
# legal …"), or an opening in lower case (the tail of a code line: "lea eax, [ebp - 8] Now EAX holds …").
_NOT_A_SENTENCE = re.compile(
    r"\b(?:Table|Figure|Fig\.|Listing)\s+\d+(?:\.\d+)*\.?\s*:|(?:^|\s)(?:표|그림)\s*\d+(?:\.\d+)*\s*[:.]"
    r"|[a-z]{2,}\d{1,2}\s+[A-Z][a-z]|^[a-z]|__\w+__|\b\w+\([\w\s,'\"]*\)|(?:아래와|다음과)\s*같다\s+\S"
)


def _is_prose(sentence: str) -> bool:
    """Skip code, tables and formulas: key points and questions come from sentences of words."""
    visible = [char for char in sentence if not char.isspace()]
    return bool(visible) and not looks_like_code(sentence) and sum(char.isalpha() for char in visible) / len(visible) >= 0.75


def _weighted_terms(user, plan: Plan, text: str) -> list[tuple[str, float]]:
    counts = Counter(term for term in content_terms(text) if len(term) > 2 and term.isalpha())
    if not counts:
        return []
    frequencies, total = knowledge.term_document_frequencies(user=user, ref_ids=plan.ref_ids, terms=counts)
    weights = {term: (1 + math.log(count)) * math.log(1 + (total + 1) / (1 + frequencies.get(term, 0))) for term, count in counts.items()}
    lowered = text.casefold()
    return sorted(((term, weight) for term, weight in weights.items() if term in lowered), key=lambda item: -item[1])


# How much more a sentence that defines a term counts as a key point than its terms alone say.
DEFINITION_BOOST = 1.5

# Part of the cache key: a deploy that changes what a session's content holds never reads older entries.
SESSION_CONTENT_VERSION = 3


@dataclass
class SessionContent:
    parts: list[dict] = field(default_factory=list)  # [{"refId", "pageNumber", "chunkIndex", "text"}]
    key_points: list[dict] = field(default_factory=list)  # [{"text", "refId", "chunkIndex", "pageNumber"}]
    questions: list[dict] = field(default_factory=list)
    removed_materials: list[str] = field(default_factory=list)  # titles: the session's material was deleted


def session_content(*, user, plan: Plan, session: StudySession, llm=None) -> SessionContent:
    """Return the session's text, key points and questions (see ``_session_content``), cached for a
    day: building them analyses every sentence, and a session page should open at once. The key
    covers the session's ranges and the question writer; a deleted material is never served."""
    import hashlib
    import json
    from dataclasses import asdict

    from django.core.cache import cache

    removed = removed_materials(user=user, plan=plan)
    if session_is_removed(session, removed):  # never served from the cache either
        return SessionContent(removed_materials=[removed[item["refId"]] for item in session.ranges if item["refId"] in removed])
    ranges = hashlib.sha256(json.dumps(session.ranges, sort_keys=True).encode()).hexdigest()[:16]  # jsonb reorders keys
    key = f"plans:session:{SESSION_CONTENT_VERSION}:{session.pk}:{ranges}:{getattr(llm, 'model', 'offline')}"
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - Redis unavailable: compute it
        cached = None
    if isinstance(cached, dict) and cached.keys() == SessionContent.__dataclass_fields__.keys():
        return SessionContent(**cached)
    content = _session_content(user=user, plan=plan, session=session, llm=llm)
    try:
        cache.set(key, asdict(content), 24 * 3600)
    except Exception:  # noqa: BLE001, S110 - a cache write failure only costs the next view time
        pass
    return content


def _session_content(
    *, user, plan: Plan, session: StudySession, max_key_points: int = 5, max_questions: int = 6, llm=None
) -> SessionContent:
    """Return the session's text (overlap removed, in chunk order, with page numbers), its key points
    (the most central sentences) and practice questions, each cited: short-answer questions written
    by the LLM when one is given (and checked against their sentence), else cloze questions built from
    the key terms of the key sentences."""
    content = SessionContent()
    sentences: list[tuple[str, object, int]] = []  # (sentence, chunk, its offset in chunk.content)
    for chunk in _range_chunks(user, session.ranges):
        previous_in_range = (
            content.parts
            and content.parts[-1]["refId"] == chunk.material.ref_id
            and content.parts[-1]["chunkIndex"] == chunk.chunk_index - 1
        )
        offset = chunk.overlap_chars if previous_in_range and chunk.overlap_chars else 0
        text = chunk.content[offset:]
        content.parts += _page_parts(chunk, offset)
        for start, end in sentence_spans(text):
            sentence = text[start:end]
            body = without_leading_heading(sentence)  # "Signed magnitude\nThe first method is …"
            start += sentence.find(body)
            if 25 <= len(body) <= 400 and _is_prose(body) and is_readable_sentence(body) and not _NOT_A_SENTENCE.search(body):
                sentences.append((body, chunk, offset + start))
    weights = dict(_weighted_terms(user, plan, "\n".join(part["text"] for part in content.parts))[:40])
    candidates, defined = [], {}
    for position, (sentence, _, _) in enumerate(sentences):
        terms = set(content_terms(sentence))
        definitions = find_definitions(sentence)
        score = sum(weights.get(term, 0.0) for term in terms) / math.sqrt(max(4, len(terms)))
        if definitions:
            defined[position] = definitions
            score *= DEFINITION_BOOST  # what the text defines is what a learner must know
        candidates.append(quiz.Candidate(sentence, score, position))
    best = sorted(candidates, key=lambda candidate: -candidate.score)[:max_key_points]
    for candidate in sorted(best, key=lambda candidate: candidate.position):
        sentence, chunk, offset = sentences[candidate.position]
        content.key_points.append({"text": sentence, **_quoted(sentence, (chunk, offset))})
    if llm is not None and best:
        sources = [
            sentences[candidate.position] for candidate in sorted(candidates, key=lambda candidate: -candidate.score)[: max_questions * 2]
        ]
        written = study.short_answer_questions(
            llm,
            sentences=[sentence for sentence, _, _ in sources],
            language="ko" if is_hangul_heavy(sources[0][0]) else "en",
            limit=max_questions,
        )
        if written:
            for item in written:
                sentence, chunk, offset = sources[item["source"]]
                question = quiz.Question(quiz.SHORT_ANSWER, item["question"], item["answer"], 0)
                content.questions.append({**question.as_dict(), "citation": {**_quoted(sentence, (chunk, offset)), "quote": sentence}})
            return content
    headings = list(dict.fromkeys(chunk.section_title for _, chunk, _ in sentences if chunk.section_title))
    for question in quiz.build_questions(candidates, definitions=defined, headings=headings, limit=max_questions):
        sentence, chunk, offset = sentences[question.source]
        content.questions.append({**question.as_dict(), "citation": {**_quoted(sentence, (chunk, offset)), "quote": sentence}})
    return content


def _quoted(sentence: str, where: tuple) -> dict:
    chunk, offset = where
    return _source(chunk, offset, offset + len(sentence))


def session_scope(*, session: StudySession) -> knowledge.Scope:
    """Where a session's conversation may retrieve from: only the chunks of the session's ranges."""
    return ranges_scope(session.ranges)


# --- Review (spaced repetition) -----------------------------------------------------------------


class CardNotFound(NotFound):
    def __init__(self, card_id):
        super().__init__(f"No card {card_id}.")


def access_card(*, user, card_id) -> Card:
    try:
        card_id = int(card_id)
    except (TypeError, ValueError):
        raise CardNotFound(card_id) from None
    card = Card.objects.for_user(user).filter(pk=card_id).select_related("plan").first()
    if card is None:
        raise CardNotFound(card_id)
    return card


def due_cards(*, user, now=None, plan_id: int | None = None, limit: int = 50):
    """The user's cards due by ``now`` (across plans, or one plan's), most overdue first."""
    from django.utils import timezone

    cards = Card.objects.for_user(user).filter(due__lte=now or timezone.now()).select_related("plan")
    if plan_id is not None:
        cards = cards.filter(plan_id=plan_id)
    return list(cards.order_by("due", "id")[:limit])


# Retention is read over the reviews of this many days (cards seen before only: a first answer is learning).
RETENTION_DAYS = 30


def review_stats(*, user, now=None) -> dict:
    """``{dueNow, dueToday, cards, reviewedToday, streakDays, retention}``: what is due now and by the end of today, how
    many days in a row (up to today, or yesterday when nothing is reviewed yet today) had a review, and
    the share of repeat reviews in the last 30 days not rated Again."""
    from datetime import datetime, time, timedelta

    from django.utils import timezone

    now = now or timezone.now()
    today = timezone.localdate(now)
    end_of_today = timezone.make_aware(datetime.combine(today + timedelta(days=1), time.min))
    cards = Card.objects.for_user(user)
    reviews = Review.objects.for_user(user)
    reviewed_on = [
        timezone.localdate(moment)
        for moment in reviews.filter(reviewed_at__gte=now - timedelta(days=400)).values_list("reviewed_at", flat=True)
    ]
    days = set(reviewed_on)
    streak, day = 0, today if today in days else today - timedelta(days=1)
    while day in days:
        streak, day = streak + 1, day - timedelta(days=1)
    recent = list(
        reviews.filter(reviewed_at__gte=now - timedelta(days=RETENTION_DAYS)).order_by("reviewed_at").values_list("card_id", "rating")
    )
    seen_before = set(reviews.filter(reviewed_at__lt=now - timedelta(days=RETENTION_DAYS)).values_list("card_id", flat=True).distinct())
    repeats = []
    for card_id, rating in recent:
        if card_id in seen_before:
            repeats.append(rating > 1)
        seen_before.add(card_id)
    return {
        "dueNow": cards.filter(due__lte=now).count(),
        "dueToday": cards.filter(due__lt=end_of_today).count(),
        "cards": cards.count(),
        "reviewedToday": reviewed_on.count(today),
        "streakDays": streak,
        "retention": round(sum(repeats) / len(repeats), 3) if repeats else None,
    }
