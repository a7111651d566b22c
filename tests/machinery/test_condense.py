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


def test_the_other_one_reads_the_list_or_the_subject_of_the_turn_before():
    from baeum.answering.followups import OTHER_ONE, other_ordinal, subject_phrases

    for question in ("And the other one?", "what about the other kind?", "the other?", "다른 하나는?", "나머지는?", "그럼 다른 건?"):
        assert OTHER_ONE.match(question), question
    for question in ("What is the other register used for?", "다른 레지스터는 뭐야?", "Is there another way?"):
        assert not OTHER_ONE.match(question), question
    ordinal = Memory(recent=[{"turn": 2, "question": "첫 번째 것은 뭐야?", "answer": "빅 엔디안 … [1]", "refused": False}])
    assert other_ordinal("다른 하나는?", ordinal) == "두 번째 것은?"
    assert other_ordinal("and the other one?", ordinal) == "And the second one?"
    hyphen = Memory(recent=[{"turn": 1, "question": "What is depth-first search?", "answer": "DFS … [1]", "refused": False}])
    assert other_ordinal("and the other one?", hyphen) == ""  # "depth-first" names no first item
    assert ("shallow", "copy") in subject_phrases("What is a shallow copy?")
    assert ("빅", "엔디안") in subject_phrases("빅 엔디안이 뭐야?")
    assert ("depth-first", "search") in subject_phrases("What is depth-first search?")
    assert ("first", "search") not in subject_phrases("What is depth-first search?")
