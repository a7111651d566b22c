"""A material's English vocabulary, to name a Korean question's terms by meaning.

A Korean question over an English book names most terms by their Korean word ("연산자", "예외", "집합"), which no
gloss in the learner's materials and no loanword's sound gives. A multilingual sentence embedder places a single
word near its translation: with the multilingual Universal Sentence Encoder, "연산자" lies nearest "operator"
(0.86), "예외" "exceptions" (0.82), "정수" "integers" (0.69). So each Korean noun of a question is given the English
word of the materials searched that lies nearest it, when near enough. No Django imports: ``knowledge`` stores the
vocabulary with the postings (``VocabularyWord``) and reads it to search (``knowledge.selectors.search.meaning_names``).

Only this direction. The other (an English question's words given the Korean material's nearest nouns) was
measured and dropped on the tuning part: an English word alone is ambiguous where a Korean noun is not
("instruction" → "지시", directive, over an assembly book that says "명령"; "number" → "번호"; "return" → "되풀이"),
and the tuning part's English questions over the Korean assembly book lost 4 of 38 pages (docs/evaluation.md).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from baeum.language import glossary
from baeum.language.analysis import QUESTION_FRAME_WORDS, analyze, is_noun
from baeum.language.text import is_hangul_heavy

MIN_USES = 2  # an English word the material writes at least this often
# The cosine at which the material's nearest word names a question's noun: over Think Python, "정수" → "integers"
# (0.69) and "에러" → "error" (0.72) are above it, "오버로딩" → "invoking" (0.62) below. Chosen on the tuning
# part's Korean conversations over Think Python.
MIN_SIMILARITY = 0.68
WORD_MAX_CHARS = 60
# The embedder of vocabularies and the terms asked: the fast multilingual one, loaded in every process.
EMBEDDER = "use"

_LATIN_WORD = re.compile(r"[A-Za-z][a-z]{2,}(?:-[a-z]+)*")


def latin_words(texts: Iterable[str]) -> list[tuple[str, int]]:
    """The English words of ``texts`` used at least ``MIN_USES`` times, in lower case, with their counts
    (function words, which analyse to nothing, left out)."""
    counts: Counter = Counter()
    for text in texts:
        counts.update(word.lower() for word in _LATIN_WORD.findall(text))
    return [(word, uses) for word, uses in counts.items() if uses >= MIN_USES and len(word) <= WORD_MAX_CHARS and analyze(word)]


def asked_terms(question: str) -> list[str]:
    """The nouns of a Korean ``question`` that may name its topic (none for a question in another language). A
    verb's nearest words are frequent ones ("돌아가" → "back"), a particle read as a term names nothing ("에서" →
    "within"), and the question's frame ("방법", "차이") is not what is asked about."""
    if not is_hangul_heavy(question):
        return []
    terms = [term for term in glossary.korean_terms(question) if is_noun(term)]
    return [term for term in dict.fromkeys(terms) if term not in QUESTION_FRAME_WORDS]
