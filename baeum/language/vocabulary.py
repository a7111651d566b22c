"""A material's vocabulary, to name a question's terms across languages by meaning.

A Korean question names most terms by their Korean word ("연산자", "예외", "집합"), which no gloss in the learner's
materials and no loanword's sound gives. A multilingual sentence embedder places a single word near its
translation: with the multilingual Universal Sentence Encoder, "연산자" lies nearest "operator" (0.86), "예외"
"exception" (0.81), "집합" "set" (0.69), "호출 규약" "calling convention" (0.57). So each term of a question is
given the word of the materials searched that lies nearest it, when near enough: English words as the material
writes them, Korean nouns as Kiwi analyses them. No Django imports: ``knowledge`` stores the vocabulary with the
postings (``VocabularyWord``) and reads it to search (``knowledge.selectors.search.meaning_names``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable

from baeum.language import glossary
from baeum.language.analysis import QUESTION_FRAME_WORDS, analyze, is_noun, is_stop_word
from baeum.language.text import is_hangul_heavy

MIN_USES = 2  # a word the material uses at least this often (an English word's occurrences, a Korean noun's chunks)
# The cosine at which the material's nearest word names a question's term: over Think Python, "정수" → "integers"
# (0.69) and "에러" → "error" (0.72) are above it, "오버로딩" → "invoking" (0.62) and "넘기" → "hist" (0.74, a verb:
# verbs are not asked) below or not asked. Chosen on the tuning part's lazy Korean conversations.
MIN_SIMILARITY = 0.68
WORD_MAX_CHARS = 60
# The embedder of vocabularies and the terms asked: the fast multilingual one, loaded in every process.
EMBEDDER = "use"

_LATIN_WORD = re.compile(r"[A-Za-z][a-z]{2,}(?:-[a-z]+)*")
_HANGUL_NOUN = re.compile(r"^[가-힣]{2,}$")


def latin_words(texts: Iterable[str]) -> list[tuple[str, int]]:
    """The English words of ``texts`` used at least ``MIN_USES`` times, in lower case, with their counts
    (function words, which analyse to nothing, left out)."""
    counts: Counter = Counter()
    for text in texts:
        counts.update(word.lower() for word in _LATIN_WORD.findall(text))
    return [(word, uses) for word, uses in counts.items() if uses >= MIN_USES and len(word) <= WORD_MAX_CHARS and analyze(word)]


def hangul_nouns(chunk_counts: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """Of the analysed Korean terms and the number of chunks using each, the nouns used in ``MIN_USES`` chunks: an
    English question's word is named by a Korean noun, never by a verb's stem ("happened" → "발생하") or a noun
    with its particle ("rather" → "것이")."""
    return [
        (term, uses)
        for term, uses in chunk_counts
        if uses >= MIN_USES and _HANGUL_NOUN.match(term) and len(term) <= WORD_MAX_CHARS and is_noun(term)
    ]


def asked_terms(question: str) -> list[str]:
    """The words of ``question`` that may name its topic: Korean nouns, or English words that are neither function
    words nor the question's frame. A verb's nearest words are frequent ones ("돌아가" → "back"), a particle read
    as a term names nothing ("에서" → "within"), and the frame ("방법", "difference") is not what is asked about."""
    if is_hangul_heavy(question):
        terms = [term for term in glossary.korean_terms(question) if is_noun(term)]
    else:
        terms = [word.lower() for word in _LATIN_WORD.findall(question)]
    return [term for term in dict.fromkeys(terms) if not is_stop_word(term) and term not in QUESTION_FRAME_WORDS]
