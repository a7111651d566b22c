"""Words that frame a question rather than name what it asks about, learned from questions and their evidence
(no Django imports). "According to the details clearly outlined within the balance sheet, how much total current
assets did Nike have …? Answer in USD millions." asks about total current assets; "accord", "much", "answer" and
"usd" are how such questions are put, and no page that answers them writes them. Counted against the passages,
they made the tutor refuse filings whose balance sheet it had found.

A term is a frame word when questions about several documents use it and the evidence that answers them rarely
does: asked in at least ``MIN_QUESTIONS`` questions, about at least ``MIN_DOCUMENTS`` documents, and found in the
gold evidence of at most ``MAX_EVIDENCE_SHARE`` of them. ``fit`` learns them from the lock box's tuning part
(``manage.py fit_frame_words``, which also reports how they hold on the check part); the list ships in
``frame_words.json`` beside this module, and the sufficiency judgement leaves them out of a question's terms
(rule ``evidence:learned-frame-words``) unless nothing else is left.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from baeum.language.analysis import QUESTION_FRAME_WORDS, content_terms

WORDS_FILE = Path(__file__).with_name("frame_words.json")
MIN_QUESTIONS = 5
MIN_DOCUMENTS = 4  # a name asked about in one article is its topic, however its evidence spells it
MAX_EVIDENCE_SHARE = 0.25


def counts(rows: Iterable[tuple[str, str, str]]) -> dict[str, dict]:
    """For each question term (``rows``: question, its gold evidence, its document): in how many questions it is
    asked, in how many of those the evidence holds it, and about how many documents."""
    asked, found, documents = Counter(), Counter(), {}
    for question, evidence, document in rows:
        held = set(content_terms(evidence))
        for term in set(content_terms(question)) - QUESTION_FRAME_WORDS:
            asked[term] += 1
            found[term] += term in held
            documents.setdefault(term, set()).add(document)
    return {term: {"asked": asked[term], "in_evidence": found[term], "documents": len(documents[term])} for term in asked}


def fit(rows: Iterable[tuple[str, str, str]]) -> dict[str, dict]:
    """The frame words of ``rows`` with their counts, most asked first."""
    counted = counts(rows)
    kept = {
        term: seen
        for term, seen in counted.items()
        if seen["asked"] >= MIN_QUESTIONS
        and seen["documents"] >= MIN_DOCUMENTS
        and seen["in_evidence"] / seen["asked"] <= MAX_EVIDENCE_SHARE
    }
    return dict(sorted(kept.items(), key=lambda item: (-item[1]["asked"], item[0])))


@lru_cache(maxsize=1)
def learned() -> frozenset[str]:
    """The shipped frame words (none when the file is missing)."""
    if not WORDS_FILE.is_file():
        return frozenset()
    return frozenset(json.loads(WORDS_FILE.read_text(encoding="utf-8"))["words"])
