"""With an LLM, the answer streams as the model writes it: each sentence is sent once it passes the ground
check; a sentence that fails drops what was shown ("reset") and the extract follows. What streams after
the last reset is what is saved."""

import pytest

from baeum.answering.answers import REFUSAL_EN
from baeum.answering.llm import LLMError
from chat.models import Message
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply_stream

pytestmark = pytest.mark.django_db


class StreamingLLM:
    """A faked model that writes its answer piece by piece and records how far it has got."""

    model = "fake-stream"

    def __init__(self, pieces, fail_after=None):
        self.pieces, self.written, self.fail_after = pieces, [], fail_after

    def stream(self, *, system, prompt, max_tokens=800):
        for number, piece in enumerate(self.pieces):
            if self.fail_after is not None and number == self.fail_after:
                raise LLMError("connection reset")
            self.written.append(piece)
            yield piece

    def complete(self, **kwargs):  # used only when the client leaves mid-stream
        raise LLMError("not in this test")


def _run(conversation, question, llm):
    events = []
    for kind, payload in chat_reply_stream(conversation=conversation, content=question, llm=llm):
        events.append((kind, payload, len(llm.written)))
    return events


def _text_after_last_reset(events):
    last_reset = max((index for index, (kind, _, _) in enumerate(events) if kind == "reset"), default=-1)
    return "".join(payload for kind, payload, _ in events[last_reset + 1 :] if kind == "token")


def test_checked_sentences_stream_before_the_model_has_finished(user, book):
    llm = StreamingLLM(
        [
            "An interrupt handler ",
            "is the routine that processes the interrupt [1]. ",
            "Hardware interrupts come ",
            "from devices such as the keyboard [1].",
        ]
    )
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    events = _run(conversation, "What does an interrupt handler do?", llm)
    tokens = [(payload, written) for kind, payload, written in events if kind == "token"]
    assert tokens[0] == ("An interrupt handler is the routine that processes the interrupt [1]. ", 3)  # model not finished
    assert "reset" not in [kind for kind, _, _ in events]
    saved = Message.objects.get(pk=events[-1][1])
    assert saved.generator == "fake-stream" and saved.content == _text_after_last_reset(events).strip()
    assert saved.citations and all(citation["pageNumber"] == 2 for citation in saved.citations)


def test_a_sentence_that_fails_the_check_is_never_shown_and_the_extract_follows(user, book):
    llm = StreamingLLM(
        [
            "An interrupt handler is the routine that processes the interrupt [1]. ",
            "It was invented by Alan Turing in Manchester in 1936 [1]. ",
            "Keyboards raise interrupts [1].",
        ]
    )
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    events = _run(conversation, "What does an interrupt handler do?", llm)
    kinds = [kind for kind, _, _ in events]
    assert "reset" in kinds
    shown = "".join(payload for kind, payload, _ in events if kind == "token")
    assert "Turing" not in shown  # the failing sentence was held back, not sent and taken back
    saved = Message.objects.get(pk=events[-1][1])
    assert saved.generator == "extractive (LLM answer failed the ground check)"
    assert saved.content == _text_after_last_reset(events).strip() and saved.citations


def test_a_model_that_stops_mid_answer_falls_back_to_the_extract(user, book):
    llm = StreamingLLM(["An interrupt handler is the routine that processes the interrupt [1]. ", "Hard"], fail_after=1)
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    events = _run(conversation, "What does an interrupt handler do?", llm)
    saved = Message.objects.get(pk=events[-1][1])
    assert ("reset", "extractive (LLM unavailable)") in [(kind, payload) for kind, payload, _ in events]
    assert saved.generator == "extractive (LLM unavailable)" and saved.content == _text_after_last_reset(events).strip()


def test_a_model_refusal_streams_as_the_refusal(user, book):
    llm = StreamingLLM([REFUSAL_EN, " [no passage answers this]."])
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    events = _run(conversation, "What does an interrupt handler do?", llm)
    saved = Message.objects.get(pk=events[-1][1])
    assert saved.refused and saved.content == _text_after_last_reset(events).strip()


@pytest.mark.parametrize(
    ("generator", "english", "korean"),
    [
        ("extractive", "no language model", "언어 모델 없음"),
        ("extractive (LLM answer failed the ground check)", "did not match them", "자료와 맞지 않았습니다"),
        ("gemini-2.5-flash", "Written by gemini-2.5-flash from your materials", "gemini-2.5-flash이(가) 내 자료를 바탕으로"),
    ],
)
def test_the_learner_sees_which_kind_of_answer_they_read(user, book, generator, english, korean):
    from django.template.loader import render_to_string
    from django.utils import translation

    message = Message.objects.create(
        conversation=conversation_create(owner=user, ref_ids=[book.ref_id]),
        owner=user,
        turn=1,
        role="assistant",
        content="X [1].",
        generator=generator,
    )
    # The label reads in the page's language, like the buttons beside it, whatever the reply's.
    for content, page_language, expected in (("X [1].", "ko", korean), ("엑스는 와이다. [1]", "en", english)):
        message.content = content
        with translation.override(page_language):
            assert expected in render_to_string("chat/_message.html", {"message": message})
    message.refused = True
    assert "answer-kind" not in render_to_string("chat/_message.html", {"message": message})
    message.content = "제공된 자료에서 관련 내용을 찾을 수 없습니다."
    with translation.override("en"):
        assert "Not in your materials" in render_to_string("chat/_message.html", {"message": message})


def test_the_documents_own_reference_markers_reach_a_model_as_superscripts():
    from baeum.answering.answers import Passage
    from baeum.answering.history import Memory
    from chat.services.generation import build_prompt

    passage = Passage(
        n=1, ref_id="mat_x", title="Paper", chunk_index=0, chunk_id=1, page_number=2, text="KorQuAD 1.0[1] has 70,000 questions.", score=1.0
    )
    _, prompt = build_prompt("How many questions?", Memory(), [passage])
    assert "KorQuAD 1.0⁽¹⁾ has 70,000 questions." in prompt and "1.0[1]" not in prompt
