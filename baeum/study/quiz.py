"""Practice questions from a session's own sentences (no Django imports).

Every question asks about a domain term — one the text defines (``baeum.study.definitions``) or uses as a
heading — never a common word, and cites the one sentence it comes from:

- short answer from a naming sentence: "A 4-bit number is called a nibble." → "What is a 4-bit number
  called?" (Korean: "… 라고 부른다" → "… 무엇이라고 부르나요?");
- definition: "A stack is a … list." → "What is a stack?", graded on what the definition says;
- cloze: the term blanked in a central sentence;
- multiple choice: a cloze with distractors drawn from sibling terms of the same session;
- true/false: the sentence as written, or with the term swapped for a sibling term.

Which sentence gets which kind is decided by a hash of the text, so a session always shows the same
questions and a question's id stays the same across views.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

from baeum import rules
from baeum.language import lexicon
from baeum.language.text import HEADING_NUMBER, is_hangul_heavy, korean_particle
from baeum.study.definitions import Definition

DEFINITION, CLOZE, TRUE_FALSE, CHOICE, SHORT_ANSWER = "definition", "cloze", "true_false", "choice", "short_answer"
BLANK = "_____"
MIN_DISTRACTORS = 2
MAX_CHOICES = 4
# Words a heading is made of that name no concept ("Introduction", "Exercises", "4.2").
_GENERIC_HEADING_WORDS = frozenset(
    "introduction overview summary exercises exercise examples example chapter section part appendix review "
    "glossary debugging notes note more and or the a an of in on to for with using about its their what how why "
    "when where which other others basic simple advanced further uses use output input operations instructions "
    "comparisons program programs data types type method methods new old first second last "
    "개요 소개 요약 연습문제 연습 예제 예 정리 장 절 부록 참고 문제 들어가며 마치며".split()
)
_SPLIT = re.compile(r"[\s,:;()\[\]/·—–-]+")
_NAMING_EN = re.compile(
    r"^(?P<subject>.+?)\s+(?P<verb>is|are|was|were)\s+(?:often\s+|usually\s+|also\s+|commonly\s+|sometimes\s+)?"
    rf"(?:{lexicon.alternation(lexicon.NAMING_DEFINITION_EN)})\s+(?:the\s+|a\s+|an\s+)?",
    re.IGNORECASE,
)
_ANAPHORIC_SUBJECT = re.compile(
    rf"^(?:{lexicon.alternation(lexicon.POINTING_SUBJECT_EN)})\b|^(?:{lexicon.alternation(lexicon.POINTING_KO)})(?:를|것을|것은|러한|런|들을)?(?:\s|$)",
    re.IGNORECASE,
)
# A subject that is not one noun phrase: a clause, a parenthesis, a heading glued on ("Signed magnitude The first …").
_BROKEN_SUBJECT = re.compile(
    r"[,()\[\]:;]|\b(?:is|are|was|were|and|or)\b|\s[a-z]+\s[A-Z][a-z]"
    # A clause, not a thing: "While the function is called kill, …" asked "What is while the function called?".
    r"|(?i:^(?:while|when|whenever|if|although|though|because|since|as|after|before|once|unless|until|whereas)\b)"
)
# A definition that leans on its context ("… organized in this fashion") does not stand alone as an answer.
_CONTEXTUAL = re.compile(
    r"\b(?:this|these|those|such|above|below|following|previous)\b|(?:^|\s)(?:이러한|이런|위의|다음의|앞의|이와)\s", re.IGNORECASE
)
# ", unxz, xzcat -": the other names a manual's NAME line gives its command before its dash.
_DEFINES_AFTER_TERM = re.compile(
    r"^(?:,\s*[\w.+-]+)*\s*(?:\([^)]*\)\s*)?(?:is|are|refers\s+to|means|:|—|–|-|이란|란|은|는)(?:\s|$)", re.IGNORECASE
)
# A subject that needs the page around it ("the registers", "one common technique").
_VAGUE_SUBJECT = re.compile(r"^(?:the\s+\w+|one\b.*|another\b.*|some\b.*)$", re.IGNORECASE)
# The words before the term end in a pointer or a cut phrase ("이를 2의 [보수 표현법]"): no question stands on them.
_KO_DANGLING_BEFORE = re.compile(r"(?:이를|이것을|그것을|이들을|그를|\S+의)$")
# A connective that opens a sentence leans on the one before ("따라서 …", "즉 …"): a question drops it.
_KO_CONNECTIVE = re.compile(r"^(?:따라서|그러므로|그래서|즉|또한|그리고|이때|이\s*때|예를\s*들어|예를\s*들면|결국|한편)\s*,?\s*")
_KO_NAMING_VERB = re.compile(r"\s*(?:\([^)]*\)\s*)?(?:이)?(?:라고|라)\s*(?P<verb>한다|합니다|부른다|부릅니다|불린다|불립니다)")


@dataclass(frozen=True)
class Candidate:
    """A sentence a question may come from: its text, centrality score and position in the session."""

    text: str
    score: float
    position: int


@dataclass
class Question:
    kind: str
    prompt: str
    answer: str
    source: int  # the candidate's position
    accepted: list[str] = field(default_factory=list)
    choices: list[str] = field(default_factory=list)
    term: str = ""

    @property
    def id(self) -> str:
        return digest(f"{self.kind}|{self.prompt}|{self.answer}")[:12]

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "question": self.prompt,
            "answer": self.answer,
            "accepted": self.accepted,
            "choices": self.choices,
            "term": self.term,
        }


def digest(text: str) -> str:
    return hashlib.sha1(text.encode(), usedforsecurity=False).hexdigest()


def heading_terms(title: str) -> list[str]:
    """The concept names in a heading: "4.4 The CALL and RET Instructions" → ["CALL", "RET Instructions"]."""
    words = [word for word in _SPLIT.split(HEADING_NUMBER.sub("", title)) if word]
    terms, current = [], []
    for word in [*words, ""]:
        if not word or word.casefold() in _GENERIC_HEADING_WORDS or not re.search(r"[A-Za-z가-힣]", word):
            if current and len(current) <= 3:
                terms.append(" ".join(current))
            current = []
            continue
        current.append(word)
    # A single word from a longer heading is rarely a concept ("Big" of "Big and Little Endian") unless it
    # is an acronym ("CALL", "CPU"); a one-word heading names its concept ("Recursion", "스택").
    whole = len(terms) == 1 and terms[0] == " ".join(words)
    # In a heading set in capitals ("MOVING THE CURSOR") a capitalised word is no acronym.
    shouting = len(words) >= 2 and all(word.isupper() for word in words if re.search(r"[A-Za-z]", word))
    return [term for term in terms if len(term) >= 2 and (" " in term or whole or term.isupper() and not shouting)]


def _term_at(sentence: str, term: str) -> re.Match | None:
    """Where ``term`` stands in ``sentence`` as a whole word (Latin) or a word start (Korean: "비트를")."""
    escaped = r"\s*".join(re.escape(part) for part in term.split())
    boundary = "" if is_hangul_heavy(term) else r"(?![\w])"
    return re.search(rf"(?<![\w]){escaped}{boundary}", sentence, re.IGNORECASE)


def _same_script(first: str, second: str) -> bool:
    return is_hangul_heavy(first) == is_hangul_heavy(second)


def _naming_question(definition: Definition, sentence: str) -> Question | None:
    """ "A 4-bit number is called a nibble." → "What is a 4-bit number called?" (answer: nibble)."""
    if is_hangul_heavy(sentence):
        position = _term_at(sentence, definition.term)
        if not position:
            return None
        naming = _KO_NAMING_VERB.match(sentence[position.end() :])
        before = _KO_CONNECTIVE.sub("", sentence[: position.start()].strip())
        if not naming or len(before) < 4 or _ANAPHORIC_SUBJECT.search(before) or _KO_DANGLING_BEFORE.search(before):
            return None
        verb = "부르나요" if "부" in naming.group("verb") or "불" in naming.group("verb") else "하나요"
        return Question(SHORT_ANSWER, f"{before} 무엇이라고 {verb}?", definition.term, 0, list(definition.aliases), term=definition.term)
    naming = _NAMING_EN.match(sentence.strip("()"))
    if not naming:
        return None
    rest = sentence.strip("()")[naming.end() :]
    if not rest.casefold().startswith(definition.term.casefold()):
        return None
    subject = naming.group("subject").strip()
    if _ANAPHORIC_SUBJECT.search(subject) or len(subject.split()) > 12 or _BROKEN_SUBJECT.search(subject) or _VAGUE_SUBJECT.match(subject):
        return None
    first = subject.split()[0]
    if (
        first in ("A", "An", "The") or first[:1].isupper() and first[1:].islower()
    ):  # "Error interrupts" → "error interrupts" (not "CPU", "Linux C")
        subject = subject[0].lower() + subject[1:]
    prompt = f"What {naming.group('verb').lower()} {subject} called?"
    return Question(SHORT_ANSWER, prompt, definition.term, 0, list(definition.aliases), term=definition.term)


def _as_written_inside(term: str, body: str) -> str:
    """ "Spaced repetition" opens a sentence; inside sentences the text writes "spaced repetition"."""
    lowered = term[:1].lower() + term[1:]
    if term[:1].isupper() and term[1:2].islower() and re.search(rf"(?<![\w.]\s)(?<=\s){re.escape(lowered)}\b", body):
        return lowered
    return term


def _spelled(term: str) -> str:
    return re.sub(r"[\W_]+", "", term).casefold()


_CODE_LIKE = re.compile(r"[._()\[\]{}'\"`:/<>=]|[a-z][A-Z]")


def of_another_kind(pair: tuple[str, str]) -> bool:
    """Whether ``other`` is a different kind of thing from ``term``, so that writing it in ``term``'s place makes
    a sentence nobody would write, not a false one: another number of words, code against a word, another head
    noun ("Capture rejections" for "'newListener'"; "Event object" for "once"), a name against a common word.
    "Writable stream" for "Readable stream", "stack" for "queue", "동적 링크" for "정적 링크" are of one kind."""
    term, other = pair
    words, others = term.split(), other.split()
    if len(words) != len(others) or bool(_CODE_LIKE.search(term)) != bool(_CODE_LIKE.search(other)):
        return True
    if len(words) > 1:
        return words[-1].casefold() != others[-1].casefold()
    return term[:1].isupper() != other[:1].isupper()


def describes_an_instance(sentence: str) -> bool:
    """ "The result is a zip object …", "The argument is a string …": a definite one-word subject describes the
    thing at hand in its example, not a term ("What is the result?" — of what?)."""
    opening = re.match(r"^The\s+([a-z]+)\s+(?:is|are)\b", sentence.strip())
    return bool(opening)


INSTANCE = rules.register(
    rules.Rule(
        "question:describes-an-instance",
        describes_an_instance,
        "The result is a zip object that knows how to iterate through the pairs.",
        "a 'What is the X?' question about the thing at hand in an example, not a term",
    ),
)[0]


def _definition_question(definition: Definition, sentence: str, body: str = "") -> Question | None:
    """ "A stack is a …" → "What is a stack?": only when the sentence opens with the term it defines."""
    if rules.applies(INSTANCE, sentence):
        return None
    article = re.match(r"^(?:the|a|an)\s+", sentence.strip(), flags=re.IGNORECASE)
    opening = sentence.strip()[article.end() :] if article else sentence.strip()
    if not opening.casefold().startswith(definition.term.casefold()) or _CONTEXTUAL.search(opening[len(definition.term) :]):
        return None
    if not _DEFINES_AFTER_TERM.match(opening[len(definition.term) :]) or sentence.rstrip().endswith(":"):
        return None  # the term is named at the end ("… is called signed magnitude"): a short answer, not a "What is"
    if is_hangul_heavy(definition.term):
        last = definition.term.rstrip("'\"‘’“”」』)")[-1:]  # "‘파생작’이란": the particle follows the word, not its quote mark
        particle = "이란" if "가" <= last <= "힣" and (ord(last) - 0xAC00) % 28 else "란"
        prompt = f"{definition.term}{particle} 무엇인가요?"
    elif is_hangul_heavy(sentence):  # a Latin name a Korean sentence defines ("fuser - 파일 또는 …"): asked in Korean
        prompt = f"{definition.term}{korean_particle(definition.term, '이란', '란')} 무엇인가요?"
    else:
        verb = "are" if re.search(r"\bare\b", opening[len(definition.term) :][:6]) else "is"
        determiner = article.group(0).strip().lower() + " " if article else ""
        prompt = f"What {verb} {determiner}{_as_written_inside(definition.term, body)}?"
    return Question(DEFINITION, prompt, sentence, 0, term=definition.term)


# A question shows one sentence, away from its page: it must not lean on what comes before it.
_POINTS_BACK = re.compile(
    rf"^(?:{lexicon.alternation(lexicon.CONNECTIVES_EN)}|{lexicon.alternation(lexicon.POINTING_SUBJECT_EN)})\b"
    rf"|^(?:{lexicon.alternation(lexicon.CONNECTIVES_KO)}|{lexicon.alternation(lexicon.POINTING_KO)}|처음의|앞의|위의|이러한|그러한)(?:\s|,)",
    re.IGNORECASE,
)


def points_back(sentence: str) -> bool:
    return bool(_POINTS_BACK.match(sentence.strip()))


def gives_answer_away(blanked: str, answer: str) -> bool:
    """The answer is still in the sentence around its blank ("A logical _____ is the simplest type of shift.")."""
    squeezed = lambda text: re.sub(r"[\W_]+", "", text.casefold())  # noqa: E731
    return bool(squeezed(answer)) and squeezed(answer) in squeezed(blanked.replace(BLANK, " "))


UNASKABLE = rules.register(
    rules.Rule("question:points-back", points_back, "This is known as infinite recursion.", "the sentence leans on the one before it"),
    rules.Rule(
        "question:answer-in-sentence",
        gives_answer_away,
        "A logical _____ is the simplest type of shift.",
        "the answer stands elsewhere in the sentence",
    ),
)
(ANOTHER_KIND,) = rules.register(
    rules.Rule(
        "question:another-kind",
        of_another_kind,
        ("once", "Event object"),
        'a term swapped into a true/false statement is not the kind of thing the term is ("Listens Event object to the abort event")',
    ),
)


def cloze_question(sentence: str, term: str, aliases: list[str]) -> Question | None:
    found = _term_at(sentence, term)
    if not found or len(sentence) - len(found.group(0)) < 20:
        return None
    if rules.applies(UNASKABLE[0], sentence):
        return None
    if found.group(0).isupper() and " " in found.group(0):
        return None  # "SKELETON FILE": a running head, not the term in a sentence
    after = sentence[found.end() :]
    alias = re.match(r"\s*\(([^()]{1,60})\)", after)  # "_____ (compiler)" would give the answer away
    if alias:
        aliases = [*aliases, *(part.strip() for part in alias.group(1).split(",") if part.strip())]
        after = after[alias.end() :]
    blanked = sentence[: found.start()] + BLANK + after
    if rules.applies(UNASKABLE[1], blanked, found.group(0)):
        return None
    return Question(CLOZE, blanked, found.group(0), 0, list(dict.fromkeys(aliases)), term=term)


def build_questions(
    candidates: list[Candidate],
    *,
    definitions: dict[int, list[Definition]],
    headings: list[str],
    limit: int = 6,
) -> list[Question]:
    """Questions on the session's domain terms, at most one per sentence and per term.

    ``definitions`` maps a candidate's position to the definitions its sentence makes; ``headings``
    are the session's section titles (their concept names are domain terms too).
    """
    aliases: dict[str, list[str]] = {}
    for items in definitions.values():
        for definition in items:
            aliases.setdefault(definition.term.casefold(), list(definition.aliases))
    body = "\n".join(candidate.text for candidate in candidates)
    # A heading phrase is a term only where the text uses it ("Spacing Beats Cramming" names a section, not a concept).
    used = [term for heading in headings for term in heading_terms(heading) if _term_at(body, term)]
    terms = list(dict.fromkeys([*(d.term for items in definitions.values() for d in items), *used]))
    by_position = {candidate.position: candidate for candidate in candidates}
    questions: list[Question] = []
    used_terms: set[str] = set()
    used_positions: set[int] = set()

    def add(question: Question | None, candidate: Candidate) -> bool:
        if question is None or question.term.casefold() in used_terms or candidate.position in used_positions:
            return False
        question.source = candidate.position
        questions.append(question)
        used_terms.add(question.term.casefold())
        used_positions.add(candidate.position)
        return True

    # 1. What the text defines: a naming sentence becomes a short answer, an opening definition a "What is".
    for position in sorted(definitions, key=lambda position: -by_position[position].score if position in by_position else 0):
        candidate = by_position.get(position)
        if candidate is None:
            continue
        for definition in definitions[position]:
            if add(_naming_question(definition, candidate.text) or _definition_question(definition, candidate.text, body), candidate):
                break
        if len(questions) >= (limit + 1) // 2:
            break
    # 2. Central sentences that use a domain term: cloze, multiple choice or true/false.
    for candidate in sorted(candidates, key=lambda candidate: -candidate.score):
        if len(questions) >= limit:
            break
        if candidate.position in used_positions:
            continue
        present = [term for term in terms if term.casefold() not in used_terms and _term_at(candidate.text, term)]
        if not present:
            continue
        term = max(present, key=len)
        siblings = list(  # another term, not the same one written otherwise ("CAST128" for "CAST-128"), each once
            {
                _spelled(other): other
                for other in reversed(terms)  # the first way the session writes it wins ("Transform stream", "transform stream")
                if _spelled(other) != _spelled(term) and _same_script(other, term) and not _term_at(candidate.text, other)
            }.values()
        )
        cloze = cloze_question(candidate.text, term, aliases.get(term.casefold(), []))
        if cloze is None:
            continue
        kind = [CLOZE, CHOICE, TRUE_FALSE][int(digest(candidate.text)[:8], 16) % 3]
        if kind == TRUE_FALSE:  # a swapped term makes a false statement only if it is the kind of thing the term is
            siblings = [other for other in siblings if not rules.applies(ANOTHER_KIND, (term, other))]
        if kind == CHOICE and len(siblings) >= MIN_DISTRACTORS:
            distractors = sorted(siblings, key=lambda other: digest(other + candidate.text))[: MAX_CHOICES - 1]
            cloze.kind = CHOICE
            cloze.choices = sorted([cloze.answer, *distractors], key=lambda choice: digest(choice + candidate.text))
        elif kind == TRUE_FALSE and siblings:
            swap = int(digest(candidate.text)[8:16], 16) % 2 == 1
            statement = candidate.text
            if swap:
                found = _term_at(candidate.text, term)
                other = sorted(siblings, key=lambda item: digest(item + candidate.text))[0]
                statement = candidate.text[: found.start()] + other + candidate.text[found.end() :]
            cloze = Question(TRUE_FALSE, statement, "false" if swap else "true", 0, term=term)
        add(cloze, candidate)
    return sorted(questions, key=lambda question: question.source)
