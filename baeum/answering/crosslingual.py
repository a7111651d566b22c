"""Across languages: a Korean learner studies from an English textbook.

"스택 포인터 ESP는 무엇을 가리키나요?" shares no word with the page that answers it, so counting question terms
in the passages refuses it. Across languages the judgement reads meaning (the multilingual embedding's
similarity at the passage's model's threshold) and the words both languages write the same way:
identifiers, numbers and Latin-script terms inside a Korean question ("ESP", "CALL").
"""

from __future__ import annotations

import re

from baeum.answering.answers import Passage
from baeum.language.analysis import OPTION, camel_parts, content_terms
from baeum.language.text import is_hangul_heavy

# Of the question's shared-script terms, the share the best passage must contain.
SHARED_TERMS_MIN_SHARE = 0.5


CROSSLINGUAL_PASSAGES = (
    3  # answer from the best three passages (evaluation/crosslingual.jsonl, e5: 2 → 44 of 74 on an expected page, 3 → 46, 5 → 47)
)


CODE_WEIGHT = 2.0  # a code or number of the question, in a sentence across languages, counts twice a word


MEANING_WEIGHT = 4.0  # a sentence's cosine to the question outweighs its position (cosines differ by ~0.1–0.3)


# A short line before a cross-language answer, in the question's language; not a claim (ground check skips it).
NOTE_PREFIX = "※ "


_LATIN_TERM = re.compile(r"^-{0,2}[a-z0-9][a-z0-9_.+#-]*$")  # "-k" too: an option is written alike


# Acronyms and codes ("ESP", "80386", "x86"), a word mixing digits and letters ("2others", "4yourself"; not an
# ordinal, "2nd") and a name with a capital inside ("ifrOSS", "NumPy" is a name by its first letter).
_IDENTIFIER = re.compile(
    r"\b(?:[A-Z]{2,}[0-9]*|[A-Za-z]*[0-9]{2,}[A-Za-z0-9]*|(?![0-9]+(?:st|nd|rd|th)\b)[0-9]+[A-Za-z][A-Za-z0-9]*|[a-z]+[A-Z][A-Za-z0-9]*)\b"
    r"|" + OPTION
)


# With every named identifier found verbatim, the meaning match may be this share of the usual threshold.
ANCHORED_VECTOR_SHARE = 0.6


_HANGUL = re.compile(r"[가-힣]")


def crosses_languages(question: str, passages: list[Passage]) -> bool:
    """Whether the best passage and most of the others are in another language than the question (Korean /
    not Korean), each passage in its material's language: a Korean paper's English reference list or a
    Korean book's code listing is Korean material. Over a library of both languages, a question is
    answered across languages only when its own language's material is not what answers it best."""
    if not passages:
        return False
    other = [in_other_language(question, passage) for passage in passages]
    return other[0] and sum(other) * 2 > len(other)


def in_other_language(question: str, passage: Passage) -> bool:
    """Whether ``passage`` (its material's language, else its own text's) is in another language than ``question``."""
    korean = passage.korean if passage.korean is not None else is_hangul_heavy(passage.text)
    return korean != is_hangul_heavy(question)


def shared_script_terms(question: str) -> list[str]:
    """Terms of ``question`` written in the other language's script: Latin terms and numbers in a Korean
    question, Hangul terms in an English one. They can be matched as they are across languages."""
    # A camel-case word is one name across languages: its parts ("event" of "EventEmitter3") are no more terms.
    parts = camel_parts(question)
    terms = dict.fromkeys(term for term in content_terms(question) if term not in parts)
    if is_hangul_heavy(question):
        return [term for term in terms if _LATIN_TERM.match(term) and len(term) > 1]
    return [term for term in terms if _HANGUL.search(term)]


def identifiers(question: str) -> list[str]:
    """Names written the same in every language: acronyms and codes ("ESP", "CALL", "80386", "x86", "2others",
    "ifrOSS"), command-line options ("-k")."""
    return list(dict.fromkeys(_IDENTIFIER.findall(question)))


def crosslingual_note(question: str, passages: list[Passage]) -> str:
    """The line that tells the learner the answer is quoted from a material in another language."""
    if is_hangul_heavy(question):
        return f"{NOTE_PREFIX}영어로 된 자료에서 찾은 내용을 원문 그대로 인용합니다."
    return f"{NOTE_PREFIX}Quoted as written in your Korean material."
