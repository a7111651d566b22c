"""`manage.py eval_conversations` end to end on a tiny generated book and sets: the report's shape, not its scores."""

import json

import pytest
from django.core.management import call_command

from knowledge.models import Material
from tests.chat.conftest import BOOK, KOREAN_BOOK
from tests.pdfgen import make_pdf

# transaction=True: the command ingests in a thread of its own, which sees only committed rows.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CONVERSATIONS = [
    {
        "id": "en-stack-1",
        "book": "asm.pdf",
        "language": "en",
        "turns": [
            {"question": "What is the stack?", "expected_pages": [3], "kind": "first"},
            {"question": "Which register points to its top?", "expected_pages": [3], "kind": "anaphora"},
            {"question": "What will the weather be tomorrow?", "expected_pages": [], "kind": "out_of_scope"},
        ],
    },
    {
        "id": "en-interrupts-1",
        "book": "asm.pdf",
        "language": "en",
        "turns": [
            {"question": "What is an interrupt?", "expected_pages": [2], "kind": "first"},
            {"question": "What about hardware interrupts?", "expected_pages": [2], "kind": "ellipsis"},
        ],
    },
]
CROSSLINGUAL = [
    {
        "id": "ko-en-01",
        "question": "레지스터란 무엇인가요?",
        "question_language": "ko",
        "book": "asm.pdf",
        "expected_pages": [1],
        "in_scope": True,
    },
    {
        "id": "en-ko-oos-01",
        "question": "How does photosynthesis work?",
        "question_language": "en",
        "book": "어셈블리.pdf",
        "expected_pages": [],
        "in_scope": False,
    },
]
CONVERSATION_SCORES = {
    "answered",
    "cited_expected_page",
    "follow_up_accuracy",
    "refusal_out_of_scope",
    "correct",
    "quotes_evidence",
    "other_material",
}
CROSSLINGUAL_SCORES = {"answered_with_expected_page", "false_refusal", "refusal", "quotes_evidence", "other_material"}
# A phrase on the expected page of each first turn; the second conversation's is not in the book, so no
# answer can hold it (the measure counts the sentence that answers, not any answer).
EVIDENCE = {
    "conversations": {
        "en-stack-1": [{"pages": {"3": "The stack is a last-in first-out structure"}}],
        "en-interrupts-1": [{"pages": {"2": "An interrupt is a kind of coffee"}}],
    },
    "crosslingual": {},
}


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows), encoding="utf-8")
    return path


def _shares(scores: dict, keys: set[str]) -> list[float]:
    assert keys <= scores.keys()
    return [scores[key] for key in keys if scores[key] is not None]


def test_eval_conversations_reports_shares_per_kind_language_and_direction_and_cleans_up(tmp_path, capsys):
    books = tmp_path / "books"
    books.mkdir()
    (books / "asm.pdf").write_bytes(make_pdf(BOOK))
    (books / "어셈블리.pdf").write_bytes(make_pdf(KOREAN_BOOK))
    conversations = _write_jsonl(tmp_path / "conversations.jsonl", CONVERSATIONS)
    crosslingual = _write_jsonl(tmp_path / "crosslingual.jsonl", CROSSLINGUAL)
    failures = tmp_path / "failures.jsonl"
    (tmp_path / "evidence.json").write_text(json.dumps(EVIDENCE), encoding="utf-8")  # read from beside the conversations

    call_command(
        "eval_conversations",
        "--conversations", str(conversations),
        "--crosslingual", str(crosslingual),
        "--books", str(books),
        "--quality", "none",
        "--failures", str(failures),
        "--json",
    )  # fmt: skip
    report = json.loads(capsys.readouterr().out)

    assert set(report) == {
        "embedding_model",
        "books",
        "all_materials",
        "conversations",
        "crosslingual",
        "split",
        "rules_off",
        "rules_fired",
    }
    assert report["split"] == "all" and report["rules_off"] == [] and report["rules_fired"] and not report["all_materials"]
    assert report["books"] == ["asm.pdf", "어셈블리.pdf"]
    talk = report["conversations"]
    assert talk["conversations"] == 2
    assert talk["overall"]["turns"] == 5
    assert talk["overall"]["in_scope"] == 4
    assert set(talk["by_kind"]) == {"first", "anaphora", "ellipsis", "out_of_scope"}
    assert set(talk["by_language"]) == {"en"}
    assert talk["by_kind"]["first"]["follow_up_accuracy"] is None  # an opening turn is no follow-up
    # Two first turns carry evidence: "What is the stack?" is answered with the sentence that holds it, the
    # interrupt's phrase is in no answer; the follow-ups carry none, so they are not counted.
    assert talk["by_kind"]["first"]["quotes_evidence"] == 0.5
    assert talk["by_kind"]["anaphora"]["quotes_evidence"] is None
    groups = [talk["overall"], *talk["by_kind"].values(), *talk["by_language"].values()]
    values = [value for scores in groups for value in _shares(scores, CONVERSATION_SCORES)]
    assert set(talk["latency_ms"]) == {"p50", "p95"}
    directions = report["crosslingual"]["by_direction"]
    assert set(directions) == {"ko→en", "en→ko"}
    values += [value for scores in directions.values() for value in _shares(scores, CROSSLINGUAL_SCORES)]
    assert values
    assert all(0 <= value <= 1 for value in values)
    assert all({"id", "question", "expected_pages"} <= json.loads(line).keys() for line in failures.read_text().splitlines())
    assert not Material.objects.unscoped().exists()  # the throwaway user's books are gone


def test_eval_conversations_names_missing_books(tmp_path):
    from django.core.management.base import CommandError

    conversations = _write_jsonl(tmp_path / "conversations.jsonl", CONVERSATIONS[:1])
    with pytest.raises(CommandError, match="asm.pdf"):
        call_command("eval_conversations", "--conversations", str(conversations), "--books", str(tmp_path), "--json")


def test_a_turn_on_its_page_without_its_evidence_phrase_is_written_as_a_miss():
    from chat.management.commands.eval_conversations import TurnResult

    def result(answer: str) -> TurnResult:
        return TurnResult(
            set_id="c1", turn=1, kind="first", language="en", question="What is a stack?", expected_pages=[3], refused=False,
            cited_pages=[[3, 3]], answer=answer, milliseconds=1.0, evidence=["last in, first out"],
        )  # fmt: skip

    quoted, missed = result("A stack is last in, first out. [1]"), result("Stacks are used for calls. [1]")
    assert quoted.correct and not quoted.misses_evidence
    assert missed.correct and missed.misses_evidence
    assert missed.as_failure()["evidence_not_quoted"] == ["last in, first out"]


def test_over_all_materials_only_the_turns_own_book_counts_and_another_is_counted_against():
    """``--all-materials``: a citation of the right page number in another book is no hit, and is counted in
    ``other_material`` (the share of answered turns citing a book not their own)."""
    from chat.management.commands.eval_conversations import TurnResult, citation_pages, cites_other, other_material_share

    citations = [
        {"refId": "manual", "pageNumber": 4, "pageEnd": 4},
        {"refId": "report", "pageNumber": 6},
    ]
    assert citation_pages(citations, "report") == [[6, 6]]
    assert citation_pages(citations, "other") == []
    assert cites_other(citations, "report") and not cites_other(citations[1:], "report")

    def result(refused: bool, other: bool) -> TurnResult:
        return TurnResult(
            set_id="c1", turn=1, kind="first", language="en", question="What is the current ratio?", expected_pages=[4],
            refused=refused, cited_pages=citation_pages(citations, "report"), answer="", milliseconds=1.0, other_material=other,
        )  # fmt: skip

    assert not result(False, True).on_expected_page  # page 4 is cited, but in the manual
    assert other_material_share([result(False, True), result(False, False), result(True, False)]) == 0.5  # refusals aside


def test_a_turn_may_carry_its_own_evidence_phrases_and_an_evidence_file_comes_first():
    from chat.management.commands.eval_conversations import turn_phrases

    turn = {"question": "example?", "expected_pages": [42], "kind": "example", "evidence": {"42": "if (array[k] > x)"}}
    assert turn_phrases(None, 1, turn) == ["if (array[k] > x)"]
    assert turn_phrases([{"pages": {"42": "b = k-1"}}], 1, turn) == ["b = k-1"]
    assert turn_phrases(None, 1, {"question": "q", "expected_pages": [], "kind": "out_of_scope"}) == []
