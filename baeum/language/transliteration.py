"""Loanwords across scripts: "크루스칼" is Kruskal, "인덱스" index, "라이선스" licence.

Korean writes the technical words it borrows in Hangul, by sound. A Korean question over an English book names
its algorithms that way ("크루스칼 알고리즘은 간선을 어떤 순서로 처리해?"), and an English question over a Korean
book names in Latin what the book spells in Hangul ("What does copyleft mean?" over "카피레프트"). Neither is in
any gloss the materials print, so neither was searched in the other script.

Both spellings are reduced to a **consonant skeleton** (``hangul_key``, ``latin_key``): the consonants as Korean
hears them, in classes Korean does not tell apart (p/f/b/v, t/d/th, k/g/c/q, l/r, s/z-less sibilants, j/z/ch),
vowels and h, w, y dropped, doubles collapsed. "크루스칼" and "Kruskal" are both KLSKL; "다익스트라" (TKSTL) and
"Dijkstra" (TJKSTL) are one consonant apart. A word is matched (``KeyIndex.names``) when the skeletons are equal,
or one apart once they are five long; a short Hangul skeleton counts only from a word written as loanwords are
(``looks_borrowed``: an open syllable on ㅡ such as 스/트/프/드, a ㅋ, an ㅔ, or 셔/쇼/슈/져/죠/쥬, none of which
Sino-Korean words use), so "정렬" (sort; JNL) is never "channel". No Django imports.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

_HANGUL_BASE, _HANGUL_LAST = 0xAC00, 0xD7A3
# Consonant classes, by the jamo's index (initial: 19, final: 28) in Unicode's Hangul syllable order.
_INITIAL = ("K", "K", "N", "T", "T", "L", "M", "P", "P", "S", "S", "", "J", "J", "J", "K", "T", "P", "")
_FINAL = (
    "",
    "K",
    "K",
    "KS",
    "N",
    "NJ",
    "N",
    "T",
    "L",
    "LK",
    "LM",
    "LP",
    "LS",
    "LT",
    "LP",
    "L",
    "M",
    "P",
    "PS",
    "T",
    "T",
    "N",
    "J",
    "J",
    "K",
    "T",
    "P",
    "",
)
_EU, _E = 18, 5  # the medial vowels ㅡ and ㅔ
_LOAN_MEDIALS_AFTER_S_J = {2, 6, 12, 17}  # ㅑ ㅕ ㅛ ㅠ after ㅅ or ㅈ: 셔, 쇼, 슈, 져, 죠, 쥬
_S, _J, _K_ASPIRATED, _SILENT = 9, 12, 15, 11
# Open ㅡ syllables Korean adds between a borrowed word's consonants: 스, 트, 크, 프, 드, 브, 즈, 츠 (not 그 or 르,
# which native words use: 그들, 그대로, 모르다).
_EPENTHETIC_INITIALS = frozenset({9, 16, 15, 17, 3, 7, 12, 14})
_SINO_E_INITIALS = frozenset({0, 9, 12, 14})
_YU = 17
_FINAL_L, _INITIAL_L = 8, 5
_YU_LOAN_INITIALS = frozenset({2, 3, 6, 7, 15, 16, 17})  # 뉴, 듀, 뮤, 뷰, 큐, 튜, 퓨 ("튜플", "모듈", "큐")
_CLUSTER_INITIALS = frozenset(
    {7, 15, 17}
)  # 블, 클, 플: an l cluster ("테이블", "클래스", "튜플")  # 게, 세, 제, 체 are Sino-Korean syllables too (실제, 세계, 문제)

# Latin spellings, longest first, as Korean hears them; then single letters.
_LATIN_GROUPS = (
    ("tch", "J"),
    ("sch", "S"),
    ("ch", "J"),
    ("sh", "S"),
    ("ph", "P"),
    ("th", "θ"),  # heard as ㅅ ("스레드" thread, "메서드" method, "파이썬") or ㅌ/ㄷ ("에라토스테네스"): both kept
    ("gh", ""),
    ("ck", "K"),
    ("qu", "K"),
    ("ng", "N"),
    ("x", "KS"),
)
_LATIN_LETTER = {
    **dict.fromkeys("bpfv", "P"),
    **dict.fromkeys("dt", "T"),
    **dict.fromkeys("kq", "K"),
    **dict.fromkeys("jz", "J"),
    "s": "S",
    "l": "L",
    "m": "M",
    "n": "N",
}
_VOWELS = frozenset("aeiouy")
_LATIN_WORD = re.compile(r"[a-z]+")

# The Latin vowels each Hangul vowel may stand for, by the medial's index (ㅏ ㅐ ㅑ ㅒ ㅓ ㅔ ㅕ ㅖ ㅗ ㅘ ㅙ ㅚ ㅛ ㅜ ㅝ ㅞ ㅟ ㅠ ㅡ ㅢ ㅣ):
# a short skeleton's vowels must agree one by one ("페르마", Fermat, is PLM like "prim", but its vowels are ㅔ, ㅏ).
_VOWEL_SPELLINGS = (
    "aouiy", "ae", "aiy", "ae", "uoeai", "ea", "eiyu", "e", "oa", "wo", "w", "wo", "yo", "uo", "wo", "w", "wi", "u", "", "ui", "iey",
)  # fmt: skip

MIN_KEY = 3  # a shorter skeleton ("NN" for 유니온) matches too many words to mean one
FUZZY_KEY = 5  # from this length a skeleton may be one consonant off ("다익스트라" TKSTL, "Dijkstra" TJKSTL)


def _syllables(word: str) -> Iterable[tuple[int, int, int]]:
    for char in word:
        code = ord(char)
        if _HANGUL_BASE <= code <= _HANGUL_LAST:
            index = code - _HANGUL_BASE
            yield index // 588, (index % 588) // 28, index % 28


def _collapsed(key: str) -> str:
    return re.sub(r"(.)\1+", r"\1", key)


def hangul_key(word: str) -> str:
    """The consonant skeleton of a Hangul word: "크루스칼" → "KLSKL", "인덱스" → "NTKS"."""
    return _collapsed("".join(_INITIAL[initial] + _FINAL[final] for initial, _medial, final in _syllables(word)))


# A t English does not say, with the vowel after it: "listener" is heard "lisner" (리스너), "fasten", "castle".
_SILENT_T = re.compile(r"(?<=s)(?:te(?=n(?:s|er|ers|ing|ed)?$)|t(?=le(?:s|d)?$))")


def _heard(word: str) -> str:
    """``word`` as English says it where it writes a letter it does not say ("listener" → "lisner")."""
    return _SILENT_T.sub("", word.lower())


def latin_keys(word: str) -> tuple[str, ...]:
    """The skeletons a Latin word may have in Hangul: one, or two when it has a "th" (heard as S or as T) or a t
    English does not say ("listener" is LSTN as written and LSN as heard, "리스너")."""
    spellings = dict.fromkeys([word, _heard(word)])
    keys = [latin_key(spelling) for spelling in spellings]
    return tuple(dict.fromkeys(_collapsed(key.replace("θ", sound)) for key in keys for sound in ("TS" if "θ" in key else "θ")))


def latin_key(word: str) -> str:
    """The consonant skeleton of a Latin word as Korean would spell it: "Kruskal" → "KLSKL", "index" → "NTKS"
    ("θ" for a "th": ``latin_keys`` reads it both ways). An r before a consonant or at the end is silent
    ("computer" 컴퓨터); c and g are soft before e, i, y."""
    word = "".join(_LATIN_WORD.findall(word.lower()))
    key = []
    position = 0
    while position < len(word):
        for spelling, sound in _LATIN_GROUPS:
            if word.startswith(spelling, position):
                key.append(sound)
                position += len(spelling)
                break
        else:
            letter = word[position]
            following = word[position + 1 : position + 2]
            if letter == "c":
                key.append("S" if following and following in "eiy" else "K")
            elif letter == "g":
                key.append("J" if following and following in "eiy" else "K")
            elif letter == "r":
                key.append("L" if following in _VOWELS and following else "")
            else:
                key.append(_LATIN_LETTER.get(letter, ""))
            position += 1
    return _collapsed("".join(key))


def looks_borrowed(word: str) -> bool:
    """Whether a Hangul word is spelled as Korean spells borrowed words: a syllable Sino-Korean never uses (an open
    ㅡ syllable such as 스, 트, 프, 드; a ㅋ; an ㅔ but in 게, 세, 제, 체; 셔, 쇼, 슈, 져, 죠, 쥬; 뉴, 듀, 뮤, 뷰, 큐, 튜,
    퓨; 블, 클, 플)."""
    for initial, medial, final in _syllables(word):
        if medial == _EU and not final and initial in _EPENTHETIC_INITIALS:
            return True
        if initial == _K_ASPIRATED or medial == _E and initial not in _SINO_E_INITIALS:
            return True
        if initial in (_S, _J) and medial in _LOAN_MEDIALS_AFTER_S_J:
            return True
        if medial == _YU and initial in _YU_LOAN_INITIALS or medial == _EU and final == _FINAL_L and initial in _CLUSTER_INITIALS:
            return True
    return False


# Two Hangul vowels that spell one English vowel: 아이 (i in "license", y in "byte"), 에이 (a in "table"), 오이
# (oy in "Floyd"), 오우 (o in "bowl"); the second written as a syllable of its own.
_MERGED = {(0, 20): "iyae", (5, 20): "ae", (8, 20): "oy", (8, 13): "o"}
_CLOSED_EU = "aeiou"  # ㅡ with a closing consonant is a vowel heard ("토큰", token)


def _hangul_vowels(word: str) -> list[str]:
    """What each vowel of a Hangul word may be spelled as in Latin, an epenthetic (open) ㅡ aside."""
    syllables = list(_syllables(word))
    vowels: list[str] = []
    position = 0
    while position < len(syllables):
        _initial, medial, final = syllables[position]
        following = syllables[position + 1] if position + 1 < len(syllables) else None
        if not final and following is not None and following[0] == _SILENT and (medial, following[1]) in _MERGED:
            vowels.append(_MERGED[(medial, following[1])])
            position += 2
            continue
        # ㅡ closed by ㄹ before another ㄹ or at the end is an l cluster ("플로이드" Floyd, "테이블" table), not a vowel
        cluster = final == _FINAL_L and (following is None or following[0] == _INITIAL_L)
        if medial != _EU or final and not cluster:
            vowels.append(_CLOSED_EU if medial == _EU else _VOWEL_SPELLINGS[medial])
        position += 1
    return vowels


_LATIN_VOWEL_GROUP = re.compile(r"[aeiou]+|(?<=[^aeiou])y(?![aeiou])")


def _latin_vowels(word: str) -> list[str]:
    """The vowel groups of a Latin word, a closing silent e aside ("code": o; "tree": ee; "system": y, e)."""
    word = word.lower()
    groups = _LATIN_VOWEL_GROUP.findall(word)
    if len(groups) > 1 and word.endswith("e") and groups[-1] == "e":
        groups.pop()
    return groups


def vowels_agree(hangul: str, latin: str, *, loose: bool = False) -> bool:
    """Whether ``hangul``'s vowels, one by one, may spell ``latin``'s vowel groups: "스택" stack (not "static"),
    "파인드" find (not "이벤트"), "라이선스" license. ``loose``, for long words whose skeletons are one consonant
    apart: as many vowels give or take one, the first agreeing ("다익스트라" Dijkstra, "알고리즘" algorithm; not
    "이러한인터럽트", a parse of two words, for "reentrant")."""
    korean = _hangul_vowels(hangul)
    for spelling in dict.fromkeys([latin, _heard(latin)]):
        english = _latin_vowels(spelling)
        if loose and abs(len(english) - len(korean)) <= 1 and bool(english) and bool(korean) and english[0][0] in korean[0]:
            return True
        if not loose and _aligned(english, korean):
            return True
    return False


def _aligned(english: list[str], korean: list[str]) -> bool:
    """Whether each English vowel group, in order, is spelled by one Korean vowel or, for a group of several
    letters, up to as many ("endian": e, ia; 엔디안: ㅔ, ㅣ, ㅏ), each opening with a spelling of its first letter."""
    if not english or not korean:
        return not english and not korean
    group, rest = english[0], english[1:]
    return group[0] in korean[0] and any(_aligned(rest, korean[take:]) for take in range(1, min(len(group), len(korean)) + 1))


def keys_close(hangul: str, latin: str) -> bool:
    """Whether two skeletons of at least ``FUZZY_KEY`` consonants differ as spellings across the scripts do: by
    one consonant heard otherwise ("알고리즘" LKLJM, "algorithm" LKLTM), by a glide or an r Korean does not write
    ("다익스트라" TKSTL, "Dijkstra" TJKSTL), or by a closing s the English index stems away ("에라토스테네스"
    LTSTNS, "eratosthene" LTSTN). Any other consonant more ("compendium" KMPNTM, "컴포넌트" KMPNT) is another word."""
    if hangul == latin:
        return True
    if max(len(hangul), len(latin)) < FUZZY_KEY:
        return False
    if len(hangul) == len(latin):
        return sum(a != b for a, b in zip(hangul, latin, strict=True)) == 1
    if len(latin) == len(hangul) + 1:
        return any(latin[:cut] + latin[cut + 1 :] == hangul for cut in range(len(latin)) if latin[cut] in "JL")
    if len(hangul) == len(latin) + 1:
        return hangul.endswith("S") and hangul[:-1] == latin
    return False


@dataclass
class KeyIndex:
    """Words of one script by their skeletons (and each skeleton less one consonant, to find one-off ones), with
    how many passages use each: the most used is the likeliest name when several match."""

    uses: dict[str, int] = field(default_factory=dict)
    keys: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _by_key: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    _by_deletion: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    @classmethod
    def build(cls, words: Iterable[tuple[str, int]], skeletons) -> KeyIndex:
        """``skeletons(word)``: the word's skeletons (``latin_keys``, or ``hangul_key`` as one)."""
        index = cls()
        for word, uses in words:
            found = skeletons(word)
            found = tuple(key for key in ((found,) if isinstance(found, str) else found) if len(key) >= MIN_KEY)
            if not found:
                continue
            index.uses[word] = index.uses.get(word, 0) + uses
            index.keys[word] = found
            for skeleton in found:
                index._by_key[skeleton].add(word)
                if len(skeleton) >= FUZZY_KEY - 1:
                    for position in range(len(skeleton)):
                        index._by_deletion[skeleton[:position] + skeleton[position + 1 :]].add(word)
        return index

    def names(self, skeleton: str, *, close, agrees, most: int = 2) -> list[str]:
        """The indexed words with the skeleton ``skeleton`` or one ``close(theirs)`` accepts (``keys_close``, for
        long ones), the most used first. ``agrees(word, loose)`` says whether their vowels agree (``vowels_agree``):
        a short skeleton's word must agree, and names one word; a long one's may agree loosely, and those agreeing
        strictly come first ("program": 프로그램, not 프로그래머)."""
        if len(skeleton) < MIN_KEY:
            return []
        found = set(self._by_key.get(skeleton, ()))
        if len(skeleton) < FUZZY_KEY:
            found = {word for word in found if agrees(word, False)}
            most = 1  # a short skeleton names one word: the most used of those it may spell ("stack", not "static")
        else:
            for position in range(len(skeleton)):
                shorter = skeleton[:position] + skeleton[position + 1 :]
                found |= self._by_key.get(shorter, set()) | self._by_deletion.get(shorter, set())
            found |= self._by_deletion.get(skeleton, set())
            found = {word for word in found if any(close(key) for key in self.keys[word]) and agrees(word, True)}
            strict = {word for word in found if agrees(word, False)}
            found = strict or found
        return sorted(found, key=lambda word: (-self.uses[word], word))[:most]
