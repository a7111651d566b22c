"""A conversation over several materials answers each question from one of them (``answer:one-material``): the
best-ranked material whose passages alone answer, and in a follow-up the material the previous answer cited."""

import pytest

from baeum import rules
from baeum.answering.answers import Passage
from chat.services.conversations import conversation_create
from chat.services.retrieval import ONE_MATERIAL, answering_material

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


def test_the_previous_answers_material_answers_what_it_can_then_the_best_ranked_that_answers_alone():
    passages = [passage(1, "manual"), passage(2, "report"), passage(3, "manual")]

    def answers(ref_id):
        return lambda found: found[0].ref_id == ref_id

    # A follow-up ("give me an example") stays with the material the answer before cited, if it was found again.
    assert answering_material(passages, sufficient=answers("manual"), previous="report", follow_up=True) == "report"
    # A question that stands alone too, when that material answers it; else the material that does.
    assert answering_material(passages, sufficient=answers("report"), previous="report") == "report"
    assert answering_material(passages, sufficient=answers("manual"), previous="report") == "manual"
    # No previous answer: the best-ranked material that answers alone, else the best-ranked (refused on its own).
    assert answering_material(passages, sufficient=answers("report")) == "report"
    assert answering_material(passages, sufficient=lambda found: True) == "manual"
    assert answering_material(passages, sufficient=lambda found: False, previous="gone") == "manual"


def test_the_rule_fires_only_on_passages_of_several_materials():
    assert ONE_MATERIAL([passage(1, "manual"), passage(2, "report")])
    assert not ONE_MATERIAL([passage(1, "manual"), passage(2, "manual")])
    assert not ONE_MATERIAL([])


def test_an_accounting_question_is_answered_from_the_report_not_the_compression_manual(user, ingest):
    from chat.services.reply import chat_reply

    report = ingest(user, ANNUAL_REPORT, "costco-10k.txt", title="Annual report")
    ingest(user, COMPRESSION_MANUAL, "bzip2.txt", title="bzip2 manual")
    conversation = conversation_create(owner=user, ref_ids=[])  # all materials, as "+ New conversation"
    with rules.counting() as fired:
        message = chat_reply(conversation=conversation, content="What is the current ratio?")
    assert not message.refused, message.content
    assert {citation["refId"] for citation in message.citations} == {report.ref_id}, message.content
    assert "compression" not in message.content
    assert fired[ONE_MATERIAL.name] == 1


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
