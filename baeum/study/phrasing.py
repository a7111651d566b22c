"""LLM-written session titles, objectives and short-answer questions, each checked against the text
before it is used (no Django imports). Any reply that fails the check is discarded and the caller
keeps its offline result: an LLM phrases; it never adds facts."""

from __future__ import annotations

import json
import re

from baeum.answering import prompts
from baeum.answering.evidence import found_terms
from baeum.answering.llm import LLM, LLMError
from baeum.extraction.tables import superscript_references
from baeum.language.analysis import content_terms


def _json_from(text: str):
    match = re.search(r"(\{.*\}|\[.*\])", text, re.DOTALL)
    if not match:
        return None
    try:
        return json.loads(match.group(1))
    except json.JSONDecodeError:
        return None


def _supported(claim: str, source: str, minimum: float) -> bool:
    terms = list(dict.fromkeys(content_terms(claim)))
    if not terms:
        return False
    return len(found_terms(terms, source)) / len(terms) >= minimum


def session_title(llm: LLM, *, passages: list[str], language: str) -> tuple[str, list[str]] | None:
    """Ask for a title and 3 objectives grounded in ``passages``; None when the reply does not hold up."""
    # The passages' own reference markers ("KorQuAD 1.0[1]") as superscripts: only our numbers read as [n].
    text = "\n\n".join(f"[{number}] {superscript_references(passage)}" for number, passage in enumerate(passages, start=1))
    try:
        reply = llm.complete(system=prompts.session_headings_system(language), prompt=prompts.session_headings_prompt(text), max_tokens=300)
    except LLMError:
        return None
    data = _json_from(reply.text)
    if not isinstance(data, dict) or not isinstance(data.get("title"), str) or not isinstance(data.get("objectives"), list):
        return None
    title = data["title"].strip()[:120]
    objectives = [item.strip()[:200] for item in data["objectives"] if isinstance(item, str) and item.strip()][:5]
    if not title or not _supported(title, text, 0.5) or not objectives:
        return None
    objectives = [objective for objective in objectives if _supported(objective, text, 0.5)]
    return (title, objectives) if objectives else None


def short_answer_questions(llm: LLM, *, sentences: list[str], language: str, limit: int = 5) -> list[dict] | None:
    """Ask for short-answer questions on numbered ``sentences``; keep those whose answer the cited
    sentence really contains. Returns ``[{"question", "answer", "source": index}]`` or None."""
    numbered = "\n".join(f"[{number}] {superscript_references(sentence)}" for number, sentence in enumerate(sentences, start=1))
    try:
        reply = llm.complete(
            system=prompts.practice_questions_system(language), prompt=prompts.practice_questions_prompt(numbered, limit), max_tokens=600
        )
    except LLMError:
        return None
    data = _json_from(reply.text)
    if not isinstance(data, list):
        return None
    questions = []
    for item in data:
        if not isinstance(item, dict):
            continue
        question, answer, source = item.get("question"), item.get("answer"), item.get("source")
        if not isinstance(question, str) or not isinstance(answer, str) or not isinstance(source, int) or not 1 <= source <= len(sentences):
            continue
        if answer.strip() and _supported(answer, sentences[source - 1], 0.8):
            questions.append({"question": question.strip()[:300], "answer": answer.strip()[:200], "source": source - 1})
        if len(questions) >= limit:
            break
    return questions or None


GRADE_VERDICTS = ("correct", "partial", "wrong")


def grade_answer(llm: LLM, *, question: str, response: str, expected: str, quote: str, language: str) -> str | None:
    """Ask whether ``response`` answers ``question`` as the cited ``quote`` says (paraphrases count).
    Returns "correct" / "partial" / "wrong", or None when the reply is unusable (the offline grade stands)."""
    prompt = prompts.grade_prompt(quote=quote, question=question, expected=expected, response=response, language=language)
    try:
        reply = llm.complete(system=prompts.GRADE_SYSTEM, prompt=prompt, max_tokens=40)
    except LLMError:
        return None
    data = _json_from(reply.text)
    verdict = data.get("verdict") if isinstance(data, dict) else None
    return verdict if verdict in GRADE_VERDICTS else None
