"""The weights of the candidate-sentence score, fitted on data, and what fitting them needs.

A candidate sentence is scored by one weighted sum of named features (``extractive.sentence_score``). The
weights live in ``sentence_weights.json`` beside this module, written by ``manage.py fit_weights``: it
plays the tuning part of the lock box (``evaluation/lockbox.json``) through the real tutor, records every
ranking of candidate sentences the offline answer made (``observing``), labels a candidate by whether it
holds the gold answer (KorQuAD and SQuAD answer spans, the conversation set's evidence phrases), and fits
a pairwise logistic regression: for each ranking, every answering sentence against every other. The
result is one weight per feature, scaled so that ``overlap`` weighs 1 (the units the hand-set penalties
and bonuses were written in), and it is checked on the check part before it ships.

Why scikit-learn's logistic regression and not LightGBM: the score must stay a readable sum that the
answer path computes without a model runtime (a weight per feature in a JSON file), the features are
nine, and the rankings a few thousand; a pairwise linear model is the standard learning-to-rank baseline
for that (RankSVM's logistic twin). scikit-learn is needed to fit, never to answer.
"""

from __future__ import annotations

import json
import random
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path

from baeum.answering.evidence import squeezed
from baeum.extraction.pages import quote_pages
from baeum.observers import Observed

WEIGHTS_FILE = Path(__file__).with_name("sentence_weights.json")

# The score's terms, in the order ``sentence_score`` adds them; rank and position count as 1 / (1 + n).
FEATURES = (
    "overlap",
    "section_overlap",
    "passage_rank",
    "position",
    "long_characters",
    "defines",
    "gives_name",
    "anaphoric_opening",
    "aside",
    "meaning",
)

# Negatives drawn per answering sentence of one ranking (a ranking of 200 sentences would otherwise weigh
# as much as 200 short ones); drawn with a fixed seed, so a refit of the same rows gives the same weights.
NEGATIVES_PER_POSITIVE = 20

# scikit-learn's inverse regularisation strength; the weights barely move between 0.1 and 10.
REGULARISATION_C = 1.0


def term_values(features: dict[str, float]) -> list[float]:
    """A candidate's features as the values its weights multiply, in ``FEATURES`` order."""
    return [
        features["overlap"],
        features.get("section_overlap", 0.0),
        1 / (1 + features["passage_rank"]),
        1 / (1 + features["position"]),
        features["long_characters"],
        features["defines"],
        features["gives_name"],
        features["anaphoric_opening"],
        features["aside"],
        features.get("meaning", 0.0),
    ]


def load_weights(path: Path = WEIGHTS_FILE, *, hand: dict[str, float] | None = None) -> dict[str, float] | None:
    """The fitted weights, or None when no weights file ships (the hand-set weights then stand). A partial fit
    (``fit_weights --only``) lists what it fitted under ``"fitted"``: those come from the file, the rest from ``hand``."""
    if not path.is_file():
        return None
    shipped = json.loads(path.read_text(encoding="utf-8"))
    weights, fitted = shipped["weights"], shipped.get("fitted")
    if fitted:
        if hand is None:
            raise ValueError(f"{path} holds a partial fit ({', '.join(fitted)}): the other weights come from the hand-set ones.")
        return {name: float(weights[name]) if name in fitted else hand[name] for name in FEATURES}
    missing = sorted(set(FEATURES) - set(weights))
    if missing:
        raise ValueError(f"{path} has no weight for {', '.join(missing)}: rebuild it with `manage.py fit_weights`.")
    return {name: float(weights[name]) for name in FEATURES}


# --- Observing the rankings the offline answer makes --------------------------------------------------


@dataclass
class Ranking:
    """One choice among candidate sentences: their features, and (once labelled) which of them answer."""

    question: str
    sentences: list[str]
    values: list[list[float]]  # ``term_values`` of each candidate
    answers: list[bool] = field(default_factory=list)
    source: str = ""  # "korquad", "squad", "conversations"…
    part: str = ""  # the lock-box part: "tune" or "check"
    pages: list[list[int]] = field(default_factory=list)  # each candidate's first and last page


# Every choice among candidate sentences, for an observer (``fit_weights``): ``observing()``.
RANKINGS: Observed[Ranking] = Observed("baeum_observed_rankings")
observing = RANKINGS.watching


def observe(question: str, candidates: list) -> None:
    """Report a ranking (candidates with ``sentence``, ``items`` and ``features``) to an ``observing`` block, if any."""
    if candidates:
        RANKINGS.report(
            lambda: Ranking(
                question=question,
                sentences=[" ".join([candidate.sentence, *candidate.items]) for candidate in candidates],
                values=[term_values(candidate.features) for candidate in candidates],
                pages=[list(_pages(candidate)) for candidate in candidates],
            )
        )


def _pages(candidate) -> tuple[int, int]:
    passage = candidate.passage
    return quote_pages(passage.text, passage.page_starts, candidate.sentence, passage.page_number)


def holds(sentence: str, answers: list[str]) -> bool:
    """Whether ``sentence`` holds one of ``answers`` (an answer span or an evidence phrase), ignoring spacing,
    case and how a number is raised or lowered (the book's "2ⁿ" holds a phrase read as "2n" from the plain PDF
    text); a sentence that is part of a longer evidence phrase holds it too."""
    flat = squeezed(unicodedata.normalize("NFKC", sentence))
    for answer in answers:
        wanted = squeezed(unicodedata.normalize("NFKC", answer))
        if wanted and (wanted in flat or (len(flat) >= 40 and flat in wanted)):
            return True
    return False


def labelled(rankings: list[Ranking], answers: list[str], *, source: str, part: str) -> list[Ranking]:
    """``rankings`` with each candidate marked by whether it holds an answer; only rankings that can teach
    something (an answering sentence and another) are kept."""
    for ranking in rankings:
        ranking.answers = [holds(sentence, answers) for sentence in ranking.sentences]
    return _teaching(rankings, source=source, part=part)


def labelled_by_pages(rankings: list[Ranking], pages: list[int], *, source: str, part: str) -> list[Ranking]:
    """``rankings`` with each candidate marked by whether it stands on one of ``pages`` (what a conversation turn's
    citation is judged by); only rankings that can teach something are kept."""
    expected = set(pages)
    for ranking in rankings:
        ranking.answers = [any(first <= page <= last for page in expected) for first, last in ranking.pages]
    return _teaching(rankings, source=source, part=part)


def _teaching(rankings: list[Ranking], *, source: str, part: str) -> list[Ranking]:
    kept = []
    for ranking in rankings:
        ranking.source, ranking.part = source, part
        if any(ranking.answers) and not all(ranking.answers):
            kept.append(ranking)
    return kept


# --- Fitting and judging --------------------------------------------------------------------------


def _pairs(rankings: list[Ranking]) -> tuple[list[list[float]], list[int]]:
    """For each ranking, (answering − other) labelled 1 and its mirror labelled 0."""
    chooser = random.Random(0)
    rows, labels = [], []
    for ranking in rankings:
        good = [values for values, answer in zip(ranking.values, ranking.answers, strict=True) if answer]
        bad = [values for values, answer in zip(ranking.values, ranking.answers, strict=True) if not answer]
        for positive in good:
            for negative in chooser.sample(bad, min(len(bad), NEGATIVES_PER_POSITIVE)):
                difference = [p - n for p, n in zip(positive, negative, strict=True)]
                rows += [difference, [-value for value in difference]]
                labels += [1, 0]
    return rows, labels


def fit(
    rankings: list[Ranking], *, regularisation: float = REGULARISATION_C, only: tuple[str, ...] = (), held: dict | None = None
) -> dict[str, float]:
    """Weights per feature from a pairwise logistic regression over ``rankings``, scaled so ``overlap`` weighs 1.
    A feature that never varies within a ranking cannot be learned and keeps weight 0. With ``only``, just those
    features are fitted, every other weight held as ``held`` sets it: their weighted sum is one more column, whose
    coefficient the others are scaled by."""
    from sklearn.linear_model import LogisticRegression

    columns = _partial(rankings, only, held) if only else rankings
    rows, labels = _pairs(columns)
    if not rows:
        raise ValueError("No ranking holds both an answering sentence and another: nothing to fit.")
    model = LogisticRegression(fit_intercept=False, C=regularisation, max_iter=5000)
    model.fit(rows, labels)
    coefficients = [float(value) for value in model.coef_[0]]
    names = ("held", *only) if only else FEATURES
    scale = coefficients[names.index("held" if only else "overlap")]
    if scale <= 0:
        held_score = "the held weights' score" if only else "overlap"
        raise ValueError(f"The fitted weight of {held_score} is not positive: the rankings do not favour what it favours.")
    fitted = {name: round(value / scale, 6) for name, value in zip(names, coefficients, strict=True)}
    if not only:
        return fitted
    return {name: fitted[name] if name in only else held[name] for name in FEATURES}


def _partial(rankings: list[Ranking], only: tuple[str, ...], held: dict[str, float]) -> list[Ranking]:
    """``rankings`` as the columns a partial fit reads: the held weights' score, then each feature of ``only``."""
    unknown = sorted(set(only) - set(FEATURES))
    if unknown:
        raise ValueError(f"No feature named {', '.join(unknown)}: the features are {', '.join(FEATURES)}.")
    kept = {name: 0.0 if name in only else weight for name, weight in held.items()}
    positions = [FEATURES.index(name) for name in only]
    return [
        replace(ranking, values=[[score(values, kept), *(values[index] for index in positions)] for values in ranking.values])
        for ranking in rankings
    ]


def score(values: list[float], weights: dict[str, float]) -> float:
    return sum(weights[name] * value for name, value in zip(FEATURES, values, strict=True))


def judged(rankings: list[Ranking], weights: dict[str, float]) -> dict:
    """How often the best-scored sentence answers (top-1), and the mean reciprocal rank of the first that does."""
    if not rankings:
        return {"rankings": 0, "top1": None, "mrr": None}
    top, reciprocal = 0, 0.0
    for ranking in rankings:
        order = sorted(range(len(ranking.values)), key=lambda index: -score(ranking.values[index], weights))
        top += ranking.answers[order[0]]
        reciprocal += 1 / (1 + next(rank for rank, index in enumerate(order) if ranking.answers[index]))
    return {"rankings": len(rankings), "top1": round(top / len(rankings), 4), "mrr": round(reciprocal / len(rankings), 4)}
