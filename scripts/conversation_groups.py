"""Per group of conversations (the id up to its number: ``lazy-tp``, ``lazy-tpko``, ``lazy-enko`` …), the share of
first turns and of follow-ups cited on an expected page and of out-of-scope turns refused, read from a set and the
``--failures`` file of one ``eval_conversations`` run over it:

    python scripts/conversation_groups.py evaluation/lazy_followups.jsonl FAILURES.jsonl [--split tune|check]

The failures file lists every turn that failed (and every turn on its page that misses its evidence phrase), so a
turn of the set that is not in it passed. Only the conversations of the run's lock-box part count (``--split``).
"""

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

LOCKBOX = Path(__file__).resolve().parent.parent / "evaluation" / "lockbox.json"


def part_of(book: str) -> str | None:
    """The lock-box part of a book of the conversation sets."""
    for name in ("conversations", "conversations_dev"):
        for part, books in json.loads(LOCKBOX.read_text(encoding="utf-8"))[name].items():
            if book in books:
                return part
    return None


def group_of(conversation_id: str) -> str:
    return re.sub(r"-\d+$", "", conversation_id)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("set")
    parser.add_argument("failures")
    parser.add_argument("--split", choices=("tune", "check"))
    args = parser.parse_args()
    conversations = [json.loads(line) for line in Path(args.set).read_text(encoding="utf-8").splitlines() if line.strip()]
    failed = {}
    for line in Path(args.failures).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            failed[(row["id"], row["turn"])] = row
    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for conversation in conversations:
        if args.split and part_of(conversation["book"]) != args.split:
            continue
        group = group_of(conversation["id"])
        for number, turn in enumerate(conversation["turns"], start=1):
            row = failed.get((conversation["id"], number))
            passed = row is None or "evidence_not_quoted" in row
            kind = "out of scope" if not turn.get("expected_pages") else "first" if number == 1 else "follow-up"
            counts[group][kind][0] += passed
            counts[group][kind][1] += 1
    print(f"{'group':<12} {'first':>12} {'follow-ups':>12} {'out of scope':>14}")
    for group, kinds in counts.items():
        cells = [
            f"{kinds[kind][0]}/{kinds[kind][1]} {kinds[kind][0] / kinds[kind][1]:.2f}" if kinds[kind][1] else "-"
            for kind in ("first", "follow-up", "out of scope")
        ]
        print(f"{group:<12} {cells[0]:>12} {cells[1]:>12} {cells[2]:>14}")


if __name__ == "__main__":
    main()
