"""Offline grading of a learner's typed or picked answer (no Django imports).

An answer is compared as a learner means it, not as typed: case, punctuation, spacing (Korean spacing
is free: "스택 포인터" = "스택포인터"), articles, trailing Korean particles ("비트를" = "비트") and
number formats with units ("8 bits" = "8bit" = "8 비트") do not matter; the aliases the text itself
gives ("least significant bit (lsb)") are accepted. Definitions are graded by the share of the
defining sentence's content terms the answer contains.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from baeum.answering.groundcheck import NUMBER_WORDS
from baeum.language.analysis import content_terms

CORRECT, PARTIAL, WRONG = "correct", "partial", "wrong"
# Definition answers: the share of the definition's terms an answer names to be right, or half right.
DEFINITION_CORRECT_SHARE = 0.5
DEFINITION_PARTIAL_SHARE = 0.25
# What a verdict means for spaced repetition (FSRS ratings: Again 1, Hard 2, Good 3, Easy 4).
RATING_FOR = {CORRECT: 3, PARTIAL: 2, WRONG: 1}

_TRUE = frozenset("true t yes y o ○ 참 맞다 맞음 맞아 맞아요 네 예 그렇다".split())
_FALSE = frozenset("false f no n x × 거짓 틀리다 틀림 틀려 아니다 아니요 아니오 아님".split())
_PARTICLE = re.compile(r"(?<=[가-힣])(?:이라고|라고|입니다|이다|에서|으로|이란|란|은|는|이|가|을|를|의|에|와|과|로|도|만|요)$")
_ARTICLE = re.compile(r"\b(?:the|a|an)\b")
_NUMBER_WITH_UNIT = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z가-힣%]+)?")
_UNIT_PLURAL = re.compile(r"(?<=[a-z]{2})s$")
_NUMBER_WORDS = {"zero": "0", "one": "1", **NUMBER_WORDS}  # a typed answer "one" means 1


# The same unit in Korean and English ("8 비트" = "8 bits").
_UNITS = {
    "비트": "bit", "바이트": "byte", "초": "second", "분": "minute", "시간": "hour", "일": "day", "년": "year",
    "미터": "meter", "킬로그램": "kilogram", "퍼센트": "%", "percent": "%", "개": "", "번": "",
}  # fmt: skip


@dataclass(frozen=True)
class Grade:
    verdict: str  # correct / partial / wrong
    score: float  # 0..1
    expected: str

    @property
    def rating(self) -> int:
        return RATING_FOR[self.verdict]


def normalise(text: str) -> str:
    """The answer as compared: NFKC, case-folded, without punctuation, articles, particles or spaces."""
    return "".join(normalised_words(text)).replace("-", "")


def normalised_words(text: str) -> list[str]:
    """The words of the answer as ``normalise`` compares them, before it closes them up."""
    text = unicodedata.normalize("NFKC", text).casefold().strip()
    text = " ".join(_NUMBER_WORDS.get(word, word) for word in text.split())
    text = re.sub(r"[^\w\s.%-]|(?<!\d)\.|\.(?!\d)|_", " ", text)
    text = _ARTICLE.sub(" ", text)
    return [_without_particles(word) for word in text.split()]


def _without_particles(word: str) -> str:
    """ "니블이요" → "니블": up to two endings come off (a particle, then a polite 요 or copula)."""
    for _ in range(2):
        stripped = _PARTICLE.sub("", word)
        if not stripped or stripped == word:
            break
        word = stripped
    return word


def _numbers(text: str) -> list[tuple[str, str]]:
    text = unicodedata.normalize("NFKC", text).casefold()
    text = " ".join(_NUMBER_WORDS.get(word, word) for word in text.split())
    found = []
    for number, unit in _NUMBER_WITH_UNIT.findall(text.replace(",", "")):
        unit = _PARTICLE.sub("", unit or "")
        found.append((number.rstrip("0").rstrip(".") if "." in number else number, _UNIT_PLURAL.sub("", unit)))
    return found


def _same_number(response: str, expected: str) -> bool:
    """ "8 bits" = "8bit" = "8 비트" = "eight bits"; a bare "8" matches "8 bits" too."""
    wanted, given = _numbers(expected), _numbers(response)
    if len(wanted) != 1 or len(given) != 1:
        return False
    (number, unit), (given_number, given_unit) = wanted[0], given[0]
    unit, given_unit = _UNITS.get(unit, unit), _UNITS.get(given_unit, given_unit)
    return number == given_number and (not given_unit or not unit or given_unit == unit or given_unit[:1] == unit[:1])


# Words that end a Korean answer without adding to it ("컴파일러라고 해요", "니블이라고 부릅니다").
_KO_TRAILING_VERB = re.compile(r"\s+(?:해요|한다|합니다|하죠|불러요|부른다|부릅니다|부르죠|이에요|예요|입니다|이다|요)[.!?~]*\s*$")
_PARENTHESIS = re.compile(r"\s*\([^()]*\)")


def _answer_forms(response: str) -> list[str]:
    """The response as typed, without a trailing verb, and each side of a parenthesis ("컴파일러 (compiler)")."""
    bare = _KO_TRAILING_VERB.sub("", response.strip())
    forms = [response, bare, _PARENTHESIS.sub("", bare)]
    forms += re.findall(r"\(([^()]*)\)", bare)
    return [form for form in dict.fromkeys(forms) if form.strip()]


def grade_term(response: str, expected: str, accepted: list[str] | tuple[str, ...] = ()) -> Grade:
    """A short answer naming a term, a number or a phrase (cloze, short answer, multiple choice)."""
    for form in _answer_forms(response)[1:]:
        result = _grade_term_form(form, expected, accepted)
        if result.verdict == CORRECT:
            return result
    return _grade_term_form(response, expected, accepted)


def _spaced_alike(response: str, expected: str) -> bool:
    """The same letters, spaced otherwise: "되돌아 가" for 되돌아가, whose last syllable ``normalise`` would read
    as a particle on one side and not on the other."""
    squeeze = lambda text: re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())  # noqa: E731
    return bool(squeeze(response)) and squeeze(response) == squeeze(expected)


def _grade_term_form(response: str, expected: str, accepted: list[str] | tuple[str, ...]) -> Grade:
    given = normalise(response)
    if not given:
        return Grade(WRONG, 0.0, expected)
    for candidate in (expected, *accepted):
        if given == normalise(candidate) or _spaced_alike(response, candidate):
            return Grade(CORRECT, 1.0, expected)
    if _same_number(response, expected):
        return Grade(CORRECT, 1.0, expected)
    if _content_words(response) and _content_words(response) == _content_words(expected):
        # A blank that swallowed its preposition ("recover data _____ files." wants "from damaged"): "damaged"
        # names what the sentence asks; the answer shown gives the whole.
        return Grade(CORRECT, 1.0, expected)
    target = normalise(expected)
    for candidate in (target, *(normalise(each) for each in accepted)):
        loanword = loanword_distance(given, candidate)
        if loanword == 0:  # "memory" for 메모리, "유니코드" for Unicode: the same word in the other script
            return Grade(CORRECT, 1.0, expected)
        if loanword == 1:
            return Grade(PARTIAL, 0.5, expected)
    if any(character.isdigit() for character in target + given):
        return Grade(WRONG, 0.0, expected)
    # A qualified name's own name ("detached" for "options.detached", "createInterface" for
    # "readline.createInterface()"): the learner knows the thing, not where it hangs; almost, shown in full.
    qualified = re.fullmatch(r"[\w$]+(?:\.[\w$]+)+(?:\(\))?", expected.strip())
    if qualified and given == normalise(expected.strip().removesuffix("()").rsplit(".", 1)[1]):
        return Grade(PARTIAL, 0.5, expected)
    # One typo in a longer word ("nibbel" for "nibble") is still the word; in Korean one letter of a syllable
    # ("컴퍼일러" for "컴파일러", "셀렉터" for the book's "실렉터"), compared letter by letter (jamo).
    jamo_given, jamo_target = _jamo(given), _jamo(target)
    if len(jamo_target) >= TYPO_MIN_LETTERS and _edit_distance_at_most_one(jamo_given, jamo_target):
        return Grade(PARTIAL, 0.5, expected)
    # Two letters swapped is a slip of the fingers even in a short name ("LGLP" for "LGPL"), never another word.
    if len(target) >= SWAP_MIN_LETTERS and _swapped_neighbours(given, target):
        return Grade(PARTIAL, 0.5, expected)
    # A phrase forgives one typo in each of its long words ("fruitfull functons" for "fruitful functions"):
    # the words are the learner's, each one the book's word mistyped.
    if _each_word_one_typo(response, expected):
        return Grade(PARTIAL, 0.5, expected)
    return Grade(WRONG, 0.0, expected)


# Words that join a phrase to its sentence ("from damaged", "to the stack"): at the ends of an answer they are optional.
_JOINING_WORDS = frozenset("from to of in on at by with for into onto as than".split())


def _content_words(text: str) -> list[str]:
    """The answer's words without joining words at its ends."""
    words = normalised_words(text)
    while words and words[0] in _JOINING_WORDS:
        words = words[1:]
    while words and words[-1] in _JOINING_WORDS:
        words = words[:-1]
    return words


def _each_word_one_typo(response: str, expected: str) -> bool:
    given_words = [_jamo(word.replace("-", "")) for word in normalised_words(response)]
    target_words = [_jamo(word.replace("-", "")) for word in normalised_words(expected)]
    if len(target_words) < 2 or len(given_words) != len(target_words):
        return False
    return all(
        mine == theirs or (len(theirs) >= TYPO_MIN_LETTERS and _edit_distance_at_most_one(mine, theirs))
        for mine, theirs in zip(given_words, target_words, strict=True)
    )


SWAP_MIN_LETTERS = 4


def _swapped_neighbours(first: str, second: str) -> bool:
    if len(first) != len(second) or first == second:
        return False
    differences = [i for i, (a, b) in enumerate(zip(first, second, strict=True)) if a != b]
    return len(differences) == 2 and differences[1] == differences[0] + 1 and first[differences[0]] == second[differences[1]]


# A word this long (in letters; Hangul counted by jamo, "스택" is 5) forgives one wrong, missing or extra letter.
TYPO_MIN_LETTERS = 5


def _jamo(text: str) -> str:
    """Hangul syllables as their letters ("컴" → "ㅋㅓㅁ" as conjoining jamo), everything else as it is."""
    return unicodedata.normalize("NFD", text)


# --- The same word across scripts: a Korean loanword and its English original ------------------------------
#
# Compared by consonants, as both are heard: vowels carry little across the two spellings (메모리/memory), a
# silent initial ㅇ none, and English's final r after a vowel is not written in Korean (컴퓨터/computer).

_INITIAL = "k k n t t r m p p s s  s s s k t p h".split(" ")  # ㄱㄲㄴㄷㄸㄹㅁㅂㅃㅅㅆㅇㅈㅉㅊㅋㅌㅍㅎ
_FINAL = ["", "k", "k", "ks", "n", "ns", "nh", "t", "r", "rk", "rm", "rp", "rs", "rt", "rp", "rh", "m", "p", "ps", "s", "s", "nk", "s",
          "s", "k", "t", "p", "h"]  # fmt: skip
_ENGLISH = (("ph", "p"), ("th", "t"), ("sh", "s"), ("ch", "s"), ("ck", "k"), ("ng", "nk"), ("x", "ks"), ("qu", "k"))
_ENGLISH_LETTER = {"c": "k", "q": "k", "g": "k", "b": "p", "f": "p", "v": "p", "d": "t", "l": "r", "z": "s", "j": "s"}
LOANWORD_MIN_CONSONANTS = 3  # fewer say too little (two-consonant words collide)


def _hangul_consonants(word: str) -> str | None:
    out = []
    for character in word:
        code = ord(character) - 0xAC00
        if not 0 <= code < 11172:
            return None
        initial, final = code // 588, code % 28
        out += [_INITIAL[initial], ".", _FINAL[final]]  # "." stands for the vowel between
    return _collapse("".join(out))


def _english_consonants(word: str) -> str | None:
    if not word.isascii() or not word.isalpha():
        return None
    word = re.sub(r"(?<=[aeiou])r$", "", word)  # computer → compute: Korean writes no final r (컴퓨터)
    for pair, sound in _ENGLISH:
        word = word.replace(pair, sound)
    consonants = "".join("." if letter in "aeiouy" else _ENGLISH_LETTER.get(letter, letter) for letter in word if letter not in "hw")
    return _collapse(consonants)


def _collapse(sounds: str) -> str:
    """The consonants, one of each run of the same one with no vowel ("."") between: "셀렉" and "sel" + "ect" both
    say s-r-k, while "메모리" and "memory" keep both m's."""
    return re.sub(r"([^.])\1+", r"\1", sounds).replace(".", "")


def loanword_distance(first: str, second: str) -> int | None:
    """How many consonants apart a Hangul word and a Latin one are ("메모리"/"memory" 0, "서버"/"server" 1); None
    unless exactly one is Hangul and the other Latin, each of at least ``LOANWORD_MIN_CONSONANTS`` consonants."""
    hangul, latin = (first, second) if _hangul_consonants(first) is not None else (second, first)
    korean, english = _hangul_consonants(hangul), _english_consonants(latin)
    if korean is None or english is None or min(len(korean), len(english)) < LOANWORD_MIN_CONSONANTS:
        return None
    if korean == english:
        return 0
    return 1 if _edit_distance_at_most_one(korean, english) else None


def _edit_distance_at_most_one(first: str, second: str) -> bool:
    if abs(len(first) - len(second)) > 1:
        return False
    if len(first) == len(second):
        return sum(a != b for a, b in zip(first, second, strict=True)) <= 1 or _swapped_neighbours(first, second)
    shorter, longer = sorted((first, second), key=len)
    return any(longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer)))


def grade_true_false(response: str, expected: bool) -> Grade:
    word = unicodedata.normalize("NFKC", response).casefold().strip(" .!?")
    said = True if word in _TRUE else False if word in _FALSE else None
    label = "true" if expected else "false"
    return Grade(CORRECT if said is expected else WRONG, 1.0 if said is expected else 0.0, label)


def grade_definition(response: str, definition: str, term: str) -> Grade:
    """ "What is a nibble?" — right when the answer names enough of what the definition says (the
    term itself does not count: "a nibble is a nibble" explains nothing)."""
    own = set(content_terms(term))
    wanted = [item for item in dict.fromkeys(content_terms(definition)) if item not in own]
    if not wanted:
        return grade_term(response, definition)
    given = set(content_terms(response)) - own
    squeezed = normalise(response)
    found = [item for item in wanted if item in given or (len(item) > 1 and normalise(item) in squeezed)]
    share = len(found) / len(wanted)
    if _same_number(response, definition):
        share = max(share, DEFINITION_CORRECT_SHARE)
    verdict = CORRECT if share >= DEFINITION_CORRECT_SHARE else PARTIAL if share >= DEFINITION_PARTIAL_SHARE else WRONG
    return Grade(verdict, round(share, 2), definition)
