"""A question in one language over a material in the other: answered from the passages, quoted in their
language with a note in the question's, and refused only when the material does not cover it (the
demo guides through the real pipeline; the judgement unit-tested on made-up passages)."""

from pathlib import Path

import pytest

from baeum.grounding import NOTE_PREFIX, Passage, crosses_languages, ground_check, judge_evidence, shared_script_terms
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply

DEMO = Path(__file__).resolve().parents[2] / "demo"
ENGLISH_PAGE = "The stack pointer ESP points to the top of the stack. PUSH decrements ESP and stores a value there."


def _passage(text: str, vector: float) -> Passage:
    return Passage(n=1, chunk_id=1, ref_id="mat_x", title="Book", chunk_index=0, page_number=3, text=text, vector_score=vector,
                   vector_threshold=0.25, crosslingual_threshold=0.2)  # fmt: skip


def test_the_judgement_across_languages_reads_meaning_and_shared_identifiers():
    question = "스택 포인터 ESP는 무엇을 가리키나요?"
    assert crosses_languages(question, [_passage(ENGLISH_PAGE, 0.3)])
    assert shared_script_terms(question) == ["esp"]

    assert judge_evidence(question, [_passage(ENGLISH_PAGE, 0.3)], min_coverage=0.3, min_vector=None, strong_coverage=0.45).sufficient
    unrelated = judge_evidence(question, [_passage(ENGLISH_PAGE, 0.1)], min_coverage=0.3, min_vector=None, strong_coverage=0.45)
    assert not unrelated.sufficient  # no word in common, and not close in meaning either
    other_identifier = "RAX 레지스터는 무엇을 가리키나요?"  # an identifier the page does not contain
    assert not judge_evidence(
        other_identifier, [_passage(ENGLISH_PAGE, 0.3)], min_coverage=0.3, min_vector=None, strong_coverage=0.45
    ).sufficient


def test_a_note_about_the_answer_is_not_a_claim_for_the_ground_check():
    text = f"{NOTE_PREFIX}영어로 된 자료에서 찾은 내용을 원문 그대로 인용합니다.\nThe stack pointer ESP points to the top of the stack. [1]"

    grounded, citations, problems = ground_check(text, [_passage(ENGLISH_PAGE, 0.3)])

    assert grounded and not problems and citations[0].quote.startswith("The stack pointer ESP")


@pytest.mark.django_db
def test_korean_questions_over_an_english_guide_and_english_over_a_korean_one(user, ingest):
    english = ingest(user, (DEMO / "how-we-learn.md").read_bytes(), "how-we-learn.md")
    korean = ingest(user, (DEMO / "우리는-어떻게-배우는가.md").read_bytes(), "우리는-어떻게-배우는가.md")

    def ask(material, question):
        return chat_reply(conversation=conversation_create(owner=user, ref_ids=[material.ref_id]), content=question)

    reply = ask(english, "간격 반복이란 무엇인가요?")
    assert not reply.refused, reply.content
    assert reply.content.startswith(NOTE_PREFIX) and "영어" in reply.content.splitlines()[0]
    assert "Spaced repetition" in reply.content and reply.citations[0]["refId"] == english.ref_id

    reply = ask(korean, "What does the forgetting curve show?")
    assert not reply.refused, reply.content
    assert "망각 곡선은" in reply.content and reply.citations

    assert ask(english, "광합성은 어떻게 일어나나요?").refused
    assert ask(korean, "What is photosynthesis?").refused
