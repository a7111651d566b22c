"""The ground check on what a language model writes: faithful paraphrases of a passage pass, claims the
passage contradicts (another number, a negation, an opposite word) do not. Cases: evaluation/paraphrases.jsonl."""

import json
from pathlib import Path

from baeum.answering.answers import Passage
from baeum.answering.groundcheck import contradicts, ground_check

CASES = [
    json.loads(line) for line in (Path(__file__).resolve().parents[2] / "evaluation" / "paraphrases.jsonl").read_text().splitlines() if line
]


def _passage(text: str) -> Passage:
    return Passage(n=1, ref_id="mat_x", title="Book", chunk_index=0, chunk_id=1, page_number=1, text=text, score=1.0)


def _accepted(kind: str) -> list[bool]:
    return [ground_check(claim, [_passage(case["passage"])])[0] for case in CASES for claim in case[kind]]


def test_faithful_paraphrases_are_accepted():
    accepted = _accepted("faithful")
    assert len(accepted) >= 24 and sum(accepted) / len(accepted) >= 0.9, f"{sum(accepted)}/{len(accepted)} accepted"


def test_unfaithful_claims_are_mostly_rejected():
    accepted = _accepted("unfaithful")
    assert sum(accepted) / len(accepted) <= 0.3, f"{sum(accepted)}/{len(accepted)} unfaithful claims accepted"


def test_the_reason_names_what_differs():
    source = [_passage("Purchases of property, plant and equipment were $1,577 million in 2018. The stack grows downward.")]
    assert "1877" in contradicts("Purchases were $1,877 million in 2018.", source)
    assert contradicts("The stack grows upward.", source).startswith("“upward”")
    assert contradicts("The stack never grows downward.", source) == "negation differs from the source"
    assert contradicts("3M bought $1,577 million of equipment in 2018.", source) == ""  # "3M" is a name, not a number
