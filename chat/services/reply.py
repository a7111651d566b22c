"""The tutor's answer pipeline: memory → query resolution → scoped retrieval → sufficiency →
generation (extractive offline, or an LLM) → ground check → save the turn.

Whatever generates the text, ``baeum.answering.groundcheck`` decides whether it stands: every ``[n]`` must be a
passage retrieved for this turn, and every claim must be supported by what it cites. A question the
materials do not cover is refused on every turn, never answered from general knowledge.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from django.db import transaction
from django.utils import timezone

from baeum import rules
from baeum.answering.answers import Answer, Generator
from baeum.answering.followups import refers_back
from baeum.answering.groundcheck import in_reading_order
from baeum.language.analysis import content_terms
from chat.services.generation import confidence, ground_checked, measure_usage, offline_answer, removal_note, stream_written, written_answer
from chat.services.retrieval import chat_settings
from chat.services.turn import Turn, turn_prepare
from core.providers import configured_llm
from courses.services import feedback_uncovered
from knowledge.selectors import with_page_labels

from ..models import Conversation, Message
from .conversations import conversation_course_ids, conversation_sources
from .memory import memory_load, memory_record_turn


@dataclass
class Outcome:
    answer: Answer
    usage: dict
    steps: list[dict]
    search_query: str
    removals: list[str] = field(default_factory=list)  # removed materials this answer told the learner about


def _finish(conversation: Conversation, turn: Turn, answer: Answer) -> Outcome:
    """The last word on any answer: the ground check (an unsupported answer becomes a refusal, whatever
    wrote it), confidence, usage, and the one-time note about removed materials."""
    answer = ground_checked(turn, answer)
    if answer.kind is Generator.EXTRACTIVE and not answer.refused:
        answer = in_reading_order(answer)  # checked against the passages' numbers first
    if turn.evidence is not None:
        answer = replace(answer, confidence=confidence(turn.evidence, not answer.refused))
    measure_usage(turn, answer)
    removals = _unannounced_removals(conversation, turn.removed)
    if removals:
        answer = replace(
            answer, text=f"{_removal_prefix(conversation, turn.question, removals, anything_left=not turn.nothing_left)}{answer.text}"
        )
    return Outcome(answer, turn.usage, turn.steps, turn.search_query, removals)


def _removal_prefix(conversation: Conversation, question: str, removals: list[str], *, anything_left: bool = True) -> str:
    titles = [conversation.material_titles.get(ref_id, ref_id) for ref_id in removals]
    return f"{removal_note(question, titles, anything_left=anything_left)}\n"


def answer_question(*, conversation: Conversation, question: str, mode: str = "standard", llm=None) -> Outcome:
    """Run the pipeline for one question without saving anything; see ``chat_reply``. The rules that fired
    on the way are kept with the turn's usage (``usage["rules"]``, staff see them in the admin)."""
    llm = llm if llm is not None else configured_llm()
    with rules.counting() as fired:
        turn = turn_prepare(conversation, question, mode, llm)
        answer = turn.answer
        if answer is None:
            answer = written_answer(turn, llm) if llm is not None else offline_answer(turn.rewritten or question, turn)
        outcome = _finish(conversation, turn, answer)
    if fired:
        outcome.usage["rules"] = dict(sorted(fired.items()))
    return outcome


def _unannounced_removals(conversation: Conversation, removed: list[str]) -> list[str]:
    if not removed:
        return []
    announced = (
        Conversation.objects.for_user(conversation.owner).filter(pk=conversation.pk).values_list("removals_announced", flat=True).first()
    )
    return [ref_id for ref_id in removed if ref_id not in (announced or [])]


@transaction.atomic
def _save_turn(conversation: Conversation, question: str, outcome: Outcome, mode: str) -> Message:
    conversation = Conversation.objects.for_user(conversation.owner).select_for_update().get(pk=conversation.pk)
    turn = conversation.turn_count + 1
    Message.objects.create(
        conversation=conversation, owner=conversation.owner, turn=turn, role=Message.Role.USER, content=question, mode=mode
    )
    answer = outcome.answer
    reply = Message.objects.create(
        conversation=conversation,
        owner=conversation.owner,
        turn=turn,
        role=Message.Role.ASSISTANT,
        content=answer.text,
        citations=with_page_labels(user=conversation.owner, citations=[citation.as_dict() for citation in answer.citations]),
        refused=answer.refused,
        confidence=answer.confidence,
        mode=mode,
        steps=outcome.steps,
        usage=outcome.usage,
        generator=answer.generator,
        search_query=outcome.search_query,
    )
    if answer.refused and outcome.search_query:
        # A question pointing back ("그건 왜?") or too thin to stand alone ("and why?"): it goes with the one before.
        leans = refers_back(question) or len(content_terms(question)) <= 1
        _tell_the_teachers(conversation, question, turn=turn, follow_up=leans)
    conversation.turn_count = turn
    if outcome.removals:
        conversation.removals_announced = [*conversation.removals_announced, *outcome.removals]
    if not conversation.title:
        conversation.title = title_from_question(question)
    conversation.updated_at = timezone.now()
    conversation.save(update_fields=["turn_count", "title", "updated_at", "removals_announced"])
    cap = chat_settings()["MESSAGE_CAP"]
    stale = (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation)
        .order_by("-turn", "-id")
        .values_list("id", flat=True)[cap:]
    )
    Message.objects.for_user(conversation.owner).filter(id__in=list(stale)).delete()  # FIFO cap per conversation
    memory = memory_load(conversation=conversation)
    memory_record_turn(
        conversation=conversation,
        memory=memory,
        turn=turn,
        question=question,
        answer=answer.text,
        refused=answer.refused,
        searched=outcome.search_query,
    )
    return reply


def _tell_the_teachers(conversation: Conversation, question: str, *, turn: int, follow_up: bool = False) -> None:
    """A question the tutor refused over course materials goes to those courses' teachers ("what the
    materials don't cover"): the question text, and the learner's name only where they share it. A follow-up
    ("그건 왜?") goes with the question it follows, which alone says what it is about."""
    searched, _removed = conversation_sources(conversation=conversation)
    course_ids = conversation_course_ids(conversation=conversation, ref_ids=searched)
    if not course_ids:
        return
    if follow_up:
        previous = (
            Message.objects.for_user(conversation.owner)
            .filter(conversation=conversation, role=Message.Role.USER, turn__lt=turn)
            .order_by("-turn", "-id")
            .values_list("content", flat=True)
            .first()
        )
        question = f"{previous} → {question}" if previous else question
    feedback_uncovered(user=conversation.owner, course_ids=course_ids, question=question)


TITLE_CHARS = 60  # a title fits two lines of the conversation list (about 30 characters a line at 210 px)


def title_from_question(question: str) -> str:
    """The first question as a conversation title, shortened between words (never inside one), with "…"."""
    words = " ".join(question.split())
    if len(words) <= TITLE_CHARS:
        return words
    window = words[: TITLE_CHARS + 1]
    cut = (window.rsplit(" ", 1)[0] if " " in window else window[:TITLE_CHARS]).rstrip(" ,.;:!?")
    return (cut or words[:TITLE_CHARS]) + "…"


def chat_reply(*, conversation: Conversation, content: str, mode: str = "standard", llm=None) -> Message:
    """Answer one learner message and save the turn (question and answer) once it has succeeded."""
    outcome = answer_question(conversation=conversation, question=content, mode=mode, llm=llm)
    return _save_turn(conversation, content, outcome, mode)


def chat_reply_stream(*, conversation: Conversation, content: str, mode: str = "standard", llm=None) -> Iterator[tuple[str, object]]:
    """Yield ("token", text) events, then ("citations", [...]), then ("done", message_id).

    Offline, the answer is composed and checked first, then sent word by word. With an LLM, its words
    are sent as it writes them, a sentence at a time once the sentence has passed the ground check; if
    a sentence fails (or the model stops answering), a ("reset", reason) event tells the client to drop
    what it showed, and the extract follows. What streams after the last reset is what is saved; the
    turn is saved in ``finally`` even when the client goes away mid-stream.
    """
    llm = llm if llm is not None else configured_llm()
    turn = turn_prepare(conversation, content, mode, llm)
    saved: Message | None = None
    outcome: Outcome | None = None
    try:
        if turn.answer is None and llm is not None:
            removals = _unannounced_removals(conversation, turn.removed)
            prefix = _removal_prefix(conversation, content, removals) if removals else ""
            if prefix:
                yield "token", prefix
            answer = yield from stream_written(turn, llm)
            if answer.refused or answer.kind is Generator.EXTRACTIVE:
                yield "reset", answer.generator
                text = f"{prefix}{answer.text}"
                for piece in re.findall(r"\S+\s*|\n", text):
                    yield "token", piece
            outcome = _finish(conversation, turn, answer)
        else:
            answer = turn.answer or offline_answer(turn.rewritten or content, turn)
            outcome = _finish(conversation, turn, answer)
            for piece in re.findall(r"\S+\s*|\n", outcome.answer.text):
                yield "token", piece
        yield "citations", [citation.as_dict() for citation in outcome.answer.citations]
    finally:
        if outcome is None:  # the client left before the answer was complete: save what the pipeline says
            outcome = answer_question(conversation=conversation, question=content, mode=mode, llm=llm)
        saved = _save_turn(conversation, content, outcome, mode)
    yield "done", saved.pk
