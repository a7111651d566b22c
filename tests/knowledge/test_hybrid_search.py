"""Lexical (BM25), hybrid and multi-query search on real data, and their scoping."""

import json

import pytest
from django.core.management import call_command

from knowledge import selectors
from knowledge.models import ChunkTerm
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db(transaction=True)

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
        from baeum.llm import Completion, LLMError

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
