"""Messages that ask nothing of the materials: greetings, thanks, statements about the learner ("My exam is on
Friday.") and questions about what they stated ("What is my exam date?"). They get a short reply in the
learner's language that claims nothing about the materials, so there is nothing to cite or refuse.
"""

from __future__ import annotations

import re

from baeum.answering.answers import Answer, Generator
from baeum.answering.history import STUDY_GOAL_EN, Memory, extract_entities, is_question
from baeum.language.analysis import content_terms
from baeum.language.text import is_hangul_heavy, korean_particle

_MY_QUESTION = re.compile(r"\bmy\b|(?:^|\s)(?:내|제|나의)\s", re.IGNORECASE)
# "시험 언제야?", "When is the exam?": asking when something the learner stated is, without "my".
_WHEN_QUESTION = re.compile(r"\bwhen\b|\bwhat (?:day|date|time)\b|언제|며칠|몇\s*일|무슨\s*요일|몇\s*시", re.IGNORECASE)
CONVERSATION = "conversation"  # the generator of these replies
_GREETING = re.compile(
    r"^(?:hi|hello|hey|hiya|good (?:morning|afternoon|evening))(?: there| tutor| baeum)?$|^(?:안녕|안녕하세요|안녕하십니까|반가워|반가워요|반갑습니다)$"
)
_THANKS = re.compile(
    r"^(?:thanks|thank you|thanks a lot|thank you (?:so|very) much|many thanks|thx|ty)(?: tutor| baeum)?$"
    r"|^(?:고마워|고마워요|고맙습니다|감사합니다|감사해요|땡큐)$"
)
# "ok", "ㅇㅋ", "알겠어": the learner has read the answer and asks nothing yet.
_ACKNOWLEDGEMENT = re.compile(
    r"^(?:ok|okay|k|kk|okey|got it|i see|cool|great|nice|alright|all right|sure|yes|yep|yeah|understood|makes sense|sounds good)$"
    r"|^(?:ㅇㅋ|ㅇㅇ|ㅇㅋㅇㅋ|오케이|오키|알겠어|알겠어요|알겠습니다|알았어|알았어요|네|넵|넹|응|웅|그래|그래요|좋아|좋아요|아하|그렇구나|아 그렇구나"
    r"|이해했어|이해했어요|이해했습니다)$"
)
# Punctuation, emoticons and symbols around a greeting ("Hi!", "고마워요~ ^^").
_NOT_A_WORD = re.compile(r"[^\w\s']+|_")
_GREETING_REPLY_EN = (
    "Hello! I'm your study tutor. Ask me about your materials and I'll answer only from them, citing the page. "
    "You can also tell me things like your exam date, and I'll remember them."
)
_GREETING_REPLY_KO = (
    "안녕하세요! 저는 올려 주신 학습 자료로만 답하는 튜터예요. 자료에 대해 물어보시면 근거가 된 쪽수를 밝혀 답해 드려요. "
    "시험 날짜처럼 알려 주신 내용은 기억해 둘게요."
)
_THANKS_REPLY_EN = "You're welcome! Ask me anything else about your materials; I answer only from them, citing the page."
_THANKS_REPLY_KO = "천만에요! 자료에 대해 더 궁금한 것이 있으면 물어보세요. 자료에 있는 내용으로만, 쪽수를 밝혀 답해 드려요."
_ACKNOWLEDGED_EN = "Okay! Ask me about your materials whenever you're ready."
_ACKNOWLEDGED_KO = "좋아요! 자료에 대해 궁금한 것이 있으면 언제든 물어보세요."
_NOTED_EN = "Got it, I'll remember that {facts}. Ask me about your materials whenever you're ready."
_NOTED_KO = "알겠어요. {facts} — 기억해 둘게요. 자료에 대해 궁금한 것을 물어보세요."


def _small_talk_words(text: str) -> str:
    return " ".join(_NOT_A_WORD.sub(" ", text).casefold().split())


def conversation_kind(text: str) -> str | None:
    """Return "greeting", "thanks", "acknowledgement" or "statement" for a message that asks nothing of the
    materials, else None.

    A greeting, thanks or acknowledgement is the whole message ("Hi!", "감사합니다", "ㅇㅋ"); a statement tells
    a fact about the learner ("My exam is on Friday.", "내일 시험이야") and asks nothing. "What is my exam date?" asks.
    """
    words = _small_talk_words(text)
    if _GREETING.match(words):
        return "greeting"
    if _THANKS.match(words):
        return "thanks"
    if _ACKNOWLEDGEMENT.match(words):
        return "acknowledgement"
    if not is_question(text) and extract_entities(text, turn=0):
        return "statement"
    return None


def _restated(fact: dict, *, korean: bool) -> str:
    if korean:
        return f"{fact['key']}: {fact['value']}"
    if fact["key"] == STUDY_GOAL_EN:
        return f"you're studying for {fact['value']}"
    return f"your {fact['key']} is {fact['value']}"


def conversation_answer(question: str) -> Answer | None:
    """Reply briefly to a greeting, thanks or statement, in the learner's language; None for a question."""
    kind = conversation_kind(question)
    if kind is None:
        return None
    korean = is_hangul_heavy(question)
    if kind == "greeting":
        text = _GREETING_REPLY_KO if korean else _GREETING_REPLY_EN
    elif kind == "thanks":
        text = _THANKS_REPLY_KO if korean else _THANKS_REPLY_EN
    elif kind == "acknowledgement":
        text = _ACKNOWLEDGED_KO if korean else _ACKNOWLEDGED_EN
    else:
        facts = [_restated(fact, korean=korean) for fact in extract_entities(question, turn=0)]
        text = _NOTED_KO.format(facts=", ".join(facts)) if korean else _NOTED_EN.format(facts=" and ".join(facts))
    return Answer(text=text, confidence=1.0, generator=CONVERSATION, kind=Generator.CONVERSATION)


def memory_answer(question: str, memory: Memory) -> Answer | None:
    """Answer "what is my X?" (or "when is X?") from facts the learner stated earlier in this conversation."""
    if not (_MY_QUESTION.search(question) or _WHEN_QUESTION.search(question)) or not memory.entities:
        return None
    terms = set(content_terms(question))
    for entity in reversed(memory.entities):
        key_terms = set(content_terms(entity["key"]))
        if entity["key"] != "topic" and key_terms and key_terms <= terms:
            if is_hangul_heavy(question):
                key, value = entity["key"], entity["value"]
                topic, quoted = korean_particle(key, "은", "는"), korean_particle(value, "이라고", "라고")
                text = f"앞서 {key}{topic} {value}{quoted} 알려 주셨어요."
            else:
                text = f"Earlier you told me that your {entity['key']} is {entity['value']}."
            return Answer(text=text, confidence=1.0, generator="memory", kind=Generator.MEMORY)
    return None


# --- "What did I ask first?": the learner's own earlier questions ------------------------------------------

_ASKED_FIRST = re.compile(
    r"\bwhat\s+(?:did|was|were)\s+(?:i|my)\b[^?]{0,30}?\b(?:ask|asked|question)\b[^?]{0,20}?\b(?:first|at first|at the start)\b"
    r"|\bmy\s+(?:very\s+)?first\s+question\b"
    r"|(?:맨\s*)?처음(?:에|으로)?\s*(?:내가\s*|제가\s*)?(?:뭐|무엇|무슨\s*질문)\S*\s*(?:물어|물었|질문)"
    r"|(?:내|제)\s*첫\s*(?:번째\s*)?질문|첫\s*(?:번째\s*)?질문\S*\s*(?:뭐였|무엇이었)",
    re.IGNORECASE,
)
_ASKED_LAST = re.compile(
    r"\bwhat\s+(?:did|was)\s+(?:i|my)\b[^?]{0,30}?\b(?:ask|asked|question)\b[^?]{0,20}?\b(?:last|before|previously|just now|earlier)\b"
    r"|\bmy\s+(?:last|previous)\s+question\b"
    r"|(?:아까|방금|전에|이전에|마지막(?:으로)?)\s*(?:내가\s*|제가\s*)?(?:뭐|무엇|무슨\s*질문)\S*\s*(?:물어|물었|질문)"
    r"|(?:내|제)\s*(?:이전|마지막|직전)\s*질문|(?:이전|마지막|직전)\s*질문\S*\s*(?:뭐였|무엇이었|다시)",
    re.IGNORECASE,
)


def asks_for_own_question(question: str) -> str | None:
    """ "first" for "What did I ask first?" / "내가 처음에 뭐 물어봤지?", "last" for "What was my last question?" /
    "아까 뭐 물어봤더라?", else None: the learner asks about the conversation, not the materials."""
    if _ASKED_FIRST.search(question):
        return "first"
    if _ASKED_LAST.search(question):
        return "last"
    return None


def own_question_answer(question: str, which: str, earlier: list[str]) -> Answer:
    """The learner's first or previous question of this conversation (``earlier``: their questions, oldest first)."""
    korean = is_hangul_heavy(question)
    if not earlier:
        text = "이 질문이 이 대화의 첫 질문이에요." if korean else "This is your first question in this conversation."
    elif which == "first":
        text = (
            f"이 대화에서 처음 물어보신 질문은 “{earlier[0]}”였어요."
            if korean
            else f"Your first question in this conversation was “{earlier[0]}”."
        )
    else:
        text = f"바로 전에 물어보신 질문은 “{earlier[-1]}”였어요." if korean else f"Your previous question was “{earlier[-1]}”."
    return Answer(text=text, confidence=1.0, generator=CONVERSATION, kind=Generator.CONVERSATION)
