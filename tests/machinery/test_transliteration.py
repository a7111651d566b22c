"""Loanwords across scripts: Hangul and Latin spellings reduced to consonant skeletons (``baeum.language.transliteration``)."""

import pytest

from baeum.language.transliteration import KeyIndex, hangul_key, keys_close, latin_key, latin_keys, looks_borrowed, vowels_agree

PAIRS = [
    ("크루스칼", "Kruskal"),
    ("인덱스", "index"),
    ("그래프", "graph"),
    ("라이선스", "license"),
    ("카피레프트", "copyleft"),
    ("세그먼트", "segment"),
    ("레지스터", "register"),
    ("컴퓨터", "computer"),
    ("플로이드", "Floyd"),
    ("튜플", "tuple"),
    ("모듈", "module"),
    ("스택", "stack"),
    ("테이블", "table"),
    ("엔디안", "endian"),
    ("스레드", "thread"),  # th heard as ㅅ
    ("메서드", "method"),
    ("리스너", "listener"),  # a t English does not say (the walkthrough's refused "리스너를 제거하려면 어떻게 해?")
    ("리스닝", "listening"),
]


@pytest.mark.parametrize(("hangul", "latin"), PAIRS)
def test_a_loanword_and_its_original_share_a_skeleton_and_their_vowels_agree(hangul, latin):
    assert looks_borrowed(hangul)
    assert hangul_key(hangul) in latin_keys(latin)
    assert vowels_agree(hangul, latin)


def test_spellings_one_consonant_apart_are_close_only_as_the_scripts_differ():
    assert keys_close(hangul_key("다익스트라"), latin_key("dijkstra"))  # a glide Korean does not write
    assert keys_close(hangul_key("알고리즘"), latin_key("algorithm"))  # a consonant heard otherwise
    assert any(keys_close(hangul_key("에라토스테네스"), key) for key in latin_keys("eratosthene"))  # its stem lost the s
    assert not keys_close(hangul_key("컴포넌트"), latin_key("compendium"))  # another consonant: another word
    assert not keys_close(hangul_key("프림"), latin_key("prism"))  # short skeletons are never one-off (PLM, PLSM)


def test_sino_korean_and_native_words_do_not_look_borrowed():
    for word in ("정렬", "문제", "실제", "세계", "그들", "그대로", "모르다", "계산", "간선"):
        assert not looks_borrowed(word), word


def test_vowels_tell_apart_words_of_one_short_skeleton():
    assert vowels_agree("스택", "stack") and not vowels_agree("스택", "static")
    assert vowels_agree("파인드", "find") and not vowels_agree("이벤트", "find")
    assert not vowels_agree("페르마", "prim")  # Fermat's PLM is Prim's, but not its vowels
    assert vowels_agree("프로그램", "program") and not vowels_agree("프로그래머", "program")
    assert vowels_agree("다익스트라", "dijkstra", loose=True) and not vowels_agree("이러한인터럽트", "reentrant", loose=True)


def test_an_index_names_the_most_used_word_a_skeleton_may_spell():
    english = KeyIndex.build([("stack", 40), ("static", 3), ("dijkstra", 5), ("prim", 2), ("channel", 9), ("thread", 7)], latin_keys)

    def names(word: str) -> list[str]:
        key = hangul_key(word)
        return english.names(
            key, close=lambda latin: keys_close(key, latin), agrees=lambda latin, loose: vowels_agree(word, latin, loose=loose)
        )

    assert names("스택") == ["stack"]
    assert names("다익스트라") == ["dijkstra"]
    assert names("프림") == ["prim"]
    assert names("페르마") == []
    assert names("유니온") == []  # "NN": too short to name one word
    assert names("스레드") == ["thread"]
    korean = KeyIndex.build([("라이선스", 30), ("카피레프트", 4)], hangul_key)
    assert korean.names(
        latin_key("copyleft"),
        close=lambda hangul: keys_close(hangul, latin_key("copyleft")),
        agrees=lambda hangul, loose: vowels_agree(hangul, "copyleft", loose=loose),
    ) == ["카피레프트"]
