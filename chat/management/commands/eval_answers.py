import time

from django.core.management.base import BaseCommand
from tqdm import tqdm

from baeum.metrics import percentile
from baeum.warmup import warm_up
from chat.models import Conversation
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from core.providers import active_embedder
from knowledge.evaluation import quality_model, quality_option, read_jsonl, throwaway_corpus
from knowledge.models import Chunk, Material


class Command(BaseCommand):
    help = "Measure the tutor: answer hits, citation validity and refusals, each question in a fresh conversation."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--queries", required=True, help="In-scope questions {qid, question, doc_id}.")
        parser.add_argument("--out-of-scope", dest="out_of_scope", required=True, help="Questions whose gold passage is not in the corpus.")
        parser.add_argument("--limit", type=int, default=0, help="Use only the first N questions of each file (0: all).")
        parser.add_argument("--mode", default="standard", choices=["standard", "agentic"])
        parser.add_argument("--json", action="store_true")
        quality_option(parser)
        parser.add_argument(
            "--calibrate", metavar="FILE", help="Answer everything (no refusal thresholds) and write per-question evidence to FILE."
        )

    def handle(self, *args, corpus, queries, out_of_scope, limit, mode, json: bool, calibrate: str | None, **options):
        import json as json_module

        from django.conf import settings

        records = []
        if calibrate:
            settings.BAEUM = {
                **settings.BAEUM,
                "CHAT": {**settings.BAEUM["CHAT"], "MIN_COVERAGE": 0.0, "MIN_VECTOR": -1.0, "STRONG_COVERAGE": 0.0},
            }

        passages = read_jsonl(corpus, ("doc_id", "text"))
        in_scope = read_jsonl(queries, ("question", "doc_id"))
        outside = read_jsonl(out_of_scope, ("question",))
        if limit:
            in_scope, outside = in_scope[:limit], outside[:limit]
        warm_up(active_embedder())
        quality = quality_model(options.get("quality"))
        with throwaway_corpus(passages, stream=self.stderr._out, show_progress=not json, quality=quality) as (user, doc_of):
            doc_of_ref = {ref_id: doc_of[pk] for pk, ref_id in Material.objects.for_user(user).values_list("id", "ref_id")}
            chunks = {
                (ref_id, index): content
                for ref_id, index, content in Chunk.objects.for_user(user).values_list("material__ref_id", "chunk_index", "content")
            }
            latencies, hits, refused_in, refused_out, answered, valid = [], 0, 0, 0, 0, 0
            for kind, questions in (("in", in_scope), ("out", outside)):
                for question in tqdm(questions, desc=f"{kind}-scope questions", file=self.stderr._out, disable=json):
                    conversation = conversation_create(owner=user, ref_ids=[])
                    began = time.perf_counter()
                    message = chat_reply(conversation=conversation, content=question["question"], mode=mode)
                    latencies.append((time.perf_counter() - began) * 1000)
                    if message.refused:
                        refused_in += kind == "in"
                        refused_out += kind == "out"
                    else:
                        answered += 1
                        valid += all(
                            citation["quote"] and citation["quote"] in chunks.get((citation["refId"], citation["chunkIndex"]), "")
                            for citation in message.citations
                        ) and bool(message.citations)
                    hit = kind == "in" and any(
                        doc_of_ref.get(citation["refId"]) == str(question["doc_id"]) for citation in message.citations
                    )
                    hits += hit
                    if calibrate:
                        records.append(
                            {
                                "kind": kind,
                                "hit": hit,
                                "refused": message.refused,
                                "coverage": message.usage.get("coverage"),
                                "vector": message.usage.get("vector"),
                            }
                        )
                    Conversation.objects.for_user(user).filter(pk=conversation.pk).delete()
        report = {
            "n_in": len(in_scope),
            "n_out": len(outside),
            "answer_hit": round(hits / max(1, len(in_scope)), 4),
            "citation_valid": round(valid / max(1, answered), 4),
            "false_refusal": round(refused_in / max(1, len(in_scope)), 4),
            "refusal_out_of_scope": round(refused_out / max(1, len(outside)), 4),
            "latency_ms": {"p50": round(percentile(latencies, 0.5), 1), "p95": round(percentile(latencies, 0.95), 1)},
            "mode": mode,
            "embedding_model": quality or active_embedder().model,
        }
        if calibrate:
            with open(calibrate, "w") as handle:
                handle.writelines(json_module.dumps(record) + "\n" for record in records)
        self.stdout.write(json_module.dumps(report))
