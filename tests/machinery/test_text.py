import unicodedata

from baeum.language.text import estimate_tokens, normalize_query, normalize_text, run_together_stats, split_sentences


def test_token_estimate_uses_per_script_rates():
    assert estimate_tokens("abcd" * 10) == 10  # Latin: 4 chars per token
    assert estimate_tokens("가나다" * 2) == 4  # Hangul: 1.5 chars per token
    assert estimate_tokens("😀😀😀") == 3  # emoji: 1 token each
    assert estimate_tokens("абв") == 1  # other scripts: ~3 chars per token
    assert estimate_tokens("") == 0


def test_korean_costs_more_tokens_than_english_of_the_same_length():
    assert estimate_tokens("한국어문장" * 10) >= 2 * estimate_tokens("hello" * 10)


def test_normalize_text_composes_joins_hyphenation_and_tidies_space():
    decomposed = unicodedata.normalize("NFD", "한글")
    text = normalize_text(f"{decomposed}  text\twith   gaps\nexam-\nple\n\n\n\nnext\x00")
    assert "한글 text with gaps" in text
    assert "example" in text
    assert "\n\n\n" not in text
    assert "\x00" not in text
    assert unicodedata.is_normalized("NFC", text)


def test_normalize_query_drops_punctuation_and_case_but_keeps_codes():
    assert normalize_query("  What is ORD-2024-001?! ") == "what is ord-2024-001"
    assert normalize_query("레지스터는 무엇인가?") == "레지스터는 무엇인가"


def test_sentences_split_english_and_korean_without_spaces():
    assert split_sentences("It rains. It pours! Does it? Yes.") == ["It rains.", "It pours!", "Does it?", "Yes."]
    assert split_sentences("사용할것이다.이는인터넷에서받을수있다.") == ["사용할것이다.", "이는인터넷에서받을수있다."]
    assert split_sentences("See e.g. the manual. Done.") == ["See e.g. the manual.", "Done."]


def test_normalize_text_spells_out_ligatures_and_leaves_other_compatibility_forms_alone():
    assert normalize_text("deﬁnes ﬂow oﬀ ﬃ ﬄ ﬅ ﬆ") == "defines flow off ffi ffl st st"
    assert normalize_text("ＡＢＣ ㄱㄴ ① ｶ") == "ＡＢＣ ㄱㄴ ① ｶ"  # NFKC would turn these into ABC, ᄀᄂ, 1, カ


def test_normalize_text_joins_words_broken_by_hyphenation_marks():
    assert normalize_text("exam-\nple") == "example"
    assert normalize_text("Com\ufffemons and IN\ufffeTEL") == "Commons and INTEL"  # PDFium's mark for a line-end hyphen
    assert normalize_text("hyphen\u0002ation") == "hyphenation"
    assert normalize_text("soft\u00ad\r\nhyphen and in\u00advisible") == "softhyphen and invisible"
    assert normalize_text("Chapter 2-\nIntroduction") == "Chapter 2-\nIntroduction"  # a real dash before a line break stays


def test_normalize_text_turns_pdfium_line_ends_into_newlines():
    assert normalize_text("first line\r\nsecond line\rthird") == "first line\nsecond line\nthird"


def test_run_together_stats_measures_glued_korean_and_english():
    assert run_together_stats("") == {"hangul_share_in_long_runs": 0.0, "long_latin_words": 0}
    spaced = "레지스터는 데이터를 저장하는 작은 메모리이다. Registers hold data."
    assert run_together_stats(spaced) == {"hangul_share_in_long_runs": 0.0, "long_latin_words": 0}
    glued = "레지스터는데이터를저장하는 작은"  # 13 of 15 syllables in one run of 13
    assert run_together_stats(glued)["hangul_share_in_long_runs"] == 13 / 15
    assert run_together_stats("가나다라마바사아자 차")["hangul_share_in_long_runs"] == 0.0  # a run of 9 is not long
    english = "thisisawordthatrunsontoolong and characteristically internationalization"
    assert run_together_stats(english)["long_latin_words"] == 2  # 28 and 20 letters; "characteristically" has 18


def test_normalize_text_reads_adobe_private_use_letters_and_drops_formula_brace_pieces():
    assert normalize_text("제 7 장 80\uf77886 명령어") == "제 7 장 80x86 명령어"  # small-cap x, as pcasm-book-korean.pdf has it
    assert normalize_text("A(m, n) =\n\uf8f1\n\uf8f4\uf8f2\n\uf8f4\uf8f3\nn + 1 if m = 0") == "A(m, n) =\nn + 1 if m = 0"
    assert normalize_text("Java\uf8ea and \ue062is") == "Java™ and \ue062is"  # a font's own private glyphs stay: no way to know them


def test_an_ellipsis_that_elides_a_range_or_a_list_ends_no_sentence():
    # The xz manual: "-9 압축 사전 설정 수준을 선택합니다." had been quoted alone, saying what "-0 ... -9" does.
    assert split_sentences("-0 ... -9 압축 사전 설정 수준을 선택합니다. 기본값은 -6입니다.") == [
        "-0 ... -9 압축 사전 설정 수준을 선택합니다.",
        "기본값은 -6입니다.",
    ]
    assert split_sentences("Values a, b, ... z are kept. Next.") == ["Values a, b, ... z are kept.", "Next."]
    assert split_sentences("He waited... Then he left.") == ["He waited...", "Then he left."]  # before a capital: an end


def test_a_question_mark_that_is_a_token_or_a_macros_mark_ends_no_korean_sentence():
    """Rust by Example in Korean: "? 연산자" is the error operator, "try!" a macro; cut there, the answer had
    quoted "연산자를 사용하는 것이 더 쉬울 때가 많습니다." and a key point "… 동일한 기능을 try!"."""
    from baeum.language.text import split_sentences

    assert split_sentences("오류는 match 보다 ? 연산자를 쓰는 것이 더 쉽습니다. ? 연산자가 권장됩니다.") == [
        "오류는 match 보다 ? 연산자를 쓰는 것이 더 쉽습니다.",
        "? 연산자가 권장됩니다.",
    ]
    assert split_sentences("매크로 ?가 나오기 전에는 동일한 기능을 try! 매크로로 구현했습니다. 지금은 쓰지 않습니다.") == [
        "매크로 ?가 나오기 전에는 동일한 기능을 try! 매크로로 구현했습니다.",
        "지금은 쓰지 않습니다.",
    ]
    assert split_sentences("What is this? It is a stack! 정말요? 네!") == ["What is this?", "It is a stack!", "정말요?", "네!"]


def test_a_note_in_brackets_that_ends_its_line_is_the_sentence_befores():
    # Walkthrough 22: each item's version opened the next item, so "두 번째 항목은 뭐야?" told the wrong version.
    text = (
        "kiwipiepy.continual_typos ('continual'): 연철 오타를 교정하는\n오타 정의자입니다. (v0.17.1부터 지원)\n"
        "kiwipiepy.lengthening_typos ('lengthening'): 늘려 적은 오타를 교정하는 오타 정의자입니다. (v0.19.0부터 지원)\n"
        "위의 기본 오타 정의자를 사용할 수 있습니다."
    )
    assert split_sentences(text) == [
        "kiwipiepy.continual_typos ('continual'): 연철 오타를 교정하는\n오타 정의자입니다. (v0.17.1부터 지원)",
        "kiwipiepy.lengthening_typos ('lengthening'): 늘려 적은 오타를 교정하는 오타 정의자입니다. (v0.19.0부터 지원)",
        "위의 기본 오타 정의자를 사용할 수 있습니다.",
    ]
    # Inside a line, a bracket after a full stop opens the next sentence as before; after a question mark it labels
    # an example (the KorQuAD paper's "… 몇 위야? (Short, 평문)").
    assert split_sentences("It returns zero. (Not here) And more.") == ["It returns zero.", "(Not here) And more."]
    assert split_sentences("서울의 GDP는 세계 몇 위야? (Short, 평문)\n답 1위") == ["서울의 GDP는 세계 몇 위야?", "(Short, 평문)\n답 1위"]
