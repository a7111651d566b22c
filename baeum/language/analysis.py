"""Lexical analysis for BM25, the same code at indexing and at query time.

Korean (and other CJK) spans go through Kiwi morphological analysis: nouns, verb/adjective stems,
roots, numbers, foreign words and Hanja are kept; particles, endings and suffixes are dropped, so
"레지스터는" and "레지스터를" both index as "레지스터". Latin spans are lower-cased, stop words are
dropped and plural/possessive/-ing/-ed endings are lightly stemmed. Identifiers and codes
("ORD-2024-001", "asyncio.run") are kept whole and also split into their parts.
No Django imports.
"""

from __future__ import annotations

import os
import re
import threading
import unicodedata
from collections import Counter
from functools import lru_cache

from baeum.language.text import HEADING_NUMBER

HANGUL_BIGRAMS = os.environ.get("BAEUM_HANGUL_BIGRAMS", "1") != "0"  # measured: +0.3 to +5 MRR points on the Korean sets

_LATIN_TOKEN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_'’]|[\-./:](?=[A-Za-z0-9]))*")
_HAS_CJK = re.compile(r"[\u3131-\u318e\uac00-\ud7a3\u4e00-\u9fff\u3040-\u30ff]")
_KEEP_TAGS = {"NNG", "NNP", "NR", "SL", "SH", "SN", "XR", "VV", "VA", "W_SERIAL", "W_HASHTAG"}
_STOP_WORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being below between both but by
    can could did do does doing down during each few for from further had has have having he her here hers herself him himself
    his how i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them themselves then there these they this
    those through to too under until up very was we were what when where which while who whom why will with would you your
    yours yourself yourselves also may might must shall us""".split()
)


def stem_english(word: str) -> str:
    """Lightly stem a lower-case English word (plural, possessive, -ing, -ed)."""
    if word.endswith(("'s", "’s")):
        word = word[:-2]
    if len(word) <= 3 or not word.isalpha():
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("sses"):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    if word.endswith("ing") and len(word) > 5:
        word = word[:-3]
        return word[:-1] if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz" else word
    if word.endswith("ed") and len(word) > 4:
        word = word[:-2]
        return word[:-1] if len(word) > 2 and word[-1] == word[-2] and word[-1] not in "lsz" else word
    return word


_NAME_AND_NUMBER = re.compile(r"[a-z]+-\d+")


# A word joined in camel case ("InterfaceConstructor", "createInterface"): its words are terms too, as a hyphen's.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")


def camel_parts(text: str) -> set[str]:
    """The terms of ``text`` that only its camel-case words' parts make ("event", "emitter" of "EventEmitter3")."""
    parts: set[str] = set()
    for token in _LATIN_TOKEN.findall(text):
        if _CAMEL.search(token):
            parts |= set(_latin_terms(token)) - set(_latin_terms(token.casefold()))
    return parts


def _latin_terms(token: str, *, query: bool = False) -> list[str]:
    lowered = token.casefold().strip("'’")
    if not lowered:
        return []
    if _CAMEL.search(token) and lowered not in _STOP_WORDS:  # "oF" (a typo of "of") is a stop word, not "o" and "f"
        words = [word.casefold() for piece in re.split(r"[\-./:_]+", token.strip("'’")) for word in _CAMEL.split(piece) if word]
        terms = _latin_terms(lowered, query=query)  # the whole, and its parts at hyphens and dots
        parts = (stem_english(word) for word in words if len(word) > 1 and word not in _STOP_WORDS)
        return [*terms, *dict.fromkeys(part for part in parts if part not in terms)]
    if re.search(r"[\-./:_]", lowered):
        parts = [part for part in re.split(r"[\-./:_]+", lowered) if part]
        # "SHA-256", "UTF-8": also as the book may write it, run together ("SHA256"). A search looks for that
        # one term only, which both spellings index: with the parts too, a page writing "SHA-256" (SM3's
        # "equivalent to SHA-256") matched four terms to the SHA256 section's one.
        if _NAME_AND_NUMBER.fullmatch(lowered):
            joined = "".join(parts)
            if query:
                return [joined]
            return [lowered, joined, *[stem_english(part) for part in parts if part not in _STOP_WORDS]]
        return [lowered, *[stem_english(part) for part in parts if part not in _STOP_WORDS]]
    if lowered in _STOP_WORDS:
        return []
    return [stem_english(lowered)]


class _Kiwi:
    """One Kiwi per process, loaded on first use (about 1.5 s)."""

    _instance = None
    _lock = threading.Lock()

    @classmethod
    def get(cls):
        with cls._lock:
            if cls._instance is None:
                from kiwipiepy import Kiwi

                cls._instance = Kiwi(num_workers=-1)
            return cls._instance


def tokens(text: str) -> list:
    """Kiwi's morphemes of ``text`` (``form``, ``tag``): for callers that read parts of speech themselves."""
    return _Kiwi.get().tokenize(text)


# A line of Korean text broken inside a word ("가리키" / "는데"): Korean typesetting breaks a line at any
# syllable. Where both sides of a break are Hangul, Kiwi's spacing model decides whether a space belongs there,
# reading the word before and the word after too: alone, "후" + "장치" reads as one word "후장치"; in "해제한 후
# 장치 독립" it is two (a text file wrapped at its spaces).
_BROKEN_HANGUL = re.compile(r"(\S+\s+)?(\S*[\uac00-\ud7a3])$")
_CONTINUED_HANGUL = re.compile(r"^([\uac00-\ud7a3]\S*)(\s+\S+)?")


def join_lines(lines: list[str]) -> str:
    """The lines of one paragraph as one text: a space between lines, none where a Korean word was broken
    over two lines ("가리키" + "는데" → "가리키는데", "사" + "용하므로" → "사용하므로"), as Kiwi's spacing reads it."""
    if len(lines) < 2:
        return " ".join(lines)
    glued = _broken_words(lines)
    pieces = [lines[0]]
    for index in range(1, len(lines)):
        pieces.append(lines[index] if index - 1 in glued else " " + lines[index])
    return "".join(pieces)


def with_broken_words_joined(text: str) -> str:
    """``text`` with its line breaks, except those inside a Korean word ("특" / "허를" → "특허를"): a page
    read on a phone, whose screen breaks the lines again elsewhere."""
    lines = text.split("\n")
    if len(lines) < 2 or not _HAS_CJK.search(text):
        return text
    glued = _broken_words(lines)
    return "".join(line + ("" if index in glued else "\n") for index, line in enumerate(lines[:-1])) + lines[-1]


def _broken_words(lines: list[str]) -> set[int]:
    """The indexes of the lines whose break falls inside a Korean word, as Kiwi's spacing reads it."""
    breaks = []  # (line index, the text around the break joined, its letters before the break)
    for index in range(len(lines) - 1):
        before, after = _BROKEN_HANGUL.search(lines[index]), _CONTINUED_HANGUL.search(lines[index + 1])
        if before and after:
            left = (before.group(1) or "") + before.group(2)
            breaks.append((index, left + after.group(1) + (after.group(2) or ""), len(re.sub(r"\s", "", left))))
    glued = set()
    if breaks:
        spaced = _Kiwi.get().space([text for _, text, _ in breaks], reset_whitespace=False)
        for (index, _, letters), text in zip(breaks, spaced, strict=True):
            if not _space_after(text, letters):
                glued.add(index)
    return glued


def _space_after(text: str, letters: int) -> bool:
    """Whether ``text`` has a space right after its first ``letters`` non-space characters."""
    seen = 0
    for position, char in enumerate(text):
        if not char.isspace():
            seen += 1
            if seen == letters:
                return text[position + 1 : position + 2].isspace()
    return False


# Particles a Korean word may end with, longest first: stripping them gives the noun even where
# Kiwi's model fails on an unknown loanword ("인터럽트는" → "인터럽트").
_PARTICLES = sorted(
    "에게서 으로서 으로써 이라고 에서는 에서도 에게는 으로는 까지 부터 에서 에게 한테 으로 처럼 보다 이나 이랑 라고 은 는 이 가 을 를 의 에 와 과 도 로 만 께 나 랑".split(),
    key=len,
    reverse=True,
)
_HANGUL_WORD = re.compile(r"[\uac00-\ud7a3]{2,}")


def _word_stems(text: str) -> list[str]:
    stems = []
    for word in _HANGUL_WORD.findall(text):
        for particle in _PARTICLES:
            if word.endswith(particle) and len(word) - len(particle) >= 2:
                stems.append(word[: -len(particle)])
                break
    return stems


def is_stop_word(word: str) -> bool:
    """Whether ``word`` (lower case) is an English function word ("the", "of", "does")."""
    return word in _STOP_WORDS


def without_particle_forms(terms: list[str]) -> list[str]:
    """``terms`` without a word that is another of them plus a particle: Kiwi reads an unknown loanword
    with its particle as one noun ("인터럽트가" beside the stem "인터럽트"), a second term no page spells."""
    kept = set(terms)
    return [
        term
        for term in terms
        if not any(term.endswith(particle) and term[: -len(particle)] in kept for particle in _PARTICLES if len(term) > len(particle))
    ]


def _cjk_terms(text: str) -> list[str]:
    terms: list[str] = _word_stems(text)
    for token in _Kiwi.get().tokenize(text):
        if token.tag in _KEEP_TAGS or token.tag.startswith("NN") and token.tag != "NNB":
            form = token.form.casefold()
            if token.tag == "SL":
                terms.extend(_latin_terms(form))
            elif (len(form) > 1 or token.tag.startswith("N")) and not form.isspace():
                terms.append(form)  # one-syllable verb stems ("하", "되", mis-split "트") carry no meaning
    if HANGUL_BIGRAMS:
        # Character bigrams of every Hangul word match compounds split differently in query and
        # text ("인터럽트핸들러" / "인터럽트 핸들러") and loanwords the model does not know.
        terms += ["~" + word[i : i + 2] for word in _HANGUL_WORD.findall(text) for i in range(len(word) - 1)]
    return terms


# English verbs a question asks with: never what it is about ("What is a register used for?").
_QUESTION_VERBS = frozenset(
    "use used uses using do does did make made work works happen happens mean means call called get gets need needs".split()
)


# Words that frame a question rather than name what it is about ("How does a stack work?", "스택은 어떻게
# 동작해?", "인터럽트의 종류는?"): a page that answers seldom repeats them ("The stack is a LIFO list …").
QUESTION_FRAME_WORDS = frozenset(
    "work works working happen happens mean means meaning kind kinds type types way ways example examples purpose role "
    "difference differences advantage advantages disadvantage disadvantages "
    "동작 작동 의미 뜻 역할 방법 이유 종류 예 예시 예제 설명 차이 차이점 원리 과정 특징 장점 단점 용도 목적 개념 정의".split()
)


@lru_cache(maxsize=8192)
def is_noun(word: str) -> bool:
    """Whether Kiwi reads ``word`` as a noun alone: a common or proper noun, with noun suffixes at most ("예외",
    "파일들"); not a verb's stem ("발생하"), a particle ("에서") or a noun with a particle ("것이")."""
    tokens = _Kiwi.get().tokenize(unicodedata.normalize("NFC", word))
    return bool(tokens) and tokens[0].tag in ("NNG", "NNP") and all(token.tag in ("NNG", "NNP", "XSN") for token in tokens[1:])


@lru_cache(maxsize=4096)
def starts_with_a_verb(word: str) -> bool:
    """Whether Kiwi reads ``word`` as a verb or an adjective ("알려줘", "되는"), not a noun ("인터럽트", which it
    splits after a noun)."""
    tokens = _Kiwi.get().tokenize(unicodedata.normalize("NFC", word))
    return bool(tokens) and tokens[0].tag.startswith("V")


def may_name_a_topic(term: str, question: str) -> bool:
    """Whether ``term`` of ``question`` can be what the question is about: a noun (Korean, by Kiwi's
    tags) or an English word that is not a verb form ("used", "working")."""
    if _HAS_CJK.search(term):
        nouns = {
            token.form.casefold()
            for token in _Kiwi.get().tokenize(unicodedata.normalize("NFC", question))
            if token.tag.startswith(("NN", "XR", "SL", "SH"))
        }
        return term in nouns
    return term not in _QUESTION_VERBS and not term.endswith(("ed", "ing"))


def function_word_share(text: str) -> tuple[int, float]:
    """(words, share of them that are English function words: "the", "of", "is", …) of ``text``."""
    words = re.findall(r"[A-Za-z]+", text)
    return len(words), sum(word.casefold() in _STOP_WORDS for word in words) / max(1, len(words))


# A word written as a name in an English question: capitalised, with lower-case letters ("Rust", "NumPy").
# Acronyms and codes are left out: questions define their own ("DPO is defined as …", "PPNE").
_NUMBER = re.compile(r"[0-9][0-9.,]*")
_NAME_TOKEN = re.compile(r"[A-Z][A-Za-z]*[a-z][A-Za-z]*(?:['’]s)?")


def named_terms(question: str) -> list[str]:
    """The index terms of the names a question mentions, written as names: capitalised English words after
    the first word ("in Rust", "the Java virtual machine"), also in a Korean question ("NumPy 배열"). A
    library that never mentions one does not cover the question, however well its other words match."""
    question = unicodedata.normalize("NFC", question)
    if _HAS_CJK.search(question):
        # Kiwi's proper nouns are left out: it tags "한국" and "스택" so, and a text writes "대한민국".
        tokens = [token for token in _LATIN_TOKEN.findall(question) if _NAME_TOKEN.fullmatch(token)]
    else:
        words = _LATIN_TOKEN.findall(question)
        tokens = [word for index, word in enumerate(words) if index and _NAME_TOKEN.fullmatch(word)]
    terms = (term for token in tokens for term in content_terms(token)[:1])
    return list(dict.fromkeys(term for term in terms if not _NUMBER.fullmatch(term)))  # numbers are matched as numbers


def named_phrases(question: str) -> list[tuple[str, ...]]:
    """The names of ``named_terms`` as the question writes them, a run of capitalised words side by side as one
    name ("What does the Server Side Public License require?": ("Server", "Side", "Public", "License"))."""
    question = unicodedata.normalize("NFC", question)
    korean = bool(_HAS_CJK.search(question))
    phrases: list[list[str]] = []
    end = -1
    for index, match in enumerate(_LATIN_TOKEN.finditer(question)):
        if not (korean or index) or not _NAME_TOKEN.fullmatch(match.group(0)):
            end = -1
            continue
        if end >= 0 and not question[end : match.start()].strip():
            phrases[-1].append(match.group(0))
        else:
            phrases.append([match.group(0)])
        end = match.end()
    return list(dict.fromkeys(tuple(phrase) for phrase in phrases))


# A command-line option ("-k", "--keep", "--memlimit-decompress"), as a word of its own: a term as written, besides
# its name's ("k" is in every "Ctrl+K"; "-k" only where the option is), and a name written alike in every language.
OPTION = r"(?<![\w-])--?[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*(?![\w-])"
_OPTION = re.compile(OPTION)


def _latin_run(text: str, *, query: bool) -> list[str]:
    # An option's dashes by where its name begins, where a Latin token begins too.
    dashes = {}
    for match in _OPTION.finditer(text) if "-" in text else ():
        name = match.group(0).lstrip("-")
        dashes[match.end() - len(name)] = match.group(0)[: -len(name)]
    terms = []
    for match in _LATIN_TOKEN.finditer(text):
        if match.start() in dashes:
            terms.append(dashes[match.start()] + match.group(0).casefold())
        terms += _latin_terms(match.group(0), query=query)
    return terms


def word_prefix(word: str) -> str:
    """What every written form of ``word`` starts with: its letters shared with its index term ("queries",
    "query" → "quer"), so "Fibonacci heaps" is found for "Fibonacci heap"; the word itself when they share few."""
    term = (content_terms(word) or [word.casefold()])[0]
    shared = os.path.commonprefix([word.casefold(), term])
    return shared if len(shared) >= 3 else word.casefold()


def analyze(text: str, *, query: bool = False) -> list[str]:
    """Return the index terms of ``text``, in order (repeats kept, for term frequencies); with ``query``, the
    terms a search looks for (a name with its number only run together, "sha256")."""
    text = unicodedata.normalize("NFC", text)
    if not _HAS_CJK.search(text):
        return _latin_run(text, query=query)
    # Latin runs are analysed here (Kiwi splits identifiers oddly); the rest goes to Kiwi in one call.
    latin = _latin_run(text, query=query)
    masked = _LATIN_TOKEN.sub("A", text)  # a stop word that keeps "Python의" parsed as noun + particle
    return _cjk_terms(masked) + latin


@lru_cache(maxsize=8192)
def _content_terms(text: str) -> tuple[str, ...]:
    return tuple(term for term in analyze(text) if not term.startswith("~"))


def content_terms(text: str) -> list[str]:
    """Analysed terms without the character bigrams (those say little about meaning). Cached: one
    turn analyses the same passages and sentences for sufficiency, extraction and the ground check."""
    return list(_content_terms(text))


def title_terms(title: str) -> frozenset[str]:
    """The terms of a section's title, its number aside: "Lesson 2.1: 삭제(DELETION) 명령" → 삭제, deletion, 명령.
    Search matches them against the query, answers against the question."""
    return frozenset(_content_terms(HEADING_NUMBER.sub("", title)))


def term_frequencies(text: str) -> tuple[Counter[str], int]:
    """Return ``(term → frequency, total terms)`` for indexing one chunk."""
    terms = [term[:100] for term in analyze(text)]
    return Counter(terms), len(terms)
