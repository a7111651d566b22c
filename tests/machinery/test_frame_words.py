"""Words that frame a question, learned from questions and their evidence (``baeum.language.frame_words``)."""

from baeum import rules
from baeum.answering.evidence import asked_terms
from baeum.language import frame_words


def test_a_word_many_documents_questions_use_and_their_evidence_never_writes_frames_them():
    rows = [
        (f"According to the report, how much revenue did company {n} make?", f"Company {n} revenue was {n} million.", f"doc{n}")
        for n in range(6)
    ]
    rows += [(f"Who founded Kellogg in {n}?", "Kellogg was founded by Will Keith Kellogg.", "kellogg") for n in range(6)]
    learned = frame_words.fit(rows)
    assert {"accord", "much", "report"} <= set(learned)  # asked about six documents, in no evidence
    assert "revenue" not in learned and "company" not in learned  # the evidence writes them
    assert "found" not in learned and "kellogg" not in learned  # one document's topic, however often asked
    assert learned["accord"] == {"asked": 6, "in_evidence": 0, "documents": 6}


def test_the_shipped_frame_words_leave_a_filing_question_its_topic():
    """Nike's balance sheet had been found and the question refused: "accord", "much", "answer" and "usd" counted
    against the passages as much as "current assets"."""
    question = "According to the balance sheet, how much total current assets did Nike have? Answer in USD millions."
    assert {"accord", "much", "usd"} <= frame_words.learned()
    terms = asked_terms(question)
    assert "accord" not in terms and "much" not in terms and {"total", "current", "asset", "nike"} <= set(terms)
    with rules.switched_off(["evidence:learned-frame-words"]):
        assert "accord" in asked_terms(question)
    assert asked_terms("How much?") == ["much"]  # nothing else left: the frame word stays
