from collections import Counter

import numpy as np

from baeum.language.analysis import analyze, stem_english
from baeum.metrics import percentile, rank_of, retrieval_summary
from baeum.retrieval import rerank


def _words(text):
    return {term for term in analyze(text) if not term.startswith("~")}


def test_korean_particles_and_endings_are_dropped():
    assert "레지스터" in _words("레지스터는 빠르다") & _words("레지스터를 빠르게")
    terms = _words("반류마루는 누구에게 양도되기로 약속되었는가?")
    assert {"반류마루", "양도", "약속"} <= terms
    assert not terms & {"는", "에게", "로", "었", "는가"}


def test_hangul_bigrams_match_compounds_written_without_spaces():
    assert "~핸들" in set(analyze("인터럽트핸들러들의주소값")) & set(analyze("인터럽트 핸들러"))


def test_korean_text_without_spaces_still_yields_nouns():
    assert {"주소", "보관"} <= set(analyze("인터럽트핸들러들의주소값을보관한다"))


def test_english_is_lowercased_stemmed_and_stopwords_dropped():
    assert analyze("The Functions were called recursively") == ["function", "call", "recursively"]
    assert stem_english("libraries") == "library"
    assert stem_english("running") == "run"


def test_identifiers_stay_whole_and_split_into_parts():
    terms = analyze("Order ORD-2024-001 uses asyncio.run")
    assert "ord-2024-001" in terms and "2024" in terms
    assert "asyncio.run" in terms and "asyncio" in terms


def test_mixed_korean_and_english_use_the_same_analysis_at_index_and_query_time():
    document = analyze("Python의 asyncio.run() 함수를 사용했다")
    query = analyze("asyncio.run 함수를 사용하는 방법")
    assert {"asyncio.run", "함수", "사용"} <= set(document) & set(query)


def test_keyword_weighted_rerank_mixes_vector_and_keyword_scores():
    scores = rerank.keyword_weighted(vector_scores=[0.8, 0.5], keyword_scores=[0.0, 1.0])
    assert scores == [0.8 * 0.7, 0.5 * 0.7 + 0.3]
    assert rerank.keyword_overlap(Counter(["a", "b"]), Counter(["b", "c"])) == 0.5


def test_mmr_prefers_diverse_results():
    query = np.array([1.0, 0.0, 0.0])
    near = np.array([0.99, 0.1, 0.0])
    duplicate = np.array([0.98, 0.12, 0.0])
    different = np.array([0.6, 0.0, 0.8])
    assert rerank.mmr(query, [near, duplicate, different], k=2, diversity=0.5) == [0, 2]
    assert rerank.mmr(query, [near, duplicate, different], k=2, diversity=0.0) == [0, 1]


def test_llm_scores_are_parsed_defensively():
    assert rerank.parse_llm_scores("[3, 9, 1]", 3) == [3.0, 9.0, 1.0]
    assert rerank.parse_llm_scores('Scores: {"1": 2, "2": 8}', 2) == [2.0, 8.0]
    assert rerank.parse_llm_scores("[1] = 7\n[2] = 4", 2) == [7.0, 4.0]
    assert rerank.parse_llm_scores("passage two is best", 2) is None
    assert rerank.parse_llm_scores("[1, 2]", 3) is None


def test_metrics_summarise_ranks():
    summary = retrieval_summary([1, 2, None, 11], [10.0, 20.0, 30.0, 40.0], mode="hybrid")
    assert summary["recall@1"] == 0.25 and summary["recall@5"] == 0.5 and summary["recall@10"] == 0.5
    assert summary["mrr@10"] == round((1 + 0.5) / 4, 4)
    assert summary["latency_ms"] == {"p50": 25.0, "p95": 38.5}
    assert rank_of("b", ["a", "b"]) == 2 and rank_of("z", ["a"]) is None
    assert percentile([], 0.5) == 0.0


def test_a_name_and_its_number_are_also_one_term_as_books_run_them_together():
    """ "How do I compute a SHA-256 hash?" over a manual writing "SHA256" (a walkthrough's learner got SM3)."""
    from baeum.language.analysis import analyze

    assert "sha256" in analyze("SHA-256") and "sha256" in analyze("SHA256") and "utf8" in analyze("UTF-8")
    assert "gpl30" not in analyze("GPL-3.0") and "x8664" not in analyze("x86-64")  # a version or two codes stay apart


def test_a_search_for_a_name_and_its_number_counts_it_once_whichever_way_a_page_writes_it():
    """A page writing "SHA-256" (SM3's "equivalent to SHA-256") had matched the query's four terms, the SHA256
    section one: a search looks for the run-together term only, which both spellings index."""
    from baeum.language.analysis import analyze

    assert analyze("How do I compute a SHA-256 hash?", query=True) == analyze("How do I compute a SHA256 hash?", query=True)
    assert "sha256" in analyze("its security is equivalent to SHA-256", query=False)  # pages still index every form
    assert "gpl-3.0" in analyze("GPL-3.0", query=True)  # a version is no name with its number


def test_a_word_joined_in_camel_case_is_indexed_by_its_words_too():
    # Node's "The rl.close() method closes the InterfaceConstructor instance …" had shared no word with "How do I
    # close the interface?".
    assert analyze("the InterfaceConstructor instance") == ["interfaceconstructor", "interface", "constructor", "instance"]
    assert analyze("readline.createInterface(options)") == [
        "readline.createinterface",
        "readline",
        "createinterface",
        "create",
        "interface",
        "option",
    ]
    assert analyze("GPUs and JPMorgan") == ["gpus", "jpmorgan"]  # no lower-case letter before a capital: one word
    assert analyze("as oF Q2") == ["q2"]  # a stop word typed with a capital is still a stop word (a filing question)


def test_a_command_line_option_is_a_term_as_written():
    # "What does the -k option do?": "-k" is in the manual's "-k, --keep", not in every "Ctrl+K".
    assert analyze("-k, --keep 입력 파일을 삭제하지 않습니다.")[-4:] == ["-k", "k", "--keep", "keep"]
    assert analyze("What does the -k option do?", query=True) == ["-k", "k", "option"]
    assert "-k" not in analyze("Ctrl+K deletes; a well-known e-mail; x - y")
