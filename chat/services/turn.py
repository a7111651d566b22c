"""A turn before its answer is written: what to answer without the materials, where to search, the retrieval,
the evidence judged, and the refusal when the evidence is not enough.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field, replace

from baeum import rules
from baeum.answering.answers import (
    REFUSAL_EN,
    REFUSAL_KO,
    Answer,
    Passage,
    never_mentioned_text,
    refusal_text,
    still_upgrading_text,
    unmentioned_text,
    weak_results_text,
)
from baeum.answering.condense import condense
from baeum.answering.crosslingual import NOTE_PREFIX, crosses_languages
from baeum.answering.evidence import (
    NEVER_MENTIONED,
    Evidence,
    evidence_signals,
    names_missing,
    observe_evidence,
    unknown_topics,
)
from baeum.answering.followups import (
    THE_OTHER_ONE,
    anchored_query,
    enumerated_items,
    item_name_terms,
    nth,
    ordinal_of,
    other_ordinal,
    resolve_references,
)
from baeum.answering.forms import without_place
from baeum.answering.history import Memory
from baeum.answering.smalltalk import asks_for_own_question, conversation_answer, memory_answer, own_question_answer
from baeum.language.analysis import content_terms
from baeum.language.questions import analyse_question, asks_if_covered, named_sources
from baeum.language.text import is_hangul_heavy, normalize_query
from chat.services.enumeration import named_item, sibling_question
from chat.services.retrieval import (
    answering_passages,
    conversation_scope,
    judge,
    name_pairs,
    passage_of,
    retrieve_agentic,
    retrieve_standard,
    same_language,
    vocabulary,
)
from knowledge.selectors import (
    chunk_range,
    materials_in_scope,
    names_in_other_language,
    upgrading_materials,
    written_in_korean,
)

from ..models import Conversation, Message
from ..selectors import message_list
from .conversations import conversation_sources
from .memory import memory_load

# A follow-up naming this many words the materials never use is about something else, whatever it carries
# over (evaluation/conversations.jsonl: 8 of 16 out-of-scope turns, 1 of 162 follow-ups; one such word
# is too often the learner's own paraphrase: "보존", "two-dimensional", "under the hood").
FOLLOW_UP_UNKNOWN_WORDS = 2


AS_ASKED = rules.register(
    rules.Rule(
        "retrieval:as-asked",
        lambda follow_up: not follow_up,
        False,
        "a question that stands alone is searched as the learner wrote it, as the search box does: case-folded and "
        "without its punctuation, its sentences run together and its instructions are searched as what it asks",
    )
)[0]


@dataclass(kw_only=True)
class Turn:
    """What is decided before an answer is written: the retrieval, the evidence, and (when nothing is
    to be written: small talk, a remembered fact, a refusal) the answer itself."""

    question: str
    memory: Memory
    usage: dict
    started: float
    retrieved_at: float
    search_query: str
    passages: list[Passage] = field(default_factory=list)
    evidence: Evidence | None = None
    steps: list[dict] = field(default_factory=list)
    tool_calls: int = 0
    removed: list[str] = field(default_factory=list)
    answer: Answer | None = None
    # Across languages: the question's terms as the learner's own glosses name them in the passages' language.
    names: tuple[str, ...] = ()
    # The written answer that already passed the ground check whole (``written_answer``, ``stream_written``):
    # ``_finish`` checks every other answer, so each answer is checked exactly once.
    checked: Answer | None = None
    # An ordinal follow-up whose item was found by name (a list the answer wrote out, or the materials' own
    # "the second method"): its sentences are chosen for that item.
    item_found: bool = False
    conversation: Conversation | None = None  # where an answer may read more (the items a list question asks for)
    item_name: tuple[str, ...] = ()  # the terms naming the item an ordinal follow-up points at: its sentences name it
    item_line: tuple[str, str] = ()  # the sentence naming that item, and how the answer shows it (``_named_line``)
    rewritten: str = ""  # "And the other one?" as asked instead ("What is a deep copy?", "두 번째 것은?"), answered as that
    searched: list[str] = field(default_factory=list)  # the titles searched, which a refusal names
    in_session: bool = False  # searched only a study session's pages
    nothing_left: bool = False  # every material of the conversation was removed


def turn_prepare(conversation: Conversation, question: str, mode: str, llm=None) -> Turn:
    """Everything before an answer is written: what to answer without the materials, where to search,
    the retrieval, the evidence judged, and the refusal when the evidence is not enough. With ``llm``, a
    follow-up (or a question in another language than the materials) is searched as the model rewrites it
    (``baeum.answering.condense``); without one, or when it fails, as the offline rules resolve it."""
    started = time.perf_counter()
    memory = memory_load(conversation=conversation)
    usage = {"llmCalls": 0, "inputTokens": 0, "outputTokens": 0, "estimated": True}
    turn = _answered_without_search(conversation, question, memory, usage, started)
    if turn is not None:
        return turn
    asked_question = question
    ordinal = sibling = ""  # "And the other one?" as "And the second one?", or as "What is a deep copy?" (stands alone)
    if rules.applies(THE_OTHER_ONE, question):  # "다른 하나는?": the other item of a list of two, else the subject's sibling
        ordinal = other_ordinal(question, memory)
        sibling = "" if ordinal else sibling_question(conversation, memory)
        question = ordinal or sibling or question
    question, sources, removed, searched = _where_to_search(conversation, question)
    items, listed = enumerated_items(memory, question) if ordinal_of(question) is not None else ([], False)
    named = None if listed else named_item(conversation, question, memory)
    search_query = (
        normalize_query(question) if sibling else resolve_references(question, memory, item=named[1] if named else "")
    )  # retrieval drops answering instructions itself
    condensed = _condensed(llm, conversation, question, memory, sources, usage)
    search_query = condensed or search_query
    follow_up = search_query != normalize_query(question)
    scope = conversation_scope(conversation, sources)
    if mode == "agentic":
        retrieval = retrieve_agentic(conversation, search_query, scope=scope)
    else:
        anchored = anchored_query(question, memory) if follow_up else without_place(question)
        query = question if rules.applies(AS_ASKED, follow_up) else search_query
        retrieval = retrieve_standard(
            conversation, query, scope=scope, follow_up=follow_up, anchored=anchored, first=[named[0]] if named else []
        )
    # Judge the passages against what is asked, not against "round to two decimal places" (baeum.language.questions).
    asked = analyse_question(question).judged
    known = vocabulary(conversation, sources)
    pairs_known = name_pairs(conversation, sources)
    # A condensed question is judged as the model made it stand alone (as it was searched); a follow-up as
    # the rules resolve it.
    judged = analyse_question(condensed).judged if condensed else resolve_references(asked, memory) if follow_up else asked
    judgements: dict[tuple[int, ...], Evidence] = {}  # a language's passages, judged once (``one_language``, then here)

    def judged_on(passages: list[Passage]) -> Evidence:
        key = tuple(passage.chunk_id for passage in passages)
        if key not in judgements:
            judgements[key] = judge(judged, passages, known, pairs_known)
        return judgements[key]

    retrieval = replace(
        retrieval,
        passages=answering_passages(conversation, retrieval, question, scope=scope, judged=judged_on, follow_up=follow_up),
    )
    retrieved_at = time.perf_counter()
    evidence = judged_on(retrieval.passages)
    if (
        follow_up
        and not condensed
        and evidence.sufficient
        and not (listed or named)
        and (
            len(unknown_topics(asked, retrieval.passages, known)) >= FOLLOW_UP_UNKNOWN_WORDS
            or names_missing(asked, retrieval.passages, known)
        )
    ):
        # The words carried over make any follow-up look covered, and the question made to stand alone is
        # lower case: what it names of its own must be in the materials ("What's the best gaming laptop to
        # buy this year?" is not about "this" protected mode, nor "How does the Java virtual machine manage
        # its call stack?" about the stack the x86 book describes). An item found by its place is in the
        # materials ("Explain the second kind.": "second" and "kind" name no topic).
        evidence = replace(evidence, sufficient=False, reason="follow-up:unknown-words")
    if retrieval.passages and asks_if_covered(asked_question):  # the language of the materials is read only then
        # "Does it also cover the Fibonacci heap?": no, when the materials never mention it, however near the
        # pages found (the handbook's heaps and Fibonacci numbers). The learner's own words, not those carried over.
        missing = rules.resolved(
            NEVER_MENTIONED,
            asked_question,
            known,
            pairs_known,
            not same_language(conversation, asked_question, sources),
        )
        if missing:
            evidence = replace(evidence, sufficient=False, reason="never-mentioned", missing=tuple(missing))
    rules.fired(f"evidence:{evidence.reason}")  # why this turn is answered or refused, counted with the rules
    observe_evidence(lambda: evidence_signals(judged, retrieval.passages, evidence, known, follow_up=follow_up))
    nothing_left = bool(removed) and not sources
    return Turn(
        question=question,
        memory=memory,
        usage=usage,
        started=started,
        retrieved_at=retrieved_at,
        search_query=search_query,
        passages=retrieval.passages,
        evidence=evidence,
        steps=retrieval.steps,
        tool_calls=retrieval.tool_calls,
        removed=removed,
        item_found=bool(listed or named),
        item_line=named[2] if named else (),
        rewritten=question if ordinal or sibling else "",
        # A short name from the answer's own list ("semantic errors"); a book's sentence names more loosely.
        item_name=item_name_terms(nth(items, ordinal_of(question))) if listed else (),
        conversation=conversation,
        searched=searched,
        in_session=bool(scope.ranges),
        names=tuple(
            names_in_other_language(
                user=conversation.owner,
                question=question,
                material_ids=materials_in_scope(user=conversation.owner, ref_ids={passage.ref_id for passage in retrieval.passages})
                .values_list("id", flat=True)
                .order_by("id"),
            )
        )
        if crosses_languages(question, retrieval.passages)
        else (),
        nothing_left=nothing_left,
        answer=_while_upgrading(
            conversation,
            question,
            sources,
            evidence,
            refusal(
                question,
                retrieval.passages,
                evidence,
                searched=searched,
                in_session=bool(scope.ranges),
                nothing_left=nothing_left,
                nothing_ready=not sources and not scope.ranges,
            ),
        ),
    )


def _while_upgrading(conversation: Conversation, question: str, sources: list[str], evidence: Evidence, answer: Answer | None):
    """A refusal across languages says so when a material's better search is still being made in the background:
    the fast first embedding matches a question in the other language poorly (walkthrough 21: "What does RAII mean
    in this book?" over a Korean book, refused minutes after upload, answered once it was done)."""
    if answer is None or not answer.refused or not evidence.reason.startswith("crosslingual:"):
        return answer
    upgrading = upgrading_materials(user=conversation.owner, ref_ids=sources)
    return replace(answer, text=f"{answer.text} {still_upgrading_text(question, upgrading)}") if upgrading else answer


def _condensed(llm, conversation: Conversation, question: str, memory: Memory, sources: list[str], usage: dict) -> str:
    """The model's standalone question for a follow-up or another language ("" when there is none); its
    call is counted in ``usage`` and what it did is kept there (``condense``: rewritten, translated, failed…)."""
    if llm is None or not sources:
        return ""
    result = condense(llm, question, memory, materials_korean=written_in_korean(user=conversation.owner, ref_ids=sources))
    if result.why == "no-history":
        return ""  # a first question in the materials' language is searched as asked: no call
    usage["condense"] = result.why
    usage["llmCalls"] += 1
    usage["condenseTokens"] = {"input": result.input_tokens, "output": result.output_tokens}  # the answer's are counted apart
    if result.question:
        usage["condensed"] = result.question
    return normalize_query(result.question) if result.question else ""


def _answered_without_search(conversation: Conversation, question: str, memory: Memory, usage: dict, started: float) -> Turn | None:
    """Small talk, a fact the learner stated earlier, or a session's key points: answered without a search."""
    remembered = conversation_answer(question) or memory_answer(question, memory) or _own_question(conversation, question)
    if remembered:
        return Turn(
            question=question, memory=memory, usage=usage, started=started, retrieved_at=started, search_query=question, answer=remembered
        )
    overview = _session_overview(conversation, question)
    if overview is not None:  # "이 세션에서 제일 중요한 게 뭐야?": the session's key points, cited
        passages, answer = overview
        evidence = Evidence(1.0, 1.0, True, "session-overview")
        return Turn(
            question=question,
            memory=memory,
            usage=usage,
            started=started,
            retrieved_at=time.perf_counter(),
            search_query=question,
            passages=passages,
            evidence=evidence,
            answer=answer,
        )
    return None


def _own_question(conversation: Conversation, question: str):
    """ "What did I ask first?", "아까 뭐 물어봤지?": the learner's own earlier question, from this conversation."""
    which = asks_for_own_question(question)
    if which is None:
        return None
    earlier = list(
        message_list(user=conversation.owner, conversation=conversation).filter(role=Message.Role.USER).values_list("content", flat=True)
    )
    return own_question_answer(question, which, earlier)


def _where_to_search(conversation: Conversation, question: str) -> tuple[str, list[str], list[str], list[str]]:
    """Return the question without where-to-look words, the refIds to search, those removed since, and the
    titles of the materials searched (what a refusal names).

    The library is read once per answer. "in this book", "PC 어셈블리어 책에서": where to look is not
    what is asked; a title named narrows the search to that material. A title that the named materials'
    text also uses ("What is shown in the Esteve Pharmacy museum?" over materials titled "Pharmacy") is
    what is asked as well: it stays in the question.
    """
    sources, removed = conversation_sources(conversation=conversation)
    titles = dict(materials_in_scope(user=conversation.owner, ref_ids=sources).values_list("ref_id", "title")) if sources else {}
    asked, named = named_sources(question, titles)
    asked_terms = set(content_terms(asked))
    title_terms = [term for term in dict.fromkeys(content_terms(question)) if term not in asked_terms]
    if named and title_terms and vocabulary(conversation, named)(title_terms):
        asked = question
    searched = named or sources
    return asked, searched, removed, [titles[ref_id] for ref_id in searched if ref_id in titles]


# Every material of the conversation was removed: say what to do, not "not found".
_NOTHING_LEFT_EN = "This conversation has no materials left to search. Choose others with “Change sources”, or start a new conversation."
_NOTHING_LEFT_KO = "이 대화에는 검색할 자료가 남아 있지 않습니다. “자료 바꾸기”로 다른 자료를 고르거나 새 대화를 시작하세요."
# A conversation over all materials in a library with none ready (all deleted, or none processed yet).
_NOTHING_READY_EN = (
    f"{REFUSAL_EN} Your library has no ready material to search yet: upload one (or wait until an upload is ready) and ask again."
)
_NOTHING_READY_KO = f"{REFUSAL_KO} 아직 검색할 준비된 자료가 없습니다. 자료를 올리거나 처리가 끝나기를 기다린 뒤 다시 물어보세요."


def refusal(
    question: str,
    passages: list[Passage],
    evidence: Evidence,
    *,
    searched: list[str],
    in_session: bool,
    nothing_left: bool = False,
    nothing_ready: bool = False,
) -> Answer | None:
    """The refusal when nothing was found or the evidence is too weak to answer from; else None. It names
    what was searched: every material of the conversation (not only those whose passages came back), or a
    study session's pages, which are not the whole book."""
    if nothing_left:
        return Answer(text=_NOTHING_LEFT_KO if is_hangul_heavy(question) else _NOTHING_LEFT_EN, refused=True)
    if nothing_ready:
        return Answer(text=_NOTHING_READY_KO if is_hangul_heavy(question) else _NOTHING_READY_EN, refused=True)
    if not passages:
        return Answer(text=refusal_text(question), refused=True)
    if evidence.reason == "names-missing" and evidence.missing:  # what was searched, and the names it never writes
        searched_text = weak_results_text(question, searched, in_session=in_session)
        return Answer(text=f"{searched_text} {unmentioned_text(question, evidence.missing)}", refused=True)
    if evidence.reason == "never-mentioned":
        return Answer(text=never_mentioned_text(question, evidence.missing), refused=True)
    if not evidence.sufficient:
        return Answer(text=weak_results_text(question, searched, in_session=in_session), refused=True)
    return None


# "What matters most in this session?", "summarise this session", "이 세션의 핵심은?": in a session's
# conversation, the answer is the session's key points (what its page lists), each cited.
_OVERVIEW = re.compile(
    r"\b(?:summar(?:y|i[sz]e)|key points?|main (?:points?|ideas?)|most important|matters? (?:the )?most|takeaways?|what (?:did|do) (?:i|we) (?:learn|cover))\b"
    r"|요약|핵심|(?:제일|가장)\s*중요한|중요한\s*(?:것|게|내용|점)|무엇을\s*배웠|뭘\s*배웠",
    re.IGNORECASE,
)


def _session_overview(conversation: Conversation, question: str) -> tuple[list[Passage], Answer] | None:
    if not (conversation.plan_id and conversation.session_number and _OVERVIEW.search(question)):
        return None
    from baeum.errors import NotFound
    from plans.selectors import access_plan, access_session
    from plans.services.session_content import session_content

    try:
        plan = access_plan(user=conversation.owner, plan_id=conversation.plan_id)
        session = access_session(user=conversation.owner, plan=plan, number=conversation.session_number)
    except NotFound:
        return None
    passages, lines = [], []
    for point in session_content(user=conversation.owner, plan=plan, session=session).key_points:
        try:
            (chunk,) = chunk_range(user=conversation.owner, ref_id=point["refId"], start=point["chunkIndex"], end=point["chunkIndex"])
        except (NotFound, ValueError):
            continue
        passage = next((known for known in passages if known.chunk_id == chunk.pk), None)
        if passage is None:
            passage = passage_of(chunk, n=len(passages) + 1, score=1.0)
            passages.append(passage)
        lines.append(f"- {point['text']} [{passage.n}]")
    if not lines:
        return None
    intro = NOTE_PREFIX + ("이 세션의 핵심 내용입니다." if is_hangul_heavy(question) else "The key points of this session.")
    return passages, Answer(text="\n".join([intro, *lines]), generator="extractive")
