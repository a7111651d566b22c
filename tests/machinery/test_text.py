import unicodedata

from baeum.text import estimate_tokens, normalize_query, normalize_text, split_sentences


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
