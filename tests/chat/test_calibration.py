"""``eval_answers --calibrate`` suggests thresholds from each question's evidence; it never changes settings."""

from chat.management.commands.eval_answers import suggest_thresholds


def _records(inside: list[tuple[float, float]], outside: list[tuple[float, float]]) -> list[dict]:
    return [{"kind": "in", "coverage": coverage, "vector": vector, "hit": True, "refused": False} for coverage, vector in inside] + [
        {"kind": "out", "coverage": coverage, "vector": vector, "hit": False, "refused": False} for coverage, vector in outside
    ]


def test_the_suggestion_refuses_every_out_of_scope_question_the_evidence_separates():
    inside = [(0.6, 0.9), (0.5, 0.86), (0.4, 0.88), (0.7, 0.95)]
    outside = [(0.2, 0.8), (0.1, 0.7), (0.3, 0.6)]
    suggestion = suggest_thresholds(_records(inside, outside), strong_coverage=0.9, max_false_refusal=0.0)
    assert suggestion["false_refusal"] == 0.0 and suggestion["refusal_out_of_scope"] == 1.0
    assert 0.3 < suggestion["MIN_COVERAGE"] <= 0.4 or 0.8 < suggestion["MIN_VECTOR"] <= 0.86


def test_the_false_refusal_bound_is_kept_even_when_it_costs_out_of_scope_refusals():
    inside = [(0.6, 0.9), (0.5, 0.9), (0.2, 0.5), (0.7, 0.95)]  # one in-scope question looks like an outside one
    outside = [(0.2, 0.5), (0.1, 0.4)]
    strict = suggest_thresholds(_records(inside, outside), strong_coverage=0.9, max_false_refusal=0.0)
    assert strict["false_refusal"] == 0.0 and strict["refusal_out_of_scope"] == 0.5  # (0.2, 0.5) must be answered too
    lenient = suggest_thresholds(_records(inside, outside), strong_coverage=0.9, max_false_refusal=0.25)
    assert lenient["false_refusal"] == 0.25 and lenient["refusal_out_of_scope"] == 1.0


def test_strong_coverage_answers_whatever_the_vector():
    suggestion = suggest_thresholds(_records([(0.95, 0.0)], [(0.1, 0.0)]), strong_coverage=0.9, max_false_refusal=0.0)
    assert suggestion["false_refusal"] == 0.0 and suggestion["refusal_out_of_scope"] == 1.0
