#!/usr/bin/env python3
"""Check the korean_manuals evaluation set against its PDF.

Standalone (needs only pypdfium2). Run from anywhere:
    python evaluation/korean_manuals/verify.py
Checks: ids unique; formats and kinds; every expected page exists; every evidence phrase
occurs on its page (all whitespace removed on both sides, since pypdfium2 inserts spaces
between Latin and Hangul runs and breaks lines); phrase length 5-15 words; evidence pages
equal expected_pages; every 'absent' term occurs nowhere in the PDF (case-insensitive).
Exits 1 on any failure.
"""

import collections
import json
import re
import sys
from pathlib import Path

import pypdfium2 as pdfium

HERE = Path(__file__).resolve().parent
PDF = HERE / "pdfs" / "korean-manuals.pdf"
BOOK = "korean-manuals.pdf"
KINDS = {"first", "anaphora", "ellipsis", "ordinal", "example", "comparison", "out_of_scope"}

errors = []


def fail(msg):
    errors.append(msg)


def squash(text):
    return re.sub(r"\s+", "", text)


def load_jsonl(path):
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                fail(f"{path.name}:{n}: bad JSON: {exc}")
    return rows


def main():
    pdf = pdfium.PdfDocument(str(PDF))
    pages = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    n_pages = len(pages)
    squashed = [squash(t) for t in pages]
    whole_lower = "\n".join(pages).lower()
    whole_squashed_lower = "".join(squashed).lower()

    convs = load_jsonl(HERE / "conversations.jsonl")
    cross = load_jsonl(HERE / "crosslingual.jsonl")
    evidence = json.loads((HERE / "evidence.json").read_text(encoding="utf-8"))
    ev_conv = evidence.get("conversations", {})
    ev_cross = evidence.get("crosslingual", {})

    ids = [c.get("id") for c in convs] + [x.get("id") for x in cross]
    for i, n in collections.Counter(ids).items():
        if n > 1:
            fail(f"duplicate id {i}")

    def check_pages(where, expected):
        if expected != sorted(set(expected)):
            fail(f"{where}: expected_pages not sorted/unique: {expected}")
        for p in expected:
            if not isinstance(p, int) or not 1 <= p <= n_pages:
                fail(f"{where}: page {p} does not exist (PDF has {n_pages})")

    def check_evidence(where, expected, ev, in_scope):
        if in_scope:
            got = ev.get("pages")
            if not isinstance(got, dict) or sorted(int(k) for k in got) != expected:
                fail(f"{where}: evidence pages {sorted(got or {})} != expected {expected}")
                return
            for key, phrase in got.items():
                p = int(key)
                if not 1 <= p <= n_pages:
                    continue
                words = len(phrase.split())
                if not 5 <= words <= 15:
                    fail(f"{where}: phrase for page {p} has {words} words: {phrase!r}")
                if squash(phrase) not in squashed[p - 1]:
                    fail(f"{where}: phrase not on page {p}: {phrase!r}")
        else:
            terms = ev.get("absent")
            if not isinstance(terms, list) or not 1 <= len(terms) <= 3:
                fail(f"{where}: 'absent' must list 1-3 terms, got {terms!r}")
                return
            for term in terms:
                if term.lower() in whole_lower or squash(term).lower() in whole_squashed_lower:
                    fail(f"{where}: 'absent' term {term!r} occurs in the PDF")

    kinds = collections.Counter()
    turns_total = 0
    for c in convs:
        cid = c.get("id", "?")
        if not re.fullmatch(r"kman-\d\d", cid):
            fail(f"{cid}: bad id")
        if c.get("book") != BOOK or c.get("language") != "ko":
            fail(f"{cid}: book/language wrong")
        if set(c) != {"id", "book", "language", "turns"}:
            fail(f"{cid}: unexpected keys {sorted(c)}")
        turns = c.get("turns", [])
        if not 4 <= len(turns) <= 6:
            fail(f"{cid}: {len(turns)} turns (want 4-6)")
        ev = ev_conv.get(cid)
        if not isinstance(ev, list) or len(ev) != len(turns):
            fail(f"{cid}: evidence missing or not one object per turn")
            ev = [{}] * len(turns)
        oos = 0
        for t_i, (turn, t_ev) in enumerate(zip(turns, ev, strict=True), 1):
            where = f"{cid} turn {t_i}"
            turns_total += 1
            kind = turn.get("kind")
            kinds[kind] += 1
            if set(turn) != {"question", "expected_pages", "kind"}:
                fail(f"{where}: unexpected keys {sorted(turn)}")
            if kind not in KINDS:
                fail(f"{where}: unknown kind {kind!r}")
            if (kind == "first") != (t_i == 1):
                fail(f"{where}: kind 'first' must be exactly turn 1")
            expected = turn.get("expected_pages", [])
            check_pages(where, expected)
            if kind == "out_of_scope":
                oos += 1
                if expected:
                    fail(f"{where}: out_of_scope turn must have expected_pages []")
                check_evidence(where, expected, t_ev, False)
            else:
                if not expected:
                    fail(f"{where}: in-scope turn without expected_pages")
                check_evidence(where, expected, t_ev, True)
        if oos > 1:
            fail(f"{cid}: {oos} out_of_scope turns (max 1)")

    in_scope = out_scope = 0
    for x in cross:
        xid = x.get("id", "?")
        if not re.fullmatch(r"kman-en-\d\d", xid):
            fail(f"{xid}: bad id")
        if set(x) != {"id", "question", "question_language", "book", "expected_pages", "in_scope"}:
            fail(f"{xid}: unexpected keys {sorted(x)}")
        if x.get("book") != BOOK or x.get("question_language") != "en":
            fail(f"{xid}: book/question_language wrong")
        expected = x.get("expected_pages", [])
        check_pages(xid, expected)
        if x.get("in_scope"):
            in_scope += 1
            if not expected:
                fail(f"{xid}: in scope without expected_pages")
        else:
            out_scope += 1
            if expected:
                fail(f"{xid}: out of scope must have expected_pages []")
        check_evidence(xid, expected, ev_cross.get(xid, {}), bool(x.get("in_scope")))

    extra = (set(ev_conv) - {c.get("id") for c in convs}) | (set(ev_cross) - {x.get("id") for x in cross})
    for e in sorted(extra):
        fail(f"evidence for unknown id {e}")

    print(f"PDF: {PDF.name}, {n_pages} pages")
    print(f"conversations: {len(convs)}, turns: {turns_total}, by kind: " + ", ".join(f"{k}={kinds[k]}" for k in sorted(kinds)))
    print(f"crosslingual: {len(cross)} ({in_scope} in scope, {out_scope} out of scope)")
    for e in errors:
        print("FAIL:", e)
    print("OK" if not errors else f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
