"""Can whole-page lexical evidence fused with Baeum's chunk evidence rank filings' pages better than either?

    manage.py eval_documents … --split tune --library fb-tune --candidates tune.jsonl
    manage.py eval_documents … --split check --library fb-check --candidates check.jsonl
    .venv/bin/python scripts/page_fusion_experiment.py tune.jsonl check.jsonl

Each page a question's candidates name gets named signals (Baeum's best fused chunk score on it and its
reciprocal rank, the chunk BM25 and cosine, how many top chunks fall on it, BM25 over the whole page (bm25s)
and its rank, the page's position); logistic regressions over several subsets are fitted on the tune part
and page-hit@5 is printed for both parts, beside Baeum alone and BM25 over pages alone. Result
(docs/evaluation.md#eval_documents): no fitted combination beat Baeum alone on the check part, so none ships.
"""

import json
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression

FEATURES = ["ours_best", "ours_rr", "lex_best", "vec_best", "n_chunks", "bm25p", "bm25p_rr", "position", "ours_lex_sum"]


def load(path):
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def page_rows(q):
    chunks = q["chunks"]
    top_lex = max([c["lexical"] or 0 for c in chunks] + [1e-9])
    top_score = max([c["score"] for c in chunks] + [1e-9])
    bm = q["bm25_pages"]
    top_bm = max([s for _, s in bm] + [1e-9])
    pages = {}

    def get(p):
        return pages.setdefault(p, dict.fromkeys(FEATURES, 0.0))

    for rank, c in enumerate(chunks, 1):
        for p in range(c["first"], c["last"] + 1):
            f = get(p)
            f["ours_best"] = max(f["ours_best"], c["score"] / top_score)
            f["ours_rr"] = max(f["ours_rr"], 1 / rank)
            f["lex_best"] = max(f["lex_best"], (c["lexical"] or 0) / top_lex)
            f["vec_best"] = max(f["vec_best"], c["vector"] or 0)
            f["n_chunks"] += 1
            f["ours_lex_sum"] += (c["lexical"] or 0) / top_lex
    for rank, (p, s) in enumerate(bm, 1):
        f = get(p)
        f["bm25p"] = s / top_bm
        f["bm25p_rr"] = 1 / rank
    for p, f in pages.items():
        f["position"] = p / max(q["pages"], 1)
    return pages


def matrix(qs, feats):
    X, y, groups = [], [], []
    for i, q in enumerate(qs):
        ev = set(q["evidence"])
        for p, f in page_rows(q).items():
            X.append([f[n] for n in feats])
            y.append(int(p in ev))
            groups.append((i, p))
    return np.array(X), np.array(y), groups


def hit_at(qs, scorer, k=5):
    hits = []
    kinds = {}
    for q in qs:
        rows = page_rows(q)
        ranked = sorted(rows, key=lambda p: -scorer(rows[p]))[:k]
        h = bool(set(ranked) & set(q["evidence"]))
        hits.append(h)
        kinds.setdefault(q["kind"], []).append(h)
    return round(np.mean(hits), 3), {k2: (round(np.mean(v), 2), len(v)) for k2, v in sorted(kinds.items())}


tune, check = load(sys.argv[1]), load(sys.argv[2])


def ours(f):
    return f["ours_rr"]


def bm(f):
    return f["bm25p_rr"]


print("ours     tune", hit_at(tune, ours), "check", hit_at(check, ours))
print("bm25p    tune", hit_at(tune, bm), "check", hit_at(check, bm))
for feats in [
    FEATURES,
    ["ours_best", "bm25p"],
    ["ours_rr", "bm25p_rr"],
    ["ours_best", "bm25p", "n_chunks"],
    ["ours_best", "lex_best", "vec_best", "bm25p", "n_chunks"],
]:
    for C in (0.1, 1.0, 10.0):
        X, y, _ = matrix(tune, feats)
        model = LogisticRegression(C=C, max_iter=2000, class_weight="balanced").fit(X, y)

        def fitted(f, model=model, feats=feats):
            return model.decision_function([[f[n] for n in feats]])[0]

        weights = dict(zip(feats, np.round(model.coef_[0], 2), strict=True))
        print(feats, C, "tune", hit_at(tune, fitted)[0], "check", hit_at(check, fitted), weights)
