import time
from contextlib import nullcontext

from django.core.management.base import BaseCommand
from django.test import override_settings
from tqdm import tqdm

from baeum.metrics import percentile
from baeum.runtime.warmup import warm_up
from chat.models import Conversation
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from core.providers import active_embedder
from knowledge.evaluation import (
    evaluation_options,
    in_split_by_title,
    quality_model,
    read_jsonl,
    rules_run,
    throwaway_corpus,
)
from knowledge.models import Chunk, Material

# --calibrate answers every question: no coverage or vector bar, nothing sufficient by coverage alone.
NO_THRESHOLDS = {"MIN_COVERAGE": 0.0, "MIN_VECTOR": -1.0, "STRONG_COVERAGE": 0.0}
# The false-refusal bound the shipped thresholds were chosen under (docs/tutor.md: ≤ 0.033 on KorQuAD and SQuAD).
MAX_FALSE_REFUSAL = 0.035


class Command(BaseCommand):
    help = "Measure the tutor: answer hits, citation validity and refusals, each question in a fresh conversation."

    def add_arguments(self, parser):
        parser.add_argument("--corpus", required=True)
        parser.add_argument("--queries", required=True, help="In-scope questions {qid, question, doc_id}.")
        parser.add_argument("--out-of-scope", dest="out_of_scope", required=True, help="Questions whose gold passage is not in the corpus.")
        parser.add_argument("--limit", type=int, default=0, help="Use only the first N questions of each file (0: all).")
        parser.add_argument("--mode", default="standard", choices=["standard", "agentic"])
        parser.add_argument("--json", action="store_true")
        evaluation_options(parser)
        parser.add_argument(
            "--calibrate",
            metavar="FILE",
            help="Answer everything (no refusal thresholds) and write a JSON report to FILE: each question's evidence "
            "and the thresholds it suggests (printed too). Settings are never changed: set the suggested ones in the environment.",
        )
        parser.add_argument(
            "--max-false-refusal",
            type=float,
            default=MAX_FALSE_REFUSAL,
            help="with --calibrate: the share of in-scope questions the suggested thresholds may refuse",
        )

    def handle(
        self, *args, corpus, queries, out_of_scope, limit, mode, json: bool, calibrate: str | None, max_false_refusal: float, **options
    ):
        import json as json_module

        from django.conf import settings

        records = []
        # Calibration reads the evidence of every answer, so this run alone answers with the refusal
        # thresholds off (restored when the run ends); what it suggests goes to the report, never to settings.
        thresholds_off = override_settings(BAEUM={**settings.BAEUM, "CHAT": {**settings.BAEUM["CHAT"], **NO_THRESHOLDS}})
        configured = {name: settings.BAEUM["CHAT"][name] for name in NO_THRESHOLDS}

        passages = read_jsonl(corpus, ("doc_id", "text"))
        in_scope = read_jsonl(queries, ("question", "doc_id"))
        outside = read_jsonl(out_of_scope, ("question",))
        # The questions of one lock-box part; every passage stays in the corpus, as a distractor.
        in_scope, outside = in_split_by_title(options["split"], passages, in_scope), in_split_by_title(options["split"], passages, outside)
        if limit:
            in_scope, outside = in_scope[:limit], outside[:limit]
        warm_up(active_embedder())
        quality = quality_model(options.get("quality"))
        with (
            thresholds_off if calibrate else nullcontext(),
            rules_run(options["without"]) as fired,  # first: a rule of reading (``chunk:*``) is off while the corpus is read
            throwaway_corpus(
                passages, stream=self.stderr._out, show_progress=not json, quality=quality, library=options.get("library")
            ) as (user, doc_of),
        ):
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
            "split": options["split"] or "all",
            "rules_off": sorted(options["without"]),
            "rules_fired": dict(sorted(fired.items())),
        }
        if calibrate:
            suggestion = suggest_thresholds(records, strong_coverage=configured["STRONG_COVERAGE"], max_false_refusal=max_false_refusal)
            calibration = {"configured": configured, "suggested": suggestion, "measured": report, "questions": records}
            with open(calibrate, "w") as handle:
                json_module.dump(calibration, handle, indent=1)
            self.stderr.write(
                f"Suggested (not applied): BAEUM_CHAT_MIN_COVERAGE={suggestion['MIN_COVERAGE']} "
                f"BAEUM_CHAT_MIN_VECTOR={suggestion['MIN_VECTOR']} → false_refusal {suggestion['false_refusal']}, "
                f"refusal_out_of_scope {suggestion['refusal_out_of_scope']}; report in {calibrate}"
            )
        self.stdout.write(json_module.dumps(report))


def suggest_thresholds(records: list[dict], *, strong_coverage: float, max_false_refusal: float = MAX_FALSE_REFUSAL) -> dict:
    """Return the coverage and vector thresholds that refuse the most out-of-scope questions while refusing
    at most ``max_false_refusal`` of the in-scope ones, from each question's evidence.

    It replays the main rule of ``baeum.answering.evidence.judge_evidence`` (strong coverage, or enough coverage with a
    plausible vector match); the missing-topic and cross-language rules are not replayed, so re-run the
    evaluation with the suggested values before adopting them.
    """
    evidence = [(record["kind"], record["coverage"] or 0.0, record["vector"] or 0.0) for record in records]
    inside = [(coverage, vector) for kind, coverage, vector in evidence if kind == "in"]
    outside = [(coverage, vector) for kind, coverage, vector in evidence if kind == "out"]

    def refused(pairs: list[tuple[float, float]], min_coverage: float, min_vector: float) -> float:
        answered = sum(coverage >= strong_coverage or (coverage >= min_coverage and vector >= min_vector) for coverage, vector in pairs)
        return round(1 - answered / max(1, len(pairs)), 4)

    candidates = [(0.0, -1.0)] + [
        (min_coverage, min_vector)
        for min_coverage in sorted({round(coverage, 2) for coverage, _ in inside})
        for min_vector in sorted({round(vector, 2) for _, vector in inside})
    ]
    allowed = [pair for pair in candidates if refused(inside, *pair) <= max_false_refusal] or [(0.0, -1.0)]
    best = max(allowed, key=lambda pair: (refused(outside, *pair), -refused(inside, *pair)))
    return {
        "MIN_COVERAGE": best[0],
        "MIN_VECTOR": best[1],
        "false_refusal": refused(inside, *best),
        "refusal_out_of_scope": refused(outside, *best),
        "max_false_refusal": max_false_refusal,
    }
