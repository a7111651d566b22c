"""Writes of the study loop: answering a session's questions, turning them and key points into cards,
and reviewing cards on the FSRS schedule (the ``fsrs`` package: due dates move as the ratings say)."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

from django.db import transaction
from django.db.models import F
from django.utils import timezone
from fsrs import Card as FsrsCard
from fsrs import Rating, Scheduler

from baeum.errors import NotFound
from baeum.language import lexicon
from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy
from baeum.study import grading, quiz
from baeum.study import phrasing as study
from baeum.study.quiz import BLANK
from knowledge import selectors as knowledge

from ..models import Card, Plan, Review, SessionProgress, StudySession
from .course_plans import session_answer_record
from .session_content import SessionContent, question_section, session_content

# One scheduler for every card: FSRS's default parameters, aiming at 90 % recall when a card is due, with
# one 10-minute learning step: a card answered wrong comes back within the session's sitting, one
# answered right waits days (the session itself was the learning; FSRS's default 1 + 10 minute steps
# brought right answers back within minutes).
SCHEDULER = Scheduler(learning_steps=(timedelta(minutes=10),), enable_fuzzing=False)
RATINGS = {1: Rating.Again, 2: Rating.Hard, 3: Rating.Good, 4: Rating.Easy}


class QuestionNotFound(NotFound):
    def __init__(self, question_id):
        super().__init__(f"No question {question_id} in this session.")


def grade(*, kind: str, response: str, answer: str, accepted: list[str], term: str = "", choices: list[str] | None = None) -> grading.Grade:
    """Grade ``response`` the way the question's kind asks (offline; see ``baeum.study.grading``)."""
    if kind == quiz.TRUE_FALSE:
        return grading.grade_true_false(response, answer == "true")
    if kind == quiz.CHOICE and choices and response.strip().isdigit() and 1 <= int(response) <= len(choices):
        response = choices[int(response) - 1]  # the choice's number
    if kind in (quiz.DEFINITION, Card.Kind.KEY_POINT):
        return grading.grade_definition(response, answer, term)
    return grading.grade_term(response, answer, accepted)


def _find_question(content: SessionContent, question_id: str) -> dict:
    for question in content.questions:
        if question.get("id") == question_id:
            return question
    raise QuestionNotFound(question_id)


def _new_schedule(now: datetime) -> dict:
    return FsrsCard(due=now).to_dict()


@transaction.atomic
def answer_question(
    *, user, plan: Plan, session: StudySession, question_id: str, response: str, now: datetime | None = None, llm=None
) -> tuple[grading.Grade, Card, dict]:
    """Grade the learner's answer to one of the session's questions, keep it with the session, and
    schedule the question as a card (first answer: a new card; again: a review). Returns the grade,
    the card and the question (with its citation). With ``llm``, an answer offline grading does not
    find right is judged again against the cited sentence (paraphrases count)."""
    now = now or timezone.now()
    question = _find_question(session_content(user=user, plan=plan, session=session), question_id)
    card, _ = Card.objects.for_user(user).get_or_create(
        owner=user,
        plan=plan,
        key=question_id,
        defaults={
            "session_number": session.number,
            "kind": question["kind"],
            "prompt": _under_section(question["question"], question.get("section", "")),
            "answer": question["answer"],
            "choices": question.get("choices", []),
            "accepted": question.get("accepted", []),
            "citation": question["citation"],
            "scheduling": _new_schedule(now),
            "due": now,
        },
    )
    result = _grade_and_review(card, response, term=question.get("term", ""), llm=llm, now=now, in_session=True)
    if plan.course_id is None:
        answers = dict(session.answers or {})
        answers[question_id] = {"response": response[:500], "verdict": result.verdict}
        started = {}
        if session.status == StudySession.Status.NOT_STARTED:  # answering a question starts the session, as a course's does
            started = {"status": StudySession.Status.STARTED, "started_at": session.started_at or now}
        StudySession.objects.for_user(user).filter(pk=session.pk).update(answers=answers, **started)
    else:  # a course's session is the teacher's row: the learner's answer is kept on their own progress
        session_answer_record(user=user, session=session, question_id=question_id, response=response, verdict=result.verdict)
    return result, card, question


def review_card(
    *, card: Card, rating: int, response: str = "", correct: bool | None = None, now: datetime | None = None, in_session: bool = False
) -> Card:
    """Rate a card (Again 1, Hard 2, Good 3, Easy 4) and move its due date as FSRS says. ``in_session``: an
    answer checked while studying its session (scheduled alike; not counted as a review in the statistics)."""
    if rating not in RATINGS:
        raise ValueError("A rating is 1 (again), 2 (hard), 3 (good) or 4 (easy).")
    now = now or timezone.now()
    scheduled, _ = SCHEDULER.review_card(FsrsCard.from_dict(card.scheduling or _new_schedule(now)), RATINGS[rating], review_datetime=now)
    scheduled.due = _before_exam(card.plan, scheduled.due, now)
    card.scheduling = scheduled.to_dict()
    card.due = scheduled.due
    card.save(update_fields=["scheduling", "due"])
    Review.objects.create(
        owner=card.owner, card=card, rating=rating, response=response[:2000], correct=correct, reviewed_at=now, in_session=in_session
    )
    if card.plan.course_id and card.session_number and not in_session:
        _count_course_review(card, remembered=rating > 1)
    return card


def _count_course_review(card: Card, *, remembered: bool) -> None:
    """A review of a card from a course's session counts on the learner's progress on that session, which
    the teacher's roster reads (the cards and reviews stay the learner's own)."""
    SessionProgress.objects.for_user(card.owner).filter(plan_id=card.plan_id, session__number=card.session_number).update(
        reviews=F("reviews") + 1, remembered=F("remembered") + int(remembered)
    )


# Kinds whose answers an LLM may judge (free text); a picked choice or true/false is exact.
LLM_GRADED = {quiz.DEFINITION, quiz.SHORT_ANSWER, quiz.CLOZE, Card.Kind.KEY_POINT}


def _with_llm(result: grading.Grade, *, llm, prompt: str, response: str, quote: str, kind: str = quiz.SHORT_ANSWER) -> grading.Grade:
    if llm is None or result.verdict == grading.CORRECT or kind not in LLM_GRADED or not response.strip() or not quote:
        return result
    verdict = study.grade_answer(
        llm, question=prompt, response=response, expected=result.expected, quote=quote, language="ko" if is_hangul_heavy(quote) else "en"
    )
    if verdict is None:
        return result
    return grading.Grade(verdict, {grading.CORRECT: 1.0, grading.PARTIAL: 0.5}.get(verdict, 0.0), result.expected)


def _before_exam(plan: Plan, due: datetime, now: datetime) -> datetime:
    """With an exam date, no card waits past it: a review FSRS would schedule later comes on the last
    day before the exam instead (the days left are what there is to spread reviews over)."""
    if not plan.exam_date:
        return due
    try:
        last_day = timezone.make_aware(datetime.combine(plan.exam_date - timedelta(days=1), time(hour=9))).astimezone(UTC)
    except OverflowError:  # a date stored before exam dates were checked (0001-01-01): no day before it
        return due
    return min(due, last_day) if now < last_day else due


def _paired_names(card: Card) -> list[str]:
    """The answer's name in the other language where the learner's own books pair them ("메모리 (memory)"):
    "memory" is right for 메모리 and "유니코드" for Unicode. Only for a short answer naming a term."""
    if card.kind in (quiz.TRUE_FALSE, quiz.CHOICE, quiz.DEFINITION, Card.Kind.KEY_POINT) or len(card.answer) > 60:
        return []
    return knowledge.names_in_other_language(user=card.owner, question=card.answer)


def _grade_and_review(
    card: Card, response: str, *, term: str = "", llm=None, now: datetime | None = None, in_session: bool = False
) -> grading.Grade:
    """Grade ``response`` against what the card asks (offline, then the LLM where given) and review the
    card with the rating the grade means."""
    accepted = [*card.accepted, *_paired_names(card)]
    result = grade(kind=card.kind, response=response, answer=card.answer, accepted=accepted, term=term, choices=card.choices)
    result = _with_llm(result, llm=llm, prompt=card.prompt, response=response, quote=card.citation.get("quote", ""), kind=card.kind)
    review_card(
        card=card, rating=result.rating, response=response, correct=result.verdict == grading.CORRECT, now=now, in_session=in_session
    )
    return result


def answer_card(*, card: Card, response: str, now: datetime | None = None, llm=None) -> tuple[grading.Grade, Card]:
    """Grade a typed or picked answer to a due card and review it with the rating the grade means."""
    return _grade_and_review(card, response, llm=llm, now=now), card


# A word blanked on a key point's card (when the session's questions name no term in it) is one the materials
# use in at most this share of their chunks: a term of the book, not a word of every page.
KEY_TERM_MAX_SHARE = 0.02


def _under_section(prompt: str, section: str) -> str:
    """A card's prompt under the section its sentence stands in ("os.cpus() — On Windows, the _____ values …")."""
    return f"{section} — {prompt}" if section else prompt


def key_term_candidates(words: set[str], frequencies: dict[str, int], total: int) -> list[str]:
    """The words of a key point worth blanking on its card, rarest first: used in at least two chunks of the
    materials (a term, not a typo) and in at most ``KEY_TERM_MAX_SHARE`` of them (not "example")."""
    usable = [
        word
        for word in words
        if 2 <= frequencies.get(word, 0) <= max(2, KEY_TERM_MAX_SHARE * total) and word not in lexicon.FUNCTION_WORDS_EN
    ]
    return sorted(usable, key=lambda word: (frequencies[word], -len(word), word))


def cards_from_key_points(*, user, plan: Plan, session: StudySession, now: datetime | None = None) -> list[Card]:
    """A completed session's key points become cards to recall (the key term blanked where there is
    one, else the whole point to recall and rate). Idempotent: a key point is one card."""
    now = now or timezone.now()
    content = session_content(user=user, plan=plan, session=session)
    terms = {question.get("term", "") for question in content.questions if question.get("term")}
    words_of = {
        point["text"]: {word for word in content_terms(point["text"]) if len(word) >= 4 and word.isalpha()} for point in content.key_points
    }
    frequencies, total = knowledge.term_document_frequencies(
        user=user, ref_ids=plan.ref_ids, terms={word for words in words_of.values() for word in words}
    )
    cards = []
    for point in content.key_points:
        prompt = answer = point["text"]
        # The session's domain terms first; else the point's rarest word the materials use more than once (a
        # term, not "example", "generate" or "traditional", which the longest word had often been); else no
        # blank: the whole point to recall and rate.
        words = key_term_candidates(words_of[point["text"]], frequencies, total)
        for term in [*sorted(terms, key=len, reverse=True), *words]:
            blanked = quiz.cloze_question(point["text"], term, [])
            if blanked is not None:
                prompt, answer = blanked.prompt, blanked.answer
                break
        # What the point describes, unless the section gives the blank's answer away.
        prompt = _under_section(prompt, question_section({"answer": answer}, point.get("section", "")))
        key = quiz.digest(f"key_point|{point['text']}")[:12]
        card, _ = Card.objects.for_user(user).get_or_create(
            owner=user,
            plan=plan,
            key=key,
            defaults={
                "session_number": session.number,
                "kind": Card.Kind.KEY_POINT if BLANK not in prompt else Card.Kind.CLOZE,
                "prompt": prompt,
                "answer": answer,
                "citation": {key: point[key] for key in ("refId", "chunkIndex", "pageNumber", "pageEnd") if key in point}
                | {"quote": point["text"]},
                "scheduling": _new_schedule(now),
                "due": now,
            },
        )
        cards.append(card)
    return cards
