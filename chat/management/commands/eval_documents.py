"""`manage.py eval_documents`: real PDFs with questions and evidence pages, through the real pipeline.

Input: a JSON Lines file of ``{question, doc_name, evidence: [{evidence_page}]}`` (the format of
../shared/eval/financebench_dev/questions.jsonl) and the folder of ``<doc_name>.pdf`` files. Every PDF
is ingested for a throwaway user exactly as an upload is; each question is searched within its own
document. A hit covers the pages of its own text (``pageNumber``..``pageEnd``); a question is a hit at
k when an evidence page is among the pages the top-k hits cover. Reported: page-hit@1/@5 and MRR@5 for
Baeum's search and, in the same run, for an off-the-shelf baseline (bm25s with an English stemmer over
whole pages, top pages of the same document); with ``--tutor``, the tutor's answer rate (not refused)
and how often its answers cite an evidence page. Everything made is removed afterwards.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from baeum.runtime.warmup import warm_up
from core.providers import embedder_for_model
from knowledge.evaluation import (
    evaluation_options,
    in_split,
    quality_model,
    read_jsonl,
    rules_run,
    throwaway_documents,
)
from knowledge.models import MaterialPage
from knowledge.selectors import TOP_K, Scope, retrieve  # TOP_K: pages a learner looks at, the search API's default k

CANDIDATE_WIDTH = 30  # --candidates: chunks and pages written per question (the hybrid search's first-stage width)


def evidence_pages(row: dict) -> set[int]:
    return {int(item["evidence_page"]) for item in row.get("evidence", []) if item.get("evidence_page") is not None}


def first_hit_rank(page_sets: list[set[int]], evidence: set[int]) -> int | None:
    """1-based rank of the first result whose pages include an evidence page."""
    return next((rank for rank, pages in enumerate(page_sets, start=1) if pages & evidence), None)


def summarise(ranks: list[int | None], k: int) -> dict:
    count = len(ranks) or 1
    return {
        "page_hit@1": round(sum(1 for rank in ranks if rank == 1) / count, 4),
        f"page_hit@{k}": round(sum(1 for rank in ranks if rank is not None and rank <= k) / count, 4),
        f"mrr@{k}": round(sum(1 / rank for rank in ranks if rank is not None and rank <= k) / count, 4),
    }


def by_kind(rows: list[dict], ours: list[int | None], baseline: list[int | None], k: int) -> dict[str, dict]:
    """page-hit@k of both systems for each kind of question (``question_type``: figures in a statement,
    free questions about one filing, analyst questions): the issue's targets hold for every kind."""
    kinds: dict[str, list[int]] = {}
    for number, row in enumerate(rows):
        kinds.setdefault(str(row.get("question_type") or "unknown"), []).append(number)
    return {
        kind: {
            "questions": len(numbers),
            f"baeum_page_hit@{k}": summarise([ours[n] for n in numbers], k)[f"page_hit@{k}"],
            f"bm25_pages_page_hit@{k}": summarise([baseline[n] for n in numbers], k)[f"page_hit@{k}"],
        }
        for kind, numbers in sorted(kinds.items())
    }


_AMOUNT = re.compile(r"\$?\s*(\d[\d,]*(?:\.\d+)?)")
_YEAR = re.compile(r"(?:19|20)\d\d")


def figure_forms(row: dict) -> list[str]:
    """How a filing writes the figure that answers ``row`` ("$1577.00" → "1,577", "1577"), when the answer is
    a figure the evidence pages print as it is (not a ratio computed from them, not a year); else none."""
    match = _AMOUNT.search(row.get("answer") or "")
    if not match or _YEAR.fullmatch(match.group(1)):
        return []
    value = float(match.group(1).replace(",", ""))
    forms = {f"{int(value):,}", str(int(value))} if value == int(value) else {f"{value:,.2f}", f"{value:,.2f}".rstrip("0").rstrip(".")}
    printed = " ".join(item.get("evidence_text") or "" for item in row.get("evidence", []))
    return sorted(form for form in forms if len(form.replace(",", "")) >= 3 and _writes(printed, form))


def _writes(text: str, figure: str) -> bool:
    return re.search(rf"(?<![\d,.]){re.escape(figure)}(?![\d,]|\.\d)", text) is not None


def cites_evidence(citations: list[dict], evidence: set[int]) -> bool:
    """Whether a citation's pages (``pageNumber``..``pageEnd``) include an evidence page."""
    return any(
        set(range(citation["pageNumber"], max(citation["pageNumber"], citation.get("pageEnd") or 0) + 1)) & evidence
        for citation in citations
    )


def failure(row: dict, reply, evidence: set[int], search_rank: int | None) -> dict:
    """One line of ``--failures``: what the tutor did with a question it refused or answered off the evidence."""
    return {
        "doc_name": row["doc_name"],
        "kind": row.get("question_type"),
        "question": row["question"],
        "evidence_pages": sorted(evidence),
        "search_rank": search_rank,  # of the first result on an evidence page; None: not in the top k
        "refused": reply.refused,
        "confidence": round(reply.confidence, 3),
        "cited_pages": [[c["pageNumber"], c.get("pageEnd") or c["pageNumber"]] for c in reply.citations],
        "answer": reply.content[:400],
        "steps": reply.steps,
    }


class PageBaseline:
    """BM25 over whole pages of one document (bm25s, English stemmer): what a naive system does."""

    def __init__(self, pages: list[tuple[int, str]]):
        import bm25s
        import Stemmer

        self.stemmer = Stemmer.Stemmer("english")
        self.numbers = [number for number, _ in pages]
        self.retriever = bm25s.BM25()
        self.retriever.index(
            bm25s.tokenize([text for _, text in pages], stopwords="en", stemmer=self.stemmer, show_progress=False), show_progress=False
        )

    def search(self, question: str, k: int) -> list[set[int]]:
        return [{number} for number, _ in self.scored(question, k)]

    def scored(self, question: str, k: int) -> list[tuple[int, float]]:
        """The best ``k`` pages as (page number, BM25 score), best first."""
        import bm25s

        tokens = bm25s.tokenize([question], stopwords="en", stemmer=self.stemmer, show_progress=False)
        results, scores = self.retriever.retrieve(tokens, k=min(k, len(self.numbers)), show_progress=False)
        return [(self.numbers[int(index)], float(score)) for index, score in zip(results[0], scores[0], strict=True)]


class Command(BaseCommand):
    help = "Evaluate search (and the tutor) on real PDFs with questions and evidence pages, against a BM25-over-pages baseline."

    def add_arguments(self, parser):
        parser.add_argument("--questions", required=True, help="JSON Lines: question, doc_name, evidence[].evidence_page")
        parser.add_argument("--pdfs", required=True, help="folder with <doc_name>.pdf")
        parser.add_argument("--k", type=int, default=TOP_K)
        parser.add_argument("--mode", default="hybrid", choices=["hybrid", "semantic", "lexical"])
        parser.add_argument("--tutor", action="store_true", help="also ask the tutor each question (offline unless an LLM is configured)")
        parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
        parser.add_argument("--json", action="store_true")
        parser.add_argument(
            "--candidates",
            default=None,
            help="write each question's candidates (Baeum's top chunks with their scores, the baseline's top pages) "
            "as JSON Lines to this file: the data a page-ranking model is fitted on",
        )
        parser.add_argument(
            "--failures",
            default=None,
            help="with --tutor, write each question the tutor refused or answered without citing an evidence page "
            "(its answer, cited pages and the answer pipeline's steps) as JSON Lines to this file",
        )
        evaluation_options(parser)

    def handle(self, *args, **options):
        rows = read_jsonl(options["questions"], ("question", "doc_name", "evidence"))
        kept = in_split(options["split"], [row["doc_name"] for row in rows])
        rows = [row for row in rows if row["doc_name"] in kept][: options["limit"]]
        folder = Path(options["pdfs"])
        documents = sorted({row["doc_name"] for row in rows})
        missing = [name for name in documents if not (folder / f"{name}.pdf").is_file()]
        if missing:
            raise CommandError(f"Missing PDFs in {folder}: {', '.join(missing[:5])}")
        k = options["k"]
        quiet = options["json"]
        candidates = open(options["candidates"], "w", encoding="utf-8") if options["candidates"] else None  # noqa: SIM115 (closed below)
        with (
            rules_run(options["without"]) as fired,  # first: a rule of reading (``chunk:*``) is off while the filings are read
            throwaway_documents(
                [folder / f"{name}.pdf" for name in documents],
                stream=self.stderr,
                show_progress=not quiet,
                quality=quality_model(options["quality"]),
                library=options["library"],
            ) as (user, materials),
        ):
            # Search as the web server serves it: its models are loaded before the first request
            # (config/gunicorn.py), so the first question does not time loading them (1.5 s for USE).
            warm_up(*{embedder_for_model(material.embedding_model) for material in materials.values()})
            ours, baseline, latencies = [], [], []
            baselines: dict[str, PageBaseline] = {}
            tutor = {"answered": 0, "cited_evidence": 0, "figures": 0, "figures_quoted": 0}
            missed: list[dict] = []
            for row in tqdm(rows, desc="Questions", file=self.stderr, disable=quiet, unit="q"):
                material = materials[row["doc_name"]]
                evidence = evidence_pages(row)
                started = time.perf_counter()
                hits = retrieve(
                    user=user, scope=Scope.materials([material.ref_id]), query=row["question"], k=k, mode=options["mode"], per_page=True
                )
                latencies.append((time.perf_counter() - started) * 1000)
                ours.append(first_hit_rank([set(range(hit.chunk.own_pages[0], hit.chunk.own_pages[1] + 1)) for hit in hits], evidence))
                if row["doc_name"] not in baselines:
                    pages = MaterialPage.objects.for_user(user).filter(material=material).values_list("number", "text")
                    baselines[row["doc_name"]] = PageBaseline(list(pages))
                baseline.append(first_hit_rank(baselines[row["doc_name"]].search(row["question"], k), evidence))
                if candidates is not None:
                    candidates.write(self._candidates(user, material, row, baselines[row["doc_name"]], evidence) + "\n")
                if options["tutor"]:
                    reply = self._ask(user, material, row["question"])
                    answered, cited = not reply.refused, cites_evidence(reply.citations, evidence)
                    tutor["answered"] += answered
                    tutor["cited_evidence"] += answered and cited
                    figures = figure_forms(row)
                    tutor["figures"] += bool(figures)
                    tutor["figures_quoted"] += any(_writes(reply.content, figure) for figure in figures)
                    if not (answered and cited):
                        missed.append(failure(row, reply, evidence, ours[-1]))
        if candidates is not None:
            candidates.close()
        if options["failures"]:
            Path(options["failures"]).write_text("".join(json.dumps(item, ensure_ascii=False) + "\n" for item in missed), encoding="utf-8")
        report = {
            "questions": len(rows),
            "documents": len(documents),
            "mode": options["mode"],
            "split": options["split"] or "all",
            "baeum": summarise(ours, k),
            "baseline_bm25_pages": summarise(baseline, k),
            "by_kind": by_kind(rows, ours, baseline, k),
            "search_p50_ms": round(statistics.median(latencies), 1) if latencies else None,
            "search_p95_ms": round(statistics.quantiles(latencies, n=20)[18], 1) if len(latencies) >= 20 else None,
            "rules_off": sorted(options["without"]),
            "rules_fired": dict(sorted(fired.items())),
        }
        base = report["baseline_bm25_pages"][f"page_hit@{k}"]
        report[f"ratio_page_hit@{k}"] = round(report["baeum"][f"page_hit@{k}"] / base, 2) if base else None
        if options["tutor"]:
            count = len(rows) or 1
            report["tutor"] = {
                "answer_rate": round(tutor["answered"] / count, 4),
                "false_refusal": round(1 - tutor["answered"] / count, 4),
                "citation_on_evidence_page": round(tutor["cited_evidence"] / max(1, tutor["answered"]), 4),
                # Of the questions answered by a figure the evidence pages print (not one computed from them),
                # the share whose answer quotes that figure: the filings' "the answer contains the answering words".
                "figure_questions": tutor["figures"],
                "figure_quoted": round(tutor["figures_quoted"] / tutor["figures"], 4) if tutor["figures"] else None,
            }
        self.stdout.write(json.dumps(report, indent=None if quiet else 2, ensure_ascii=False))

    @staticmethod
    def _candidates(user, material, row: dict, baseline: PageBaseline, evidence: set[int]) -> str:
        hits = retrieve(user=user, scope=Scope.materials([material.ref_id]), query=row["question"], k=CANDIDATE_WIDTH)
        return json.dumps(
            {
                "question": row["question"],
                "doc_name": row["doc_name"],
                "kind": row.get("question_type"),
                "evidence": sorted(evidence),
                "pages": material.page_count,
                "chunks": [
                    {
                        "first": hit.chunk.own_pages[0],
                        "last": hit.chunk.own_pages[1],
                        "index": hit.chunk.chunk_index,
                        "score": hit.score,
                        "vector": hit.vector_score,
                        "lexical": hit.lexical_score,
                    }
                    for hit in hits
                ],
                "bm25_pages": baseline.scored(row["question"], CANDIDATE_WIDTH),
            },
            ensure_ascii=False,
        )

    @staticmethod
    def _ask(user, material, question: str):
        from chat.services.conversations import conversation_create
        from chat.services.reply import chat_reply

        conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
        return chat_reply(conversation=conversation, content=question)
