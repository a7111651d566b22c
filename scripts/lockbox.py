"""The lock box: every development set split by document into a tuning part and a check part, once.

    .venv/bin/python scripts/lockbox.py [--shared ../shared] [--check]

writes ``evaluation/lockbox.json``: for each set, which documents (a filing, a book, a KorQuAD/SQuAD article
title) are in the ``tune`` part and which in the ``check`` part. Within a set the documents are ordered by
the SHA-256 of their name and dealt alternately, tune first, within each stratum (a book's language, for
the conversation sets), so the parts are even and the assignment depends on nothing but the names. A document already in the file keeps its part; a new one is dealt the
same way among the new ones. ``--check`` only verifies that every document of the shared sets has a part.

Tune on the ``tune`` part only (``eval_* --split tune``); report both parts; a change that helps tuning and
not the check part is reverted (issue #28).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCKBOX = ROOT / "evaluation" / "lockbox.json"


def _jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def documents(shared: Path) -> dict[str, dict[str, str]]:
    """Every set's documents, by set name, each with its stratum: a book's language (the language of the
    conversations held over it), so that both parts hold books of both languages where there are two of
    each; "" where a set has one kind of document."""
    evaluation = shared / "eval"
    sets = {
        "financebench_dev": dict.fromkeys(
            sorted({row["doc_name"] for row in _jsonl(evaluation / "financebench_dev" / "questions.jsonl")}), ""
        )
    }
    for name, folder in (("conversations_dev", evaluation / "conversations_dev"), ("conversations", ROOT / "evaluation")):
        languages: dict[str, Counter] = {}
        for row in _jsonl(folder / "conversations.jsonl"):
            languages.setdefault(row["book"], Counter())[row.get("language", "")] += 1
        for row in _jsonl(folder / "crosslingual.jsonl"):
            languages.setdefault(row["book"], Counter())
        sets[name] = {book: (counts.most_common(1)[0][0] if counts else "") for book, counts in sorted(languages.items())}
    for corpus in ("korquad_public", "squad_public", "autorag_ko_public"):
        sets[corpus] = dict.fromkeys(sorted({row.get("title", row["doc_id"]) for row in _jsonl(evaluation / f"{corpus}_corpus.jsonl")}), "")
    return sets


def _dealt(strata: dict[str, str]) -> dict[str, str]:
    """Within each stratum, the documents in SHA-256 order of their names, dealt tune, check, tune, …"""
    parts = {}
    for stratum in sorted(set(strata.values())):
        ordered = sorted(
            (name for name, kind in strata.items() if kind == stratum), key=lambda name: hashlib.sha256(name.encode()).hexdigest()
        )
        parts |= {name: ("tune", "check")[index % 2] for index, name in enumerate(ordered)}
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument("--check", action="store_true", help="only verify that every document has a part")
    options = parser.parse_args()
    box = json.loads(LOCKBOX.read_text()) if LOCKBOX.exists() else {}
    missing = []
    for name, strata in documents(options.shared).items():
        parts = box.setdefault(name, {"tune": [], "check": []})
        known = set(parts["tune"]) | set(parts["check"])
        new = {document: stratum for document, stratum in strata.items() if document not in known}
        missing += [f"{name}: {document}" for document in new]
        for document, part in _dealt(new).items():
            parts[part].append(document)
        parts["tune"].sort()
        parts["check"].sort()
    if options.check:
        print("\n".join(missing) or "every document has a part")
        return 1 if missing else 0
    LOCKBOX.write_text(json.dumps(box, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for name, parts in box.items():
        print(f"{name}: {len(parts['tune'])} tune, {len(parts['check'])} check")
    return 0


if __name__ == "__main__":
    sys.exit(main())
