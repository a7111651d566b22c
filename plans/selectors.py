"""Reads of the plans app: plans, sessions with their text, key points and practice questions."""

from __future__ import annotations

from django.utils.translation import get_language, gettext

from baeum.errors import NotFound
from baeum.study.objectives import objectives_in
from knowledge import selectors as knowledge

from .models import Card, Plan, Review, StudySession


class PlanNotFound(NotFound):
    def __init__(self, plan_id):
        super().__init__(gettext("No plan %(id)s.") % {"id": plan_id})


class SessionNotFound(NotFound):
    def __init__(self, number):
        super().__init__(gettext("No session %(number)s in this plan.") % {"number": number})


def objectives_for_reader(objectives) -> list[str]:
    """A session's objectives with the template's words in the active language ("Explain X" → "X 설명하기" for a
    Korean reader; ``baeum.study.objectives``): pages, APIs and exports all show them so."""
    return objectives_in(list(objectives or []), korean=get_language() == "ko")


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


# --- Session scope (the content built from it: plans/services/session_content.py) -----------


def ranges_scope(ranges: list[dict]) -> knowledge.Scope:
    """The retrieval scope of a session's ranges (``[{"refId", "chunkRange": [start, end], …}]``)."""
    return knowledge.Scope.within(knowledge.ChunkRange(item["refId"], *item["chunkRange"]) for item in ranges)


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


def reviewable_cards(*, user):
    """The user's cards whose material they may still read: a card quoting a material deleted since (or of a
    course left) is not served for review nor counted as due (a walkthrough was asked "What is Too few?" from a
    deleted book, its source link "Not found"). Kept, not deleted: their review history stays in the statistics,
    and uploading the same file again brings them back (it returns under its refId, ``RemovedMaterial``)."""
    from django.db.models import Q
    from django.db.models.fields.json import KeyTextTransform

    readable = knowledge.materials_in_scope(user=user, ready_only=False).values("ref_id")
    cards = Card.objects.for_user(user).annotate(cited=KeyTextTransform("refId", "citation"))
    return cards.filter(Q(cited__in=readable) | Q(cited__isnull=True) | Q(cited=""))


def due_cards(*, user, now=None, plan_id: int | None = None, limit: int = 50):
    """The user's cards due by ``now`` (across plans, or one plan's), most overdue first; only those whose
    material is still theirs to read (``reviewable_cards``)."""
    from django.utils import timezone

    cards = reviewable_cards(user=user).filter(due__lte=now or timezone.now()).select_related("plan")
    if plan_id is not None:
        cards = cards.filter(plan_id=plan_id)
    return list(cards.order_by("due", "id")[:limit])


# Retention is read over the reviews of this many days (cards seen before only: a first answer is learning).
RETENTION_DAYS = 30


def review_stats(*, user, now=None) -> dict:
    """``{dueNow, dueToday, cards, reviewedToday, streakDays, retention, retentionReviews}``: what is due now and by the end of today,
    the cards reviewed today, how many days in a row (up to today, or yesterday when nothing is studied yet today)
    had a review or a session's answer, and retention: of the reviews in the last 30 days, the share remembered
    (not rated Again). Answers checked while studying a session are study, not reviews: they count for the streak
    only."""
    from datetime import datetime, time, timedelta

    from django.utils import timezone

    now = now or timezone.now()
    today = timezone.localdate(now)
    end_of_today = timezone.make_aware(datetime.combine(today + timedelta(days=1), time.min))
    cards = reviewable_cards(user=user)
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
        reviews.filter(reviewed_at__gte=now - timedelta(days=RETENTION_DAYS), in_session=False).values_list("reviewed_at", "rating")
    )
    remembered = [rating > 1 for _, rating in recent]
    return {
        "dueNow": cards.filter(due__lte=now).count(),
        "dueToday": cards.filter(due__lt=end_of_today).count(),
        "cards": cards.count(),
        "reviewedToday": sum(1 for moment, _ in recent if timezone.localdate(moment) == today),
        "streakDays": streak,
        "retention": round(sum(remembered) / len(remembered), 3) if remembered else None,
        "retentionReviews": len(remembered),  # what retention is the share of: the page updates it as cards are answered
    }
