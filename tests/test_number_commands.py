"""Every command a number in the docs comes from still runs, end to end, at its smallest size.

A figure in docs/evaluation.md or a closing note is only as good as the command that prints it: `bench_retrieval`
once failed at every size for months (a new NOT NULL column its hand-built rows lacked) and nothing
noticed. Each test here runs one command through its whole path on a few chunks, pages or seconds,
checks the keys of what it prints and that it left nothing behind. Scores are not asserted: they are
what the commands measure, on data far too small to mean anything.

`test_every_number_command_has_a_smoke_test` keeps the list whole: a new `bench_*` / `eval_*` command
without a test here fails it. Scripts outside `manage.py` (`scripts/bench_ocr.py`, `scripts/multinode.py`)
are run as the operator runs them, in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command, get_commands
from django.db import connection

from knowledge.models import Material
from tests.chat.conftest import BOOK
from tests.pdfgen import make_pdf

ROOT = Path(__file__).resolve().parent.parent

# transaction=True: the commands commit as they go (throwaway users, a benchmark schema made and dropped
# by the owner role, a live server's threads reading what the command wrote), which a test transaction hides.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

SMOKE_TESTED = {
    "bench_ingest": "tests/knowledge/test_commands.py",
    "bench_retrieval": "test_bench_retrieval_*",
    "eval_retrieval": "test_eval_retrieval_*",
    "eval_answers": "test_eval_answers_*",
    "eval_documents": "test_eval_documents_*",
    "eval_conversations": "tests/chat/test_eval_conversations.py",
    "eval_study": "test_eval_study_*",
    "load_test": "test_load_test_*",
    "bench_fairness": "test_bench_fairness_*",
    "fit_weights": "test_fit_weights_*",
    "bench_course": "tests/courses/test_bench_course.py",
}

PASSAGES = [
    {"doc_id": "stack", "title": "The stack", "text": "The stack is a region of memory. The ESP register points to the top of the stack."},
    {
        "doc_id": "interrupts",
        "title": "Interrupts",
        "text": "An interrupt handler is the routine that processes an interrupt from a device.",
    },
    {"doc_id": "registers", "title": "Registers", "text": "A register is a very fast storage location inside the CPU, such as EAX."},
]
QUESTIONS = [
    {"qid": "q1", "question": "Which register points to the top of the stack?", "doc_id": "stack"},
    {"qid": "q2", "question": "What processes an interrupt?", "doc_id": "interrupts"},
]


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _nothing_left(users_before: int) -> None:
    assert Material.objects.unscoped().count() == 0  # test check: every throwaway material deleted
    assert get_user_model().objects.count() == users_before  # and every throwaway account


def test_every_number_command_has_a_smoke_test():
    numbered = {name for name in get_commands() if name.startswith(("bench_", "eval_"))} | {"load_test", "fit_weights"}
    assert numbered == set(SMOKE_TESTED), "a command that prints a number needs a smoke test (add it here)"


def _bench_schemas() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'bench\\_%'")
        return [row[0] for row in cursor.fetchall()]


def test_bench_retrieval_even_library_prints_every_mode_and_drops_its_schema(capsys):
    call_command("bench_retrieval", "--chunks", "200", "--users", "4", "--queries", "3", "--json")
    report = json.loads(capsys.readouterr().out)
    assert {mode["mode"] for mode in report["modes"]} == {"semantic", "lexical", "hybrid"}
    for mode in report["modes"]:
        assert {"p50_ms", "p95_ms"} <= mode.keys() and mode["p95_ms"] > 0
        if mode["mode"] != "lexical":
            assert 0 <= mode["recall_vs_exact"] <= 1
    assert {"chunks", "users", "queries", "build_seconds", "query_embedding_ms"} <= report.keys()
    assert report["chunks"] == 200 and report["users"] == 4
    assert _bench_schemas() == []


def test_bench_retrieval_skewed_builds_owner_indexes_for_large_libraries_and_drops_its_schema(capsys, monkeypatch):
    """The skewed path whole (HNSW build, a large library's own index, both groups) on 1,600 chunks:
    the thresholds that make a library "large" are lowered for the test, not the code path."""
    from knowledge.management.commands import bench_retrieval
    from knowledge.selectors import search

    owner_indexes_before = _public_owner_indexes(search)  # another test's may be there
    monkeypatch.setattr(bench_retrieval, "SKEWED_LARGE_FROM", 1_000)
    monkeypatch.setattr(search, "LARGE_LIBRARY_VECTORS", 1_000)
    call_command(
        "bench_retrieval", "--skewed", "--chunks", "1600", "--large", "1200", "--small", "100,200", "--queries", "3", "--json"
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert [group["group"] for group in report["groups"]] == ["large", "small"]
    assert report["groups"][0]["owners"] == 1 and report["groups"][0]["chunks"] == 1200
    assert {
        "load_seconds",
        "index_build_seconds",
        "index_mb",
        "owner_indexes_seconds",
        "owner_indexes_mb",
        "largest_library",
    } <= report.keys()
    assert report["owner_indexes_mb"] > 0  # the large library got its own index
    assert _bench_schemas() == []
    assert _public_owner_indexes(search) == owner_indexes_before  # the benchmark's own indexes went with its schema


def _public_owner_indexes(search) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' AND indexname LIKE %s", [search.OWNER_INDEX_PREFIX + "%"]
        )
        return {row[0] for row in cursor.fetchall()}


def test_bench_retrieval_rows_cover_every_column_of_the_models():
    """The synthetic rows are built from the models' columns: a column added to Chunk is in the COPY."""
    from knowledge.management.commands.bench_retrieval import CHUNK_ROWS, EMBEDDING_ROWS, TERM_ROWS
    from knowledge.models import Chunk, ChunkEmbedding, ChunkTerm

    for rows, model in ((CHUNK_ROWS, Chunk), (EMBEDDING_ROWS, ChunkEmbedding), (TERM_ROWS, ChunkTerm)):
        columns = {column.strip() for column in rows.columns.strip("()").split(",")}
        expected = {field.column for field in model._meta.concrete_fields} - ({"id"} if model is ChunkTerm else set())
        assert columns == expected
    row = CHUNK_ROWS.row(7, 1, 10, 7, "alpha beta", 2, 2)
    assert row[list(field.column for field in Chunk._meta.concrete_fields).index("note_spans")] == "[]"


def test_bench_retrieval_rows_name_a_column_they_cannot_fill():
    from knowledge.management.commands.bench_retrieval import CopyRows
    from knowledge.models import Chunk

    with pytest.raises(ValueError, match=r"knowledge_chunk\.token_count has no default"):
        CopyRows(Chunk, varying=("id", "owner_id", "material_id", "chunk_index", "content"), page_number=1, page_end=1, content_hash="h")
    with pytest.raises(ValueError, match="no column colour"):
        CopyRows(Chunk, varying=("id", "colour"))


def test_eval_retrieval_prints_each_mode_and_cleans_up(tmp_path, capsys):
    users = get_user_model().objects.count()
    corpus, queries = _jsonl(tmp_path / "corpus.jsonl", PASSAGES), _jsonl(tmp_path / "queries.jsonl", QUESTIONS)
    call_command("eval_retrieval", "--corpus", str(corpus), "--queries", str(queries), "--quality", "none", "--json")
    report = json.loads(capsys.readouterr().out)
    assert [mode["mode"] for mode in report["modes"]] == ["semantic", "lexical", "hybrid"]
    assert all({"mrr@10", "n"} <= mode.keys() for mode in report["modes"]), report["modes"][0].keys()
    assert report["passages"] == 3 and report["chunks"] >= 3 and report["embedding_model"] == "use-multilingual-v3"
    _nothing_left(users)


def test_eval_answers_prints_answer_and_refusal_shares_and_cleans_up(tmp_path, capsys):
    users = get_user_model().objects.count()
    corpus = _jsonl(tmp_path / "corpus.jsonl", PASSAGES[:2])
    queries = _jsonl(tmp_path / "queries.jsonl", QUESTIONS)
    outside = _jsonl(tmp_path / "outside.jsonl", [{"qid": "o1", "question": "What is a register?", "doc_id": "registers"}])
    call_command(
        "eval_answers", "--corpus", str(corpus), "--queries", str(queries), "--out-of-scope", str(outside), "--quality", "none", "--json"
    )
    report = json.loads(capsys.readouterr().out)
    assert {"n_in", "n_out", "answer_hit", "citation_valid", "false_refusal", "refusal_out_of_scope", "latency_ms"} <= report.keys()
    assert report["n_in"] == 2 and report["n_out"] == 1
    assert report["rules_off"] == [] and any(name.startswith("evidence:") for name in report["rules_fired"])
    _nothing_left(users)


def test_eval_answers_switches_a_named_rule_off_and_refuses_an_unknown_one(tmp_path, capsys):
    from django.core.management.base import CommandError

    corpus, queries = _jsonl(tmp_path / "corpus.jsonl", PASSAGES[:2]), _jsonl(tmp_path / "queries.jsonl", QUESTIONS[:1])
    outside = _jsonl(tmp_path / "outside.jsonl", [{"qid": "o1", "question": "What is a register?", "doc_id": "registers"}])
    arguments = ["--corpus", str(corpus), "--queries", str(queries), "--out-of-scope", str(outside), "--quality", "none", "--json"]
    call_command("eval_answers", *arguments, "--without", "sentence:heading")
    report = json.loads(capsys.readouterr().out)
    assert report["rules_off"] == ["sentence:heading"] and "sentence:heading" not in report["rules_fired"]
    with pytest.raises(CommandError, match="No rule named sentence:nothing.*sentence:heading"):
        call_command("eval_answers", *arguments, "--without", "sentence:nothing")


def test_eval_documents_prints_ours_beside_the_page_baseline_and_the_tutor_and_cleans_up(tmp_path, capsys):
    users = get_user_model().objects.count()
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "asm.pdf").write_bytes(make_pdf(BOOK))
    questions = _jsonl(
        tmp_path / "questions.jsonl",
        [
            {"question": "Which register points to the top of the stack?", "doc_name": "asm", "evidence": [{"evidence_page": 2}]},
            {"question": "What is an interrupt?", "doc_name": "asm", "evidence": [{"evidence_page": 1}]},
        ],
    )
    call_command("eval_documents", "--questions", str(questions), "--pdfs", str(folder), "--tutor", "--quality", "none", "--json")
    report = json.loads(capsys.readouterr().out)
    assert {"questions", "documents", "baeum", "baseline_bm25_pages", "ratio_page_hit@5", "tutor"} <= report.keys()
    assert "page_hit@5" in report["baeum"] and "page_hit@5" in report["baseline_bm25_pages"]
    assert {"answer_rate", "false_refusal", "citation_on_evidence_page"} <= report["tutor"].keys()
    assert report["questions"] == 2 and report["documents"] == 1
    _nothing_left(users)


def test_eval_study_prints_a_report_per_book_and_cleans_up(tmp_path, capsys):
    users = get_user_model().objects.count()
    path = tmp_path / "asm.pdf"
    # A page whose key-point candidates include sentences the rules reject (a lead-in cut from its list, a caption).
    errata = (
        "Chapter 4 Errata\nThe stack pointer is updated by the following two steps: 1. "
        "Figure 4.2: How the stack grows downwards in memory when a value is pushed. The ESP register points to the top of the stack."
    )
    path.write_bytes(make_pdf([*BOOK, errata]))
    call_command("eval_study", str(path), "--json", "--without", "sentence:heading")
    report = json.loads(capsys.readouterr().out)
    assert len(report["books"]) == 1
    assert report["books"][0], "an empty report per book"
    # The key points are chosen by the sentence rules, which the report counts; the one switched off never fires.
    assert report["rules_off"] == ["sentence:heading"] and "sentence:heading" not in report["rules_fired"]
    assert any(name.startswith("sentence:") for name in report["rules_fired"]), report["rules_fired"]
    _nothing_left(users)


def test_fit_weights_fits_on_the_tuning_part_judges_both_and_refits_from_saved_rows(tmp_path, capsys, monkeypatch):
    import knowledge.evaluation
    from baeum.answering import weights
    from baeum.answering.extractive import HAND_WEIGHTS

    users = get_user_model().objects.count()
    lockbox = tmp_path / "lockbox.json"  # the tiny corpus's articles, one per part
    lockbox.write_text(json.dumps({"tiny": {"tune": ["The stack", "Registers"], "check": ["Interrupts"]}}), encoding="utf-8")
    monkeypatch.setattr(knowledge.evaluation, "LOCKBOX", lockbox)
    folder = tmp_path / "tiny"
    folder.mkdir()
    _jsonl(folder / "corpus.jsonl", PASSAGES)
    answers = [
        {**QUESTIONS[0], "answers": ["ESP register"]},
        {**QUESTIONS[1], "answers": ["interrupt handler"]},
        {"qid": "q3", "question": "Which fast storage inside the CPU holds EAX?", "doc_id": "registers", "answers": ["EAX"]},
    ]
    _jsonl(folder / "queries.jsonl", answers)
    outside = [
        {"qid": "o1", "question": "What is the capital of Australia?", "doc_id": "stack", "title": "The stack"},
        {"qid": "o2", "question": "How does photosynthesis work?", "doc_id": "interrupts", "title": "Interrupts"},
    ]
    _jsonl(folder / "out_of_scope.jsonl", outside)
    rows, decisions = tmp_path / "rows.jsonl", tmp_path / "decisions.jsonl"
    shipped = weights.WEIGHTS_FILE.read_bytes() if weights.WEIGHTS_FILE.exists() else None
    call_command("fit_weights", "--answers", str(folder), "--quality", "none", "--rows", str(rows), "--refusals", str(decisions))
    report = json.loads(capsys.readouterr().out)
    # Every question's answer-or-refuse decision is kept with its signals and whether the corpus answers it.
    kept = [json.loads(line) for line in decisions.read_text().splitlines()]
    assert sorted(row["answerable"] for row in kept) == [False, False, True, True, True]
    assert {"coverage", "vector_margin", "names_found", "rules_answer"} <= kept[0]["signals"].keys()
    assert {"model", "tiny/tune", "all/check"} <= report["refusals"].keys()
    assert report["refusals"]["tiny/tune"]["rules"]["in_scope"] == 2 and report["refusals"]["tiny/tune"]["rules"]["out_of_scope"] == 1
    assert set(report["weights"]) == set(weights.FEATURES) and report["weights"]["overlap"] == 1.0
    assert {"tiny/tune", "tiny/check", "all/tune", "all/check"} <= report["judged"].keys()
    assert report["judged"]["tiny/tune"]["fitted"]["rankings"] >= 1  # "The ESP register …" against "The stack is …"
    saved = [json.loads(line) for line in rows.read_text().splitlines()]
    assert saved and all(row["part"] in ("tune", "check") and any(row["answers"]) for row in saved)
    call_command("fit_weights", "--refit", "--rows", str(rows))
    assert json.loads(capsys.readouterr().out)["weights"] == report["weights"]  # the same rows fit the same weights
    call_command("fit_weights", "--refit", "--rows", str(rows), "--only", "position")  # one weight fitted, the others held
    partial = json.loads(capsys.readouterr().out)["weights"]
    assert {name: value for name, value in partial.items() if name != "position"} == {
        name: value for name, value in HAND_WEIGHTS.items() if name != "position"
    }
    assert (weights.WEIGHTS_FILE.read_bytes() if weights.WEIGHTS_FILE.exists() else None) == shipped  # only --write writes
    _nothing_left(users)


def test_load_test_drives_a_live_server_and_loses_nothing(live_server, capsys):
    users = get_user_model().objects.count()
    call_command(
        "load_test", "--url", live_server.url, "--learners", "2", "--uploaders", "1", "--duration", "4", "--think", "0.5", "--json"
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert {"requests", "throughput_rps", "errors", "endpoints", "uploads", "messages"} <= report.keys()
    assert report["requests"] > 0 and report["errors"] == 0, report["error_samples"]
    assert report["uploads"]["not_final"] == 0 and report["messages"]["lost"] == 0
    assert report["messages"]["answered"] > 0
    _nothing_left(users)


def test_bench_fairness_drives_a_live_server_prints_each_target_and_cleans_up(live_server, capsys, tmp_path):
    """Smoke test only (tasks run in the request here, so the seconds say nothing): every scene runs, every
    target is reported, nothing is left behind. The numbers come from a run against make run."""
    from tests.ocrgen import scanned_pdf

    users = get_user_model().objects.count()
    scan = tmp_path / "scan.pdf"
    scan.write_bytes(scanned_pdf(["Registers are small and fast storage inside the processor."])[0])
    call_command(
        "bench_fairness", "--url", live_server.url, "--scan", str(scan), "--library", "1", "--library-bytes", "5000",
        "--heavy-bytes", "20000", "--fills", "100", "--picture-seconds", "1", "--json",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert set(report["met"]) == set(report["targets"]) == {"small_upload_ready_s", "one_page_scan_ready_s", "other_learner_api_p95_ms"}
    assert report["uploads"]["small_upload_ready_s"] is not None and report["uploads"]["one_page_scan_ready_s"] is not None
    pictures = report["page_pictures"]
    assert pictures["other_learner_api_requests"] > 0 and pictures["other_learner_api_failures"] == 0
    assert sum(pictures["picture_answers"].values()) >= 16
    _nothing_left(users)


def _script(*arguments: str, timeout: float) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run([sys.executable, *arguments], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=timeout)


def test_bench_ocr_reads_one_generated_page_per_language(tmp_path):
    from baeum.extraction import ocr

    if not ocr.ocr_available():
        pytest.skip("Tesseract with kor and eng is not installed (make ocr-deps)")
    result = _script("scripts/bench_ocr.py", "--samples", str(tmp_path), "--generated-pages", "1", timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    for language in ("generated_korean", "generated_english"):
        assert report[language]["pages"] == 1 and {"seconds_per_page", "cer"} <= report[language].keys(), report[language]
    assert report["scanned_samples"] == {}  # an empty samples folder: the generated pages only


def test_multinode_runs_two_nodes_as_the_application_role_over_tables_the_owner_role_holds():
    """One node pair for 20 seconds (docs/evaluation.md's figures are 120 s): servers, migrations as the owner role,
    the nodes as the application role, both kills, and the final check that nothing was lost."""
    import tempfile

    left_before = set(Path(tempfile.gettempdir()).glob("baeum-multinode-*"))
    result = _script(
        "scripts/multinode.py", "--learners", "2", "--uploaders", "1", "--duration", "20", "--visibility-timeout", "10", "--json",
        timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, (result.stdout[-2000:], result.stderr[-3000:])
    summary = json.loads(result.stdout)
    roles = summary["postgres"]
    assert set(roles["table_owners"]) == {"baeum_owner"} and roles["schema_owner"] == "baeum_owner"
    assert roles["nodes_connect_as"] == "baeum" and roles["app_role"] == {"superuser": False, "bypassrls": False, "createdb": False}
    assert {session["role"] for session in roles["tcp_sessions_mid_run"]} == {"baeum"}
    assert summary["row_level_security"]["materials_seen_closed"] == 0
    assert summary["row_level_security"]["app_role_can_turn_rls_off"] is False
    assert [kill["process"] for kill in summary["kills"]] == ["node2 worker", "node1 web"]
    assert summary["uploads_not_final"] == 0 and summary["turns_lost"] == 0
    assert summary["load"]["messages"]["answered"] > 0
    assert set(Path(tempfile.gettempdir()).glob("baeum-multinode-*")) == left_before  # both servers' state removed


def test_eval_documents_takes_a_split_of_the_lock_box_and_refuses_a_document_without_a_part(tmp_path):
    from django.core.management.base import CommandError

    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "asm.pdf").write_bytes(make_pdf(BOOK))
    questions = _jsonl(
        tmp_path / "questions.jsonl", [{"question": "What is an interrupt?", "doc_name": "asm", "evidence": [{"evidence_page": 1}]}]
    )
    with pytest.raises(CommandError, match="no part in the lock box"):
        call_command("eval_documents", "--questions", str(questions), "--pdfs", str(folder), "--split", "check", "--json")


def test_coverage_questions_asks_each_question_of_a_kept_library_and_counts_refusals(tmp_path, ingest):
    import importlib.util
    import io

    spec = importlib.util.spec_from_file_location("coverage_questions", ROOT / "scripts" / "coverage_questions.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    library = get_user_model().objects.create_user(email="eval-library-coverage-smoke@baeum.invalid", password=None)
    ingest(library, make_pdf(BOOK), "asm.pdf", title="PC Assembly")
    questions = tmp_path / "coverage.tsv"
    questions.write_text("PC Assembly\tin\tdoes it cover interrupts?\nPC Assembly\tout\tdoes it cover WireGuard?\n", encoding="utf-8")
    out = io.StringIO()
    report = script.run(questions, ["coverage-smoke"], stream=out)
    assert report["in"][0] == 1 and report["out"][0] == 1 and "fired" in report
    assert "in scope:" in out.getvalue() and "evidence:never-mentioned fired" in out.getvalue()
    with pytest.raises(SystemExit, match="no kept library"):
        script.run(questions, ["nobody"], stream=out)
