"""The condense step: with a language model, a follow-up is rewritten as a standalone question before retrieval.

The standard step of conversational retrieval: "그건 왜 필요해?" after "세그먼트 레지스터가 뭐야?" is searched as
"세그먼트 레지스터는 왜 필요한가?", and a question in another language than the learner's materials is searched
in theirs ("What is a stack pointer?" over a Korean book: "스택 포인터란 무엇인가?"). The model only rewrites what is
searched: whether the passages answer is judged from them as always, and the answer is ground-checked.
Without a model, or when it fails or says something that cannot be a question, the offline resolution stands
(``followups.resolve_references``).
"""

from __future__ import annotations

from dataclasses import dataclass

from baeum.answering.followups import answered_turns
from baeum.answering.history import Memory
from baeum.answering.llm import LLMError
from baeum.answering.prompts import condense_prompt, condense_system
from baeum.language.text import is_hangul_heavy

HISTORY_TURNS = 3  # the turns the model reads: enough for "and the other one?", few enough to stay on topic
ANSWER_HEAD_CHARS = 300  # of each earlier answer: what it said first is what a follow-up points at
MAX_QUESTION_CHARS = 300  # a longer reply is an answer or an essay, not a question
CONDENSE_TOKENS = 120


@dataclass(frozen=True)
class Condensed:
    question: str  # the standalone question to search with ("" when the offline resolution stands)
    why: str  # "rewritten", "translated", or why not: "no-history", "failed: …", "not-a-question"
    input_tokens: int = 0
    output_tokens: int = 0


def needs_condensing(question: str, memory: Memory, materials_korean: bool | None) -> str:
    """Why the question is rewritten ("follow-up", "other-language"), or "" when it is searched as asked."""
    if answered_turns(memory):
        return "follow-up"
    if materials_korean is not None and is_hangul_heavy(question) != materials_korean:
        return "other-language"
    return ""


def _history(memory: Memory) -> str:
    lines = []
    for entry in answered_turns(memory)[-HISTORY_TURNS:]:
        answer = " ".join(entry.get("answer", "").split())[:ANSWER_HEAD_CHARS]
        lines += [f"Learner: {entry['question']}", f"Tutor: {answer}"]
    return "\n".join(lines)


def _cleaned(reply: str) -> str:
    """The model's question without quotes, labels or a second line; "" when it is no question."""
    lines = [line.strip() for line in reply.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0].removeprefix("Standalone question:").strip().strip("\"'“”‘’`").strip()
    return line if 0 < len(line) <= MAX_QUESTION_CHARS else ""


def condense(llm, question: str, memory: Memory, *, materials_korean: bool | None) -> Condensed:
    """The question made to stand alone (and in the materials' language) by ``llm``; never raises."""
    why = needs_condensing(question, memory, materials_korean)
    if llm is None or not why:
        return Condensed("", why or "no-history")
    language = "ko" if materials_korean else "en"
    try:
        completion = llm.complete(
            system=condense_system(language), prompt=condense_prompt(_history(memory), question), max_tokens=CONDENSE_TOKENS
        )
    except LLMError as error:  # a model that times out or fails leaves the offline resolution in place
        return Condensed("", f"failed: {type(error).__name__}")
    rewritten = _cleaned(completion.text)
    tokens = {"input_tokens": completion.input_tokens, "output_tokens": completion.output_tokens}
    if not rewritten:
        return Condensed("", "not-a-question", **tokens)
    return Condensed(rewritten, "translated" if why == "other-language" else "rewritten", **tokens)
