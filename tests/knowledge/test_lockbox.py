"""The lock box: every development set split by document into a tuning part and a check part, fixed in
evaluation/lockbox.json (scripts/lockbox.py), and the --split the evaluation commands take."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management.base import CommandError

from knowledge.evaluation import LOCKBOX, in_split, lockbox_parts

ROOT = Path(__file__).resolve().parents[2]
# Sets written for the check part alone (evaluation/korean_manuals/README.md, evaluation/whatis.jsonl): nobody tunes on them.
CHECK_ONLY = {"korean_manuals", "whatis"}


def test_every_set_is_split_by_document_into_two_parts_that_share_nothing():
    box = json.loads(LOCKBOX.read_text(encoding="utf-8"))
    assert {"financebench_dev", "conversations_dev", "conversations", "korquad_public", "squad_public"} <= set(box)
    for name, parts in box.items():
        assert not set(parts["tune"]) & set(parts["check"]), name
        if name in CHECK_ONLY:
            assert parts["check"] and not parts["tune"], name
            continue
        assert parts["tune"] and parts["check"], name
        assert abs(len(parts["tune"]) - len(parts["check"])) <= 1, name  # dealt alternately


def test_both_parts_of_the_sample_books_hold_a_korean_and_an_english_book():
    books = json.loads(LOCKBOX.read_text(encoding="utf-8"))["conversations"]
    for part in ("tune", "check"):
        assert any("korean" in book or "_ko" in book for book in books[part]), part
        assert any("english" in book or "thinkpython" in book for book in books[part]), part


@pytest.mark.skipif(not (ROOT.parent / "shared" / "eval").is_dir(), reason="the shared evaluation sets are not beside the project")
def test_every_document_of_the_shared_sets_has_a_part():
    result = subprocess.run([sys.executable, "scripts/lockbox.py", "--check"], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_a_split_keeps_the_documents_of_its_part_only():
    parts = lockbox_parts()
    documents = sorted(parts)[:20]
    tune, check = in_split("tune", documents), in_split("check", documents)
    assert tune | check == set(documents) and not tune & check
    assert in_split(None, documents) == set(documents)


def test_a_document_with_no_part_is_an_error_that_says_how_to_give_it_one():
    with pytest.raises(CommandError, match="no part in the lock box.*scripts/lockbox.py"):
        in_split("tune", ["a-filing-nobody-dealt.pdf"])


def test_paragraph_questions_are_split_by_their_articles_title():
    from knowledge.evaluation import in_split_by_title

    box = json.loads(LOCKBOX.read_text(encoding="utf-8"))["korquad_public"]
    passages = [{"doc_id": "p1", "title": box["tune"][0]}, {"doc_id": "p2", "title": box["check"][0]}]
    questions = [
        {"question": "a", "doc_id": "p1"},
        {"question": "b", "doc_id": "p2"},
        {"question": "c", "doc_id": "gone", "title": box["check"][0]},
    ]
    assert [row["question"] for row in in_split_by_title("check", passages, questions)] == ["b", "c"]
    assert in_split_by_title(None, passages, questions) == questions
    with pytest.raises(CommandError, match="article title"):
        in_split_by_title("tune", passages, [{"question": "d", "doc_id": "unknown"}])
