"""How ``eval_study`` judges what a plan shows a learner: key points, questions and objectives.

These are the judge, written apart from the generator's own filters (``plans.services.session_content``,
``baeum.study.quiz``) and never imported by them: a check the generator also applied would pass by
construction and measure nothing. Each check returns the name of what is wrong, or None.

- ``key_point_problem``: a key point is a sentence of the book's prose that stands alone: not a duplicate of
  another in its session, not an exercise or instruction ("Write a function called circle…", "Hint: …",
  "…해 보시오."), not code, not a caption ("Figure 3.1 …"), not a fragment (no sentence end, a lowercase
  start, a page number or running head glued in: "Definitions and uses 21 And then …"), and not a sentence
  that goes on from the one before ("This data is…", "따라서 …").
- ``question_problem``: a question can be answered from what it shows: no page debris in it ("What is 1 The
  distance called?"); a short answer is a name, not "after V"; a multiple choice never contains its
  answer in its stem; a blank keeps at least ``MIN_WORDS_LEFT`` words of its sentence and does not open by
  pointing back at text the learner does not see ("It", "This", "그", "처음의").
- ``objective_matched``: an objective names something its session's key points or questions teach.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

from baeum.language import analysis, lexicon
from baeum.language.analysis import content_terms

BLANK = "_____"
MIN_WORDS_LEFT = 4  # words of a blank's sentence besides the blank, for a reader to know what is asked

_EXERCISE = re.compile(
    r"^(?:exercise|hint|note|write|modify|rewrite|use|try|create|define|implement|add|change|run|type|compute|find|draw|make|"
    r"read|test|call|print|download|go|look|consider|suppose|imagine|show|prove|check|enter|save|open|see)\b"
    r"|(?:하시오|하세요|보시오|보세요|하라|보라|보자|봅시다|바랍니다)[.!?]?$",
    re.IGNORECASE,
)
# Code syntax, not a name from code in a sentence ("When cat_twice terminates, …" is prose about code).
# A semicolon inside a sentence is prose ("…an empty list; you can create one…"); one that ends it is code.
_CODE = re.compile(r"\w\([^)]*\)|[{}]|;\s*$|==|!=|=>|->|>>>|::|\b\w+\.\w+\(|^\s*[$#>]\s|\w\s*=\s*\w|\[Function\]|\bconst \w+ \*")
_CAPTION = re.compile(r"^(?:figure|fig\.|table|listing|그림|표)\s*\d", re.IGNORECASE)
_DEBRIS = re.compile(r"[a-z]{2,} \d{1,4} [A-Z][a-z]|\b(?:Chapter|CHAPTER)\s+\d+\s+\S")
_SENTENCE_END = re.compile(r"[.!?。)\"'”’]$")
_GOES_ON = re.compile(
    r"^(?:this|these|that|those|it|its|they|their|them|such|however|therefore|thus|hence|so|but|and|also|then|here|"
    r"both(?!.*\band\b)|because|since this|in this case|as (?:a result|described|shown|above|before))\b"
    r"|^(?:그러나|따라서|또한|그래서|그리고|하지만|즉|이것|이는|이를|이러한|이런|이와|그것|그러한|그런|위의|앞의|처음의|이|그|왜냐하면|"
    r"다시 말해|이 때문에|그러므로|게다가|반면|예를 들어|마찬가지로)(?:\s|,|[이은는을를가의도])",
    re.IGNORECASE,
)
# A key point can show no display: "the command below", "the following table", "given in listing 5".
_POINTS_AT_A_DISPLAY = re.compile(
    r"\b(?:below|above|the following|as follows)\b|\b(?:in|see) (?:listing|figure|table|fig\.)\s*\d"
    r"|\b(?:here is|here are) (?:a|an|the)\b|다음(?:과|의)? 같(?:이|은)|아래(?:의|와|에)|위(?:의|와) 같",
    re.IGNORECASE,
)
# A reference entry or a footnote's citation, not a statement: ISBN, page ranges, "In: Proceedings", "인용한 글과 동일".
_REFERENCE = re.compile(
    r"\bISBN\b|\bpp\.|\b[Ii]n: [A-Z]|; in: |\bNo\. \d|\bVol\. \d|\[html|\bibid\b|인용한 글과 동일|\bwp\.|참조 \d|\d+쪽 참조"
    r"|\bet al\.,? \(?\d{4}|^\s*\[[A-Z]{2,}[+\d]*\]"
)
# An item of a list, not a sentence: "D. Preserve …", "3. …", "• …", "[필수적:] …", or a field of a reference
# entry ("Returns: …", "GeneralString: VALUE will …", "Since: 1.6 …").
_LIST_ITEM = re.compile(r"^(?:[A-Z]\.|\d{1,2}[.)]|[•·◦▪‣–-]|\[[^\]]{1,20}:?\]|\S+\s?:\s)|\s[•◦▪‣]\s")
# Something named before, which a key point read alone has not named: "this License", "the function" (which
# one?), "these values"; Korean "여기서", "앞서", "이 위원회" (a demonstrative before a noun, tagged MM).
_POINTS_BACK = re.compile(
    r"\b(?:this|these|those|such|said)\s+(?!as\b|is\b|was\b|means\b|way\b|case\b|book\b|chapter\b|section\b|manual\b|paper\b|document\b)[A-Za-z]"
    r"|\bthe (?:function|method|command|routine|former|latter|above)\b|여기서|앞서|위에서|이 경우",
    re.IGNORECASE,
)
_INSTRUCTION_AFTER_COMMA = re.compile(r",\s*(?:check|see|refer to|look at|consult|try)\b", re.IGNORECASE)
# A page's debris inside a sentence: a footnote number after a sentence's end or between words ("보호된다.186 이",
# "보증 청구 118 그리고"), or a leading footnote number ("52 리차드 스톨만: …", "484 예외사항은 …").
_COUNTER = rf"(?:{lexicon.alternation(lexicon.COUNTERS_KO)})"
_FOOTNOTE_NUMBER = re.compile(
    r"^\d{1,3}\s+(?![가-힣]*" + _COUNTER + r"|[a-z])\S|(?<=[a-z가-힣])[.!?][\"'”’)]*\d{1,3}(?:\s|$)|다\s?\d{1,3}\s"
    r"|[가-힣] \d{2,3} (?![가-힣]*" + _COUNTER + r")[가-힣]"
)
# A sentence cut where an abbreviation or a list number stood ("… because 1.", "… Gemeinschaft a.", "(인용한 글과 동일, wp.").
_CUT_AT_A_DOT = re.compile(r"\s(?:[a-z]{1,2}|\d{1,2})\.$")
# English: a finite verb outside a relative clause ("Function that generates …" has none: it is a label).
_AUXILIARY = re.compile(rf"\b(?:{lexicon.alternation(lexicon.AUXILIARIES_EN)})\b", re.IGNORECASE)
# A relative clause or a participle phrase, to its comma: its verb is not the sentence's.
_RELATIVE = re.compile(rf"\s(?:{lexicon.alternation(lexicon.RELATIVE_OPENERS_EN)})\s[^,;]*", re.IGNORECASE)
# A Korean sentence that starts inside another: its first morpheme is a particle, an ending, a suffix, or a
# bound noun ("는 특허분쟁으로부터 …", "것과 연결되는데 …", "수 있도록 해야 한다 …").
_STARTS_INSIDE = ("J", "E", "XS", "NNB", "VX")
# Near-duplicates: two key points of one session this similar say the same thing ("배포 및 재배포" / "배포/재배포").
NEAR_DUPLICATE = 0.85


def said(text: str) -> str:
    """``text`` as compared: NFKC, case-folded, no spacing or punctuation."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())


def key_point_problem(text: str, seen: set[str]) -> str | None:
    """What keeps ``text`` from standing alone as a key point (``seen``: the session's earlier key points, said)."""
    text = text.strip()
    key = said(text)
    if key in seen or any(SequenceMatcher(None, key, other).ratio() >= NEAR_DUPLICATE for other in seen):
        return "duplicate"
    if _EXERCISE.search(text):
        return "exercise"
    return sentence_problem(text)


def sentence_problem(text: str) -> str | None:
    """What keeps a sentence (a key point, or the sentence a question is made from) from being read on its own."""
    if _CODE.search(re.sub(r"\bO\((?:[^()]|\([^()]*\))*\)", "O", text)):  # big-O notation is prose, not code
        return "code"
    if _CAPTION.match(text):
        return "caption"
    if _REFERENCE.search(text):
        return "reference"
    if _LIST_ITEM.search(text):
        return "list-item"
    if (
        not _SENTENCE_END.search(text)
        or text[:1].islower()
        or not (text[:1].isalnum() or text[:1] in "“\"‘'")
        or _DEBRIS.search(text)
        or _CUT_AT_A_DOT.search(text)
        or _unbalanced(text)
        or re.search(r"\s[.!?]$", text)  # "… a pointer inside the der ." (a word in code type lost)
    ):
        return "fragment"
    if _FOOTNOTE_NUMBER.search(text):
        return "footnote-number"
    if _GOES_ON.match(text) or _starts_inside_a_korean_sentence(text):
        return "goes-on"
    if _POINTS_AT_A_DISPLAY.search(text):
        return "points-at-a-display"
    if _POINTS_BACK.search(text) or _korean_demonstrative(text):
        return "points-back"
    if _INSTRUCTION_AFTER_COMMA.search(text):
        return "exercise"
    if _no_english_verb(text):
        return "no-verb"
    return None


def _unbalanced(text: str) -> bool:
    return text.count("(") != text.count(")") or text.count("“") != text.count("”") or text.count("[") != text.count("]")


def _starts_inside_a_korean_sentence(text: str) -> bool:
    if not re.match(r"[가-힣]", text):
        return False
    if re.match(r"[은는을를의에와과도로가]\s", text):  # a particle whose word was left on the page before
        return True
    tokens = analysis.tokens(text[:40])
    return bool(tokens) and tokens[0].tag.startswith(_STARTS_INSIDE)


def _korean_demonstrative(text: str) -> bool:
    if not re.search(r"[가-힣]", text):
        return False
    return any(token.tag == "MM" and token.form in ("이", "그", "저", "이러한", "그러한", "해당") for token in analysis.tokens(text))


def _no_english_verb(text: str) -> bool:
    """An English sentence with no finite verb before its first relative clause: a label, a list item, a function's
    blurb ("Function that generates a C structure …", "Decode the class and TAG from DER code.")."""
    if re.search(r"[가-힣]", text):
        return False
    main = _RELATIVE.sub(" ", text)
    words = re.findall(r"[A-Za-z][A-Za-z'-]*", main)
    if len(words) < 2:
        return True
    opener = words[0].casefold()
    if (
        words[1].casefold() in ("the", "a", "an", "all", "each", "every", "any")
        and opener not in _OPENERS
        and not opener.endswith("ly")
        and not re.match(rf"{re.escape(words[0])}\s*,", main.lstrip())
    ):
        return True  # a verb with no subject: an instruction or a reference blurb
    if _AUXILIARY.search(main):
        return False
    return not any(re.fullmatch(r"[a-z]{3,}(?:ed|es|s)", word) for word in words[1:])


# Words that may open an English sentence and be followed by an article ("for example" too).
_OPENERS = frozenset((*lexicon.SENTENCE_OPENERS_EN, "example"))


# A page's debris inside a question: a footnote's number before a capitalised word ("What is 1 The distance
# called?"), a page number glued between words.
_QUESTION_DEBRIS = re.compile(r"(?<=\w )\d{1,3} (?:The|A|An|In|It|This)\b|[a-z]{2,} \d{1,4} [A-Z][a-z]")
# A short answer that is not a name: it opens with a preposition ("after V" of "… is named after V. Levenshtein").
_NOT_A_NAME = re.compile(r"^(?:after|by|from|of|to|with)\s", re.IGNORECASE)
# What a definition question asks about must be a term: not a quantity ("What is Too few?"), not a role any
# part of a book can play ("What is the output?": whose output?).
_NOT_A_TERM = re.compile(r"^(?:too|few|many|more|most|less|very|so|some|any|all|each|other|both|only|just|not|no)\b", re.IGNORECASE)
_A_ROLE = re.compile(
    r"^(?:the|this|that)\s+(?:output|input|result|value|values|function|method|file|data|process|system|argument|"
    r"parameter|element|structure|type|object|way|case|problem|solution|approach|example|first|second|last|"
    r"following|same|other|former|latter)(?:\s+\w+)?$"
    r"|^the\s+(?:resulting|requested|given|current|new|old|original|previous|next|above|below)\s+\w+(?:\s+\w+)?$",
    re.IGNORECASE,
)
# "What is X?" / "X(이)란 무엇인가요?": the term asked about.
_ASKED_TERM = re.compile(r"^(?:what (?:is|are) (?P<en>.+?)\??$)|^(?P<ko>.+?)(?P<particle>\(이\)란|이란|란)\s*무엇", re.IGNORECASE)


def question_problem(kind: str, question: str, answer: str, choices: list[str] | None = None) -> str | None:
    """What keeps a question from being answerable from what it shows."""
    stem = question.strip()
    if _QUESTION_DEBRIS.search(stem):
        return "question-debris"
    if kind == "short_answer" and _NOT_A_NAME.match(answer.strip()):
        return "answer-not-a-name"
    if kind == "choice" and said(answer) and said(answer) in said(stem.replace(BLANK, " ")):
        return "choice-contains-answer"
    asked = _ASKED_TERM.match(stem) if kind in ("definition", "short_answer") else None
    if asked:
        term = (asked.group("en") or asked.group("ko") or "").strip(" ‘’'\"“”")
        if _NOT_A_TERM.match(term) or _A_ROLE.match(term):
            return "not-a-term"
        if asked.group("ko") and (_particle_mismatch(asked.group("ko"), asked.group("particle")) or _cut_korean_term(term)):
            return "question-debris"  # "‘파생작’란", "프로앱스 또란": the term was cut, or its particle is wrong
    if kind == "true_false":
        problem = sentence_problem(stem)
        if problem and problem != "no-verb":
            return f"statement-{problem}"
    if BLANK in stem:
        left = [word for word in stem.replace(BLANK, " ").split() if any(character.isalnum() for character in word)]
        if len(left) < MIN_WORDS_LEFT:
            return "blank-too-little-left"
        if _GOES_ON.match(stem) or _starts_inside_a_korean_sentence(stem):
            return "blank-needs-context"
        problem = sentence_problem(stem.replace(BLANK, answer or "X"))
        if problem and problem not in ("no-verb",):
            return f"blank-sentence-{problem}"
    return None


def _cut_korean_term(term: str) -> bool:
    """A term that ends in an adverb, a conjunction or a particle was cut out of a longer phrase ("프로앱스 또" of "또는")."""
    tokens = analysis.tokens(term)
    return bool(tokens) and tokens[-1].tag.startswith(("MAG", "MAJ", "MM", "J", "E"))


def _particle_mismatch(term: str, particle: str) -> bool:
    """Korean "이란" follows a consonant, "란" a vowel: the wrong one says the term was cut or mangled."""
    last = re.sub(r"[\W_]+$", "", term)[-1:]
    if not re.match(r"[가-힣]", last):
        return False
    has_final = (ord(last) - 0xAC00) % 28 != 0
    return has_final != (particle == "이란")


GENERIC_OBJECTIVE_WORDS = frozenset(
    "explain describe understand know learn identify use apply compare define list name recognise recognize "
    "설명 설명하기 이해 이해하기 알기 구분 구분하기 비교 비교하기 정의 정의하기 사용 사용하기 익히기".split()
)


def objective_matched(objective: str, taught: list[str]) -> bool:
    """Whether ``objective`` names a term of its session's key points or questions (``taught``)."""
    wanted = {term for term in content_terms(objective) if term.casefold() not in GENERIC_OBJECTIVE_WORDS and len(term) > 1}
    if not wanted:
        return False
    taught_terms = {term for text in taught for term in content_terms(text)}
    return bool(wanted & taught_terms)
