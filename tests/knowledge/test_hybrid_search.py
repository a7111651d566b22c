"""Lexical (BM25), hybrid and multi-query search on real data, and their scoping."""

import json

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from baeum import rules
from knowledge import selectors
from knowledge.models import Chunk, ChunkTerm, Material, MaterialPage, VocabularyWord
from knowledge.selectors import search
from knowledge.services.materials import material_delete
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

TOPICS = {
    "Registers": "레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다. 범용 레지스터는 계산 중인 데이터를 임시로 보관한다.",
    "Interrupts": "인터럽트는 프로그램의 흐름을 멈추고 이벤트를 처리하게 하는 메커니즘이다. 인터럽트 핸들러가 이벤트를 처리한다.",
    "Stack": "스택은 나중에 들어간 데이터가 먼저 나오는 구조이다. 함수 호출 시 반환 주소가 스택에 저장된다.",
    "Orders": "The shipment for order ORD-2024-001 left the warehouse on Monday. Invoices are sent by email.",
}


@pytest.fixture
def library(user, ingest):
    pages = [f"Chapter {number}\n{text}" for number, text in enumerate(TOPICS.values(), start=1)]
    return ingest(user, make_pdf(pages), "asm.pdf")


def test_postings_are_written_with_korean_morphemes(user, library):
    terms = set(ChunkTerm.objects.for_user(user).values_list("term", flat=True))
    assert {"레지스터", "인터럽트", "핸들러", "스택", "ord-2024-001"} <= terms
    assert "는" not in terms and "를" not in terms


def test_lexical_search_matches_korean_nouns_despite_particles(user, library):
    hits = selectors.chunk_search_lexical(user=user, query="인터럽트를 처리하는 핸들러는?", k=3)
    assert hits and "인터럽트 핸들러" in hits[0].chunk.content
    assert hits[0].lexical_score > 0


def test_identifier_codes_are_found_exactly(user, library):
    for mode in ("lexical", "hybrid"):
        hits = selectors.chunk_search(user=user, query="where is ORD-2024-001", mode=mode, k=1)
        assert "ORD-2024-001" in hits[0].chunk.content


def test_hybrid_ranks_the_answer_first_and_reports_both_scores(user, library):
    hits = selectors.chunk_search_hybrid(user=user, query="함수 호출 시 반환 주소는 어디에 저장되나요?", k=3)
    assert "반환 주소" in hits[0].chunk.content
    assert hits[0].vector_score is not None and hits[0].lexical_score is not None
    assert hits == sorted(hits, key=lambda hit: -hit.score)


def test_a_hit_only_bm25_found_carries_its_exact_cosine(user, library):
    """A chunk outside the vector top-N (a table row found by its numbers) still gets the cosine the
    sufficiency judgement reads: the same value the vector retriever gives it when it is inside."""
    query = "order ord-2024-001 shipment warehouse"
    scope = search._scope(user=user, ref_ids=None, type=None)
    (retrieved,) = search._vector_candidates(scope, query, 10)
    exact = search._exact_similarities(scope, query, list(retrieved.similarity))
    assert exact.keys() == retrieved.similarity.keys()
    assert all(abs(exact[chunk_id] - value) < 1e-5 for chunk_id, value in retrieved.similarity.items())
    hits = search.chunk_search_hybrid(user=user, query=query, k=4, candidates=1)  # one candidate from each retriever
    assert all(hit.vector_score is not None for hit in hits)


@pytest.mark.parametrize("reranker", ["keyword", "mmr"])
def test_rerankers_return_k_hits_from_the_candidates(user, library, reranker):
    hits = selectors.chunk_search_hybrid(user=user, query="레지스터", k=2, reranker=reranker)
    assert 1 <= len(hits) <= 2
    assert len({hit.chunk.pk for hit in hits}) == len(hits)


def test_multi_query_unions_phrasings_keeping_the_best_score(user, library):
    hits = selectors.chunk_search_multi(user=user, queries=["레지스터", "인터럽트 핸들러", "레지스터"], k=5)
    contents = " ".join(hit.chunk.content for hit in hits)
    assert "레지스터" in contents and "인터럽트" in contents
    assert len({hit.chunk.pk for hit in hits}) == len(hits)


def test_every_mode_is_scoped_to_the_requesting_user(user, other_user, ingest, library):
    # The other user owns near-duplicates of the query; they must never appear.
    ingest(other_user, make_pdf([f"Chapter 9\n{TOPICS['Interrupts']} 인터럽트 인터럽트 핸들러 핸들러."]), "theirs.pdf")
    for mode in ("semantic", "lexical", "hybrid"):
        options = {"min_similarity": -1} if mode == "semantic" else {}
        hits = selectors.chunk_search(user=user, query="인터럽트 핸들러", mode=mode, k=10, **options)
        assert hits, mode
        assert {hit.chunk.owner_id for hit in hits} == {user.pk}, mode
    hits = selectors.chunk_search_multi(user=user, queries=["인터럽트", "핸들러"], k=10)
    assert {hit.chunk.owner_id for hit in hits} == {user.pk}


def test_search_api_accepts_mode_and_rerank(api_client, library):
    for body in (
        {"query": "스택", "mode": "lexical"},
        {"query": "스택", "mode": "hybrid", "rerank": "mmr"},
        {"query": "함수 호출과 스택", "mode": "semantic"},
    ):
        response = api_client.post("/api/v1/search", body, format="json")
        assert response.status_code == 200, response.json()
        assert response.json()
    bad = api_client.post("/api/v1/search", {"query": "x", "mode": "fuzzy"}, format="json")
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "invalid"


def test_eval_retrieval_prints_the_fixed_keys_and_cleans_up(tmp_path, capsys):
    corpus = tmp_path / "corpus.jsonl"
    queries = tmp_path / "queries.jsonl"
    corpus.write_text(
        "\n".join(
            json.dumps({"doc_id": f"d{i}", "title": title, "text": text}, ensure_ascii=False)
            for i, (title, text) in enumerate(TOPICS.items())
        )
    )
    queries.write_text(
        "\n".join(
            json.dumps({"qid": f"q{i}", "question": question, "doc_id": f"d{i}"}, ensure_ascii=False)
            for i, question in enumerate(
                ["범용 레지스터의 역할은?", "인터럽트 핸들러는 무엇을 하나?", "반환 주소는 어디에 저장되나?", "When did ORD-2024-001 ship?"]
            )
        )
    )
    call_command("eval_retrieval", "--corpus", str(corpus), "--queries", str(queries), "--json")
    report = json.loads(capsys.readouterr().out)
    assert [mode["mode"] for mode in report["modes"]] == ["semantic", "lexical", "hybrid"]
    for mode in report["modes"]:
        assert set(mode) >= {"mode", "n", "recall@1", "recall@5", "recall@10", "mrr@10", "ndcg@10", "latency_ms"}
        assert mode["n"] == 4
    assert report["modes"][2]["recall@1"] == 1.0
    from knowledge.models import Material

    assert Material.objects.unscoped().count() == 0


class _ScoringLLM:
    model = "scoring"

    def __init__(self, reply=None, error=False):
        self.reply, self.error = reply, error

    def complete(self, *, system, prompt, max_tokens=800):
        from baeum.answering.llm import Completion, LLMError

        if self.error:
            raise LLMError("timed out")
        count = prompt.count("\n[")
        text = self.reply if self.reply is not None else json.dumps(list(range(count)))  # later passages score higher
        return Completion(text=text, input_tokens=1, output_tokens=1, model=self.model)


def test_llm_reranker_reorders_and_keeps_the_order_when_the_reply_is_unusable(user, library):
    plain = selectors.chunk_search_hybrid(user=user, query="레지스터 인터럽트 스택", k=4, candidates=4)
    reranked = selectors.chunk_search_hybrid(
        user=user, query="레지스터 인터럽트 스택", k=4, candidates=4, reranker="llm", llm=_ScoringLLM()
    )
    assert [hit.chunk.pk for hit in reranked] == [hit.chunk.pk for hit in reversed(plain)]
    for broken in (_ScoringLLM(reply="I think passage two"), _ScoringLLM(error=True)):
        kept = selectors.chunk_search_hybrid(user=user, query="레지스터 인터럽트 스택", k=4, candidates=4, reranker="llm", llm=broken)
        assert [hit.chunk.pk for hit in kept] == [hit.chunk.pk for hit in plain]


def _filing(owner, pages: list[str]) -> Material:
    """A material whose pages and chunks (one per page) are written as given, for title checks."""
    material = Material.objects.create(owner=owner, title="filing", original_filename="f.pdf", extension=".pdf", status="READY")
    for number, text in enumerate(pages, start=1):
        MaterialPage.objects.create(material=material, owner=owner, number=number, text=text)
        Chunk.objects.create(
            material=material,
            owner=owner,
            chunk_index=number - 1,
            page_number=number,
            page_end=number,
            content=text[:200],
            token_count=10,
            content_hash=f"h{number}",
        )
    return material


def _pages_of(chunk_ids) -> set[int]:
    return set(Chunk.objects.unscoped().filter(pk__in=chunk_ids).values_list("page_number", flat=True))  # the test's own rows


def test_a_named_source_counts_only_pages_titled_with_it_as_a_reader_sees_them(user, other_user):
    pages = [
        # A sentence that mentions the statements is not their title.
        "Annual Report 2018\nThe consolidated statements of cash flows show how cash moved during the year; the notes explain each line.",
        # The title written with a no-break space, two spaces and a tab, in capitals.
        "Acme Corp\nCONSOLIDATED\u00a0STATEMENTS  OF\tCASH FLOWS\n(Millions)\nPurchases of property, plant and equipment (1,577)",
        # Below the eighth line: not the page's title.
        "Acme Corp\n" + "\n".join(f"line {number}" for number in range(8)) + "\nConsolidated Statements of Cash Flows (continued)",
        "CONSOLIDATED BALANCE SHEETS\nTotal assets 36,500",
        # A first line longer than the head window: the title on the second line is still read.
        "x" * (search.TITLE_HEAD_CHARS + 100) + "\nStatements of Cash Flows",
    ]
    mine = _filing(user, pages)
    theirs = _filing(other_user, pages)
    scope = search._Scope(owner_ids=[user.pk], material_ids=[mine.pk], by_model={})
    assert _pages_of(search._source_chunks(scope, ["cash flow statement"])) == {2, 5}
    assert _pages_of(search._source_chunks(scope, ["balance sheet"])) == {4}
    assert search._source_chunks(scope, []) == set()
    # Another learner's identical pages are never among them, even when their material is named.
    crossing = search._Scope(owner_ids=[user.pk], material_ids=[mine.pk, theirs.pk], by_model={})
    found = search._source_chunks(crossing, ["cash flow statement"])
    assert set(Chunk.objects.unscoped().filter(pk__in=found).values_list("owner_id", flat=True)) == {user.pk}  # checking the owner


def test_the_question_naming_its_source_gets_the_titled_page_first(user, ingest):
    pages = [
        "Management discussion\nCapital expenditure rose as the company bought property, plant and equipment for new plants. "
        "Capital expenditure is discussed with the statement of cash flows in mind throughout this section.",
        "Consolidated Statements of Cash Flows\nYears ended December 31 2018 2017\nPurchases of property, plant and equipment (1,577) (1,373)\n"
        "Net cash used in investing activities (222) (3,086)",
        "Consolidated Balance Sheets\nProperty, plant and equipment, net 8,738 8,866\nTotal assets 36,500 37,987",
    ]
    material = ingest(user, make_pdf(pages), "filing.pdf")
    question = "What is the FY2018 capital expenditure amount (in USD millions)? Give a response by relying on the details shown in the cash flow statement."
    hits = selectors.chunk_search_hybrid(user=user, query=question, ref_ids=[material.ref_id], k=3)
    assert hits[0].chunk.page_number <= 2 <= hits[0].chunk.page_end


def test_several_codes_in_one_question_are_each_found_verbatim(user, ingest):
    material = ingest(
        user,
        make_pdf(["Order ORD-2024-001 shipped on Monday.", "Order ORD-2024-002 waits for stock.", "Invoices go out by email."]),
        "orders.pdf",
    )
    hits = selectors.chunk_search_lexical(user=user, query="ORD-2024-001 and ORD-2024-002 and 50%_off", ref_ids=[material.ref_id], k=3)
    contents = " ".join(hit.chunk.content for hit in hits[:2])
    assert "ORD-2024-001" in contents and "ORD-2024-002" in contents


def test_a_question_asked_again_is_not_embedded_again(user, library, monkeypatch):
    from core.providers import embedder_for_model

    embedder = embedder_for_model(library.embedding_model)
    calls = []
    original = type(embedder).embed_query
    monkeypatch.setattr(type(embedder), "embed_query", lambda self, text: calls.append(text) or original(self, text))
    question = "레지스터는 어디에 있나요? (a question asked twice)"
    first = selectors.chunk_search_hybrid(user=user, query=question, k=3)
    again = selectors.chunk_search_hybrid(user=user, query=question, k=3)
    assert len(calls) == 1
    assert [(hit.chunk.pk, hit.score) for hit in again] == [(hit.chunk.pk, hit.score) for hit in first]


def test_vector_scans_keep_their_settings_across_transactions(user, library, monkeypatch):
    from knowledge.selectors import search

    monkeypatch.setattr(search, "EXACT_SCAN_VECTORS", 0)  # the approximate (HNSW) path, as for a library past 5,000 vectors

    def settings_now():
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('hnsw.iterative_scan'), current_setting('hnsw.ef_search')")
            return cursor.fetchone()

    with transaction.atomic():  # inside a transaction: local to it, gone with its rollback
        assert selectors.chunk_search_hybrid(user=user, query="스택", k=3)
        assert settings_now() == ("relaxed_order", "60")
        transaction.set_rollback(True)
    assert selectors.chunk_search_hybrid(user=user, query="스택", k=3)
    assert settings_now() == ("relaxed_order", "60")  # made for the session, once
    assert selectors.chunk_search_semantic(user=user, query="스택", k=5, min_similarity=-1)
    assert settings_now() == ("relaxed_order", "40")


def test_a_hybrid_search_is_four_round_trips(user, library, django_assert_num_queries):
    # Vectors, BM25, a code and a named source: every retriever has work.
    question = "What does the interrupt handler do for ORD-2024-001? Answer from the statement of cash flows."
    selectors.chunk_search_hybrid(user=user, query="스택", ref_ids=[library.ref_id], k=3)  # the session's scan settings, once
    search.loanword_names(user=user, question="interrupt", material_ids=[library.pk])  # the library's loanwords, once
    # The library is Korean: an English question also reads the learner's glossary (one more round trip).
    with django_assert_num_queries(5):  # the scope (2), the glossary, every retriever in one statement, the hits
        hits = selectors.chunk_search_hybrid(user=user, query=question, ref_ids=[library.ref_id], k=3)
    assert hits
    with django_assert_num_queries(4):  # a question in the library's language: the scope (2), the retrievers, the hits
        assert selectors.chunk_search_hybrid(
            user=user, query="인터럽트 핸들러는 ORD-2024-001 에 무엇을 하나요?", ref_ids=[library.ref_id], k=3
        )


def test_a_material_records_whether_it_is_written_in_korean(user, ingest, library):
    english = ingest(user, make_pdf(["Recursion\nA recursive function calls itself until it reaches a base case."]), "en.pdf")
    assert library.korean is True and english.korean is False


def test_an_english_question_over_korean_materials_searches_keywords_only_for_what_both_write_alike(user, ingest):
    # A Korean page that answers, and a Korean page whose code listing repeats the question's English words.
    korean = ingest(
        user,
        make_pdf(
            [
                "2의 보수\n음수는 2의 보수로 나타낸다. 2의 보수는 모든 비트를 뒤집은 뒤 1을 더해서 구한다. 예를 들어 00111000의 2의 보수는 11001000이다.",
                "예제 프로그램\n아래 코드는 입력을 읽고 결과를 출력한다.\n; find the number\nmov eax, number ; the number to find\n"
                "call find_number ; find it in the number table\n; print the number of a complement",
            ]
        ),
        "kor.pdf",
    )
    question = "How do you find the two's complement of a number in EAX?"
    scope = search._scope(user=user, ref_ids=[korean.ref_id], type=None)
    assert scope.korean is True
    params = search._lexical_statements(scope, question, 10)["bm25"].params
    # "eax" is written alike; the other English words count only where the Korean text writes them rarely,
    # and no word is rare in two pages (``RARE_LATIN_MAX_SHARE``, ``SMALL_CORPUS_CHUNKS``).
    assert params["terms"][0] == "eax" and "eax" not in params["rare_only"] and "complement" in params["rare_only"]
    hits = selectors.chunk_search_hybrid(user=user, query=question, ref_ids=[korean.ref_id], k=2)
    assert hits[0].chunk.page_number == 1
    # A Korean question over the same material keeps every keyword.
    assert "보수" in search._lexical_statements(scope, "2의 보수는 어떻게 구하나요?", 10)["bm25"].params["terms"]


GLOSSED_KOREAN = "2 의 보수\n컴퓨터는 음수를 2 의 보수 (two’s complement) 로 나타낸다. 분기 명령 (branch instruction) 은 흐름을 옮긴다."
ENGLISH_PAGES = [
    "Integers\nThe two’s complement of a number is found by inverting every bit and adding one. Modern computers use it.",
    "Branches\nA branch instruction transfers the flow of execution to another part of the program.",
    "Memory\nA segment is a contiguous block of memory addressed by a selector and an offset.",
]


def test_the_learners_own_korean_glosses_name_the_english_terms_of_a_korean_question(user, other_user, ingest):
    english = ingest(user, make_pdf(ENGLISH_PAGES), "english.pdf")
    ingest(other_user, make_pdf([GLOSSED_KOREAN]), "theirs.pdf")
    assert search.glosses(user=user, question="2의 보수는 어떻게 구하나요?") == []  # another learner's glosses are theirs

    ingest(user, make_pdf([GLOSSED_KOREAN]), "korean.pdf")
    assert search.glosses(user=user, question="2의 보수는 어떻게 구하나요?") == ["two's complement"]
    # "분기 명령 (branch instruction)" names "분기 명령", not every "명령" a question mentions.
    assert search.glosses(user=user, question="CALL 명령은 무슨 일을 하나요?") == []
    hits = selectors.chunk_search_hybrid(user=user, query="2의 보수는 어떻게 구하나요?", ref_ids=[english.ref_id], k=1)
    assert hits[0].chunk.page_number == 1


def test_an_english_question_over_korean_materials_is_searched_with_their_korean_names(user, other_user, ingest):
    korean_pages = [
        GLOSSED_KOREAN,
        "세그먼트\n반드시 세그먼트 (segment) 는 메모리의 연속된 블록이다. 셀렉터와 오프셋으로 주소를 지정한다.",
        "레지스터\n범용 레지스터는 계산 중인 값을 보관한다. 플래그 레지스터는 비교 결과를 담는다.",
    ]
    ingest(other_user, make_pdf(korean_pages), "theirs.pdf")
    assert search.korean_names(user=user, question="What does a branch instruction do?") == []

    korean = ingest(user, make_pdf(korean_pages), "korean.pdf")
    assert search.korean_names(user=user, question="What does a branch instruction do?") == ["분기 명령"]
    assert search.korean_names(user=user, question="What is a segment?") == ["세그먼트"]  # not "반드시 세그먼트"
    assert search.korean_names(user=user, question="What is an instruction?") == []  # a gloss the question only half names
    hits = selectors.chunk_search_hybrid(user=user, query="What does a branch instruction do?", ref_ids=[korean.ref_id], k=1)
    assert hits[0].chunk.page_number == 1


def test_a_section_titled_with_what_is_asked_gains_on_a_page_that_only_mentions_it(user, ingest):
    """Nettle's SM3 section compares itself to SHA-256 in the words of "How do I compute a SHA-256 hash?"; the
    section titled "SHA256" is what it asks for: a candidate gains ``HEADING_WEIGHT`` times how well its section's
    title matches the query (the Dice coefficient of their terms), and the best are ordered again."""
    pages = [
        "Chapter 1 SM3\nSM3 is a hash standard of China. Its security and efficiency are equivalent to SHA-256.",
        "Chapter 2 SHA256\nYou compute the hash by calling the init function, then update, then digest.",
    ]
    book = ingest(user, make_pdf(pages), "crypto.pdf")
    sm3, sha256 = (Chunk.objects.for_user(user).get(material=book, page_number=page).pk for page in (1, 2))
    ranked, _ = search._with_heading_evidence(user, [(sm3, 0.5), (sha256, 0.45)], "compute sha-256 hash", 30)
    assert [chunk_id for chunk_id, _ in ranked] == [sha256, sm3]
    assert dict(ranked)[sha256] == pytest.approx(0.45 + search.HEADING_WEIGHT * 2 / (3 + 1))  # "sha256" shared, 3 + 1 terms


def test_a_section_opening_inside_a_chunk_is_evidence_by_its_title(user, ingest):
    """Node's "### Object mode" opened after the code that ends the section before it, inside one chunk whose
    title was the previous section's: "What is object mode?" was answered from "Two reading modes" ("A Readable
    stream can be in object mode or not …"), and never said what object mode is. Every heading a chunk holds is
    now recorded (``heading_spans``) and matched; a title naming only what is asked matches best."""
    text = (
        "## Finished\n\nThe finished API also provides a callback version, which waits for a stream to end.\n\n"
        "### Object mode\n\nAll streams created by the API operate on strings and buffers. Streams that work with other "
        "values are considered to operate in object mode.\n"
    )
    book = ingest(user, text.encode(), "streams.md")
    chunk = Chunk.objects.for_user(user).get(material=book)
    assert chunk.section_title == "Finished"
    assert [chunk.content[start:end] for start, end, _ in chunk.heading_spans] == ["Finished", "Object mode"]
    assert search.chunk_headings(chunk) == ["Finished", "Object mode"]
    ranked, _ = search._with_heading_evidence(user, [(chunk.pk, 0.5)], "What is object mode?", 30)
    assert ranked == [(chunk.pk, pytest.approx(0.5 + search.HEADING_WEIGHT))]  # the title is exactly what is asked
    ranked, _ = search._with_heading_evidence(user, [(chunk.pk, 0.5)], "What are the reading modes of an object?", 30)
    assert ranked == [(chunk.pk, pytest.approx(0.5 + search.HEADING_WEIGHT * 2 * 2 / (3 + 2)))]


def test_a_loanword_is_searched_as_the_materials_spell_it_in_the_other_script(user, other_user, ingest):
    """ "크루스칼 알고리즘은 간선을 어떤 순서로 처리해?" over an English handbook: no gloss names Kruskal in Hangul,
    so nothing but meaning searched for it; "What is copyleft?" over a Korean guide, the same for "카피레프트"."""
    english = ingest(
        user,
        make_pdf(
            [
                "Chapter 1 Sorting\nSorting puts the elements of an array in increasing order. Merge sort splits the array in halves.",
                "Chapter 2 Spanning trees\nKruskal's algorithm processes the edges in increasing order of their weights.",
                "Chapter 3 Shortest paths\nDijkstra's algorithm finds the shortest paths from a starting node.",
            ]
        ),
        "handbook.pdf",
    )
    korean = ingest(
        user,
        make_pdf(
            ["제1장 허가\n허가는 저작물을 쓰도록 허락하는 것이다.", "제2장 카피레프트\n카피레프트는 파생작도 같은 조건으로 배포하게 한다."]
        ),
        "guide.pdf",
    )
    both = [english.pk, korean.pk]
    assert search.loanword_names(user=user, question="크루스칼 알고리즘은 간선을 어떤 순서로 처리해?", material_ids=both) == ["kruskal"]
    assert search.loanword_names(user=user, question="다익스트라 알고리즘이 뭐야?", material_ids=both) == ["dijkstra"]
    assert search.loanword_names(user=user, question="What is copyleft?", material_ids=both) == ["카피레프트"]
    assert search.loanword_names(user=user, question="정렬은 어떻게 해?", material_ids=both) == []  # a Sino-Korean word is no loanword
    # Another learner naming the same materials reads nothing of them (the postings are read in their scope).
    assert search.loanword_names(user=other_user, question="크루스칼 알고리즘은 간선을 어떤 순서로 처리해?", material_ids=both) == []
    hits = selectors.chunk_search_hybrid(user=user, query="크루스칼 알고리즘은 간선을 어떤 순서로 처리해?", ref_ids=[english.ref_id], k=1)
    assert hits[0].chunk.page_number == 2
    hits = selectors.chunk_search_hybrid(user=user, query="What is copyleft?", ref_ids=[korean.ref_id], k=1)
    assert hits[0].chunk.page_number == 2
    with rules.switched_off(["search:loanwords"]):
        assert search.loanword_names(user=user, question="크루스칼 알고리즘은 간선을 어떤 순서로 처리해?", material_ids=both) == []
    with rules.counting() as fired:
        search.names_in_other_language(user=user, question="다익스트라 알고리즘이 뭐야?", material_ids=both)
    assert fired["search:loanwords"] == 1


def test_a_korean_noun_is_searched_as_the_english_materials_nearest_word_by_meaning(
    user, other_user, ingest, django_capture_on_commit_callbacks
):
    """ "연산자는 뭐야?" over Think Python: no gloss names "연산자" and it is no loanword, so its English name came from
    nowhere and a Korean learner's first question was answered from the sorting chapter. The vocabulary stored with
    the postings names it: the book's word nearest "연산자" by meaning is "operator"."""
    with django_capture_on_commit_callbacks(execute=True) as queued:  # the vocabulary is written by a background task
        english = ingest(
            user,
            make_pdf(
                [
                    "Chapter 1 Sorting\nSorting puts the elements of a list in increasing order. Sorting uses comparisons.",
                    "Chapter 2 Operators\nAn operator is a symbol that represents a computation. The operator + adds numbers.",
                    "Chapter 3 Files\nA file keeps data after the program ends. Open the file before you read it.",
                ]
            ),
            "python.pdf",
        )
        korean = ingest(
            user,
            make_pdf(["제1장 예외\n예외는 프로그램이 실행 중에 만나는 오류다.", "제2장 예외 처리\n예외를 처리하지 않으면 멈춘다."]),
            "guide.pdf",
        )
    assert VocabularyWord.objects.for_user(user).filter(material=english).exists() and len(queued) >= 2
    assert search.meaning_names(user=user, question="연산자는 뭐야?", material_ids=[english.pk]) == ["operator"]
    # The question's frame and its verbs name nothing ("방법"; "열"): only what it asks about is looked up.
    assert search.meaning_names(user=user, question="파일을 여는 방법은?", material_ids=[english.pk]) == ["file"]
    # Not the other way: an English word alone is ambiguous ("instruction" was given "지시", directive).
    assert search.meaning_names(user=user, question="What is an exception?", material_ids=[korean.pk]) == []
    hits = selectors.chunk_search_hybrid(user=user, query="연산자는 뭐야?", ref_ids=[english.ref_id], k=1)
    assert hits[0].chunk.page_number == 2
    # Another learner naming the same materials reads none of their words.
    assert search.meaning_names(user=other_user, question="연산자는 뭐야?", material_ids=[english.pk]) == []
    with rules.switched_off(["search:term-meaning"]):
        assert search.meaning_names(user=user, question="연산자는 뭐야?", material_ids=[english.pk]) == []
    with rules.counting() as fired:
        search.names_in_other_language(user=user, question="연산자는 뭐야?", material_ids=[english.pk])
    assert fired["search:term-meaning"] == 1
    # Deleting a material deletes its vocabulary (reading it again writes a new one).
    material_delete(material=english)
    assert not VocabularyWord.objects.for_user(user).filter(material_id=english.pk).exists()


def test_a_what_is_question_ranks_first_the_chunk_that_defines_its_term(user, other_user, ingest):
    """Walkthrough 26, a CRC paper nobody tuned on: "What is a CRC?" was answered from the performance tables and then
    refused, because "CRC" is on every page (BM25 gives it nothing) and the page that says "Cyclic Redundancy Check (CRC)
    is a well-known technique …" ranked outside both retrievers' first 30. A chunk with a sentence defining the asked
    term now comes first (``search:defines-term``), wherever the two retrievers put it; also for "CRC가 뭐야?"."""
    filler = " ".join(f"Step {n} of the loop shifts the register and reads the table again." for n in range(40))
    pages = [
        f"CRC tables and CRC speed. What is a fast CRC? The CRC table holds 256 CRC entries. {filler}",
        "Cyclic Redundancy Check (CRC) is a well-known technique that allows the recipient of a message to detect "
        f"whether the message has been corrupted. {filler}",
        *[f"What a CRC of part {n} is: the CRC register and the CRC polynomial give the CRC value {n}. {filler}" for n in range(3, 9)],
    ]
    book = ingest(user, make_pdf(pages), "crc.pdf")
    ingest(other_user, make_pdf(pages), "crc.pdf")
    defining = Chunk.objects.for_user(user).get(material=book, content__contains="Cyclic Redundancy Check")
    with rules.counting() as fired:
        hits = selectors.chunk_search_hybrid(user=user, query="What is a CRC?", ref_ids=[book.ref_id], k=3)
        korean = selectors.chunk_search_hybrid(user=user, query="CRC가 뭐야?", ref_ids=[book.ref_id], k=3)
    assert hits[0].chunk.pk == defining.pk and korean[0].chunk.pk == defining.pk
    assert fired[search.DEFINES_TERM.name] == 2
    assert {hit.chunk.owner_id for hit in hits} == {user.pk}  # the other learner's copy defines it too, and is never read
    with rules.switched_off([search.DEFINES_TERM.name]):
        before = selectors.chunk_search_hybrid(user=user, query="What is a CRC?", ref_ids=[book.ref_id], k=3)
    assert before[0].chunk.pk != defining.pk
    # Not a what-is question, nothing is looked up.
    assert search._definition_statement(search._scope(user=user, ref_ids=[book.ref_id], type=None, ranges=()), "How fast is a CRC?") is None
