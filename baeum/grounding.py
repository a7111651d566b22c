"""Grounded answers: the extractive (offline) answer, the citation check every answer must pass,
the sufficiency judgement that decides a refusal, and the token-budgeted context. No Django imports.

An LLM may phrase an answer; only this module decides whether it is grounded.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from .analysis import analyze
from .chunking import quote_pages
from .text import estimate_tokens, is_hangul_heavy, sentence_spans

REFUSAL_KO = "제공된 자료에서 관련 내용을 찾을 수 없습니다."
REFUSAL_EN = "I couldn't find this in your materials."
CITATION = re.compile(r"\[(\d{1,2})\]")


@dataclass(frozen=True)
class Passage:
    n: int  # 1-based citation number for this turn
    chunk_id: int
    ref_id: str
    title: str
    chunk_index: int
    page_number: int
    text: str
    score: float = 0.0
    vector_score: float | None = None
    lexical_score: float | None = None
    # The cosine at which this passage's embedding model counts as a plausible match (models differ).
    vector_threshold: float | None = None
    # Where each page of ``text`` begins ((offset, page) pairs): citations carry the quote's own page.
    page_starts: tuple = ()


@dataclass
class Citation:
    n: int
    refId: str
    materialTitle: str
    chunkIndex: int
    pageNumber: int  # the page of the quoted sentence
    quote: str
    pageEnd: int = 0  # the page where the quote ends (the same page unless it runs over a page break)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    refused: bool = False
    confidence: float = 0.0
    generator: str = "extractive"


@lru_cache(maxsize=8192)
def _content_terms(text: str) -> tuple[str, ...]:
    return tuple(term for term in analyze(text) if not term.startswith("~"))


def content_terms(text: str) -> list[str]:
    """Analysed terms without the character bigrams (those say little about meaning). Cached: one
    turn analyses the same passages and sentences for sufficiency, extraction and the ground check."""
    return list(_content_terms(text))


def refusal_text(question: str) -> str:
    return REFUSAL_KO if is_hangul_heavy(question) else REFUSAL_EN


def weak_results_text(question: str, titles: list[str]) -> str:
    names = ", ".join(f"“{title}”" for title in titles[:5]) or "—"
    if is_hangul_heavy(question):
        return f"{REFUSAL_KO} 검색한 자료({names})에는 이 질문에 답하는 내용이 없습니다."
    return f"{REFUSAL_EN} I searched {names}, and they do not answer this question."


# --- Sufficiency ---------------------------------------------------------------------------


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def _found_terms(terms: list[str], text: str) -> set[str]:
    """Terms of ``terms`` present in ``text``: as analysed terms, or (for Korean compounds written
    without spaces, "인터럽트핸들러") as a substring of the text with spaces removed."""
    analysed = set(content_terms(text))
    squeezed = _squeezed(text)
    return {term for term in terms if term in analysed or (len(term) >= 2 and term in squeezed)}


@dataclass(frozen=True)
class Evidence:
    coverage: float  # share of the question's weighted terms found in the best passage
    vector: float  # best cosine similarity among the passages
    sufficient: bool


def judge_evidence(
    question: str, passages: list[Passage], *, min_coverage: float, min_vector: float | None, strong_coverage: float
) -> Evidence:
    """Decide whether the passages can answer the question.

    Coverage weights each question term by its rarity in the passages at hand (a term that appears in
    every passage says little), so "What is X's population?" is not covered by passages that merely
    contain "population". Enough coverage with a plausible vector match, or very high coverage, is
    sufficient; anything else is refused. A vector match is plausible at ``min_vector`` when given,
    else at each passage's own ``vector_threshold`` (its embedding model's).
    """
    terms = list(dict.fromkeys(content_terms(question)))
    if not passages or not terms:
        return Evidence(0.0, 0.0, False)
    found_in = [_found_terms(terms, passage.text) for passage in passages]
    total = len(found_in)
    weights = {term: math.log(1 + (total + 1) / (1 + sum(term in found for found in found_in))) for term in terms}
    weight_sum = sum(weights.values()) or 1.0
    coverage = max(sum(weights[term] for term in terms if term in found) / weight_sum for found in found_in)
    vector = max((passage.vector_score or 0.0) for passage in passages)
    plausible = any(
        passage.vector_score is not None
        and passage.vector_score >= (min_vector if min_vector is not None else passage.vector_threshold or 0.0)
        for passage in passages
    )
    sufficient = coverage >= strong_coverage or (coverage >= min_coverage and plausible)
    return Evidence(round(coverage, 4), round(vector, 4), sufficient)


# --- Extractive answer ---------------------------------------------------------------------


def _sentences(passage: Passage) -> list[str]:
    return [passage.text[start:end] for start, end in sentence_spans(passage.text)]


def extractive_answer(question: str, passages: list[Passage], *, max_sentences: int = 3) -> Answer:
    """Pick the passage sentences that best answer the question, most relevant first, each cited."""
    query = Counter(content_terms(question))
    if not query:
        return Answer(text="", refused=True)
    candidates: list[tuple[float, int, str, Passage]] = []
    for rank, passage in enumerate(passages):
        for position, sentence in enumerate(_sentences(passage)):
            terms = set(content_terms(sentence))
            if len(sentence) < 12 or not terms:
                continue
            overlap = sum(1 for term in query if term in terms) / len(query)
            if overlap == 0:
                continue
            # Prefer overlap, then higher-ranked passages, then earlier sentences; penalise very long ones.
            score = overlap + 0.15 / (1 + rank) + 0.02 / (1 + position) - 0.0005 * max(0, len(sentence) - 300)
            candidates.append((score, -rank, sentence, passage))
    candidates.sort(key=lambda item: (-item[0], -item[1]))
    chosen: list[tuple[str, Passage]] = []
    seen: set[str] = set()
    for _, _, sentence, passage in candidates:
        if sentence in seen:
            continue
        seen.add(sentence)
        chosen.append((sentence, passage))
        if len(chosen) >= max_sentences:
            break
    if not chosen:
        return Answer(text="", refused=True)
    citations: dict[int, Citation] = {}
    parts = []
    for sentence, passage in chosen:
        parts.append(f"{sentence} [{passage.n}]")
        citations.setdefault(passage.n, _citation(passage, sentence))
    return Answer(text="\n".join(parts), citations=sorted(citations.values(), key=lambda c: c.n), generator="extractive")


def _citation(passage: Passage, quote: str) -> Citation:
    first, last = quote_pages(passage.text, passage.page_starts, quote, passage.page_number)
    return Citation(
        n=passage.n,
        refId=passage.ref_id,
        materialTitle=passage.title,
        chunkIndex=passage.chunk_index,
        pageNumber=first,
        quote=quote,
        pageEnd=last,
    )


# --- Ground check --------------------------------------------------------------------------


def best_quote(claim: str, passage: Passage) -> tuple[str, float]:
    """Return the passage sentence that best supports ``claim`` and its term overlap (0..1)."""
    claim_terms = set(content_terms(claim))
    best, best_overlap = "", 0.0
    for sentence in _sentences(passage):
        terms = set(content_terms(sentence))
        if not claim_terms or not terms:
            continue
        overlap = len(claim_terms & terms) / len(claim_terms)
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    return best, best_overlap


_LEADING_CITATIONS = re.compile(r"^((?:\s*\[\d{1,2}\])+)[.,;:]?\s*")


def _claims(text: str) -> list[str]:
    """Split an answer into claims, keeping each ``[n]`` with the sentence it follows
    ("X. [1] Y [2]." → "X. [1]", "Y [2].")."""
    claims: list[str] = []
    for line in text.split("\n"):
        for start, end in sentence_spans(line):
            sentence = line[start:end].strip()
            match = _LEADING_CITATIONS.match(sentence)
            if match and claims:
                claims[-1] += " " + match.group(1).strip()
                sentence = sentence[match.end() :].strip()
            if sentence:
                claims.append(sentence)
    return claims


def ground_check(answer_text: str, passages: list[Passage], *, min_support: float = 0.5) -> tuple[bool, list[Citation], list[str]]:
    """Check that every claim cites a passage of this turn that supports it.

    Returns ``(grounded, citations, problems)``. A sentence with fewer than three content terms
    (a connective such as "In short:") needs no citation; every other sentence needs at least one
    ``[n]`` that exists, and the cited passages together must contain at least ``min_support`` of
    its terms. The quote of each citation is the cited passage's best-supporting sentence, verbatim.
    """
    by_number = {passage.n: passage for passage in passages}
    problems: list[str] = []
    citations: dict[int, Citation] = {}
    text = answer_text.strip()
    if not text:
        return False, [], ["empty answer"]
    for sentence in _claims(text):
        numbers = [int(number) for number in CITATION.findall(sentence)]
        claim = CITATION.sub("", sentence).strip()
        claim_terms = set(content_terms(claim))
        if not numbers:
            if len(claim_terms) >= 3:
                problems.append(f"uncited claim: {claim[:80]}")
            continue
        unknown = [number for number in numbers if number not in by_number]
        if unknown:
            problems.append(f"cites passage(s) {unknown} that were not retrieved")
            continue
        cited_terms = set().union(*(set(content_terms(by_number[number].text)) for number in numbers))
        if claim_terms and len(claim_terms & cited_terms) / len(claim_terms) < min_support:
            problems.append(f"not supported by [{', '.join(map(str, numbers))}]: {claim[:80]}")
            continue
        for number in numbers:
            quote, _ = best_quote(claim, by_number[number])
            if number not in citations and quote:
                citations[number] = _citation(by_number[number], quote)
    return not problems and bool(citations), sorted(citations.values(), key=lambda c: c.n), problems


# --- Context budgets -----------------------------------------------------------------------

BUDGETS = {"system": 1500, "memory": 500, "entities": 200, "recent": 1500, "passages": 1500, "question": 100}


def fit_passages(passages: list[Passage], budget: int = BUDGETS["passages"]) -> list[Passage]:
    """Keep whole passages, best first, while they fit the token budget (never cut one in half)."""
    kept, used = [], 0
    for passage in passages:
        cost = estimate_tokens(passage.text) + 12
        if kept and used + cost > budget:
            continue
        kept.append(passage)
        used += cost
    return kept


def fit_text(lines: list[str], budget: int) -> list[str]:
    """Keep the first lines (most recent/important first) that fit the budget, whole."""
    kept, used = [], 0
    for line in lines:
        cost = estimate_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept
