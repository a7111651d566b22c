"""`manage.py fit_weights`: fit the weights of the candidate-sentence score on the lock box's tuning part.

    python manage.py fit_weights --answers /tmp/korsplit --answers /tmp/squadsplit \\
        --conversations ../shared/eval/conversations_dev/conversations.jsonl \\
        --crosslingual ../shared/eval/conversations_dev/crosslingual.jsonl \\
        --evidence ../shared/eval/conversations_dev/evidence.json --books ../shared/eval/conversations_dev/pdfs \\
        --quality none --rows /tmp/rankings.jsonl --write

Every question of both parts is put to the real tutor (offline answers); each ranking of candidate sentences
its answer made is recorded and labelled by whether a sentence holds the gold answer (a KorQuAD or SQuAD
answer span; the conversation set's evidence phrase for an expected page). The weights are fitted on the
tuning part only and judged on both, beside the hand-set weights: how often the best-scored sentence
answers (top-1) and the mean reciprocal rank of the first that does. ``--write`` ships them
(``baeum/answering/sentence_weights.json``), with that report; ``--refit`` fits again from saved rows.
See docs/evaluation.md.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from baeum.answering import refusals
from baeum.answering import weights as sentence_weights
from baeum.answering.evidence import observing_evidence
from baeum.answering.extractive import HAND_WEIGHTS
from baeum.runtime.warmup import warm_up
from chat.models import Conversation
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from core.providers import active_embedder
from knowledge.evaluation import (
    evaluation_options,
    in_split,
    in_split_by_title,
    quality_model,
    read_jsonl,
    throwaway_corpus,
    throwaway_documents,
)

PARTS = ("tune", "check")


class Command(BaseCommand):
    help = "Fit the candidate-sentence weights on the lock box's tuning part; judge them on both parts beside the hand-set ones."

    def add_arguments(self, parser):
        parser.add_argument(
            "--answers",
            action="append",
            default=[],
            metavar="DIR",
            help="a paragraph set made by scripts/eval_split.py (corpus.jsonl, queries.jsonl with answers); repeatable",
        )
        parser.add_argument(
            "--conversations",
            action="append",
            default=[],
            help="scripted conversations (conversations_dev format); repeatable, every set's books in --books",
        )
        parser.add_argument("--crosslingual", help="cross-lingual questions over the same books")
        parser.add_argument(
            "--evidence", help='evidence.json: the phrase on each expected page of every turn (a turn may carry its own, "evidence")'
        )
        parser.add_argument(
            "--label-by",
            choices=("phrases", "pages"),
            default="phrases",
            help="a conversation's candidate answers when it holds the turn's evidence phrase (default), or when it stands "
            "on one of the turn's expected pages (what a citation is judged by; needs no evidence)",
        )
        parser.add_argument(
            "--only",
            action="append",
            default=[],
            metavar="FEATURE",
            help="fit only this feature (repeatable), every other weight held as the code sets it; --write then ships just these",
        )
        parser.add_argument("--books", help="the folder of the books the conversations are about")
        parser.add_argument("--limit", type=int, default=0, help="only the first N questions of each set and part (0: all)")
        parser.add_argument("--rows", metavar="FILE", help="save the labelled rankings to FILE (JSON lines); with --refit, read them")
        parser.add_argument("--refit", action="store_true", help="fit from the rankings saved in --rows, asking nothing")
        parser.add_argument("--write", action="store_true", help=f"write the fitted weights to {sentence_weights.WEIGHTS_FILE.name}")
        parser.add_argument(
            "--refusals",
            metavar="FILE",
            help="also ask each set's out-of-scope questions, save every answer-or-refuse decision's signals to FILE "
            "(JSON lines), and fit and judge a refusal model beside the rules (baeum/answering/refusals.py)",
        )
        evaluation_options(parser, rules=False)

    def handle(self, *args, answers: list[str], limit: int, rows: str | None, refit: bool, write: bool, **options):
        self.decisions: list[dict] = []
        self.refusals = options["refusals"]
        if refit and self.refusals and Path(self.refusals).is_file():
            self.decisions = [json.loads(line) for line in Path(self.refusals).read_text(encoding="utf-8").splitlines()]
        if refit:
            if not rows or not Path(rows).is_file():
                raise CommandError("--refit reads the rankings a run saved: give that file with --rows.")
            rankings = [sentence_weights.Ranking(**json.loads(line)) for line in Path(rows).read_text(encoding="utf-8").splitlines()]
        else:
            warm_up(active_embedder())
            quality = quality_model(options["quality"])
            rankings = []
            for folder in answers:
                rankings += self._paragraph_rankings(Path(folder), limit=limit, quality=quality)
            if options["conversations"]:
                rankings += self._conversation_rankings(options, limit=limit, quality=quality)
            if rows:
                Path(rows).write_text("".join(json.dumps(asdict(r), ensure_ascii=False) + "\n" for r in rankings), encoding="utf-8")
        tune = [ranking for ranking in rankings if ranking.part == "tune"]
        only = tuple(options["only"])
        fitted = sentence_weights.fit(tune, only=only, held=HAND_WEIGHTS)
        report = {"weights": fitted, "hand_weights": HAND_WEIGHTS, "judged": self._judged(rankings, fitted)}
        if self.refusals:
            if not refit:
                Path(self.refusals).write_text("".join(json.dumps(d, ensure_ascii=False) + "\n" for d in self.decisions), encoding="utf-8")
            report["refusals"] = self._refusal_report(self.decisions)
        if write:
            shipped = {
                "weights": {name: fitted[name] for name in only} if only else fitted,
                **({"fitted": list(only)} if only else {}),
                "about": "Candidate-sentence weights fitted by `manage.py fit_weights` on the lock box's tuning part "
                "(baeum/answering/weights.py); `judged` compares them with the hand-set weights on both parts.",
                "judged": report["judged"],
            }
            sentence_weights.WEIGHTS_FILE.write_text(json.dumps(shipped, indent=1) + "\n", encoding="utf-8")
            self.stderr.write(f"Wrote {sentence_weights.WEIGHTS_FILE}")
        self.stdout.write(json.dumps(report, ensure_ascii=False, indent=1))

    @staticmethod
    def _judged(rankings: list[sentence_weights.Ranking], fitted: dict[str, float]) -> dict:
        """Top-1 and MRR of both weight sets, by source and part, and over all sources by part."""
        judged = {}
        sources = sorted({ranking.source for ranking in rankings})
        for source in [*sources, "all"]:
            for part in PARTS:
                group = [r for r in rankings if r.part == part and source in ("all", r.source)]
                judged[f"{source}/{part}"] = {
                    "hand": sentence_weights.judged(group, HAND_WEIGHTS),
                    "fitted": sentence_weights.judged(group, fitted),
                }
        return judged

    @staticmethod
    def _refusal_report(decisions: list[dict]) -> dict:
        """The refusal model fitted on the tuning decisions, and both decisions (rules, model) on each part."""
        tune = [decision for decision in decisions if decision["part"] == "tune"]
        model = refusals.fit(tune)
        report = {"model": model}
        sources = sorted({decision["source"] for decision in decisions})
        for source in [*sources, "all"]:
            for part in PARTS:
                group = [d for d in decisions if d["part"] == part and source in ("all", d["source"])]
                report[f"{source}/{part}"] = {
                    "rules": refusals.judged(group, lambda d: bool(d["signals"]["rules_answer"])),
                    "model": refusals.judged(group, lambda d: refusals.probability(d, model) >= model["bar"]),
                }
        return report

    def _ask(self, user, question: str, *, ref_ids: list[str], conversation=None) -> tuple[list, list[dict]]:
        """Put ``question`` to the tutor (in ``conversation``, else a fresh one that is then deleted); return the
        candidate rankings and the answer-or-refuse decisions it made."""
        fresh = conversation is None
        conversation = conversation or conversation_create(owner=user, ref_ids=ref_ids)
        with sentence_weights.observing() as seen, observing_evidence() as decided:
            chat_reply(conversation=conversation, content=question)
        if fresh:
            Conversation.objects.for_user(user).filter(pk=conversation.pk).delete()
        return seen, decided

    def _decided(self, decided: list[dict], *, answerable: bool, source: str, part: str) -> None:
        if self.refusals:
            for signals in decided:
                self.decisions.append({"signals": signals, "answerable": answerable, "source": source, "part": part})

    def _paragraph_rankings(self, folder: Path, *, limit: int, quality: str) -> list[sentence_weights.Ranking]:
        """Each question of the set, in a fresh conversation over the whole corpus; labelled by its answer spans
        (with ``--refusals``, the set's out-of-scope questions too)."""
        passages = read_jsonl(str(folder / "corpus.jsonl"), ("doc_id", "text"))
        questions = read_jsonl(str(folder / "queries.jsonl"), ("question", "doc_id", "answers"))
        outside_path = folder / "out_of_scope.jsonl"
        outside = read_jsonl(str(outside_path), ("question",)) if self.refusals and outside_path.is_file() else []
        rankings = []
        with throwaway_corpus(passages, stream=self.stderr._out, quality=quality) as (user, _):
            for part in PARTS:
                asked = in_split_by_title(part, passages, questions)
                for question in tqdm(asked[:limit] if limit else asked, desc=f"{folder.name} {part}", file=self.stderr._out):
                    seen, decided = self._ask(user, question["question"], ref_ids=[])
                    rankings += sentence_weights.labelled(seen, list(question["answers"]), source=folder.name, part=part)
                    self._decided(decided, answerable=True, source=folder.name, part=part)
                others = in_split_by_title(part, passages, outside)
                for question in tqdm(others[:limit] if limit else others, desc=f"{folder.name} {part} out of scope", file=self.stderr._out):
                    _, decided = self._ask(user, question["question"], ref_ids=[])
                    self._decided(decided, answerable=False, source=folder.name, part=part)
        return rankings

    def _conversation_rankings(self, options: dict, *, limit: int, quality: str) -> list[sentence_weights.Ranking]:
        """Each scripted conversation played turn by turn, and each cross-lingual question; labelled by the
        evidence phrases of the turn's expected pages."""
        by_pages = options["label_by"] == "pages"

        def label(seen, pages: list[int], phrases: list[str], *, source: str, part: str) -> list[sentence_weights.Ranking]:
            """A turn's rankings labelled by its expected pages (``--label-by pages``) or by its evidence phrases."""
            if by_pages:
                return sentence_weights.labelled_by_pages(seen, pages, source=source, part=part)
            return sentence_weights.labelled(seen, phrases, source=source, part=part)

        if not options["books"] or not (options["evidence"] or by_pages):
            raise CommandError("--conversations needs --books, and --evidence (the phrases that label a turn) or --label-by pages.")
        evidence = json.loads(Path(options["evidence"]).read_text(encoding="utf-8")) if options["evidence"] else {"conversations": {}}
        scripted = [row for path in options["conversations"] for row in read_jsonl(path, ("id", "book", "turns"))]
        single = read_jsonl(options["crosslingual"], ("id", "question", "book")) if options["crosslingual"] else []
        books = sorted({row["book"] for row in [*scripted, *single]})
        paths = [Path(options["books"]) / book for book in books]
        rankings = []
        with throwaway_documents(paths, stream=self.stderr._out, quality=quality, library=options["library"]) as (user, materials):
            for part in PARTS:
                kept = in_split(part, books)
                played = [row for row in scripted if row["book"] in kept]
                for row in tqdm(played[:limit] if limit else played, desc=f"conversations {part}", file=self.stderr._out):
                    conversation = conversation_create(owner=user, ref_ids=[materials[Path(row["book"]).stem].ref_id])
                    for number, turn in enumerate(row["turns"]):
                        phrases = list(evidence["conversations"].get(row["id"], [{}] * (number + 1))[number].get("pages", {}).values())
                        phrases = phrases or list(turn.get("evidence", {}).values())
                        seen, decided = self._ask(user, turn["question"], ref_ids=[], conversation=conversation)
                        rankings += label(seen, turn["expected_pages"], phrases, source="conversations", part=part)
                        self._decided(decided, answerable=bool(turn["expected_pages"]), source="conversations", part=part)
                    Conversation.objects.for_user(user).filter(pk=conversation.pk).delete()
                asked = [row for row in single if row["book"] in kept]
                for row in tqdm(asked[:limit] if limit else asked, desc=f"cross-lingual {part}", file=self.stderr._out):
                    phrases = list(evidence.get("crosslingual", {}).get(row["id"], {}).get("pages", {}).values())
                    seen, decided = self._ask(user, row["question"], ref_ids=[materials[Path(row["book"]).stem].ref_id])
                    rankings += label(seen, row.get("expected_pages", []), phrases, source="crosslingual", part=part)
                    self._decided(decided, answerable=bool(row.get("in_scope", True)), source="crosslingual", part=part)
        return rankings
