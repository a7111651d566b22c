"""What a turn reads: the conversation's scope, hybrid retrieval (standard or agentic), a follow-up's anchors and
the passages the previous answer cited, and the sufficiency judgement over the learner's vocabulary.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.conf import settings

from baeum import rules
from baeum.answering.answers import Passage, body_first
from baeum.answering.evidence import Evidence, judge_evidence
from baeum.answering.followups import _COMPARISON
from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy
from core.providers import configured_llm, embedder_for_model
from knowledge.selectors import (
    TOP_K,
    ChunkRange,
    Scope,
    chunk_range,
    korean_flags,
    materials_in_scope,
    pairs_found,
    retrieve,
    term_document_frequencies,
)

from ..models import Conversation, Message

# --- Tuning (each measured or chosen where its comment says) --------------------------------
# How many passages an answer reads is ``knowledge.selectors.TOP_K`` (5; a session's conversation: 3).
BACK_MATTER_SPARE = 5  # passages read beyond k, so that k of the book's body remain when back matter is set aside
LLM_RERANK_CANDIDATES = 20  # with an LLM: a first stage this wide, narrowed to k by the LLM reranker (one call)
ANCHORED_PASSAGES = 2  # a follow-up also reads the best passages of its own words (``anchored_query``)
PREVIOUS_PASSAGES = 2  # a follow-up may also read what the previous answer cited ("Give me a famous example of one")
# A follow-up's topic is where the conversation stands: it searches this many times deeper, and the passages within
# NEAR_PREVIOUS_PAGES pages of what the previous answer cited come first (``retrieval:near-previous``). In the
# conversation set a follow-up's evidence page lies within 3 pages of the turn before's in 98% of turns. Chosen on
# the tuning part (follow-ups cited on an expected page): 1 page 0.652/0.726, 3 pages 0.667/0.740, 6 pages
# 0.667/0.753 (dev/books); depth 2 the same as 3; the anchored search near-first too, or far passages dropped, lower.
NEAR_PREVIOUS_DEPTH = 3
NEAR_PREVIOUS_PAGES = 6
AGENTIC_MAX_CALLS = 3  # the agentic loop's bound: search, one refinement or split, one neighbour expansion
AGENTIC_PART_K = 3  # passages for each part of a split comparison (two parts: about one answer's worth)
NEIGHBOUR_RADIUS = 1  # the agentic "get_section" step reads the best hit's chunks either side
NEIGHBOUR_SCORE = 0.9  # a neighbour ranks just under the hit it was read for


def chat_settings() -> dict:
    return settings.BAEUM["CHAT"]


@dataclass
class Retrieval:
    query: str
    passages: list[Passage]
    steps: list[dict] = field(default_factory=list)
    tool_calls: int = 0
    cited: list[dict] | None = None  # the previous answer's citations, when a follow-up's search read them


def passage_of(chunk, *, n: int, score: float, vector_score: float | None = None, lexical_score: float | None = None) -> Passage:
    model = chunk.material.embedding_model
    embedder = embedder_for_model(model) if model else None
    return Passage(
        n=n,
        chunk_id=chunk.pk,
        ref_id=chunk.material.ref_id,
        title=chunk.material.title,
        chunk_index=chunk.chunk_index,
        page_number=chunk.page_number,
        text=chunk.content,
        score=score,
        vector_score=vector_score,
        lexical_score=lexical_score,
        vector_threshold=embedder.answer_similarity if embedder else None,
        crosslingual_threshold=embedder.crosslingual_similarity if embedder else None,
        crosslingual_threshold_from_korean=embedder.crosslingual_similarity_from_korean if embedder else None,
        page_starts=tuple(tuple(start) for start in chunk.page_starts),
        note_spans=tuple(tuple(span) for span in chunk.note_spans),
        code_spans=tuple(tuple(span) for span in chunk.code_spans),
        section_title=chunk.section_title,
        heading_spans=tuple(tuple(span) for span in chunk.heading_spans),
        matter=chunk.matter,
        model=model,
        korean=chunk.material.korean,
    )


def _passages(hits, start: int = 1) -> list[Passage]:
    return [
        passage_of(hit.chunk, n=start + index, score=hit.score, vector_score=hit.vector_score, lexical_score=hit.lexical_score)
        for index, hit in enumerate(hits)
    ]


def _renumber(passages: list[Passage]) -> list[Passage]:
    seen: dict[int, Passage] = {}
    for passage in passages:
        seen.setdefault(passage.chunk_id, passage)
    return [Passage(**{**passage.__dict__, "n": number}) for number, passage in enumerate(seen.values(), start=1)]


def conversation_scope(conversation: Conversation, sources: list[str]) -> Scope:
    """Where this answer searches: ``sources`` (the conversation's materials in the library now, read
    once per answer), and in a study session's conversation only the session's chunk ranges."""
    ranges = [ChunkRange.from_dict(item) for item in conversation.scope_ranges]
    return (Scope.within(ranges) if ranges else Scope.materials(sources)).narrowed_to(sources)


def _search(conversation: Conversation, query: str, *, k: int, scope: Scope) -> list[Passage]:
    """The best ``k`` passages for ``query`` within ``scope`` (hybrid retrieval; with an LLM, reranked by it), the
    book's body before its back matter (``body_first``: ``BACK_MATTER_SPARE`` more are read to make up for it)."""
    if scope.ranges:  # a session's conversation reads at most its own (smaller) top-K
        k = min(k, conversation.top_k)
        hits = retrieve(user=conversation.owner, scope=scope, query=query, k=k + BACK_MATTER_SPARE)
    elif (llm := configured_llm()) is not None:
        hits = retrieve(
            user=conversation.owner,
            scope=scope,
            query=query,
            k=k + BACK_MATTER_SPARE,
            candidates=LLM_RERANK_CANDIDATES,
            reranker="llm",
            llm=llm,
        )
    else:
        hits = retrieve(user=conversation.owner, scope=scope, query=query, k=k + BACK_MATTER_SPARE)
    return _renumber(body_first(_passages(hits), query, k=k))


def judge(question: str, passages: list[Passage], known=None, pairs_known=None) -> Evidence:
    config = chat_settings()
    return judge_evidence(
        question,
        passages,
        min_coverage=config["MIN_COVERAGE"],
        min_vector=config["MIN_VECTOR"],
        strong_coverage=config["STRONG_COVERAGE"],
        known=known,
        pairs_known=pairs_known,
    )


def vocabulary(conversation: Conversation, sources: list[str]):
    """The terms among ``terms`` that the conversation's materials contain (their lexical index)."""

    def known(terms: list[str]) -> set[str]:
        return set(term_document_frequencies(user=conversation.owner, ref_ids=sources, terms=terms)[0]) if sources else set()

    return known


def name_pairs(conversation: Conversation, sources: list[str]):
    """Which pairs of words (as a question writes them) stand side by side in the conversation's materials."""

    def found(pairs: list[tuple[str, str]]) -> set[tuple[str, str]]:
        return pairs_found(user=conversation.owner, ref_ids=sources, pairs=pairs) if sources else set()

    return found


def same_language(conversation: Conversation, question: str, sources: list[str]) -> bool:
    """Whether every material of the conversation is written in the question's language (Korean or not)."""
    korean = is_hangul_heavy(question)
    return all(flag is None or flag == korean for flag in korean_flags(user=conversation.owner, ref_ids=sources))


def retrieve_standard(
    conversation: Conversation, query: str, *, scope: Scope, follow_up: bool = False, anchored: str = "", first: list[Passage] = ()
) -> Retrieval:
    """The best passages for ``query``, and the best of ``anchored``: for a follow-up its own words with the
    previous topic's (where the resolved query leans on the previous answer), for a "what is X" question X
    without the place it names. A follow-up also reads the previous answer's passages. ``first``: passages
    read before any found (where the materials name the item an ordinal points at)."""
    top_k = conversation.top_k or TOP_K
    previous = _previous_citations(conversation) if follow_up else []  # what the previous answer cited, read once
    cited = previous if rules.is_on(NEAR_PREVIOUS) else []
    passages = [*first, *_topical_search(conversation, query, k=top_k, scope=scope, cited=cited)]
    extra = []
    if anchored and anchored != query:
        seen = {passage.chunk_id for passage in passages}
        extra = [passage for passage in _search(conversation, anchored, k=top_k, scope=scope) if passage.chunk_id not in seen]
        extra = extra[:ANCHORED_PASSAGES] if follow_up else extra
    if follow_up:
        passages = _renumber(passages + extra + _previous_passages(conversation, previous))[
            : len(first) + top_k + ANCHORED_PASSAGES + PREVIOUS_PASSAGES
        ]
    elif extra:
        passages = _renumber(passages + extra)
    return Retrieval(query=query, passages=passages, tool_calls=1, cited=previous if follow_up else None)


def _topical_search(conversation: Conversation, query: str, *, k: int, scope: Scope, cited: list[dict]) -> list[Passage]:
    """The best ``k`` passages for ``query``; with ``cited`` (a follow-up's previous answer), searched
    ``NEAR_PREVIOUS_DEPTH`` times deeper and those near what it cited first (``retrieval:near-previous``)."""
    if not cited:
        return _search(conversation, query, k=k, scope=scope)
    found = _search(conversation, query, k=k * NEAR_PREVIOUS_DEPTH, scope=scope)
    near = [passage for passage in found if rules.applies(NEAR_PREVIOUS, passage, cited)]
    return _renumber([*near, *(passage for passage in found if passage not in near)][:k])


def _previous_citations(conversation: Conversation) -> list[dict]:
    """The citations of the previous answer that was not a refusal ([] when there is none)."""
    reply = (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation, role=Message.Role.ASSISTANT, refused=False)
        .exclude(citations=[])
        .order_by("-turn", "-id")
        .first()
    )
    return list(reply.citations) if reply else []


def _near(passage: Passage, cited: list[dict]) -> bool:
    """Whether ``passage`` stands within ``NEAR_PREVIOUS_PAGES`` pages of a page the previous answer cited."""
    return any(
        citation.get("refId") == passage.ref_id
        and citation.get("pageNumber", 0) - NEAR_PREVIOUS_PAGES
        <= passage.page_number
        <= citation.get("pageEnd", citation.get("pageNumber", 0)) + NEAR_PREVIOUS_PAGES
        for citation in cited
    )


NEAR_PREVIOUS = rules.register(
    rules.Rule(
        "retrieval:near-previous",
        _near,
        "page 29, after an answer that cited page 28 of the same book",
        "a follow-up reads the pages around the previous answer's first: its topic is where the conversation stands",
    )
)[0]


def _previous_passages(conversation: Conversation, citations: list[dict]) -> list[Passage]:
    """The passages the previous answer cited, still in the learner's library (a removed material is skipped)."""
    from baeum.errors import NotFound

    passages: list[Passage] = []
    for citation in citations[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(
                user=conversation.owner, ref_id=citation["refId"], start=citation["chunkIndex"], end=citation["chunkIndex"]
            )
        except NotFound:
            continue
        passages += [passage_of(chunk, n=0, score=0.0) for chunk in chunks]
    return passages


def retrieve_agentic(conversation: Conversation, query: str, *, scope: Scope) -> Retrieval:
    """A bounded loop (at most ``AGENTIC_MAX_CALLS`` tool calls, one step each) with deterministic rules:
    split a comparison into its parts, refine an unanswered query to its key terms, and expand a good
    hit to its neighbours."""
    passages, steps = _agentic_search(conversation, query, scope)
    evidence = judge(query, passages)
    steps[-1]["judgement"] = "answer" if evidence.sufficient else "search again"
    if not evidence.sufficient and len(steps) < AGENTIC_MAX_CALLS:
        passages, evidence = _agentic_refine(conversation, query, scope, passages, steps, evidence)
    if evidence.sufficient and passages and len(steps) < AGENTIC_MAX_CALLS:
        passages = _agentic_expand(conversation, passages, steps)
    return Retrieval(query=query, passages=_renumber(passages)[: TOP_K + 2], steps=steps, tool_calls=len(steps))


def _agentic_search(conversation: Conversation, query: str, scope: Scope) -> tuple[list[Passage], list[dict]]:
    """The first search: each part of a comparison ("A와 B의 차이", "A vs B") alone, else the whole query."""
    parts = (
        [part for part in re.split(r"\s*(?:와|과|and|vs\.?|versus|및|,)\s+", query) if part.strip()] if _COMPARISON.search(query) else []
    )
    if len(parts) < 2:
        passages = _search(conversation, query, k=TOP_K, scope=scope)
        return passages, [{"tool": "search_all", "input": {"query": query}, "results": len(passages)}]
    passages, steps = [], []
    for part in parts[:2]:
        found = _search(conversation, part, k=AGENTIC_PART_K, scope=scope)
        steps.append({"tool": "search_by_metadata", "input": {"query": part, "refIds": conversation.ref_ids}, "results": len(found)})
        passages += found
    return passages, steps


def _agentic_refine(
    conversation: Conversation, query: str, scope: Scope, passages: list[Passage], steps: list[dict], evidence: Evidence
) -> tuple[list[Passage], Evidence]:
    """Search again for the query's key terms alone when the first search did not answer it."""
    refined = " ".join(dict.fromkeys(term for term in content_terms(query) if len(term) > 1))
    if not refined or refined == query:
        return passages, evidence
    passages = _search(conversation, refined, k=TOP_K, scope=scope) + passages
    evidence = judge(query, passages)
    steps.append(
        {
            "tool": "search_all",
            "input": {"query": refined},
            "results": len(passages),
            "judgement": "answer" if evidence.sufficient else "give up",
        }
    )
    return passages, evidence


def _agentic_expand(conversation: Conversation, passages: list[Passage], steps: list[dict]) -> list[Passage]:
    """Read the best hit's neighbouring chunks (range retrieval) and put them right after it."""
    best = passages[0]
    neighbours = chunk_range(
        user=conversation.owner,
        ref_id=best.ref_id,
        start=max(0, best.chunk_index - NEIGHBOUR_RADIUS),
        end=best.chunk_index + NEIGHBOUR_RADIUS,
    )
    expanded = [
        passage_of(chunk, n=0, score=best.score * NEIGHBOUR_SCORE, vector_score=best.vector_score)
        for chunk in neighbours
        if chunk.pk != best.chunk_id
    ]
    steps.append(
        {
            "tool": "get_section",
            "input": {"refId": best.ref_id, "chunkIndex": best.chunk_index, "radius": NEIGHBOUR_RADIUS},
            "results": len(expanded),
            "judgement": "answer",
        }
    )
    return passages[:1] + expanded + passages[1:]


# --- Over several materials: a follow-up's material, one language at a time ------------------------------------


def _spans_materials(passages: list[Passage]) -> bool:
    return len({passage.ref_id for passage in passages}) > 1


ONE_MATERIAL = rules.register(
    rules.Rule(
        "answer:one-material",
        _spans_materials,
        [
            Passage(n=1, chunk_id=1, ref_id="10-k", title="10-K", chunk_index=0, page_number=6, text="", score=1.0),
            Passage(n=2, chunk_id=2, ref_id="bzip2", title="bzip2", chunk_index=9, page_number=4, text="", score=0.9),
        ],
        "a follow-up over several materials reads the material its previous answer cited: 'give me an example' after "
        "bzip2recover had quoted the fontconfig manual's 'The example of the requirements of OR operator;'",
    )
)[0]


def answering_material(passages: list[Passage], *, previous: str = "", follow_up: bool = False) -> str:
    """The material a follow-up reads when ``passages`` come from several: the one the previous answer cited
    (``previous``), when it was found again; "" otherwise: a question that stands alone reads them all (reading one
    material cut KorQuAD's answers off the other paragraphs of their article, docs/evaluation.md)."""
    return previous if follow_up and previous in {passage.ref_id for passage in passages} else ""


def one_material(conversation: Conversation, passages: list[Passage], *, follow_up: bool, cited: list[dict] | None = None) -> list[Passage]:
    """A follow-up's ``passages`` of the material its previous answer cited (``answering_material``); unchanged when
    they come from one, or the question stands alone (``answer:one-material``). ``cited``: those citations, when the
    search already read them (else they are read here)."""
    if not follow_up or not rules.applies(ONE_MATERIAL, passages):
        return passages
    previous = next(iter(cited if cited is not None else _previous_citations(conversation)), {}).get("refId", "")
    chosen = answering_material(passages, previous=previous, follow_up=follow_up)
    return _renumber([passage for passage in passages if passage.ref_id == chosen]) if chosen else passages


def _other_language(materials: list[tuple[str, bool | None]], korean: bool) -> list[str] | None:
    """Of ``materials`` (refId, written in Korean), those written in the other language than ``korean``, when the
    library holds materials of both."""
    other = [ref_id for ref_id, flag in materials if flag is not None and flag != korean]
    return other if other and any(flag == korean for _, flag in materials) else None


OTHER_LANGUAGE_TOO = rules.register(
    rules.Rule(
        "retrieval:other-language-too",
        _other_language,
        ([("thinkpython2", False), ("pcasm-korean", True)], True),
        "in a library of both languages the materials in the other language are also searched apart: a Korean question "
        "about an English book in a library that also holds Korean books found only the Korean books' words",
    )
)[0]


def other_language_too(conversation: Conversation, query: str, question: str, passages: list[Passage], *, scope: Scope) -> list[Passage]:
    """``passages``, and after them the best of the conversation's materials in the other language than
    ``question`` searched apart, when it has materials of both (``retrieval:other-language-too``): the search
    ranks a question's own language first, so a library's books in the other language were never read."""
    if scope.ranges or not scope.ref_ids or len(scope.ref_ids) < 2:
        return passages
    materials = list(materials_in_scope(user=conversation.owner, ref_ids=scope.ref_ids).values_list("ref_id", "korean"))
    other = rules.resolved(OTHER_LANGUAGE_TOO, materials, is_hangul_heavy(question))
    if not other:
        return passages
    seen = {passage.chunk_id for passage in passages}
    found = _search(conversation, query, k=conversation.top_k or TOP_K, scope=scope.narrowed_to(other))
    return _renumber([*passages, *(passage for passage in found if passage.chunk_id not in seen)])


def _of_both_languages(passages: list[Passage]) -> bool:
    return len({passage.korean for passage in passages if passage.korean is not None}) > 1


ONE_LANGUAGE = rules.register(
    rules.Rule(
        "answer:one-language",
        _of_both_languages,
        [
            Passage(n=1, chunk_id=1, ref_id="notes-ko", title="함수 노트", chunk_index=0, page_number=1, text="", score=1.0, korean=True),
            Passage(n=2, chunk_id=2, ref_id="asm", title="PC Assembly", chunk_index=3, page_number=3, text="", score=0.9, korean=False),
        ],
        "passages of both languages are judged, and answered from, one language at a time: the best-ranked that answers "
        "alone; judged together, a Korean question about an English book in a library that also holds Korean books "
        "was refused (ko→en false refusal 0.72 over all materials, 0.16 over the book alone)",
    )
)[0]


def one_language(passages: list[Passage], *, judged) -> list[Passage]:
    """``passages`` of one language when they hold both (``answer:one-language``): of the languages in the order their
    best passage ranks, the first whose passages alone answer (``judged``: a list of passages → its evidence);
    unchanged when none does (the refusal names every material searched)."""
    if not rules.applies(ONE_LANGUAGE, passages):
        return passages
    order = list(dict.fromkeys(passage.korean for passage in passages if passage.korean is not None))
    for korean in order:
        group = [passage for passage in passages if passage.korean in (korean, None)]
        if judged(group).sufficient:
            return _renumber(group)
    return passages


def answering_passages(
    conversation: Conversation, retrieval: Retrieval, question: str, *, scope: Scope, judged, follow_up: bool
) -> list[Passage]:
    """What an answer reads: the passages found, with those of the materials in the other language searched apart
    when the conversation holds both (``other_language_too``), of one language (``one_language``) and, for a
    follow-up, of the material its previous answer cited (``one_material``)."""
    passages = other_language_too(conversation, retrieval.query, question, retrieval.passages, scope=scope)
    return one_material(conversation, one_language(passages, judged=judged), follow_up=follow_up, cited=retrieval.cited)
