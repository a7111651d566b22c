"""Which passage sentences can stand in an answer as prose: never a heading, a title line, a code line, a
contact or reference entry, a fragment cut off by the chunk overlap, a table read as a sentence, or a
list lead-in without its list; and where a book's numbered sections begin.
"""

from __future__ import annotations

import re

from baeum import rules
from baeum.extraction.lines import looks_like_code
from baeum.language.analysis import (
    content_terms,
    function_word_share,
)
from baeum.language.text import is_hangul_heavy

# Read across languages, a sentence is chosen by meaning alone, so it must at least end as a sentence does:
# instruction-table rows ("LODSB Load Byte LODSW Load Word …") and chunk-cut lines score as high as prose.
ENDS_LIKE_A_SENTENCE = re.compile(r"[.!?:。][\"'”’)\]]*\s*$")


# A numbered section heading on a line of its own: "3.2.3 The XOR operation", "7.2.4 Classes", "3.1.2 쉬프트의 이용".
_SECTION_HEADING = re.compile(r"^[ \t]*(?P<number>\d+(?:\.\d+)+)\.?[ \t]+(?P<title>\S[^\n]{0,80})$", re.MULTILINE)


_RUNNING_HEAD = re.compile(r"^[^a-z가-힣]*[A-Z][^a-z가-힣]*\s\d+\s*$")  # a page's running head: "3.2. BOOLEAN BITWISE OPERATIONS 51"


def numbered_headings(text: str) -> list[re.Match]:
    """The numbered section headings of ``text``, in order: each match's ``number`` ("3.1.3") and ``title``
    ("Arithmetic shifts"); a page's running head is none."""
    return [match for match in _SECTION_HEADING.finditer(text) if is_heading(match.group(0)) and not _RUNNING_HEAD.search(match.group(0))]


def section_headings(text: str) -> list[tuple[int, frozenset]]:
    """Where each numbered section heading of ``text`` starts, with its terms."""
    return [(match.start(), frozenset(content_terms(match.group(0)))) for match in numbered_headings(text)]


# Sentences shorter than this are stray marks and numbers ("3.", "p. 12").
MIN_SENTENCE_CHARS = 12


# Fewer words than this is a fragment, not an explanation ("longer.", "two hopeful things.").
MIN_WORDS = 5


# Korean words (eojeol) carry their particles and endings, so three already make a clause ("인출은 과정이다.").
MIN_WORDS_HANGUL = 3


# A line this short that does not end like a sentence is a title ("1.2 Why We Forget: The Forgetting Curve").
HEADING_MAX_WORDS = 12


# Code has many operators and brackets; prose (even with a formula or a citation mark) has few.
CODE_SYMBOLS = frozenset("{}[]<>=;|&\\^~$@#+`")


CODE_SYMBOL_SHARE = 0.08


CODE_MIN_SYMBOLS = 3


# English prose is a fifth to a third function words ("the", "of", "into"); a run of table cells or register
# names is not ("reg/mem8 AX = AL*source1 reg/mem16 DX:AX = AX*source1 …"). Checked from this many words.
PROSE_MIN_FUNCTION_WORDS = 0.08


PROSE_CHECK_WORDS = 12


# Ends like a sentence: punctuation (then closing quotes, or a note such as "[citation needed]"), or a
# Korean declarative ending written without a full stop ("… 번역되어 있다").
TERMINAL_PUNCTUATION = re.compile(r"(?:[.!?。！？…:;]['\"”’)\]]*|[가-힣]다)(?:\s*\[[^\]]{1,40}\])?$")


_CODE_LINE = re.compile(
    # A numbered listing line ("10 return ret status ;", "9 data = i ;", "27 else 28 printf (…);"), a C control line.
    r"^\s*\d{1,3}\s+\S.*;\s*$|^\s*\d{1,3}\s+(?:else|if|for|while|return|printf)\b|^\s*\d{1,3}\s+[A-Za-z_]\w*\s*(?:=|\[)"
    r"|^\s*(?:if|while|for|switch)\s*\(.*\)\s*\S*;\s*$"
    r"|^\s*(?:>>>|\.\.\.\s|\$\s|#include\b|(?:def|class|import|return|public|private|static|void|int)\s+\w+[\s(:;=]|//|/\*)"
    r"|^\s*(?:\w+:\s*)?(?i:mov|movzx|movsx|lea|push|pop|call|ret|jmp|j[a-z]{1,3}|add|sub|cmp|test|inc|dec|and|or|xor|not|shl|shr"
    r"|mul|imul|div|idiv|int|loop|enter|leave)\s+[\w\[\]+*]+(?:\s*,\s*[\w\[\]+*'-]+)?\s*(?:;.*)?$"
)


# A figure's or table's caption ("Figure 3.4: How to Determine Endianness", "그림 4.12: printf 내부의 스택
# 모습"): in a "sentence" it means the figure's labels were read along with it.
_CAPTION_LABEL = re.compile(r"(?:\bFigure|\bFig\.|\bTable|그림|표)\s*\d+(?:\.\d+)*\s*:")


# Announces what follows ("… include the following:", "… 다음과 같다."): it needs what it announces.
LIST_LEAD_IN = re.compile(
    r":\s*$|(?:as follows|the following|below)[.:]?\s*$|^(?:here|below) (?:is|are)\b"
    r"|다음과\s*같(?:다|습니다|이\s*\S+다)\.?\s*$|아래와\s*같|^(?:아래|다음)(?:는|은)\s",  # "아래는 예제 코드 이다." points at what follows
    re.IGNORECASE,
)


# "... found by the following two steps: 1." — the sentence splitter cut the first item's number off.
_DANGLING_LEAD_IN = re.compile(r":\s+\(?(?:\d{1,2}|[a-z])[.)]\s*$")


def word_count(sentence: str) -> int:
    return len(sentence.split())


def is_heading(sentence: str) -> bool:
    """A title line: short and not ending like a sentence ("Spaced Repetition", "4.4 The CALL and RET Instructions")."""
    return word_count(sentence) <= HEADING_MAX_WORDS and not TERMINAL_PUNCTUATION.search(sentence.strip())


def is_code(sentence: str) -> bool:
    """A line of code or assembly ("mov eax, 1", ">>> print(x)", "x = y[i] + 1;"), or a piece of a listing
    that the sentence splitter took for prose: numbered lines, comment marks, operators ("44 ; 만일 target 을
    찾았다면", "if ( p[0] == 0x12 ) printf (…);")."""
    if _CODE_LINE.search(sentence) or looks_like_code(sentence, listing_numbers=False):
        return True
    if is_hangul_heavy(sentence):
        return False  # code is ASCII; Korean prose uses <…> and + in titles ("<소설, 영화와 만나다>")
    characters = [character for character in sentence if not character.isspace()]
    symbols = sum(character in CODE_SYMBOLS for character in characters)
    return symbols >= CODE_MIN_SYMBOLS and symbols / max(1, len(characters)) > CODE_SYMBOL_SHARE


# A Korean table read as one sentence: among its words, this share or more are capital codes and flag
# letters ("… 플래그 이름 설명 형식 O S Z A P C JNA 초과 아니면 분기 I JNAE …", an instruction table).
TABLE_CODE_SHARE = 0.3


# ...and at least this many words: a sentence that lists registers is prose ("먼저, C 는 서브루틴이 다음의
# 레지스터의 값을 보관하다고 생각한다: EBX, ESI, EDI, EBP, CS, DS, SS, ES.", 18 words).
TABLE_MIN_WORDS_KOREAN = 30


_CAPITAL_CODE = re.compile(r"^[A-Z][A-Z0-9,]*$")


def is_table_run(sentence: str) -> bool:
    """Table cells or a list of names read as one sentence: many English words, almost no function words;
    in Korean, many words and a large share of them capital codes."""
    if is_hangul_heavy(sentence):
        tokens = sentence.split()
        codes = sum(bool(_CAPITAL_CODE.match(token)) for token in tokens)
        return len(tokens) >= TABLE_MIN_WORDS_KOREAN and codes >= TABLE_CODE_SHARE * len(tokens)
    words, share = function_word_share(sentence)
    return words >= PROSE_CHECK_WORDS and share < PROSE_MIN_FUNCTION_WORDS


# A list cut short before its full stop: "예를 들어서 각각의 비트를 a, b, c, ." (the rest was a figure).
_CUT_LIST = re.compile(r",\s*\.\s*$")


def _opens_inside_parentheses(sentence: str) -> bool:
    """Whether the sentence starts inside a parenthesis whose opening is elsewhere ("4 에서 다룰 것이다) 스택은
    …": a chunk or a footnote cut it); a list marker ("1) 첫째", "a) the first") is not."""
    closing = sentence.find(")")
    opening = sentence.find("(")
    return closing != -1 and (opening == -1 or closing < opening) and len(sentence[:closing].split()) >= 2


def is_fragment(sentence: str) -> bool:
    """Too few words to explain anything on its own, a list cut off before its end, or the tail of a
    parenthesis cut from its start."""
    minimum = MIN_WORDS_HANGUL if is_hangul_heavy(sentence) else MIN_WORDS
    return (
        len(sentence) < MIN_SENTENCE_CHARS
        or word_count(sentence) < minimum
        or bool(_CUT_LIST.search(sentence))
        or _opens_inside_parentheses(sentence)
    )


# What a passage sentence must not be to stand in an answer as prose, in the order they are asked.
UNQUOTABLE = rules.register(
    rules.Rule("sentence:fragment", is_fragment, "longer.", "too few words, a list cut short, a parenthesis' tail"),
    rules.Rule("sentence:heading", is_heading, "4.4 The CALL and RET Instructions", "a title line"),
    rules.Rule("sentence:code", is_code, "if ( p[0] == 0x12 ) printf ( found );", "a line of code or a piece of a listing"),
    rules.Rule(
        "sentence:table-run",
        is_table_run,
        "reg/mem8 AX = AL*source1 reg/mem16 DX:AX = AX*source1 reg/mem32 EDX:EAX = EAX*source1 imm8 imm16.",
        "table cells read as one sentence",
    ),
    rules.Rule(
        "sentence:dangling-lead-in", _DANGLING_LEAD_IN.search, "The sum is found by the following two steps: 1.", "an item's number cut off"
    ),
    rules.Rule(
        "sentence:caption", _CAPTION_LABEL.search, "Figure 3.4: How to Determine Endianness and what it means.", "a figure's labels"
    ),
)
CUT_BY_OVERLAP = rules.register(
    rules.Rule(
        "sentence:cut-by-overlap",
        lambda sentence: sentence[:1].islower(),
        "who practised recall usually remember more.",
        "a passage's first sentence, cut mid-sentence by the chunk overlap",
    )
)[0]


def why_unquotable(sentence: str, *, opens_passage: bool = False) -> str:
    """The name of the first rule that keeps ``sentence`` out of an answer, or "" when it can stand as prose.

    ``opens_passage``: the passage's first sentence, which a chunk overlap may have cut mid-sentence
    ("who practised recall usually remember more.").
    """
    for rule in UNQUOTABLE:
        if rules.applies(rule, sentence):
            return rule.name
    return CUT_BY_OVERLAP.name if opens_passage and rules.applies(CUT_BY_OVERLAP, sentence) else ""


def is_readable_sentence(sentence: str, *, opens_passage: bool = False) -> bool:
    """Whether a passage sentence can stand in an answer as prose (``why_unquotable`` says why not)."""
    return not why_unquotable(sentence, opens_passage=opens_passage)


PROSE_WORD = re.compile(r"[A-Za-z]{3,}|[가-힣]{2,}")
