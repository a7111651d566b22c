"""Text machinery shared by ingestion, retrieval and chat: normalisation, token estimates, sentences.

No Django imports: this module is tested and benchmarked on its own.
"""

from __future__ import annotations

import math
import re
import unicodedata

# --- Token estimation ------------------------------------------------------------------------

LATIN_CHARS_PER_TOKEN = 4.0
CJK_CHARS_PER_TOKEN = 1.5
OTHER_CHARS_PER_TOKEN = 3.0


def _is_cjk(code: int) -> bool:
    return (
        0xAC00 <= code <= 0xD7A3  # Hangul syllables
        or 0x1100 <= code <= 0x11FF  # Hangul jamo
        or 0x3130 <= code <= 0x318F  # Hangul compatibility jamo
        or 0x4E00 <= code <= 0x9FFF  # CJK unified ideographs
        or 0x3400 <= code <= 0x4DBF
        or 0x3040 <= code <= 0x30FF  # kana
        or 0xF900 <= code <= 0xFAFF
    )


def _is_emoji(code: int) -> bool:
    return 0x1F000 <= code <= 0x1FAFF or 0x2600 <= code <= 0x27BF


def estimate_tokens(text: str) -> int:
    """Estimate LLM tokens: Latin ~4 chars/token, Hangul/CJK ~1.5, emoji 1, anything else ~3."""
    latin = cjk = emoji = other = 0
    for char in text:
        code = ord(char)
        if code < 0x250:  # ASCII and Latin-1/Extended-A/B, whitespace included
            latin += 1
        elif _is_cjk(code):
            cjk += 1
        elif _is_emoji(code):
            emoji += 1
        else:
            other += 1
    total = latin / LATIN_CHARS_PER_TOKEN + cjk / CJK_CHARS_PER_TOKEN + emoji + other / OTHER_CHARS_PER_TOKEN
    return math.ceil(total) if text else 0


# --- Normalisation ---------------------------------------------------------------------------

# A line that opens an item of a list: a bullet ("• HTTP responses", "* fs read streams", "- item") or an item's
# number or letter ("1. <ESC> 키를 눌러서 …", "(2) …", "b) …", "①"). Chunking makes each item a paragraph of its
# own ("… d 횟수 대상 1." had been a lesson's sentence with the next step's number glued on); an answer quotes a
# list lead-in with its items.
LIST_ITEM = re.compile(r"^\s*(?:[-•*·▪●◦▸►‣∙+–]|\(?\d{1,2}[.)]|[a-z][.)]|[①-⑳])\s+\S")

# A heading's number and the word before it: "3.2 Loops", "제 4 장", "Chapter2 Variables" and a tutorial's
# "Lesson 1.2:" (the Vim tutor's blanks had asked for "Lesson"); never the start of a word ("Ivy").
HEADING_NUMBER = re.compile(
    r"^\s*(?:chapter|part|section|lesson|unit|module|step|week|제)?\s*[\dIVXivx]+(?:[.\-]\d+)*(?![A-Za-z])[.:]?\s*(?:장|절)?\s*",
    re.IGNORECASE,
)

# A word hyphenated over a line: "-" or U+2010, which a manual page sets ("kil‐" / "       lall"), its indent too.
_HYPHENATED_BREAK = re.compile(r"(?<=[a-z])[-\u2010][ \t]*\n[ \t]*(?=[a-z])")
# A hyphenation point, with the line break after it if any: U+00AD (soft hyphen), and U+FFFE / U+0002,
# which PDFium puts in place of a hyphen that ended a line (it drops that line break itself).
_SOFT_HYPHEN = re.compile(r"[\u00ad\u0002\ufffe][ \t]*\n?[ \t]*")
_INLINE_SPACE = re.compile(r"[ \t\u00a0\u2000-\u200b\u3000]+")
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ufffe\uffff]")
_MANY_NEWLINES = re.compile(r"\n{3,}")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}")
# Latin ligatures (U+FB00..FB06: ff fi fl ffi ffl, long-s t, st) spelled out, so "deﬁnes" matches "defines".
# NFKC only for this block: NFKC on everything would rewrite fullwidth forms and Hangul compatibility jamo.
_LIGATURES = {code: unicodedata.normalize("NFKC", chr(code)) for code in range(0xFB00, 0xFB07)}
# Private-use code points of the Adobe Glyph List that fonts without a proper ToUnicode map leave in text:
# small capitals (pcasm-book-korean.pdf writes "80x86" with a small-cap x, U+F778), old-style digits, and the
# Symbol font's sans ®©™. The Symbol font's bracket and brace pieces (big braces in formulas) mean nothing
# as text and are dropped, whole lines of them included.
_ADOBE_PRIVATE_USE = (
    {0xF761 + offset: chr(ord("a") + offset) for offset in range(26)}
    | {0xF730 + digit: str(digit) for digit in range(10)}
    | {0xF8E8: "®", 0xF8E9: "©", 0xF8EA: "™"}
)
_SYMBOL_PIECES = re.compile(r"^[\uf8e5-\uf8e7\uf8eb-\uf8fe]+\n|[\uf8e5-\uf8e7\uf8eb-\uf8fe]", re.MULTILINE)


def normalize_text(text: str, *, indented: frozenset[str] | set[str] = frozenset()) -> str:
    """Return extracted text in one canonical form, so search, chunking and citations see the same words.

    NFC; line breaks as ``\\n`` (PDFium writes ``\\r\\n``); Latin ligatures and Adobe private-use letters
    spelled out, formula brace pieces dropped; words broken over a line by a hyphen joined (a soft or PDFium
    hyphenation mark always, a plain ``-`` between lowercase letters); control characters removed; TOC dot
    leaders collapsed; spaces tidied. Pure: no state, no I/O. A line of ``indented`` (lines of code, spaces
    collapsed) keeps its indentation, for a page viewer that shows code as it is laid out.
    """
    text = unicodedata.normalize("NFC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = _SYMBOL_PIECES.sub("", text.translate(_LIGATURES).translate(_ADOBE_PRIVATE_USE))
    text = _SOFT_HYPHEN.sub("", text)
    text = _CONTROL.sub("", text)
    text = _HYPHENATED_BREAK.sub("", text)
    text = _DOT_LEADER.sub(" … ", text)
    lines = []
    for line in text.split("\n"):
        tidied = _INLINE_SPACE.sub(" ", line).strip()
        if indented and tidied and tidied in indented:
            expanded = line.expandtabs(4)
            tidied = " " * (len(expanded) - len(expanded.lstrip())) + tidied
        lines.append(tidied)
    return _MANY_NEWLINES.sub("\n\n", "\n".join(lines)).strip()


# --- Run-together words ----------------------------------------------------------------------

# A PDF reader that misses word gaps glues words: Korean into long syllable runs, English into long "words".
# Measured on pcasm-book-korean.pdf: pypdf 45% of Hangul in such runs, PDFium 0.1%; on thinkpython2.pdf
# pypdf 313 Latin "words" of 20+ letters, PDFium 0.
LONG_HANGUL_RUN = 10  # syllables: real Korean words with particles are rarely this long without a space
LONG_LATIN_WORD = 20  # letters: longer English words are rare outside glued text
_HANGUL_RUN = re.compile(r"[\uac00-\ud7a3]+")
_LATIN_WORD = re.compile(rf"[A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f]{{{LONG_LATIN_WORD},}}")


def run_together_stats(text: str) -> dict:
    """Measure how much of ``text`` lost its word spacing, to compare PDF readers on real books.

    ``hangul_share_in_long_runs``: share (0..1) of Hangul syllables in runs of ``LONG_HANGUL_RUN`` or more
    syllables with nothing between them (0.0 without Hangul). ``long_latin_words``: how many Latin-letter
    words have ``LONG_LATIN_WORD`` or more letters.
    """
    runs = [len(run) for run in _HANGUL_RUN.findall(text)]
    hangul = sum(runs)
    in_long_runs = sum(length for length in runs if length >= LONG_HANGUL_RUN)
    return {
        "hangul_share_in_long_runs": in_long_runs / hangul if hangul else 0.0,
        "long_latin_words": len(_LATIN_WORD.findall(text)),
    }


_QUERY_PUNCTUATION = re.compile(r"[^\w\s\-./#+]", re.UNICODE)


def normalize_query(query: str) -> str:
    """Normalise a search query: NFC, case-folded, punctuation that carries no meaning removed."""
    query = unicodedata.normalize("NFC", query).casefold()
    query = _QUERY_PUNCTUATION.sub(" ", query)
    return _INLINE_SPACE.sub(" ", query).strip()


# --- Sentences -------------------------------------------------------------------------------

# A sentence ends at . ! ? (or their CJK forms) followed by space, or -- for Korean text extracted
# without spaces ("것이다.이는") -- at a Hangul syllable followed by a terminal mark and more Hangul, or
# at a footnote marker PDFium glued after the full stop ("the opposite transformation.5 For a big …").
_SENTENCE_END = re.compile(
    r"(?<=[.!?。！？])(?P<close>[\"'”’)\]]*)\s+(?=\S)"
    r"|(?<=[a-z]{2}[.!?]\d)\s+(?=[A-Z])|(?<=[a-z]{2}[.!?]\d\d)\s+(?=[A-Z])"
    r"|(?<=[가-힣][.!?])(?=[가-힣A-Z])"
    r"|\n{2,}"
)
_ABBREVIATION = re.compile(r"(?:\b(?:e\.g|i\.e|etc|vs|Mr|Mrs|Dr|Prof|Fig|No|cf|al)|\b[A-Z])\.$")
# An ellipsis before a lower-case word, a number or an option ends no sentence: it elides a range or a list
# ("-0 ... -9 압축 사전 설정 수준을 선택합니다.", "a, b, ... z").
_ELLIPSIS = re.compile(r"\.\.\.$")
_ELIDED = re.compile(r"[-−–+a-z0-9(\[]")
# Inside a Korean sentence, a "?" or "!" before a Korean word that is a token of its own ("match 보다 ? 연산자를 쓰는
# 것이 더 쉽습니다", Rust's error operator) or ends a name ("try! 매크로로 구현했습니다", a macro) ends no sentence. (A
# table's "?" cells, "R M C ? ? ? C", still end one: its text is not a sentence to quote whole.)
_LONE_MARK = re.compile(r"(?:^|\s)[?!]$")
_NAME_MARK = re.compile(r"[A-Za-z_]\w*!$")
_HANGUL_NEXT = re.compile(r"[가-힣]")
# A note of a word or two in brackets, no sentence of its own ("(v0.17.1부터 지원)"; "(이는 컴파일러가 하는 일과
# 비슷하다)" is one). After a sentence's full stop, at the end of its line, it is that sentence's: walkthrough 22's
# Kiwipiepy list ("… 오타 정의자입니다. (v0.17.1부터 지원)" / "kiwipiepy.lengthening_typos …") had each item's version
# opening the next item, so an answer told the wrong version. Not after a question mark: there it labels an example
# (the KorQuAD paper's "… 몇 위야? (Short, 평문)").
SHORT_NOTE = r"\([^()\s]{1,24}(?:[ \t][^()\s]{1,16})?(?<![.다])\)"
_TRAILING_NOTE = re.compile(rf"{SHORT_NOTE}(?=[ \t]*(?:\r?\n|$))")


def split_sentences(text: str) -> list[str]:
    """Split text into sentences, keeping each sentence's own characters unchanged."""
    pieces: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() < start:
            continue  # inside a note taken into the sentence before
        # Closing quotes and brackets after the full stop belong to the sentence ("… zeros!)"): a quote
        # that lost them is no longer found verbatim on its page.
        candidate = text[start : match.start() + len(match.group("close") or "")]
        if _ABBREVIATION.search(candidate.rstrip("\"'”’)]")):
            continue
        if _ELLIPSIS.search(candidate) and _ELIDED.match(text, match.end()):
            continue
        if (
            (_LONE_MARK.search(candidate) or _NAME_MARK.search(candidate))
            and _HANGUL_NEXT.match(text, match.end())
            and (is_hangul_heavy(candidate) or candidate.strip() in ("?", "!"))
        ):
            continue
        note = _TRAILING_NOTE.match(text, match.end()) if candidate.rstrip("\"'”’)]").endswith((".", "。")) else None
        if note:  # "… 오타 정의자입니다. (v0.17.1부터 지원)" ends its line: the note is that sentence's, not the next's
            candidate = text[start : note.end()]
        if candidate.strip():
            pieces.append(candidate.strip())
        start = note.end() if note else match.end()
    tail = text[start:].strip()
    if tail:
        pieces.append(tail)
    return pieces


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Return (start, end) offsets of each sentence of ``text``, for quoting and highlighting."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for sentence in split_sentences(text):
        position = text.find(sentence, cursor)
        if position < 0:
            continue
        spans.append((position, position + len(sentence)))
        cursor = position + len(sentence)
    return spans


def is_hangul_heavy(text: str) -> bool:
    """Tell whether most letters of ``text`` are Hangul (used to pick the Korean analyser/messages)."""
    hangul = sum(1 for char in text if 0xAC00 <= ord(char) <= 0xD7A3 or 0x3131 <= ord(char) <= 0x318E)  # syllables, and jamo ("ㅇㅋ")
    letters = sum(1 for char in text if char.isalpha())
    return letters > 0 and hangul / letters >= 0.3


def written_in_korean(texts: list[str]) -> bool | None:
    """Whether most of ``texts`` (a material's chunks) are Hangul-heavy; None when there are none."""
    return sum(map(is_hangul_heavy, texts)) * 2 > len(texts) if texts else None


def korean_particle(word: str, after_consonant: str, after_vowel: str) -> str:
    """The form of a Korean particle that follows ``word``: "시험" + 은, "금요일" + 이라고, "날짜" + 는.
    After a word that does not end in Hangul both are written, as Korean does ("은(는)", "(이)라고"). Closing
    quotes and brackets are read through: "‘파생작’" + 이란, as it is said."""
    last = word.rstrip().rstrip("'\"’”」』)]）")[-1:]
    if not ("가" <= last <= "힣"):
        if after_vowel and after_consonant.endswith(after_vowel):
            return f"({after_consonant[: -len(after_vowel)]}){after_vowel}"
        return f"{after_consonant}({after_vowel})"
    return after_consonant if (ord(last) - ord("가")) % 28 else after_vowel
