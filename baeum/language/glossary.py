"""Terms a Korean text names in both languages, and what they tell a question in the other language.

Korean textbooks gloss their terms in English where they introduce them: "2 의 보수 (two’s complement)",
"분기 명령 (branch instruction)", "이는 인터럽트 (interrupt) 라는 …". A Korean question over an English
material shares no word with it, nor an English question with a Korean one; the glosses in the learner's
own materials say what each term is called in the other language. No Django imports: the rows are read
and written by ``knowledge`` (``Gloss``).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from baeum.language.analysis import analyze, is_stop_word, starts_with_a_verb
from baeum.language.text import is_hangul_heavy

# A Korean word or two before an English name in parentheses: "분기 명령 (branch instruction)".
_GLOSSED = re.compile(r"(?:([0-9가-힣]+)[ \t]+)?([0-9가-힣]+)[ \t]*\([ \t]*([A-Za-z][A-Za-z0-9 '’\-]{1,40}?)[ \t]*[),;]")
# The word before a term ends like this when it is not part of the term's name: a particle or a verb's
# ending ("2 의 보수", "이는 인터럽트", "통해 재진입").
_NOT_A_NAME_ENDINGS = frozenset("은는이가을를에의로와과도만서고며면다한된인할적및해게지요든나야시")
_ENGLISH_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]+")
NAMES_PER_TERM = 2  # the most frequent English names of a Korean term ("보수": two's complement, one's complement)
NAMES_PER_QUESTION = 4  # the Korean names an English question's terms are given, most frequent first


@dataclass(frozen=True)
class Gloss:
    before: str  # the Korean word before ``head``, when there is one ("분기"; "의" in "2 의 보수")
    head: str  # the Korean word right before the parenthesis ("명령")
    english: str  # the English name, in lower case with one kind of apostrophe ("branch instruction")


def folded_words(text: str) -> list[str]:
    """English words as a gloss and a question both write them: lower case, one apostrophe, no plural -s."""
    return [word.casefold().replace("’", "'").removesuffix("s") for word in _ENGLISH_WORD.findall(text)]


def glosses_in(text: str) -> list[Gloss]:
    """Every Korean term ``text`` glosses in English (a verb before a parenthesis glosses nothing: "알려줘
    (Long, 평문)" in the KorQuAD paper's examples)."""
    return [
        Gloss(before or "", head, " ".join(english.split()).casefold().replace("’", "'"))
        for before, head, english in _GLOSSED.findall(text)
        if not starts_with_a_verb(head)
    ]


@lru_cache(maxsize=4096)
def is_name_word(word: str) -> bool:
    """Whether the word before a glossed term is part of its name: a noun of its own ("분기", "인라인"), not
    a particle, a verb's ending or an adverb ("의", "이는", "필수적인", "반드시")."""
    return word[-1] not in _NOT_A_NAME_ENDINGS or (len(word) >= 2 and analyze(word)[:1] == [word])


def _names_the_term(gloss: Gloss, question: str) -> bool:
    """Whether ``gloss`` names the question's word ``gloss.head`` itself, not a longer name ending in it:
    "분기 명령 (branch instruction)" names "분기 명령", not the "명령" of "CALL 명령은 무슨 일을 하나요?", and
    "인라인 함수 (inline functions)" not the "함수" of "C 함수가 구조체를 반환할 때"."""
    return not gloss.before or not is_name_word(gloss.before) or gloss.before in question


def korean_terms(question: str) -> list[str]:
    """The Korean words of ``question`` a gloss may name (its analysed Hangul terms)."""
    return [term for term in dict.fromkeys(analyze(question)) if not term.startswith("~") and len(term) >= 2 and is_hangul_heavy(term)]


def english_names(question: str, glosses: Iterable[Gloss]) -> list[str]:
    """The English names ``glosses`` give the Korean terms of ``question``, most frequent first."""
    terms = korean_terms(question)
    counts: dict[str, Counter] = {term: Counter() for term in terms}
    for gloss in glosses:
        if gloss.head in counts and _names_the_term(gloss, question) and not starts_with_a_verb(gloss.head):
            counts[gloss.head][gloss.english] += 1
    return list(dict.fromkeys(name for term in terms for name, _ in counts[term].most_common(NAMES_PER_TERM)))


def english_keys(question: str) -> list[str]:
    """The words of an English question a gloss's first word may be (for looking glosses up)."""
    return [word for word in dict.fromkeys(folded_words(question)) if len(word) >= 2 and not is_stop_word(word)]


def korean_names(question: str, glosses: Iterable[Gloss]) -> list[str]:
    """What ``glosses`` call the English terms of ``question``, most frequent first: a gloss counts when the
    question holds every word of it; its name is the word before the parenthesis, with the word before
    that for a name of several words ("분기 명령 (branch instruction)"; not "반드시 세그먼트 (segment)")."""
    asked = set(folded_words(question))
    counts: Counter = Counter()
    for gloss in glosses:
        if not set(folded_words(gloss.english)) <= asked or starts_with_a_verb(gloss.head):  # rows stored before the check
            continue
        several = len(gloss.english.split()) > 1 and gloss.before and is_name_word(gloss.before)
        counts[f"{gloss.before} {gloss.head}" if several else gloss.head] += 1
    return [name for name, _ in counts.most_common(NAMES_PER_QUESTION)]
