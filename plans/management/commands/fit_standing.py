"""`manage.py fit_standing`: fit the weights of ``baeum.study.standing`` on readers' verdicts.

    python manage.py fit_standing --fit evaluation/study_judgements/tune_a.jsonl --fit evaluation/study_judgements/tune_b.jsonl \\
        --check evaluation/study_judgements/walk13.jsonl --check evaluation/study_judgements/bzip2_mime.jsonl \\
        --check evaluation/study_judgements/fontconfig_nettle.jsonl [--write]

Each file holds key points (and questions, skipped here) with a reader's verdict (ok, partial, fail). The
model is fitted on the ``--fit`` files only (the tuning books' candidate sentences) and reported on every file:
the readers' share standing alone, ROC AUC, and how many of the sentences the model rates as standing alone
the reader passed (precision), beside the share of all. ``--write`` ships the weights with that report
(``baeum/study/standing_weights.json``). See docs/evaluation.md#eval_study.
"""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from baeum.study import standing

# scikit-learn's inverse regularisation strength: a few hundred verdicts, fifteen signals.
REGULARISATION_C = 1.0
# The bar a sentence must reach to be rated standing alone is fitted too, on the --fit files: the highest share of
# reader-passed sentences among those kept, while keeping this share of all the sentences readers passed.
KEEP_PASSED = 0.85


def fitted_bar(scores, labels) -> float:
    """The lowest score of the bar that keeps at least ``KEEP_PASSED`` of the passed sentences with the best precision."""
    passed = sum(labels)
    best = (-1.0, 0.5)
    for bar in sorted(set(scores)):
        kept = [label for label, score in zip(labels, scores, strict=True) if score >= bar]
        if sum(kept) < KEEP_PASSED * passed:
            break
        best = max(best, (sum(kept) / len(kept), -bar))
    return round(-best[1], 4) if best[0] >= 0 else 0.5


def _rows(path: Path) -> list[dict]:
    if not path.exists():
        raise CommandError(f"No such file: {path}")
    rows = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        row = json.loads(line)
        if row.get("kind") != "key_point":
            continue
        if row.get("verdict") not in ("ok", "partial", "fail"):
            raise CommandError(f"{path}, line {number}: a key point needs a verdict of ok, partial or fail.")
        rows.append(row)
    return rows


class Command(BaseCommand):
    help = "Fit the weights saying whether a sentence stands alone as a key point, on readers' verdicts; report them on held-out books."

    def add_arguments(self, parser):
        parser.add_argument("--fit", type=Path, action="append", required=True, metavar="FILE")
        parser.add_argument("--check", type=Path, action="append", default=[], metavar="FILE")
        parser.add_argument("--write", action="store_true", help=f"write {standing.WEIGHTS_FILE.name}")

    def handle(self, *args, **options):
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        from sklearn.metrics import roc_auc_score

        fit_rows = [row for path in options["fit"] for row in _rows(path)]
        if len({row["verdict"] == "ok" for row in fit_rows}) < 2:
            raise CommandError("The --fit files need key points a reader passed and key points a reader failed.")

        def matrix(rows):
            return np.array([[standing.features(row["text"])[name] for name in standing.FEATURES] for row in rows])

        model = LogisticRegression(C=REGULARISATION_C, class_weight="balanced", max_iter=1000)
        model.fit(matrix(fit_rows), [row["verdict"] == "ok" for row in fit_rows])
        bar = fitted_bar(
            [float(score) for score in model.predict_proba(matrix(fit_rows))[:, 1]], [row["verdict"] == "ok" for row in fit_rows]
        )
        self.stdout.write(f"bar: {bar} (keeps {KEEP_PASSED:.0%} of the sentences readers passed in the --fit files, at the best precision)")
        report = {}
        for role, paths in (("fit", options["fit"]), ("check", options["check"])):
            for path in paths:
                rows = _rows(path)
                labels = [row["verdict"] == "ok" for row in rows]
                scores = model.predict_proba(matrix(rows))[:, 1]
                kept = [label for label, score in zip(labels, scores, strict=True) if score >= bar]
                report[path.name] = {
                    "role": role,
                    "key_points": len(rows),
                    "reader_ok": round(sum(labels) / len(labels), 3),
                    "auc": round(float(roc_auc_score(labels, scores)), 3) if len(set(labels)) == 2 else None,
                    "rated_standing": len(kept),
                    "passed_kept": round(sum(kept) / sum(labels), 3) if sum(labels) else None,
                    "reader_ok_among_rated_standing": round(sum(kept) / len(kept), 3) if kept else None,
                }
                self.stdout.write(f"{path.name} ({role}): {json.dumps(report[path.name])}")
        weights = {name: round(float(weight), 4) for name, weight in zip(standing.FEATURES, model.coef_[0], strict=True)}
        self.stdout.write("weights: " + ", ".join(f"{name} {weight:+.2f}" for name, weight in weights.items()))
        if options["write"]:
            standing.WEIGHTS_FILE.write_text(
                json.dumps(
                    {
                        "intercept": round(float(model.intercept_[0]), 4),
                        "bar": bar,
                        "weights": weights,
                        "fitted_on": [path.name for path in options["fit"]],
                        "report": report,
                    },
                    ensure_ascii=False,
                    indent=2,
                )
                + "\n",
                encoding="utf-8",
            )
            self.stdout.write(f"wrote {standing.WEIGHTS_FILE}")
