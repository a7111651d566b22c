"""`manage.py eval_conversations`: the tutor over scripted multi-turn conversations and cross-lingual questions.

Input: ``evaluation/conversations.jsonl`` (conversations of 3–6 turns over one book, each turn with the
pages that answer it and its kind) and, optionally, ``evaluation/crosslingual.jsonl`` (a Korean question
over the English book or the other way round). See ``evaluation/README.md``.

Each book the sets mention is ingested once, through the real pipeline, for a throwaway user. Each
conversation is a real conversation over its book, its turns sent in order, so follow-ups ("the second
one", "그 방식의 단점은?") lean on the tutor's memory exactly as a learner's would; each cross-lingual
question gets a fresh conversation. With ``--all-materials`` every conversation is over all the run's books, as
"+ New conversation" is in a library of several: a citation counts only in the turn's own book, and
``other_material`` is the share of answered turns that cite another book (an accounting question answered from a
compression manual). An in-scope turn is correct when it is answered and one of its
citations covers an expected page (a citation covers ``pageNumber``..``pageEnd``); an out-of-scope turn
is correct when it is refused. With an evidence file (``--evidence``; ``evidence.json`` beside the
conversations is read when there is one), or where a turn carries its own (``"evidence": {page: phrase}``, as
``evaluation/lazy_followups.jsonl`` does), each answered turn is also checked for quoting what answers:
``quotes_evidence`` is the share of in-scope turns whose answer holds the phrase of one of their expected
pages (spacing and case aside) — the sentence that answers, not only its page. Everything made is removed
afterwards.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from tqdm import tqdm

from baeum.answering.answers import CITATION
from baeum.answering.weights import holds
from baeum.metrics import percentile
from baeum.runtime.warmup import warm_up
from chat.services.conversations import conversation_create, conversation_delete
from chat.services.reply import chat_reply
from core.providers import active_embedder
from knowledge.evaluation import (
    evaluation_options,
    in_split,
    quality_model,
    read_jsonl,
    rules_run,
    throwaway_documents,
)

DEFAULT_BOOKS = "../shared/samples/text"  # where the sample books live beside the project (evaluation/README.md)
OPENING_KIND = "first"  # the turn that stands on its own; every other in-scope kind leans on the conversation so far
OUT_OF_SCOPE_KIND = "out_of_scope"
KINDS = (OPENING_KIND, "ordinal", "anaphora", "ellipsis", "example", "comparison", "other", OUT_OF_SCOPE_KIND)  # the README's order
OTHER_LANGUAGE = {"ko": "en", "en": "ko"}  # a cross-lingual question is always over the book in the other language
ANSWER_HEAD_CHARS = 200  # enough of a failed answer to see what it was about, short enough to read a list of them

CONVERSATION_FIELDS = ("id", "book", "language", "turns")
CROSSLINGUAL_FIELDS = ("id", "question", "question_language", "book", "expected_pages", "in_scope")


@dataclass
class TurnResult:
    """One question put to the tutor and what came back."""

    set_id: str
    turn: int
    kind: str
    language: str
    question: str
    expected_pages: list[int]
    refused: bool
    cited_pages: list[list[int]]
    answer: str
    milliseconds: float
    evidence: list[str] = field(default_factory=list)  # a phrase on each expected page (evidence.json), when known
    other_material: bool = False  # a citation in another book than the turn's (``--all-materials``)

    @property
    def in_scope(self) -> bool:
        return bool(self.expected_pages)

    @property
    def on_expected_page(self) -> bool:
        """Answered, with a citation whose page range touches an expected page."""
        expected = set(self.expected_pages)
        return not self.refused and any(expected.intersection(range(start, end + 1)) for start, end in self.cited_pages)

    @property
    def quotes_evidence(self) -> bool:
        """Answered with the words that answer: the answer holds the evidence phrase of an expected page."""
        return not self.refused and holds(CITATION.sub("", self.answer), self.evidence)  # "[2]" is the tutor's, not the book's

    @property
    def correct(self) -> bool:
        return self.on_expected_page if self.in_scope else self.refused

    def as_failure(self) -> dict:
        return {
            "id": self.set_id,
            "turn": self.turn,
            "kind": self.kind,
            "question": self.question,
            "expected_pages": self.expected_pages,
            "refused": self.refused,
            "cited_pages": self.cited_pages,
            "answer": self.answer[:ANSWER_HEAD_CHARS],
            **({"other_material": True} if self.other_material else {}),
            # Right page, but not the words that answer: what ``quotes_evidence`` counts against.
            **({"evidence_not_quoted": self.evidence} if self.correct else {}),
        }

    @property
    def misses_evidence(self) -> bool:
        return self.in_scope and self.on_expected_page and bool(self.evidence) and not self.quotes_evidence


# --- Asking --------------------------------------------------------------------------------


def citation_pages(citations: list[dict], ref_id: str) -> list[list[int]]:
    """The [first, last] page of each citation in the material ``ref_id``; a citation without ``pageEnd`` ends
    where it starts."""
    return [
        [citation["pageNumber"], max(citation["pageNumber"], citation.get("pageEnd") or 0)]
        for citation in citations
        if citation.get("refId") == ref_id
    ]


def cites_other(citations: list[dict], ref_id: str) -> bool:
    return any(citation.get("refId") != ref_id for citation in citations)


def new_conversation(user, material, *, all_materials: bool):
    """A conversation over the turn's book, or (``all_materials``) over every material of ``user``."""
    return conversation_create(owner=user, ref_ids=[] if all_materials else [material.ref_id])


def ask(conversation, *, question: str) -> tuple[object, float]:
    """Send one learner message and time the whole turn (retrieval, answer, ground check, saving)."""
    started = time.perf_counter()
    message = chat_reply(conversation=conversation, content=question)
    return message, (time.perf_counter() - started) * 1000


def phrases(evidence: dict | None) -> list[str]:
    """The evidence phrases of one item of evidence.json (``{"pages": {page: phrase}}``)."""
    return list((evidence or {}).get("pages", {}).values())


def turn_phrases(evidence: list[dict] | None, number: int, turn: dict) -> list[str]:
    """The evidence phrases of a conversation's ``number``-th turn: evidence.json's when it gives some, else the turn's
    own (``"evidence": {page: phrase}``, as ``evaluation/lazy_followups.jsonl`` carries them)."""
    return phrases(evidence[number - 1] if evidence and number <= len(evidence) else None) or list(turn.get("evidence", {}).values())


def run_conversation(
    *, user, material, row: dict, on_turn: Callable[[], None], evidence: list[dict] | None = None, all_materials: bool = False
) -> list[TurnResult]:
    """Play one scripted conversation turn by turn in a real conversation over its book (``all_materials``:
    over every material), then delete it. ``evidence``: the conversation's evidence per turn (evidence.json),
    when there is some."""
    conversation = new_conversation(user, material, all_materials=all_materials)
    results = []
    try:
        for number, turn in enumerate(row["turns"], start=1):
            message, milliseconds = ask(conversation, question=turn["question"])
            results.append(
                TurnResult(
                    set_id=row["id"],
                    turn=number,
                    kind=turn["kind"],
                    language=row["language"],
                    question=turn["question"],
                    expected_pages=list(turn["expected_pages"]),
                    refused=message.refused,
                    cited_pages=citation_pages(message.citations, material.ref_id),
                    answer=message.content,
                    milliseconds=milliseconds,
                    evidence=turn_phrases(evidence, number, turn),
                    other_material=cites_other(message.citations, material.ref_id),
                )
            )
            on_turn()
    finally:
        conversation_delete(conversation=conversation)
    return results


def run_crosslingual(*, user, material, row: dict, evidence: dict | None = None, all_materials: bool = False) -> TurnResult:
    """Ask one question in the other language in a fresh conversation over its book (``all_materials``: over
    every material), then delete it."""
    conversation = new_conversation(user, material, all_materials=all_materials)
    try:
        message, milliseconds = ask(conversation, question=row["question"])
    finally:
        conversation_delete(conversation=conversation)
    return TurnResult(
        set_id=row["id"],
        turn=1,
        kind="in_scope" if row["in_scope"] else OUT_OF_SCOPE_KIND,
        language=direction_of(row),
        question=row["question"],
        expected_pages=list(row["expected_pages"]) if row["in_scope"] else [],
        refused=message.refused,
        cited_pages=citation_pages(message.citations, material.ref_id),
        answer=message.content,
        milliseconds=milliseconds,
        evidence=phrases(evidence),
        other_material=cites_other(message.citations, material.ref_id),
    )


def direction_of(row: dict) -> str:
    """Name the direction: "ko→en" for a Korean question over the English book."""
    language = row["question_language"]
    return f"{language}→{OTHER_LANGUAGE.get(language, '?')}"


# --- Scoring -------------------------------------------------------------------------------


def share(count: int, total: int) -> float | None:
    """A rounded share, or None when nothing was asked (not 0: no turns is not a failure)."""
    return round(count / total, 4) if total else None


def latency(results: Iterable[TurnResult]) -> dict:
    times = [result.milliseconds for result in results]
    return {"p50": round(percentile(times, 0.5), 1), "p95": round(percentile(times, 0.95), 1)}


def conversation_scores(results: list[TurnResult]) -> dict:
    """The four conversation measures over any group of turns (a kind, a language, all of them)."""
    in_scope = [result for result in results if result.in_scope]
    follow_ups = [result for result in in_scope if result.kind != OPENING_KIND]
    outside = [result for result in results if not result.in_scope]
    return {
        "turns": len(results),
        "in_scope": len(in_scope),
        "out_of_scope": len(outside),
        "answered": share(sum(not result.refused for result in in_scope), len(in_scope)),
        "cited_expected_page": share(sum(result.on_expected_page for result in in_scope), len(in_scope)),
        "follow_up_accuracy": share(sum(result.on_expected_page for result in follow_ups), len(follow_ups)),
        "refusal_out_of_scope": share(sum(result.refused for result in outside), len(outside)),
        "correct": share(sum(result.correct for result in results), len(results)),
        "quotes_evidence": quoted_share(in_scope),
        "other_material": other_material_share(results),
    }


def other_material_share(results: list[TurnResult]) -> float | None:
    """Of the answered turns, the share citing a book other than their own (0 over one book by construction)."""
    answered = [result for result in results if not result.refused]
    return share(sum(result.other_material for result in answered), len(answered))


def quoted_share(in_scope: list[TurnResult]) -> float | None:
    """The share of in-scope turns with known evidence whose answer holds it (None when no turn has any)."""
    known = [result for result in in_scope if result.evidence]
    return share(sum(result.quotes_evidence for result in known), len(known))


def grouped(results: list[TurnResult], key: Callable[[TurnResult], str], order: Iterable[str] = ()) -> dict[str, list[TurnResult]]:
    """Turns by ``key``, the known values first in ``order``, any others after them."""
    groups: dict[str, list[TurnResult]] = {name: [] for name in order}
    for result in results:
        groups.setdefault(key(result), []).append(result)
    return {name: members for name, members in groups.items() if members}


def conversation_report(results: list[TurnResult], conversations: int) -> dict:
    return {
        "conversations": conversations,
        "overall": conversation_scores(results),
        "by_kind": {kind: conversation_scores(members) for kind, members in grouped(results, lambda r: r.kind, KINDS).items()},
        "by_language": {language: conversation_scores(members) for language, members in grouped(results, lambda r: r.language).items()},
        "latency_ms": latency(results),
    }


def crosslingual_scores(results: list[TurnResult]) -> dict:
    in_scope = [result for result in results if result.in_scope]
    outside = [result for result in results if not result.in_scope]
    return {
        "questions": len(results),
        "in_scope": len(in_scope),
        "out_of_scope": len(outside),
        "answered_with_expected_page": share(sum(result.on_expected_page for result in in_scope), len(in_scope)),
        "false_refusal": share(sum(result.refused for result in in_scope), len(in_scope)),
        "refusal": share(sum(result.refused for result in outside), len(outside)),
        "quotes_evidence": quoted_share(in_scope),
        "other_material": other_material_share(results),
    }


def crosslingual_report(results: list[TurnResult]) -> dict:
    return {
        "by_direction": {direction: crosslingual_scores(members) for direction, members in grouped(results, lambda r: r.language).items()},
        "latency_ms": latency(results),
    }


# --- Printing ------------------------------------------------------------------------------


def _cell(value) -> str:
    return "—" if value is None else f"{value:.3f}" if isinstance(value, float) else str(value)


def _table(title: str, rows: dict[str, dict], columns: tuple[str, ...]) -> list[str]:
    width = max(len(name) for name in rows) if rows else 8
    lines = [title, "  ".join([" " * width, *(f"{column:>{len(column)}}" for column in columns)])]
    for name, scores in rows.items():
        lines.append("  ".join([f"{name:<{width}}", *(f"{_cell(scores[column]):>{len(column)}}" for column in columns)]))
    return lines


def readable(report: dict) -> str:
    lines = [f"Embedding model: {report['embedding_model']}; books: {', '.join(report['books'])}", ""]
    conversations = report["conversations"]
    columns = (
        "turns",
        "in_scope",
        "answered",
        "cited_expected_page",
        "follow_up_accuracy",
        "refusal_out_of_scope",
        "correct",
        "quotes_evidence",
        "other_material",
    )
    lines += _table(f"Conversations ({conversations['conversations']}), by kind", conversations["by_kind"], columns)
    rows = {**conversations["by_language"], "overall": conversations["overall"]}
    lines += ["", *_table("by language", rows, columns)]
    lines.append(f"latency per turn: p50 {conversations['latency_ms']['p50']} ms, p95 {conversations['latency_ms']['p95']} ms")
    crosslingual = report.get("crosslingual")
    if crosslingual:
        columns = (
            "questions",
            "in_scope",
            "answered_with_expected_page",
            "false_refusal",
            "out_of_scope",
            "refusal",
            "quotes_evidence",
            "other_material",
        )
        lines += ["", *_table("Cross-lingual", crosslingual["by_direction"], columns)]
        lines.append(f"latency per question: p50 {crosslingual['latency_ms']['p50']} ms, p95 {crosslingual['latency_ms']['p95']} ms")
    if report.get("rules_fired"):
        off = f" (switched off: {', '.join(report['rules_off'])})" if report.get("rules_off") else ""
        lines += ["", f"Rules fired{off}:", *(f"  {name:42} {count:7}" for name, count in report["rules_fired"].items())]
    return "\n".join(lines)


# --- The command ---------------------------------------------------------------------------


class Command(BaseCommand):
    help = "Measure the tutor on scripted multi-turn conversations (and cross-lingual questions) over real books, citing expected pages."

    def add_arguments(self, parser):
        parser.add_argument(
            "--conversations", required=True, help="JSON Lines: id, book, language, turns[{question, expected_pages, kind}]"
        )
        parser.add_argument(
            "--crosslingual",
            help="JSON Lines: id, question, question_language, book, expected_pages, in_scope (questions in the other language)",
        )
        parser.add_argument("--books", default=DEFAULT_BOOKS, help=f"folder holding the books the sets name (default: {DEFAULT_BOOKS})")
        parser.add_argument("--limit", type=int, default=0, help="use only the first N lines of each file (0: all)")
        parser.add_argument(
            "--failures",
            metavar="FILE",
            help="also write every failed turn to FILE (JSON Lines), and every turn on its page that misses its evidence phrase",
        )
        parser.add_argument(
            "--evidence",
            metavar="FILE",
            help="evidence.json (a phrase on each expected page of every turn): adds quotes_evidence, the share of in-scope "
            "turns whose answer holds it (default: evidence.json beside --conversations, when there is one)",
        )
        parser.add_argument(
            "--all-materials",
            action="store_true",
            help="every conversation over all the run's books, as a new conversation in a library of several: a citation "
            "counts only in the turn's own book, and other_material is the share of answers citing another",
        )
        parser.add_argument("--json", action="store_true", help="print one JSON object and no progress")
        evaluation_options(parser)

    def handle(self, *args, conversations: str, crosslingual: str | None, books: str, limit: int, failures: str | None, **options):
        quiet = options["json"]
        evidence = self._evidence(options["evidence"] or Path(conversations).with_name("evidence.json"), required=bool(options["evidence"]))
        scripted = self._rows(conversations, CONVERSATION_FIELDS, limit)
        questions = self._rows(crosslingual, CROSSLINGUAL_FIELDS, limit) if crosslingual else []
        kept = in_split(options["split"], [row["book"] for row in [*scripted, *questions]])
        scripted, questions = [row for row in scripted if row["book"] in kept], [row for row in questions if row["book"] in kept]
        paths = self._book_paths(Path(books), [row["book"] for row in [*scripted, *questions]])
        quality = quality_model(options["quality"])
        progress_stream = self.stderr._out  # tqdm redraws with "\r"; Django's wrapper would add a newline to each write
        warm_up(active_embedder())  # the first turn should not pay for loading the models
        with (
            rules_run(options["without"]) as fired,  # first: a rule of reading (``chunk:*``) is off while the books are read
            throwaway_documents(paths, stream=progress_stream, show_progress=not quiet, quality=quality, library=options["library"]) as (
                user,
                materials,
            ),
        ):
            every = options["all_materials"]
            turn_results = self._play_conversations(user, materials, scripted, evidence, stream=progress_stream, quiet=quiet, every=every)
            crosslingual_results = self._ask_crosslingual(
                user, materials, questions, evidence, stream=progress_stream, quiet=quiet, every=every
            )
        report = {
            "embedding_model": quality or active_embedder().model,
            "split": options["split"] or "all",
            "books": [path.name for path in paths],
            "all_materials": options["all_materials"],
            "conversations": conversation_report(turn_results, len(scripted)),
            "crosslingual": crosslingual_report(crosslingual_results) if questions else None,
            "rules_off": sorted(options["without"]),
            "rules_fired": dict(sorted(fired.items())),
        }
        if failures:
            self._write_failures(Path(failures), [*turn_results, *crosslingual_results])
        self.stdout.write(json.dumps(report, ensure_ascii=False) if quiet else readable(report))

    @staticmethod
    def _rows(path: str, required: tuple[str, ...], limit: int) -> list[dict]:
        rows = read_jsonl(path, required)
        return rows[:limit] if limit else rows

    @staticmethod
    def _book_paths(folder: Path, names: list[str]) -> list[Path]:
        """Each book the sets mention, once, in a stable order; every one must be in ``folder``."""
        paths = [folder / name for name in sorted(set(names))]
        missing = [path.name for path in paths if not path.is_file()]
        if missing:
            raise CommandError(f"Missing books in {folder}: {', '.join(missing)}")
        return paths

    @staticmethod
    def _evidence(path: str | Path, *, required: bool) -> dict:
        """evidence.json's items ({"conversations": {id: [per turn]}, "crosslingual": {id: item}}), or none."""
        path = Path(path)
        if not path.is_file():
            if required:
                raise CommandError(f"No evidence file at {path}.")
            return {"conversations": {}, "crosslingual": {}}
        try:
            evidence = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as error:
            raise CommandError(f"{path} is not JSON ({error}): evidence.json maps each item to the phrase on its pages.") from error
        return {"conversations": evidence.get("conversations", {}), "crosslingual": evidence.get("crosslingual", {})}

    @staticmethod
    def _play_conversations(
        user, materials: dict, rows: list[dict], evidence: dict, *, stream, quiet: bool, every: bool
    ) -> list[TurnResult]:
        results: list[TurnResult] = []
        total = sum(len(row["turns"]) for row in rows)
        with tqdm(total=total, desc="Conversation turns", file=stream, disable=quiet, unit="turn") as bar:
            for row in rows:
                material = materials[Path(row["book"]).stem]
                results += run_conversation(
                    user=user,
                    material=material,
                    row=row,
                    on_turn=lambda: bar.update(1),
                    evidence=evidence["conversations"].get(row["id"]),
                    all_materials=every,
                )
        return results

    @staticmethod
    def _ask_crosslingual(user, materials: dict, rows: list[dict], evidence: dict, *, stream, quiet: bool, every: bool) -> list[TurnResult]:
        return [
            run_crosslingual(
                user=user,
                material=materials[Path(row["book"]).stem],
                row=row,
                evidence=evidence["crosslingual"].get(row["id"]),
                all_materials=every,
            )
            for row in tqdm(rows, desc="Cross-lingual questions", file=stream, disable=quiet, unit="q")
        ]

    @staticmethod
    def _write_failures(path: Path, results: list[TurnResult]) -> None:
        lines = [
            json.dumps(result.as_failure(), ensure_ascii=False) + "\n" for result in results if not result.correct or result.misses_evidence
        ]
        path.write_text("".join(lines), encoding="utf-8")
