"""The condense step without the database: when a follow-up is rewritten by the model, and what is kept of its reply."""

from baeum.answering.condense import condense, needs_condensing
from baeum.answering.history import Memory
from baeum.answering.llm import Completion, LLMError

HISTORY = Memory(
    recent=[
        {"turn": 1, "question": "세그먼트 레지스터가 뭐야?", "answer": "세그먼트 레지스터는 메모리 구역을 가리킨다. [1]", "refused": False}
    ]
)


class ScriptedModel:
    """A model that replies with ``reply`` (or raises it) and keeps what it was asked."""

    model = "scripted"

    def __init__(self, reply):
        self.reply, self.asked = reply, []

    def complete(self, *, system: str, prompt: str, max_tokens: int = 800) -> Completion:
        self.asked.append((system, prompt))
        if isinstance(self.reply, Exception):
            raise self.reply
        return Completion(text=self.reply, input_tokens=40, output_tokens=9, model=self.model)


def test_a_follow_up_is_rewritten_with_the_conversation_in_the_materials_language():
    model = ScriptedModel('"세그먼트 레지스터는 왜 필요한가?"\nIt points back to the segment registers.')
    result = condense(model, "그건 왜 필요해?", HISTORY, materials_korean=True)
    assert (result.question, result.why) == ("세그먼트 레지스터는 왜 필요한가?", "rewritten")  # quotes and a second line dropped
    system, prompt = model.asked[0]
    assert "Korean" in system and "세그먼트 레지스터가 뭐야?" in prompt and "그건 왜 필요해?" in prompt


def test_a_first_question_in_another_language_is_translated_and_one_in_theirs_is_not_sent():
    model = ScriptedModel("스택 포인터란 무엇인가?")
    assert condense(model, "What is a stack pointer?", Memory(), materials_korean=True).why == "translated"
    assert "Korean" in model.asked[0][0]
    assert needs_condensing("What is a stack pointer?", Memory(), materials_korean=False) == ""
    assert condense(model, "What is a stack pointer?", Memory(), materials_korean=False).why == "no-history"
    assert len(model.asked) == 1  # no call for a question that stands alone in the materials' language


def test_a_failing_or_rambling_model_leaves_the_offline_resolution_in_place():
    assert condense(ScriptedModel(LLMError("timeout")), "그건 왜 필요해?", HISTORY, materials_korean=True).why == "failed: LLMError"
    rambling = condense(ScriptedModel("x" * 400), "그건 왜 필요해?", HISTORY, materials_korean=True)
    assert (rambling.question, rambling.why) == ("", "not-a-question")
    assert condense(None, "그건 왜 필요해?", HISTORY, materials_korean=True).question == ""
