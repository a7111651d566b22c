"""`manage.py fit_frame_words`: learn the words that frame questions from the lock box's tuning part.

    python manage.py fit_frame_words --eval-dir ../shared/eval [--write]

Reads every question with gold evidence: the public paragraph sets (SQuAD, KorQuAD, AutoRAG-ko: a question and
the paragraph that answers it) and financebench_dev (a question and its evidence pages' text). A term is a frame
word when questions about several documents of the tuning part use it and their evidence rarely does
(``baeum/language/frame_words.py``). The report shows each word with its counts on both parts: a word learned on
tune that the check part's evidence writes often is one the fit got wrong. ``--write`` ships the list
(``baeum/language/frame_words.json``), with the counts and the command. See docs/evaluation.md.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from baeum.language import frame_words
from knowledge.evaluation import lockbox_parts

PARAGRAPH_SETS = ("squad_public", "korquad_public", "autorag_ko_public")


def _rows(eval_dir: Path, parts: dict[str, str]) -> dict[str, list[tuple[str, str, str]]]:
    """(question, gold evidence, document) of each lock-box part."""
    rows: dict[str, list[tuple[str, str, str]]] = {"tune": [], "check": []}
    for name in PARAGRAPH_SETS:
        corpus_file, queries_file = eval_dir / f"{name}_corpus.jsonl", eval_dir / f"{name}_queries.jsonl"
        if not corpus_file.is_file() or not queries_file.is_file():
            raise CommandError(f"{corpus_file} or {queries_file} is missing: give the folder of the shared evaluation sets.")
        corpus = {str(row["doc_id"]): row for row in map(json.loads, corpus_file.read_text(encoding="utf-8").splitlines())}
        for query in map(json.loads, queries_file.read_text(encoding="utf-8").splitlines()):
            paragraph = corpus.get(str(query.get("doc_id")))
            if paragraph is None:
                continue
            title = paragraph.get("title", str(paragraph["doc_id"]))
            if parts.get(title) in rows:
                rows[parts[title]].append((query["question"], paragraph["text"], title))
    filings = eval_dir / "financebench_dev" / "questions.jsonl"
    if not filings.is_file():
        raise CommandError(f"{filings} is missing: give the folder of the shared evaluation sets.")
    for question in map(json.loads, filings.read_text(encoding="utf-8").splitlines()):
        if parts.get(question["doc_name"]) in rows:
            evidence = " ".join(item["evidence_text"] for item in question["evidence"])
            rows[parts[question["doc_name"]]].append((question["question"], evidence, question["doc_name"]))
    return rows


class Command(BaseCommand):
    help = "Learn the words that frame questions (asked about many documents, rarely in their evidence) on the lock box's tuning part."

    def add_arguments(self, parser):
        parser.add_argument("--eval-dir", default="../shared/eval", help="the shared evaluation sets (default: ../shared/eval)")
        parser.add_argument("--write", action="store_true", help=f"write the list to {frame_words.WORDS_FILE.name}")

    def handle(self, *args, eval_dir: str, write: bool, **options):
        rows = _rows(Path(eval_dir), lockbox_parts())
        learned = frame_words.fit(rows["tune"])
        check = frame_words.counts(rows["check"])
        self.stdout.write(f"{len(rows['tune'])} tuning questions, {len(rows['check'])} check questions; {len(learned)} frame words")
        self.stdout.write(
            f"{'word':24} {'tune: asked':>11} {'in evidence':>11} {'documents':>9}   {'check: asked':>12} {'in evidence':>11}"
        )
        held = 0
        for term, seen in learned.items():
            other = check.get(term, {"asked": 0, "in_evidence": 0})
            share = other["in_evidence"] / other["asked"] if other["asked"] else None
            held += share is not None and share <= frame_words.MAX_EVIDENCE_SHARE
            self.stdout.write(
                f"{term:24} {seen['asked']:>11} {seen['in_evidence']:>11} {seen['documents']:>9}   {other['asked']:>12} {other['in_evidence']:>11}"
            )
        asked_on_check = sum(1 for term in learned if check.get(term, {}).get("asked"))
        self.stdout.write(
            f"check part: {asked_on_check} of the words are asked there; {held} of those are as rarely in the evidence "
            f"(at most {frame_words.MAX_EVIDENCE_SHARE:.0%})"
        )
        if write:
            frame_words.WORDS_FILE.write_text(
                json.dumps(
                    {
                        "command": "python manage.py fit_frame_words --eval-dir ../shared/eval --write",
                        "rule": {
                            "min_questions": frame_words.MIN_QUESTIONS,
                            "min_documents": frame_words.MIN_DOCUMENTS,
                            "max_evidence_share": frame_words.MAX_EVIDENCE_SHARE,
                        },
                        "tune_questions": len(rows["tune"]),
                        "words": learned,
                    },
                    ensure_ascii=False,
                    indent=1,
                )
                + "\n",
                encoding="utf-8",
            )
            self.stdout.write(f"Wrote {frame_words.WORDS_FILE}")
