"""The one home of the word lists the rules read, in both languages.

A rule that needs pointing words, naming verbs, question words or enumeration nouns builds its pattern
from a list here (``alternation``) instead of writing the words again. Where two rules read different
lists on purpose the difference is named here (``POINTING_SUBJECT_EN`` is not ``POINTING_EN``), so a
reader sees what each rule accepts and a change lands in every rule that reads the list.

The lists were gathered from the rules as they were (evaluation output unchanged); where they had drifted
apart without a reason, the drift is written down beside the list, to be settled by measurement.
"""

from __future__ import annotations

import re

# --- Pointing words: a sentence or a follow-up that leans on what came before --------------------------

# In a follow-up, anywhere ("Which register points to its top?", "Why is that slow?").
POINTING_EN = ("it", "its", "they", "them", "their", "this", "that", "these", "those", "he", "she", "his", "her")
# Opening a passage sentence that leans on the sentence before it ("It is pushed …"): "them" opens none.
POINTING_OPENING_EN = ("It", "Its", "This", "That", "These", "Those", "They", "Their", "He", "His", "She", "Her")
# The subject of a definition no question can be made from ("This is called …", "Such a list is …").
POINTING_SUBJECT_EN = ("this", "these", "that", "those", "it", "they", "such")
# Korean determiners that point: 그 (that, the one said), 이 (this), 저 (that, over there).
POINTING_KO = ("그", "이", "저")

# --- Connectives: a sentence that goes on from the one before ------------------------------------------

CONNECTIVES_EN = ("thus", "therefore", "hence", "however", "also", "so", "then", "but", "and")
CONNECTIVES_KO = ("따라서", "그러므로", "그러나", "하지만", "그런데", "또한", "즉", "그래서", "그리고")

# --- Naming: "X is called Y", "Y라고 부른다" ---------------------------------------------------------

# What a sentence that gives a name says before the name ("… a third method called two's complement").
NAMING_EN = ("called", "known as", "named", "termed")
# The definition finder and the quiz also take "referred to as" (drift: the answer side does not).
NAMING_DEFINITION_EN = ("called", "known as", "termed", "named", "referred to as")

# --- Question words ---------------------------------------------------------------------------------

QUESTION_WORDS_EN = ("what", "which", "who", "whom", "whose", "when", "where", "why", "how")
# Korean question stems, as a term of the question starts ("무엇인", "어떻게", "몇"): they ask, they name no topic.
QUESTION_STEMS_KO = ("무엇", "뭐", "뭔", "어떻", "어떤", "어디", "언제", "왜", "누구", "어느", "얼마", "몇")

# --- Enumeration: a question asking for the kinds of something, an ordinal counting them ----------------

ENUMERATION_NOUNS_EN = ("ways", "kinds", "types", "methods", "techniques", "approaches", "forms")
ENUMERATION_NOUNS_KO = ("방법", "방식", "종류", "유형", "기법")
ORDINAL_WORDS_EN = ("first", "second", "third", "fourth", "fifth")
ORDINAL_WORDS_KO = ("첫", "두", "세", "네", "다섯")

# --- Asking for a form of answer, not a subject ------------------------------------------------------

# The terms (as ``content_terms`` gives them) of a follow-up that asks how to answer, not what about: "give me an
# example", "why does that matter?", "tell me more", "show me code for that", "예시 보여줘", "무슨 뜻이야?", "쉽게
# 설명해줘", "그건 왜 필요해?".
ASKED_FORM_WORDS_EN = (
    "give", "show", "tell", "explain", "simply", "simple", "simpler", "mean", "meaning", "example", "examples", "another",
    "elaborate", "detail", "details", "please", "matter", "reason", "instance", "sample", "clarify", "illustrate", "again",
    "more", "code", "need", "needed", "necessary", "use", "used", "work", "works", "different", "difference", "differ",
    "one", "ones", "instead", "alway", "true", "happen", "happens",
)  # fmt: skip
ASKED_FORM_WORDS_KO = (
    "예", "예시", "예제", "보이", "보여주", "코드", "설명", "자세히", "쉽", "뜻", "의미", "말", "이유", "필요", "다시", "쓰", "사용",
    "동작", "작동", "다르", "차이", "어디", "언제",
)  # fmt: skip

# --- Korean particles -------------------------------------------------------------------------------

# What ends a Korean noun that is not part of it ("방법으로", "표현법의"), one character each.
NOUN_ENDING_PARTICLES_KO = "은는이가을를에으로의"


def alternation(words: tuple[str, ...]) -> str:
    """``words`` as a regex alternation, in order, each escaped; a space inside a word matches any run of
    spaces ("known as" → ``known\\s+as``)."""
    return "|".join(r"\s+".join(re.escape(part) for part in word.split()) for word in words)


# English closed-class words the general stop list leaves out (it serves search, where they are rare enough to
# keep): quantifiers, correlatives and subordinators. A blank on one asks nothing ("_____ the arrow keys").
FUNCTION_WORDS_EN = (
    "either", "neither", "every", "another", "several", "whether", "although", "though", "unless", "whereas",
    "whatever", "whichever", "whoever", "however", "therefore", "thus", "hence", "instead", "otherwise", "rather",
    "quite", "almost", "already", "always", "never", "often", "sometimes", "usually", "still", "yet", "ever",
    "many", "much", "less", "least", "enough", "anything", "something", "nothing", "everything", "anyone",
    "someone", "everyone", "nobody", "somebody", "everybody", "within", "without", "upon", "onto", "toward",
    "towards", "across", "along", "among", "around", "behind", "beside", "besides", "beyond", "despite", "except",
    "inside", "outside", "since", "unlike", "whenever", "wherever", "thee", "thou", "thy",
)  # fmt: skip

# What judging an English sentence's grammar needs (``baeum.study.standing`` chooses key points with them,
# ``baeum.study.checks`` judges them; each builds its own tests from these words).
AUXILIARIES_EN = (
    "is", "are", "was", "were", "be", "been", "being", "has", "have", "had", "can", "could", "will", "would", "may",
    "might", "must", "shall", "should", "does", "do", "did", "isn't", "aren't", "doesn't", "don't", "can't", "won't",
)  # fmt: skip
# Words that open a relative clause or a participle phrase: its verb is not the sentence's.
RELATIVE_OPENERS_EN = ("that", "which", "who", "whose", "containing", "including", "using", "with")
# Words that may open an English sentence and be followed by an article: prepositions, conjunctions, quantifiers.
SENTENCE_OPENERS_EN = tuple(
    "in on at for with by from as of to into over under after before during since when while if unless until because "
    "although though whereas where once unlike like all both each every many most some only even thus also often usually "
    "here there".split()
)
# Korean counters and units: a number before one is a quantity ("16 비트", "3 장"), not a footnote's number.
COUNTERS_KO = ("쪽", "개", "년", "월", "일", "번", "장", "절", "명", "비트", "바이트", "바퀴", "배", "%")
