import time

from django.core.management.base import BaseCommand

from baeum.metrics import dedupe, rank_of, retrieval_summary
from core.providers import active_embedder
from knowledge.evaluation import evaluation_options, in_split_by_title, quality_model, read_jsonl, throwaway_corpus
from knowledge.models import Chunk
from knowledge.selectors import Scope, retrieve


class Command(BaseCommand):
    help = "Measure retrieval on a corpus/queries pair (JSON Lines) through the real ingestion and search."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True, help="JSON Lines: {doc_id, title, text}")
        parser.add_argument("--queries", required=True, help="JSON Lines: {qid, question, doc_id}")
        parser.add_argument("--mode", default="all", choices=["semantic", "lexical", "hybrid", "all"])
        parser.add_argument("--k", type=int, default=10)
        parser.add_argument("--limit", type=int, default=0, help="Use only the first N queries (0: all).")
        parser.add_argument("--alpha", type=float, action="append", help="Hybrid lexical weight(s) to try (default: settings).")
        parser.add_argument("--json", action="store_true")
        evaluation_options(parser, rules=False)

    def handle(self, *args, corpus, queries, mode, k, limit, alpha, json: bool, **options):
        import json as json_module

        passages = read_jsonl(corpus, ("doc_id", "text"))
        questions = read_jsonl(queries, ("question", "doc_id"))
        # The questions about one lock-box part's articles; every passage stays in the corpus.
        questions = in_split_by_title(options["split"], passages, questions)
        if limit:
            questions = questions[:limit]
        modes = ["semantic", "lexical", "hybrid"] if mode == "all" else [mode]
        runs = [(name, None) for name in modes if name != "hybrid"]
        if "hybrid" in modes:
            runs += [("hybrid", value) for value in (alpha or [None])]
        started = time.perf_counter()
        quality = quality_model(options.get("quality"))
        with throwaway_corpus(passages, stream=self.stderr._out, show_progress=not json, quality=quality, library=options["library"]) as (
            user,
            doc_of,
        ):
            load_seconds = time.perf_counter() - started
            material_of_chunk = dict(Chunk.objects.for_user(user).values_list("id", "material_id"))
            results = []
            for name, alpha_value in runs:
                options_for_mode = {"min_similarity": -1.0} if name == "semantic" else {}
                if alpha_value is not None:
                    options_for_mode["alpha"] = alpha_value
                ranks, latencies = [], []
                for question in questions:
                    began = time.perf_counter()
                    hits = retrieve(user=user, scope=Scope.library(), query=question["question"], k=3 * k, mode=name, **options_for_mode)
                    latencies.append((time.perf_counter() - began) * 1000)
                    ranked_docs = dedupe([doc_of[material_of_chunk[hit.chunk.pk]] for hit in hits])[:k]
                    ranks.append(rank_of(str(question["doc_id"]), ranked_docs))
                summary = retrieval_summary(ranks, latencies, mode=name)
                if alpha_value is not None:
                    summary["alpha"] = alpha_value
                results.append(summary)
                if not json:
                    self.stdout.write(json_module.dumps(summary, ensure_ascii=False))
            report = {
                "modes": results,
                "passages": len(passages),
                "chunks": len(material_of_chunk),
                "embedding_model": quality or active_embedder().model,
                "load_seconds": round(load_seconds, 1),
            }
        if json:
            self.stdout.write(json_module.dumps(report, ensure_ascii=False))
