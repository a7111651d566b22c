"""What a question's form asks for: what X is ("What is spaced repetition?", "간격 반복이란 무엇인가?"),
the difference between A and B, a name ("What is a 4-bit number called?"); and whether a sentence defines X.
"""

from __future__ import annotations

import re

from baeum.language import lexicon
from baeum.language.text import is_hangul_heavy

_DEFINITION_QUESTION_EN = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:an?\s+|the\s+)?(?P<what>.+?)"
    r"|what\s+does\s+(?:an?\s+|the\s+)?(?P<mean>.+?)\s+mean|define\s+(?:an?\s+|the\s+)?(?P<define>.+?)"
    r"|what\s+does\s+(?:an?\s+|the\s+)?(?P<do>.+?)(?:\s+(?:option|method|function|command|flag|event|property))?\s+do)\s*[?.!]*\s*$",
    re.IGNORECASE,
)


_DEFINITION_QUESTION_KO = re.compile(
    r"^\s*(?P<what>.+?)\s*(?:이란|란|이라는\s*것은|라는\s*것은|은|는|이|가)\s*"
    r"(?:무엇|뭐|뭔)(?:인가요|인가|입니까|이에요|이야|예요|야|인지|지|가요)?\s*[?.!]*\s*$"
)


# How many words a defined term may have ("the spacing effect", "복습 간격 일정"): longer is a real question.
DEFINED_TERM_MAX_WORDS = 5


ANAPHORIC_OPENING = re.compile(
    rf"^(?:{lexicon.alternation(lexicon.POINTING_OPENING_EN)})\b|^(?:{lexicon.alternation(lexicon.POINTING_KO)})(?:\s|것|는|들|러한|런|와|에)"
)


LEADING_MARKUP = re.compile(r"^[\s*_\"“'‘(]+")


ENGLISH_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)


# After the term: "X is a/the …", "X are …", "X refers to …", "**X** — …" (not "X is hard", "X does …").
_DEFINES_EN = re.compile(
    r"^[*_]{0,2}\s*(?:(?:is|was)\s+(?:a|an|the|one|any)\b|(?:are|were)\s+(?!not\b)\w|refers\s+to\b|means\b|[—–:-]\s)", re.IGNORECASE
)


# After the term a topic or subject particle (or a glossary dash), and a copula or "말한다" at the end:
# "X는 …하는 과정이다." defines; "X는 두 가지 원리를 결합한다." says something else about X.
_DEFINES_KO = re.compile(r"^[*_]{0,2}\s*(?:이란|란|은|는|이|가|[—–:-])\s")


_DEFINITION_END_KO = re.compile(r"(?:이다|입니다|이에요|(?:을|를)\s*(?:말한다|뜻한다|가리킨다|의미한다)|(?:이)?라고\s*(?:한다|부른다))\.$")


def defined_term(question: str) -> str:
    """Return X when the question asks what X is ("What is spaced repetition?", "간격 반복이란 무엇인가?"), else ""."""
    match = _DEFINITION_QUESTION_KO.match(question) if is_hangul_heavy(question) else _DEFINITION_QUESTION_EN.match(question)
    if not match:
        return ""
    term = next(value for value in match.groupdict().values() if value)
    term = _WHERE_KO.sub("", ENGLISH_ARTICLE.sub("", term.strip()))  # "어셈블리어에서 스택" asks what a stack is
    term = _BOTH_PARTICLES.sub("", term)  # "xz(이)란": the particle both ways, as the app's own starter asks of a Latin name
    return term if len(term.split()) <= DEFINED_TERM_MAX_WORDS else ""


_BOTH_PARTICLES = re.compile(r"\((?:이|가|은|는|을|를)\)$")


_WHERE_KO = re.compile(r"^\S+에서\s+(?=\S)")


def without_place(question: str) -> str:
    """A "what is X" question without the place it names ("어셈블리어에서 스택이란 무엇인가요?" → "스택이란
    무엇인가요?"): the word for a whole book's subject draws its every page; "" when it names none."""
    question = question.strip()
    if not is_hangul_heavy(question) or not _DEFINITION_QUESTION_KO.match(question):
        return ""
    stripped = _WHERE_KO.sub("", question)
    return stripped if stripped != question else ""


# "What is the difference between A and B?", "A와 B의 차이는?", "A vs B": each side is defined by the text.
_COMPARED_EN = (
    re.compile(
        r"(?:difference|differences|distinguish(?:es)?)\s+between\s+(?:an?\s+|the\s+)?(?P<a>.+?)\s+and\s+(?:an?\s+|the\s+)?(?P<b>.+?)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
    re.compile(
        r"^\s*(?:compare\s+)?(?:an?\s+|the\s+)?(?P<a>[\w -]+?)\s+(?:vs\.?|versus)\s+(?:an?\s+|the\s+)?(?P<b>[\w -]+?)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
    # "How does SAR differ from SHR?", "How is a tuple different from a list?"
    re.compile(
        r"^\s*how\s+(?:does|do|is|are)\s+(?:an?\s+|the\s+)?(?P<a>[\w -]+?)\s+(?:differ|different)\s+from\s+(?:an?\s+|the\s+)?(?P<b>[\w -]+?)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
)


_COMPARED_KO = (
    re.compile(
        r"^\s*(?P<a>.+?)\s*(?:와|과|랑|이랑|하고|vs\.?)\s+(?P<b>.+?)\s*(?:의|은|는)?\s*(?:차이|비교|다른\s*점|(?:어떻게|뭐가|무엇이)\s*(?:다른|달라|다르))"
    ),
    # "SAR 명령은 SHR 과 어떻게 다른가요?"
    re.compile(r"^\s*(?P<a>.+?)\s*(?:은|는)\s+(?P<b>.+?)\s*(?:와|과|랑|이랑|하고)\s+(?:어떻게|뭐가|무엇이)\s*(?:다른|달라|다르)"),
)


def compared_terms(question: str) -> tuple[str, ...]:
    """The two things a comparison question compares ("big endian", "little endian"), else ()."""
    patterns = _COMPARED_KO if is_hangul_heavy(question) else _COMPARED_EN
    match = next((found for found in (pattern.search(question) for pattern in patterns) if found), None)
    if not match:
        return ()
    first, second = (ENGLISH_ARTICLE.sub("", match.group("a").strip()), ENGLISH_ARTICLE.sub("", match.group("b").strip()))
    if len(first.split()) == 1 and len(second.split()) > 1 and not is_hangul_heavy(question):
        # "external and internal interrupts", "big and little endian": the first side shares the second's noun.
        first = " ".join([first, *second.split()[1:]])
    sides = (first, second)
    return sides if all(0 < len(side.split()) <= DEFINED_TERM_MAX_WORDS for side in sides) else ()


def defined_terms(question: str) -> tuple[str, ...]:
    """What the answer should define first: X for "what is X", both sides of "the difference between A and B"."""
    term = defined_term(question)
    return (term,) if term else compared_terms(question)


def is_definition(sentence: str, term: str) -> bool:
    """Tell whether ``sentence`` defines ``term``: "X is …", "**X** — …", "X는 …이다"."""
    if not term:
        return False
    opening = ENGLISH_ARTICLE.sub("", LEADING_MARKUP.sub("", sentence))
    # The term as the learner wrote it, with or without spaces ("인출 연습" / "인출연습").
    term_pattern = r"\s*".join(re.escape(character) for character in re.sub(r"\s+", "", term))
    match = re.match(term_pattern, opening, re.IGNORECASE) or re.match(_LONG_FORM + term_pattern + r"\s*\)", opening, re.IGNORECASE)
    if not match:
        return False
    rest = opening[match.end() :]
    if is_hangul_heavy(term) or _KOREAN_TOPIC_PARTICLE.match(rest):  # "CRC는 …이다" is written in Korean
        return bool(_DEFINES_KO.match(rest) and _DEFINITION_END_KO.search(sentence.rstrip()))
    # A function, a method or an option is defined by what it does: "The rl.question() method displays the query …".
    return bool(_DEFINES_EN.match(rest) or (_CODE_NAME.search(term) and _DOES_EN.match(rest)))


# A term defined after its long form, in parentheses: "Cyclic Redundancy Check (CRC) is a well-known technique …",
# "순환 중복 검사(CRC)는 …이다": the sentence defines the acronym as well as the words before it.
_KOREAN_TOPIC_PARTICLE = re.compile(r"^\s*(?:이란|란|은|는|이|가)\s")
_LONG_FORM = r"[^.!?()\n]{3,80}?\(\s*"


def definition_patterns(term: str) -> tuple[str, str]:
    """What a chunk that defines ``term`` holds, for the database: a LIKE pattern (its words in order, a cheap
    necessary condition the trigram index answers) and a POSIX regular expression (case-insensitive) for the
    openings ``is_definition`` reads, "X is a …", "X refers to …", "Long Form (X) is …", "X는 …이다"."""
    words = re.sub(r"\s+", " ", term.strip())
    like = "%" + "%".join(word.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") for word in words.split()) + "%"
    spelled = r"\s*".join(re.escape(character) for character in words.replace(" ", ""))
    plural = "s?" if words[-1:].isalpha() and words.isascii() else ""
    start = r'(^|[.!?:]\s+|\n)\s*[*_"“]*\s*((the|a|an)\s+)?'
    english = r"\s+((is|was)\s+(a|an|the|one|any)\M|(are|were)\s+(?!not\M)\w|refers\s+to\M|means\M)"
    korean = r"\s*(이란|란|은|는|이|가)\s[^.\n]{0,200}(이다|입니다|말한다|뜻한다|가리킨다|의미한다|라고\s*(한다|부른다))\."
    pattern = rf'{start}{spelled}{plural}[*_"”]*({english}|{korean})|\(\s*{spelled}\s*\)({english}|{korean})'
    return like, pattern


# A name written as code: a call, a member, an option ("rl.question", "emitter.on()", "-k", "--keep").
_CODE_NAME = re.compile(r"[.(]|^-{1,2}\w|_")
# What such a name does, after it: "() method displays …", ", --keep 입력 파일을 …", " returns …".
_DOES_EN = re.compile(
    r"^(?:\([^)]*\))?\s*(?:(?:method|function|option|command|flag|event|property)\s+)?(?:[a-z]+s|is|are)\b"
    r"|^(?:,\s*--?[\w-]+)+\s+\S",
)


# "What is a 4-bit number called?", "그 4비트짜리 묶음은 뭐라고 불러?": the answer is the sentence that gives the name.
_ASKS_NAME = re.compile(
    r"\bwhat\s+(?:is|are|was|were)\b.*\bcalled\b|\bwhat\s+do\s+(?:you|we|they)\s+call\b|\bwhat(?:'s| is)\s+the\s+name\b"
    r"|(?:뭐|무엇|무어)(?:이)?라고\s*(?:불러|부르|불리|해|하나|하지|하는|합니)|이름은\s*(?:뭐|무엇)",
    re.IGNORECASE,
)


GIVES_NAME = re.compile(
    rf"\b(?:is|are)\s+(?:{lexicon.alternation(lexicon.NAMING_EN)})\b|\bwe\s+call\b"
    r"|(?:이?라고?|으로)\s*(?:부른다|부르며|부르고|불린다|불리며|한다|하며|하고|칭한다)",
    re.IGNORECASE,
)


def asks_for_a_name(question: str) -> bool:
    return bool(_ASKS_NAME.search(question))
