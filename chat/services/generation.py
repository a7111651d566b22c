"""Writing the answer: offline from the passages' sentences, or by a model (whole, or streamed a sentence at a
time) whose every claim passes the ground check; the prompt within its token budgets; the confidence shown.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import replace

from baeum import rules
from baeum.answering import groundcheck, prompts
from baeum.answering.answers import REFUSAL_EN, REFUSAL_KO, Answer, Generator, Passage, refusal_text, weak_results_text
from baeum.answering.budgets import BUDGETS, fit_passages, fit_text
from baeum.answering.crosslingual import NOTE_PREFIX
from baeum.answering.evidence import Evidence
from baeum.answering.extractive import extractive_answer
from baeum.answering.followups import (
    FORM_ONLY,
    ITEM_NAME_TERMS,
    ORDINAL_EN,
    ORDINAL_KO,
    asks_only_form,
    carried_terms,
    ordinal_of,
    previous_turn,
    refers_back,
    said_before,
    topic_question,
)
from baeum.answering.groundcheck import claims_problem, complete_claims_end
from baeum.answering.history import Memory
from baeum.answering.llm import LLMError
from baeum.extraction.tables import superscript_references
from baeum.language.text import estimate_tokens, is_hangul_heavy, normalize_query
from baeum.retrieval.embeddings import UniversalSentenceEncoder
from chat.services.enumeration import enumeration_lines
from chat.services.turn import Turn
from core.providers import embedder_for_model

PROMPT_QUESTION_CHARS = 400  # the question as the model reads it: a pasted page is cut, a question never is
# Confidence shown with an answer: coverage of the question's terms counts most, the vector match the rest
# (chosen by hand, not measured); a refusal's confidence stays under REFUSED_CONFIDENCE.
CONFIDENCE_COVERAGE_WEIGHT = 0.6
REFUSED_CONFIDENCE = 0.3


def build_prompt(question: str, memory: Memory, passages: list[Passage]) -> tuple[str, str]:
    """Return (system, prompt) within the token budgets (whole passages and lines only)."""
    budgets = BUDGETS
    refusal = refusal_text(question)
    system = prompts.TUTOR_SYSTEM.format(refusal=refusal)
    kept = fit_passages(passages, budgets["passages"])
    summary = fit_text([line for line in memory.summary.split("\n") if line], budgets["memory"])
    entities = fit_text(
        [f"- {entity['key']}: {entity['value']} (turn {entity['turn']})" for entity in reversed(memory.entities)], budgets["entities"]
    )
    recent = fit_text([f"Learner: {entry['question']}\nTutor: {entry['answer']}" for entry in reversed(memory.recent)], budgets["recent"])
    sections = []
    if summary:
        sections.append("Conversation summary:\n" + "\n".join(summary))
    if entities:
        sections.append("Facts the learner stated:\n" + "\n".join(entities))
    if recent:
        sections.append("Recent turns (newest first):\n" + "\n\n".join(recent))
    sections.append(
        # The document's own reference markers ("KorQuAD 1.0[1]") as superscripts: a model copying "[1]"
        # from the text would otherwise cite passage 1.
        "Passages:\n"
        + "\n\n".join(
            f"[{passage.n}] ({passage.title}, p.{passage.page_number})\n{superscript_references(passage.text)}" for passage in kept
        )
    )
    sections.append(f"Question: {question[:PROMPT_QUESTION_CHARS]}")
    return system, "\n\n".join(sections)


def removal_note(question: str, titles: list[str], *, anything_left: bool = True) -> str:
    """Said once per removed material: the conversation goes on over what is left (when anything is)."""
    names = ", ".join(f"“{title}”" for title in titles)
    if is_hangul_heavy(question):
        rest = "남은 자료로 답합니다." if anything_left else "더 이상 검색할 수 없습니다."
        return f"{NOTE_PREFIX}{names} 자료를 더 이상 볼 수 없어(라이브러리에서 삭제했거나 강좌에서 빠짐), {rest}"
    rest = "I answer from your remaining materials." if anything_left else "it can no longer be searched."
    return f"{NOTE_PREFIX}{names} is no longer in your library or courses; {rest}"


# The embedder that ranks a page's sentences by meaning across languages, whatever model found the page: the
# fast multilingual encoder (USE). A library upgraded to e5 had embedded each cross-language turn's 30-odd
# sentences with e5 on the CPU (p95 1.0–1.3 s); with USE the same turns take p95 176–256 ms and are cited on
# an expected page as often (conversations_dev, e5 libraries: en→ko 0.44 → 0.48 on tune, ko→en 0.48 → 0.48
# on check; docs/evaluation.md).
SENTENCE_MODEL = UniversalSentenceEncoder.model


def _sentence_similarity(passages: list[Passage]):
    """Cosines of the question to sentences (multilingual): how a Korean question picks sentences of an English
    page, where no word is shared."""
    if not any(passage.model for passage in passages):
        return None
    embedder = embedder_for_model(SENTENCE_MODEL)

    def similarity(question: str, sentences: list[str]) -> list[float]:
        query = embedder.embed_query(question)
        return [float(vector @ query) for vector in sentence_vectors(embedder, sentences)]

    return similarity


# Vectors of passage sentences already embedded, per process (model, sentence → vector): a follow-up, or
# another question over the same pages, reads the same sentences again. 4,096 e5 vectors are 6 MB.
SENTENCE_VECTOR_CACHE = 4096
_SENTENCE_VECTORS: OrderedDict[tuple[str, str], object] = OrderedDict()
_SENTENCE_VECTORS_LOCK = threading.Lock()


def sentence_vectors(embedder, sentences: list[str]) -> list:
    """``embedder``'s document vectors of ``sentences``, embedding in one batch only those not kept."""
    with _SENTENCE_VECTORS_LOCK:
        kept = {sentence: _SENTENCE_VECTORS.get((embedder.model, sentence)) for sentence in sentences}
    missing = [sentence for sentence, vector in kept.items() if vector is None]
    if missing:
        kept.update(zip(missing, embedder.embed_documents(missing), strict=True))
    with _SENTENCE_VECTORS_LOCK:
        for sentence, vector in kept.items():
            _SENTENCE_VECTORS[(embedder.model, sentence)] = vector
            _SENTENCE_VECTORS.move_to_end((embedder.model, sentence))
        while len(_SENTENCE_VECTORS) > SENTENCE_VECTOR_CACHE:
            _SENTENCE_VECTORS.popitem(last=False)
    return [kept[sentence] for sentence in sentences]


def offline_answer(question: str, turn: Turn) -> Answer:
    passages = turn.passages
    similarity, said = _sentence_similarity(passages), said_before(turn.memory)
    if turn.item_line:
        # "두 번째 방법에 대해 설명해줘": the sentence naming the item is the answer's subject, quoted again first
        # even when the enumerating answer had quoted it.
        item = {" ".join(line.split()) for line in turn.item_line}
        said = frozenset(line for line in said if " ".join(line.split()) not in item)
    previous = previous_turn(turn.memory)
    if previous is not None and ordinal_of(previous["question"]) is not None and ordinal_of(question) is None and refers_back(question):
        # "What range of values can it hold?" after "Explain the third one.": "it" is the item that turn named
        # (two's complement), not any byte range the passages hold (signed magnitude's −127 … +127).
        question = f"{question} {' '.join(carried_terms(topic_question(previous))[:ITEM_NAME_TERMS])}"
    if turn.item_found and turn.search_query != normalize_query(question):
        # "Give me an example of the second kind": its sentences are chosen for the item it names, never for
        # "second" ("the second line is indented").
        ordinal = ORDINAL_KO.search(question) or ORDINAL_EN.search(question)
        question = f"{turn.search_query} {ordinal.group(0)}"
    if (
        turn.search_query != normalize_query(question)
        and ordinal_of(question) is None
        and rules.is_on(FORM_ONLY)
        and asks_only_form(question)
    ):
        # "give me an example" (``followup:form-only``, counted where the follow-up was resolved): chosen for the
        # conversation's topic, not for "example" alone.
        question = turn.search_query
    answer = extractive_answer(question, passages, similarity=similarity, said=said, names=turn.names, naming=turn.item_name)
    if answer.refused and turn.search_query != normalize_query(question):
        # A judged-sufficient follow-up whose own words no sentence shares ("Why is that slow?", "그 둘을 쓰면
        # 뭐가 좋아?"): its sentences are chosen for the question made to stand alone.
        answer = extractive_answer(turn.search_query, passages, similarity=similarity, said=said, names=turn.names)
    if answer.refused:  # no sentence answers it: refused as when the evidence is too weak, naming what was searched
        text = weak_results_text(question, turn.searched, in_session=turn.in_session) if turn.searched else refusal_text(question)
        return Answer(text=text, refused=True)
    if turn.conversation is not None:
        answer = _with_items(answer, enumeration_lines(turn.conversation, question, answer), turn)
    return _named_line(answer, turn.item_line)


def _named_line(answer: Answer, item_line: tuple[str, str]) -> Answer:
    """``answer`` with the sentence that names an ordinal follow-up's item shown as the materials mean it: under
    its heading ("Arithmetic shifts: These shifts are designed to …": "These shifts" alone names nothing), or
    from its ordinal on ("1 의 보수 표현법두 번째 방법은 …" → "두 번째 방법은 …")."""
    if not item_line or item_line[0] == item_line[1]:
        return answer
    sentence, shown = item_line
    lines = answer.text.split("\n")
    for index, line in enumerate(lines):
        if line.startswith(sentence):
            lines[index] = shown + line[len(sentence) :]
            return replace(answer, text="\n".join(lines))
    return answer


def _with_items(answer: Answer, items: list[tuple[Passage, str]], turn: Turn) -> Answer:
    """``answer`` with the items the materials number added as a list, in their order, each cited (its passage joins
    the turn's, so the ground check reads it); an item the prose had quoted moves into the list."""
    prose = answer.text.split("\n")
    lines = []
    for passage, sentence in items:
        quoted = next((line for line in prose if line.startswith(" ".join(sentence.split()))), None)
        if quoted is not None:
            prose.remove(quoted)
            lines.append(f"- {quoted}")
            continue
        if sentence in answer.text:
            continue
        known = next((known for known in turn.passages if known.chunk_id == passage.chunk_id), None)
        if known is None:
            known = replace(passage, n=max((other.n for other in turn.passages), default=0) + 1)
            turn.passages = [*turn.passages, known]
        lines.append(f"- {' '.join(sentence.split())} [{known.n}]")
    if lines and prose:
        return replace(answer, text="\n".join([*prose, *lines]))
    return answer


def confidence(evidence: Evidence, grounded: bool) -> float:
    if not grounded:
        return round(min(REFUSED_CONFIDENCE, evidence.coverage * REFUSED_CONFIDENCE), 3)
    weight = CONFIDENCE_COVERAGE_WEIGHT
    return round(min(1.0, weight * evidence.coverage + (1 - weight) * max(0.0, evidence.vector)), 3)


def fallback(turn: Turn, why: str) -> Answer:
    answer = offline_answer(turn.question, turn)
    return replace(answer, generator=f"extractive ({why})")


def written_answer(turn: Turn, llm) -> Answer:
    """The answer a model writes from the passages (checked whole), or the extract when it cannot."""
    system, prompt = build_prompt(turn.question, turn.memory, turn.passages)
    try:
        completion = llm.complete(system=system, prompt=prompt)
    except LLMError:
        return fallback(turn, "LLM unavailable")
    turn.usage.update(  # a condensed follow-up's call is counted already (chat/services/turn.py)
        llmCalls=turn.usage["llmCalls"] + 1, inputTokens=completion.input_tokens, outputTokens=completion.output_tokens, estimated=False
    )
    text = completion.text.strip()
    if text.startswith((REFUSAL_KO, REFUSAL_EN)):
        return Answer(text=refusal_text(turn.question), refused=True, generator=completion.model, kind=Generator.MODEL)
    grounded, citations, _problems = groundcheck.ground_check(text, turn.passages)
    if not grounded:
        return fallback(turn, "LLM answer failed the ground check")
    turn.checked = Answer(text=text, citations=citations, generator=completion.model, kind=Generator.MODEL)
    return turn.checked


def ground_checked(turn: Turn, answer: Answer) -> Answer:
    """``answer`` with its citations when every claim is supported by what it cites, else a refusal.

    Not checked again: a refusal, small talk or a stated fact (nothing retrieved), and a written answer
    that passed the check whole already (``turn.checked``).
    """
    remembered = turn.evidence is None and answer is turn.answer
    if answer.refused or remembered or answer is turn.checked:
        return answer
    grounded, citations, _problems = groundcheck.ground_check(answer.text, turn.passages)
    if not grounded:  # never let an unsupported answer through, whatever produced it
        return Answer(text=refusal_text(turn.question), refused=True, generator=answer.generator, kind=answer.kind)
    return replace(answer, citations=citations)


def measure_usage(turn: Turn, answer: Answer) -> None:
    """Tokens (estimated when no model counted them), milliseconds per stage, and the evidence's measures."""
    if turn.usage["estimated"]:
        turn.usage["inputTokens"] = estimate_tokens(turn.question) + sum(estimate_tokens(passage.text) for passage in turn.passages)
        turn.usage["outputTokens"] = estimate_tokens(answer.text)
    finished = time.perf_counter()
    turn.usage.update(
        retrievalMs=round((turn.retrieved_at - turn.started) * 1000, 1),
        generationMs=round((finished - turn.retrieved_at) * 1000, 1),
        totalMs=round((finished - turn.started) * 1000, 1),
    )
    if turn.evidence is not None:
        turn.usage.update(
            toolCalls=turn.tool_calls, coverage=turn.evidence.coverage, vector=turn.evidence.vector, evidence=turn.evidence.reason
        )


def stream_written(turn: Turn, llm) -> Iterator[tuple[str, object]]:
    """Send the model's answer as it is written, each sentence once it passes the ground check; return
    the Answer (the model's, or the extract when a sentence fails or the model stops answering)."""
    system, prompt = build_prompt(turn.question, turn.memory, turn.passages)
    text, sent = "", 0
    try:
        for piece in llm.stream(system=system, prompt=prompt):
            text += piece
            ready = complete_claims_end(text, sent)
            if ready > sent:
                if not sent and text.lstrip().startswith((REFUSAL_KO, REFUSAL_EN)):
                    break  # the model says the passages do not answer it
                problem = claims_problem(text[sent:ready], turn.passages)
                if problem:
                    return fallback(turn, "LLM answer failed the ground check")
                yield "token", text[sent:ready] if sent else text[sent:ready].lstrip()
                sent = ready
    except LLMError:
        return fallback(turn, "LLM unavailable")
    turn.usage.update(llmCalls=turn.usage["llmCalls"] + 1, estimated=True)
    if text.strip().startswith((REFUSAL_KO, REFUSAL_EN)):
        return Answer(text=refusal_text(turn.question), refused=True, generator=getattr(llm, "model", "llm"), kind=Generator.MODEL)
    rest = text[sent:]
    if rest.strip():
        if claims_problem(rest, turn.passages):
            return fallback(turn, "LLM answer failed the ground check")
        yield "token", rest if sent else rest.lstrip()
    answer_text = text.strip()
    grounded, citations, _problems = groundcheck.ground_check(answer_text, turn.passages)
    if not grounded:
        return fallback(turn, "LLM answer failed the ground check")
    turn.checked = Answer(text=answer_text, citations=citations, generator=getattr(llm, "model", "llm"), kind=Generator.MODEL)
    return turn.checked
