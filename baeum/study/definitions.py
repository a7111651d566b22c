"""The terms a text defines, found by how textbooks define them (no Django imports).

English: "A 4-bit number is called a nibble.", "… known as the clock speed", "Recursion is a …",
"variable: A name that refers to a value." (a glossary line). Korean: "… 비트 (bit)라고 부른다",
"룩업 테이블이란 …", "재진입 서브프로그램은 … 서브프로그램을 말한다". A term found this way is a domain
term: what practice questions ask about and what the study guide's glossary lists. Abbreviations and
translations written beside the term ("least significant bit (lsb)", "컴파일러 (compiler)") are kept as
aliases, which grading accepts as the same answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from baeum.language import lexicon
from baeum.language.text import is_hangul_heavy, sentence_spans

# How long a term may be, in words: longer is a description, not a name.
TERM_MAX_WORDS = 4
# A definition sentence longer than this is a paragraph the splitter failed to cut.
SENTENCE_MAX_CHARS = 400


@dataclass(frozen=True)
class Definition:
    term: str
    sentence: str
    start: int  # the sentence's offsets in the text
    end: int
    aliases: tuple[str, ...] = ()


_SPACES = re.compile(r"\s+")
_HYPHEN_BREAK = re.compile(r"(\w)[\u00ad\ufffe]\s*(\w)")
_ALIAS = re.compile(r"^\s*\(([^()]{1,60})\)")

# --- English -------------------------------------------------------------------------------------

# Words that end a term ("… is called the Base Pointer and …") or cannot be one.
_STOP_WORDS = frozenset(
    "a an the its their this that these those it they he she we you i and or but nor of to in on at by for from with as "
    "is are was were be been being which who whom whose when where while because if then than so such not no also "
    "always never often usually only just still simply actually once twice again later afterwards without "
    "none all any some each every both either neither other another".split()
)
_LEADING_DETERMINER = re.compile(r"^(?:the|a|an|its|their|his|her|our|your)\s+", re.IGNORECASE)
_NAMING = re.compile(
    r"\b(?:is|are|was|were|be|being)\s+(?:often\s+|usually\s+|sometimes\s+|also\s+|commonly\s+)?"
    rf"(?:{lexicon.alternation(lexicon.NAMING_DEFINITION_EN)})\s+"
    r"|\b(?:known\s+as|called|we\s+call\s+(?:this|these|it|them))\s+(?=(?:the|a|an)\s)",
    re.IGNORECASE,
)
_TERM_WORDS = re.compile(r"(?:[\w'’-]+)(?:\s+[\w'’-]+){0,5}")
# After the term: the end of the clause, or a second term ("the Base Pointer and Stack Pointer").
_TERM_END = re.compile(r"^\s*(?:[.,;:!?](?:\s|$)|[()]|and\b|or\b|$)")
_SUBJECT_OPENERS = frozenset(
    "this that these those it there here each every one some most many our my we you another such both either neither "
    "first second third next last following above previous former latter other all any no more less fewer sometimes since below "
    "however thus therefore now then so also often usually example note what why how where when which who".split()
)
# "X is a/an …", "X are …s that", "X is defined as", "X refers to", "X means".
_SUBJECT_DEFINITION = re.compile(
    r"^(?:(?:A|An|The)\s+)?(?P<term>[A-Za-z][\w'’-]*(?:\s+[\w'’-]+){0,3}?)\s*(?:\((?P<alias>[^()]{1,40})\)\s*)?"
    r"(?:is\s+(?:a|an)\s+(?!few\b|lot\b|bit\b|little\b|good\b|bad\b|great\b|big\b|small\b)|is\s+defined\s+as\b|are\s+defined\s+as\b|refers\s+to\b|means\b)"
)
_GLOSSARY_LINE = re.compile(
    r"^\s*(?P<term>[A-Za-z][\w'’ -]{0,40}?)\s*(?:\((?P<alias>[^()]{1,40})\))?\s*:\s+(?P<body>(?:A|An|The|To|One|Something|Any|Of|In)\b.{10,})$"
)


# A manual page's NAME line, which says what the command is: "fuser - 파일 또는 소켓을 사용하는 프로세스를 식별합니다",
# "xz, unxz, xzcat - .xz 파일을 압축하거나 압축 해제합니다". The walkthrough's key points on the Korean fuser and
# killall pages never said what either command does.
MANUAL_NAME_LINE = re.compile(
    r"^\s*(?P<term>[A-Za-z_][\w.+-]{1,40})(?P<aliases>(?:,\s*[A-Za-z_][\w.+-]{0,40})*)\s+[-—–]\s+(?P<body>[^\s\d=+*/<>-].{3,})$"
)


def _english_term(words: str) -> tuple[str, str] | None:
    """Cut a term from the words after "called": (term, rest) — determiners dropped, stopped at a stop word."""
    words = _LEADING_DETERMINER.sub("", words)
    kept = []
    for word in words.split():
        bare = word.strip("'’")
        if bare.lower() in _STOP_WORDS or not bare:
            break
        kept.append(bare)
    if not kept or len(kept) > TERM_MAX_WORDS:
        return None
    term = " ".join(kept)
    if term.lower().endswith("ly") and len(kept) == 1 or not any(character.isalpha() for character in term):
        return None  # "is called recursively", "is called 3"
    return term, words[words.find(kept[-1]) + len(kept[-1]) :]


def _english_definitions(sentence: str) -> list[tuple[str, tuple[str, ...]]]:
    found = []
    for naming in _NAMING.finditer(sentence):
        if re.search(r"\bwhat\s+(?:\w+\s+){0,3}$", sentence[: naming.start()], re.IGNORECASE):
            continue  # "what the value was called back home": asks a name, gives none
        after = sentence[naming.end() :]
        words = _TERM_WORDS.match(after)
        cut = _english_term(words.group(0)) if words else None
        if not cut:
            continue
        term, _ = cut
        rest = after[after.find(term) + len(term) :]
        if not _TERM_END.match(rest):
            continue
        alias = _ALIAS.match(rest)
        found.append((term, (alias.group(1).strip(),) if alias else ()))
    subject = _SUBJECT_DEFINITION.match(sentence)
    if subject and subject.group("term").split()[0].lower() not in _SUBJECT_OPENERS:
        term = subject.group("term")
        if not any(word.lower() in _STOP_WORDS for word in term.split()):
            found.append((term, (subject.group("alias").strip(),) if subject.group("alias") else ()))
    return found


# --- Korean --------------------------------------------------------------------------------------

# Endings that make a word part of the sentence, not of a term: particles and verb endings.
_KO_NOT_TERM_END = re.compile(r"(?:은|는|을|를|의|에|에서|와|과|로|으로|도|만|가|께서|에게|하는|되는|하고|이며|고|며|하여|해서|된|한)$")
_KO_NAMING = re.compile(r"(?:이)?(?:라고|라)\s*(?:한다|합니다|부른다|부릅니다|불린다|불립니다|일컫는다|칭한다)")
_KO_TOPIC = re.compile(r"^(?P<term>(?:[^\s]+\s){0,2}?[^\s]+?)(?:이란|란)\s")
# "또는", "혹은" end in a topic particle's syllable but are conjunctions: "프로앱스 또는 스니몰리를 …" defines no "프로앱스 또".
_KO_SUBJECT = re.compile(
    r"^(?P<term>[^\s]+(?:\s[^\s]+){0,2}?)(?<!\s또)(?<!\s혹)(?:은|는)\s.*(?:을|를)\s*(?:말한다|뜻한다|의미한다|가리킨다|일컫는다)\.?$"
)
_KO_VERBAL = re.compile(r"(?:하|되|리|시|지|게|히)$")
_KO_ADVERBIAL_END = re.compile(r"(?:에서|에게|에|으로|로|까지|부터|와|과)$")  # before 는, a place or a time, never a subject
_KO_ADVERBS = frozenset("흔히 보통 종종 줄여서 주로 일반적으로 또는 각각 이를 이것을 그것을 이라고 또한 즉".split())
_KO_PREFIX = re.compile(r"^(?:\([^)]*\)\s*)?(?:참고로|즉|또한|따라서|그리고|이때|이\s*때)\s*,?\s*")


def _korean_term_before(text: str) -> tuple[str, tuple[str, ...]] | None:
    """The noun phrase that ends ``text`` (the words before "라고 한다"), with a parenthesised alias."""
    alias = ()
    parenthesis = re.search(r"\(([^()]{1,60})\)\s*$", text)
    if parenthesis:
        alias = tuple(part.strip() for part in parenthesis.group(1).split(",") if part.strip())
        text = text[: parenthesis.start()]
    words = text.split()
    kept: list[str] = []
    for word in reversed(words):
        word = word.strip("'\"“”‘’")
        if (
            not word
            or _KO_NOT_TERM_END.search(word)
            and kept
            or len(kept) == 3
            or word in _KO_ADVERBS
            or re.search(r"[(),:;]", word)
            or not re.search(r"[가-힣A-Za-z]", word)
        ):
            break
        if not kept and _KO_NOT_TERM_END.search(word):
            return None  # "…하는 것을 …라고 한다": the term would be a clause
        kept.insert(0, word)
    term = " ".join(kept)
    return (term, alias) if term and not _KO_VERBAL.search(term) and not term.endswith("다") else None


def _korean_definitions(sentence: str) -> list[tuple[str, tuple[str, ...]]]:
    found = []
    for naming in _KO_NAMING.finditer(sentence):
        cut = _korean_term_before(sentence[: naming.start()])
        if cut:
            found.append(cut)
    opening = _KO_PREFIX.sub("", sentence)
    for pattern in (_KO_TOPIC, _KO_SUBJECT):
        match = pattern.match(opening)
        if match:
            term = match.group("term")
            if (
                len(term) >= 2
                and not re.search(r"[(),:;]", term)
                and not _KO_VERBAL.search(term)
                and not _KO_NOT_TERM_END.search(term.split()[0] if " " in term else "x")
                and not _KO_ADVERBIAL_END.search(term)  # "시간 지정에서는 …을 의미한다": where, not what
                and re.match(r"[‘’“”'\"「」]*[가-힣A-Za-z0-9]", term)  # "• @localhost 문자열은 …": an item's marker, a pattern
            ):
                found.append((term, ()))
    return found


# --- Both ----------------------------------------------------------------------------------------


def _clean(text: str) -> str:
    return _SPACES.sub(" ", _HYPHEN_BREAK.sub(r"\1\2", text)).strip()


_COMMENT = re.compile(r"(?:^|\s)(?://|/\*|#\s)")  # a comment's opening mark: the sentence is code


def find_definitions(text: str) -> list[Definition]:
    """Every term ``text`` defines, in order of appearance (the first definition of each term)."""
    definitions: list[Definition] = []
    seen: set[str] = set()

    def keep(term: str, aliases: tuple[str, ...], sentence: str, start: int, end: int) -> None:
        key = term.casefold()
        if key in seen or len(term) < 2:
            return
        seen.add(key)
        definitions.append(Definition(term=term, sentence=sentence, start=start, end=end, aliases=aliases))

    found: list[tuple[int, int, str, tuple[str, ...], str]] = []
    for start, end in sentence_spans(text):
        raw = text[start:end]
        if end - start > SENTENCE_MAX_CHARS:
            continue
        sentence = _clean(raw)
        if sentence.endswith("?"):
            continue  # "What is a program?" asks; it does not define
        if _COMMENT.search(sentence):
            continue  # a listing's comment, read as prose where the PDF did not set it as code: "// … `mutabook`이라고 부릅니다"
        pairs = _korean_definitions(sentence) if is_hangul_heavy(sentence) else _english_definitions(sentence)
        found += [(start, end, term, aliases, sentence) for term, aliases in pairs]
    offset, previous = 0, ""
    for line in text.splitlines(keepends=True):
        glossary = _GLOSSARY_LINE.match(line.rstrip("\n"))
        # A glossary names concepts in lower case ("variable: A name …"); "Prose: The literal meaning …" is a list.
        if (
            glossary
            and len(glossary.group("term").split()) <= TERM_MAX_WORDS
            and (glossary.group("term")[:1].islower() or glossary.group("term").isupper())
        ):
            alias = (glossary.group("alias").strip(),) if glossary.group("alias") else ()
            found.append((offset, offset + len(line.rstrip()), glossary.group("term").strip(), alias, _clean(line)))
        name = MANUAL_NAME_LINE.match(line.rstrip("\n"))
        # A command's name ("Note - …" is prose), in a paragraph of its own (a wrapped line "count - offset gives …" is not).
        if name and name.group("term")[:1].islower() and not previous.strip() and name.group("term").lower() not in _STOP_WORDS:
            aliases = tuple(alias.strip() for alias in name.group("aliases").split(",") if alias.strip())
            found.append((offset, offset + len(line.rstrip()), name.group("term"), aliases, _clean(line)))
        offset += len(line)
        previous = line
    for start, end, term, aliases, sentence in sorted(found, key=lambda item: item[0]):
        keep(term, aliases, sentence, start, end)
    return definitions
