"""Answer or refuse, as a model over the decision's named signals (``evidence.evidence_signals``), fitted on
the lock box's tuning part and judged on its check part beside the rules (``manage.py fit_weights --refusals``).

Each row is one decision the tutor made on a question whose answer is known to be in the materials or not
(KorQuAD and SQuAD questions and their out-of-scope twins, the conversation sets' turns and cross-lingual
questions). A logistic regression over the signals gives the probability that the materials answer; its
bar is set on the tuning part so that it refuses no more in-scope questions there than the rules do, and
as many out-of-scope ones as it can. The rules stay in the answer path until the model beats them on the
check part.
"""

from __future__ import annotations

import math

SIGNALS = ("coverage", "vector_margin", "crosslingual", "follow_up", "names", "names_found", "unknown_topics")


def _values(row: dict) -> list[float]:
    signals = row["signals"]
    return [float(signals[name]) for name in SIGNALS]


def fit(rows: list[dict]) -> dict:
    """The model (weights, intercept, bar) from the tuning rows: the bar refuses at most the rules' share of
    in-scope questions and the most out-of-scope ones."""
    from sklearn.linear_model import LogisticRegression

    if len({row["answerable"] for row in rows}) < 2:
        raise ValueError("Refusals need questions both in and out of scope to fit.")
    model = LogisticRegression(C=1.0, max_iter=5000).fit([_values(row) for row in rows], [int(row["answerable"]) for row in rows])
    weights = {name: round(float(value), 6) for name, value in zip(SIGNALS, model.coef_[0], strict=True)}
    fitted = {"weights": weights, "intercept": round(float(model.intercept_[0]), 6), "bar": 0.5}
    allowed = judged(rows, lambda row: bool(row["signals"]["rules_answer"]))["false_refusal"] or 0.0
    chance = {id(row): probability(row, fitted) for row in rows}
    best = None
    for bar in sorted({round(value, 4) for value in chance.values()}):
        scores = judged(rows, lambda row, bar=bar: chance[id(row)] >= bar)
        if scores["false_refusal"] <= allowed and (best is None or scores["refused_out_of_scope"] > best[1]):
            best = (bar, scores["refused_out_of_scope"])
    fitted["bar"] = best[0] if best else 0.5
    return fitted


def probability(row: dict, fitted: dict) -> float:
    z = fitted["intercept"] + sum(fitted["weights"][name] * value for name, value in zip(SIGNALS, _values(row), strict=True))
    return 1 / (1 + math.exp(-z))


def judged(rows: list[dict], answers) -> dict:
    """False refusal (in-scope questions refused) and out-of-scope questions refused, for a decision ``answers``."""
    inside = [row for row in rows if row["answerable"]]
    outside = [row for row in rows if not row["answerable"]]

    def share(count: int, total: int) -> float | None:
        return round(count / total, 4) if total else None

    return {
        "in_scope": len(inside),
        "out_of_scope": len(outside),
        "false_refusal": share(sum(not answers(row) for row in inside), len(inside)),
        "refused_out_of_scope": share(sum(not answers(row) for row in outside), len(outside)),
    }
