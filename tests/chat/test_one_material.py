"""A conversation over several materials: a follow-up reads the material its previous answer cited
(``answer:one-material``); passages of both languages are answered from one language (``answer:one-language``);
the materials in the other language are also searched apart (``retrieval:other-language-too``)."""

import dataclasses
from dataclasses import replace
from types import SimpleNamespace

import pytest

from baeum import rules
from baeum.answering.answers import Passage
from chat.services.conversations import conversation_create
from chat.services.retrieval import ONE_MATERIAL, OTHER_LANGUAGE_TOO, _other_language, answering_material

pytestmark = pytest.mark.django_db

ANNUAL_REPORT = (
    b"Liquidity\n\n"
    b"The current ratio is current assets divided by current liabilities. Our current ratio was 1.2 at the end of "
    b"fiscal 2021, compared with 1.1 a year earlier. Many attributes of our business contribute to the objective, "
    b"including maintaining a ratio of at least 50% of our employee base being full-time employees. For example, "
    b"warehouse employees receive competitive wages and benefits."
)
COMPRESSION_MANUAL = (
    b"Options\n\n"
    b"-v --verbose Verbose mode: show the compression ratio for each file processed. "
    b"A larger block size gives a better compression ratio at the expense of memory.\n\n"
    b"Recovering data\n\n"
    b"bzip2recover is a simple program that searches for blocks in damaged .bz2 files and writes each block out into "
    b"its own file. For example, bzip2recover damaged.bz2 writes rec00001damaged.bz2 and rec00002damaged.bz2."
)


def passage(n: int, ref_id: str) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id=ref_id, title=ref_id, chunk_index=n, page_number=1, text="", score=1.0 / n)


def test_a_follow_up_reads_the_material_its_previous_answer_cited_when_it_was_found_again():
    passages = [passage(1, "manual"), passage(2, "report"), passage(3, "manual")]
    assert answering_material(passages, previous="report", follow_up=True) == "report"
    assert answering_material(passages, previous="report", follow_up=False) == ""  # a question that stands alone reads all
    assert answering_material(passages, previous="gone", follow_up=True) == ""  # its material is no longer found


def test_passages_of_both_languages_are_answered_from_the_best_ranked_language_that_answers_alone():
    from chat.services.retrieval import ONE_LANGUAGE, one_language

    korean = [dataclasses.replace(passage(n, f"ko-{n}"), korean=True) for n in (1, 3)]
    english = [dataclasses.replace(passage(2, "en"), korean=False)]
    mixed = [korean[0], english[0], korean[1]]

    def answers(language: bool):
        return lambda found: SimpleNamespace(sufficient=all(p.korean == language for p in found))

    assert [p.ref_id for p in one_language(mixed, judged=answers(False))] == ["en"]
    assert [p.ref_id for p in one_language(mixed, judged=answers(True))] == ["ko-1", "ko-3"]
    assert one_language(mixed, judged=lambda found: SimpleNamespace(sufficient=False)) == mixed  # refused over all
    assert not ONE_LANGUAGE(korean)


def test_the_rule_fires_only_on_passages_of_several_materials():
    assert ONE_MATERIAL([passage(1, "manual"), passage(2, "report")])
    assert not ONE_MATERIAL([passage(1, "manual"), passage(2, "manual")])
    assert not ONE_MATERIAL([])


def test_an_accounting_question_is_answered_from_the_report_not_the_compression_manual(user, ingest):
    from chat.services.reply import chat_reply

    report = ingest(user, ANNUAL_REPORT, "costco-10k.txt", title="Annual report")
    ingest(user, COMPRESSION_MANUAL, "bzip2.txt", title="bzip2 manual")
    conversation = conversation_create(owner=user, ref_ids=[])  # all materials, as "+ New conversation"
    message = chat_reply(conversation=conversation, content="What is the current ratio?")
    assert not message.refused, message.content
    assert {citation["refId"] for citation in message.citations} == {report.ref_id}, message.content
    assert "compression" not in message.content


def test_a_lazy_follow_up_stays_in_the_material_of_the_answer_before(user, ingest):
    from chat.services.reply import chat_reply

    ingest(user, ANNUAL_REPORT, "costco-10k.txt", title="Annual report")
    manual = ingest(user, COMPRESSION_MANUAL, "bzip2.txt", title="bzip2 manual")
    conversation = conversation_create(owner=user, ref_ids=[])
    first = chat_reply(conversation=conversation, content="What does bzip2recover do?")
    assert {citation["refId"] for citation in first.citations} == {manual.ref_id}, first.content
    example = chat_reply(conversation=conversation, content="give me an example")
    assert not example.refused, example.content
    assert {citation["refId"] for citation in example.citations} == {manual.ref_id}, example.content
    assert "warehouse" not in example.content


def test_switched_off_the_follow_up_quotes_the_other_materials_example(user, ingest):
    """What the rule is worth: without it, "give me an example" after a bzip2recover answer also quotes the annual
    report's "For example, warehouse employees …"."""
    from chat.services.reply import chat_reply

    report = ingest(user, ANNUAL_REPORT, "costco-10k.txt", title="Annual report")
    ingest(user, COMPRESSION_MANUAL, "bzip2.txt", title="bzip2 manual")
    conversation = conversation_create(owner=user, ref_ids=[])
    with rules.switched_off([ONE_MATERIAL.name]):
        chat_reply(conversation=conversation, content="What does bzip2recover do?")
        example = chat_reply(conversation=conversation, content="give me an example")
    assert report.ref_id in {citation["refId"] for citation in example.citations}, example.content
    assert "warehouse" in example.content


def test_other_language_materials_are_searched_apart_only_in_a_library_of_both_languages():
    both = [("asm", False), ("notes-ko", True), ("guide-ko", True)]
    assert OTHER_LANGUAGE_TOO(both, True) and OTHER_LANGUAGE_TOO(both, False)
    assert _other_language(both, True) == ["asm"]  # a Korean question: the English book, searched apart
    assert _other_language(both, False) == ["notes-ko", "guide-ko"]
    assert _other_language([("asm", False), ("unknown", None)], True) is None  # all in the other language: searched already
    assert _other_language([("asm", False)], False) is None


def test_a_korean_question_reads_the_english_book_its_korean_notes_crowd_out(user, ingest):
    """Korean notes on functions in mathematics rank first for "함수를 호출하면 스택에 무엇이 저장되나요?"; the
    English assembly book, searched apart, is read too, after them."""
    from chat.services.retrieval import Retrieval, conversation_scope, other_language_too
    from tests.chat.conftest import BOOK
    from tests.pdfgen import make_pdf

    english = ingest(user, make_pdf(BOOK), "asm.pdf", title="PC Assembly")
    notes = ingest(user, make_pdf(MATHS_NOTES_KO), "함수.pdf", title="함수 노트")
    conversation = conversation_create(owner=user, ref_ids=[])
    scope = conversation_scope(conversation, [english.ref_id, notes.ref_id])
    question = "함수를 호출하면 스택에 무엇이 저장되나요?"
    korean_only = [passage for passage in _found(conversation, question, scope) if passage.ref_id == notes.ref_id]
    assert korean_only
    retrieval = Retrieval(query=question, passages=korean_only)
    with rules.counting() as fired:
        wider = other_language_too(conversation, retrieval.query, question, retrieval.passages, scope=scope)
    assert wider[: len(korean_only)] == [replace(p, n=n) for n, p in enumerate(korean_only, start=1)]  # theirs first
    assert any(passage.ref_id == english.ref_id and "pushed on the stack" in passage.text for passage in wider)
    assert fired[OTHER_LANGUAGE_TOO.name] == 1
    with rules.switched_off([OTHER_LANGUAGE_TOO.name]):
        assert other_language_too(conversation, question, question, korean_only, scope=scope) is korean_only


def _found(conversation, question, scope):
    from chat.services.retrieval import _search

    return _search(conversation, question, k=10, scope=scope)


MATHS_NOTES_KO = [
    f"제{n}장 함수와 그래프\n일차 함수 y = {n}x 의 그래프는 직선이다. 함수의 값을 표에 저장하면 그래프를 그리기 쉽다. "
    "계산기에 함수를 저장해 두고 다시 불러 쓸 수 있다. 이차 함수의 그래프는 포물선이며, 꼭짓점에서 방향이 바뀐다."
    for n in range(1, 13)
]
