"""What a question asks, apart from how it wants the answer. No Django imports.

Real questions carry instructions ("Give a response … by relying on the details shown in the cash
flow statement. Round your answer to two decimal places.", "간단히 설명해 줘"). Their words are not
what the learner is looking for: they dilute keyword and vector search and make the sufficiency
gate look for "response", "decimal" and "places" in the passages. ``analyse_question`` keeps the
ask (with any definitions it carries: "DPO is defined as: 365 * (average accounts payable …)" names
the line items to find), drops the instructions, and keeps where the answer should come from ("the
cash flow statement") as a hint that retrieval adds to the query once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from baeum import rules
from baeum.language.text import split_sentences

# Sentences (or clauses before a colon) that tell how to answer, not what is asked.
_INSTRUCTION = re.compile(
    r"^\s*(?:please\s+)?(?:give|answer|round|provide|respond|reply|express|state|explain why|base|calculate|compute|"
    r"approach|address|assume|consider|considering|you are|we need|here'?s the question|using|use|by drawing|"
    r"in agreement with|taking into account|based on|relying on|if .{0,80}? (?:is|are) not (?:a )?(?:useful|relevant))\b",
    re.IGNORECASE,
)
_ASK_AFTER_COLON = re.compile(
    r"^(?P<lead>[^:]{8,240}?(?:question|following|abilities|below)[^:]{0,160}):\s*(?P<ask>.+)$", re.IGNORECASE | re.DOTALL
)
_LEADING_CONTEXT = re.compile(
    r"^\s*(?:by drawing conclusions from|in agreement with|taking into account|considering|based on|using|relying on)[^,]{3,160},\s*",
    re.IGNORECASE,
)
# "… shown in the cash flow statement", "using only the information within the balance sheet"
_SOURCE_HINT = re.compile(
    r"\b(?:in|from|within|using|use|on|of|and)\s+the\s+(?P<hint>(?:(?!the\b|in\b|from\b|of\b)[\w&'-]+\s+){0,4}?"
    r"(?:statements?|sheets?|tables?|sections?|notes?|chapter)(?:\s+of\s+(?!the\b)[\w&'-]+(?:\s+(?!and\b|or\b|the\b)[\w&'-]+)?)?)",
    re.IGNORECASE,
)
_HINT_WORDS_IGNORED = re.compile(
    r"\b(?:information|details|data|line items|provided|primarily|only|clearly|shown|outlined|stated)\b\s*", re.IGNORECASE
)
# "According to the details clearly outlined within the balance sheet, how much …?": a clause before the
# question that only says where to look (it names a source, ``_SOURCE_HINT``), however it is worded.
_LEAD_BEFORE_ASK = re.compile(
    r"^(?P<lead>[^,?]{3,200}),\s*(?=(?:what|how|which|when|who|whom|where|why|is|are|was|were|does|do|did|can)\b)", re.IGNORECASE
)


def _without_source_lead(sentence: str) -> str:
    match = _LEAD_BEFORE_ASK.match(sentence)
    if match and _SOURCE_HINT.search(match.group("lead")):
        return sentence[match.end() :]
    return sentence


SOURCE_LEAD = rules.register(
    rules.Rule(
        "question:source-lead",
        _without_source_lead,
        "Basing your judgment by information plainly provided in the balance sheet, what is Lockheed Martin's FY2020 revenue?",
        "a clause that says where to look is how to answer, not what is asked: its words are not looked for in the passages",
    )
)[0]

# Korean instructions at the end of a request: "… 설명해 줘", "… 답해 주세요", "간단히".
_KOREAN_REQUEST = re.compile(
    r"\s*(?:간단히|자세히|짧게|한\s*문장으로)?\s*(?:설명|답|요약|정리)(?:해|하여|해서)?\s*(?:줘|주세요|주십시오|줄래|줄래요)[.!?]?\s*$"
)


# The same source goes by several names; a hint is looked for under each (the names of the financial
# statements are standard across filings: ASC 205/IAS 1 titles and their common short forms).
SOURCE_SYNONYMS: list[tuple[str, ...]] = [
    ("income statement", "statement of income", "statements of income", "statements of operations", "statement of operations",
     "statements of earnings", "statement of earnings", "profit and loss", "손익계산서"),
    ("balance sheet", "balance sheets", "statement of financial position", "statements of financial position", "재무상태표", "대차대조표"),
    ("cash flow statement", "statement of cash flows", "statements of cash flows", "현금흐름표"),
]  # fmt: skip


def hint_variants(hint: str) -> list[str]:
    """``hint`` and the other names of the same source."""
    folded = hint.casefold()
    for names in SOURCE_SYNONYMS:
        if folded in names:
            return [hint, *(name for name in names if name != folded)]
    return [hint]


# "(in USD millions)", "(as a %)", "(in units of percents and round to one decimal place)": how to write the answer.
_FORMAT_ASIDE = re.compile(r"\s*\((?:in|as|round|rounded|answer)\b[^()]{0,80}\)", re.IGNORECASE)


@dataclass(frozen=True)
class QuestionParts:
    ask: str  # what is asked, definitions included
    instructions: list[str] = field(default_factory=list)  # how to answer (format, units, role play)
    hints: list[str] = field(default_factory=list)  # where the answer is ("cash flow statement")

    @property
    def judged(self) -> str:
        """The ask as the sufficiency judgement reads it: without the names the question defines itself
        ("CCC is defined as: DIO + DSO - DPO", "Define working capital ratio as …"), nor their spelled-out
        forms ("cash conversion cycle (CCC)"). A filing never writes "DIO"; what it must hold is what the
        definitions are made of (inventory, receivables, revenue)."""
        return without_defined_names(self.ask)

    @property
    def retrieval_query(self) -> str:
        """The ask, with each source hint once (a hint the ask already names is not repeated)."""
        extra = [hint for hint in self.hints if hint.casefold() not in self.ask.casefold()]
        return " ".join([self.ask, *extra]).strip()


def analyse_question(text: str) -> QuestionParts:
    """Split ``text`` into what it asks, its answering instructions and its source hints."""
    text = " ".join(text.split())
    hints = _hints(text)
    asks: list[str] = []
    instructions: list[str] = []
    for sentence in split_sentences(text):
        match = _ASK_AFTER_COLON.match(sentence)
        if match and _INSTRUCTION.match(match.group("lead")):
            instructions.append(match.group("lead"))
            sentence = match.group("ask")
        stripped = _LEADING_CONTEXT.sub("", sentence)
        if stripped == sentence:
            stripped = rules.cleaned(SOURCE_LEAD, sentence)
        if stripped != sentence:
            instructions.append(sentence[: len(sentence) - len(stripped)].strip(" ,"))
            sentence = stripped
        if _INSTRUCTION.match(sentence):
            instructions.append(sentence)
        else:
            asks.append(sentence)
    ask = " ".join(asks) or text  # nothing but instructions: keep the whole text
    asides = _FORMAT_ASIDE.findall(ask)
    if asides:
        instructions += [aside.strip() for aside in asides]
        ask = _FORMAT_ASIDE.sub("", ask)
    korean_request = _KOREAN_REQUEST.search(ask)
    if korean_request and korean_request.start() > 0:
        instructions.append(ask[korean_request.start() :].strip())
        ask = ask[: korean_request.start()].strip()
    return QuestionParts(ask=ask, instructions=instructions, hints=hints)


# "CCC is defined as:", "Operating cash flow ratio is defined as", "Define working capital ratio as".
_DEFINED_AS = re.compile(
    r"(?:^|(?<=[.?!]\s))(?P<name>[A-Z][\w&/\- ]{0,60}?)\s+(?:is|are)\s+defined\s+as\s*:?\s*"
    r"|\bDefine\s+(?P<name2>[\w&/\- ]{1,60}?)\s+as\s*:?\s*",
)


def without_defined_names(ask: str) -> str:
    """``ask`` without the names it defines, wherever they occur, and with each definition's head dropped
    (its body stays). An abbreviation defined takes the words it abbreviates with it where the question
    spells them out before it ("cash conversion cycle (CCC)")."""
    names = [(match.group("name") or match.group("name2")).strip() for match in _DEFINED_AS.finditer(ask)]
    if not names:
        return ask
    text = _DEFINED_AS.sub(" ", ask)
    for name in sorted(names, key=len, reverse=True):
        if re.fullmatch(r"[A-Z]{2,6}", name):  # an abbreviation: its spelled-out form before "(CCC)" goes too
            words = r"\s+".join([r"[A-Za-z]\w*"] * len(name))
            for match in re.finditer(rf"\b({words})\s*\(\s*{name}\s*\)", text):
                if "".join(word[0] for word in match.group(1).split()).upper() == name:
                    text = text.replace(match.group(0), " ")
        text = re.sub(rf"\b{re.escape(name)}\b", " ", text, flags=re.IGNORECASE)
    return " ".join(text.split())


def _hints(text: str) -> list[str]:
    found: list[str] = []
    for match in _SOURCE_HINT.finditer(text):
        hint = _HINT_WORDS_IGNORED.sub("", match.group("hint")).strip()
        if hint and len(hint.split()) <= 6 and hint.casefold() not in (item.casefold() for item in found):
            found.append(hint)
    return found


# --- Where to look: "in this book", "PC 어셈블리어 책에서", "How does Think Python explain …" ----------------
#
# Words that only say where to look are not what is asked: counted as question terms they are missing
# from the passages (or match only a title page) and the tutor refuses or quotes the preface. They are
# taken out, and a material the question names by its title narrows the search to it.

_WHERE_EN = re.compile(
    r"\s*\b(?:in|from|according to|based on)\s+(?:this|the|my|that|your)\s+(?:book|textbook|text|material|materials|document|pdf|notes|file)\b",
    re.IGNORECASE,
)
# "What kinds of shift operations does the book cover?": the book covering it is what every answer shows.
_SOURCE_COVERS_EN = re.compile(
    r"\s*\b(?:does|do|did|will)\s+(?:this|the|my|that|your)\s+(?:book|textbook|text|material|materials|document|pdf|notes|file|author|chapter)\s+"
    r"(?:cover|discuss|mention|describe|present|introduce|list|talk about|go over|go through)\b",
    re.IGNORECASE,
)
_WHERE_KO = re.compile(r"^(?:\S+\s+){0,2}?(?:책|교재|자료|문서|파일)(?:에서는|에서|에\s*따르면|에|의)\s+")
_LETTERS = re.compile(r"[^0-9a-z가-힣]+")
TITLE_MIN_CHARS = 5  # a named title shorter than this is likely a word of the question, not a title


def _squeeze(text: str) -> str:
    return _LETTERS.sub("", text.casefold())


def _title_run(words: list[str], key: str) -> range | None:
    """The positions of the longest run of ``words`` that spells the title ``key`` (or its start), or None."""
    for size in range(min(6, len(words)), 0, -1):
        for start in range(len(words) - size + 1):
            run = _squeeze(" ".join(words[start : start + size]))
            if run == key or (len(run) >= TITLE_MIN_CHARS and key.startswith(run) and size > 1):
                return range(start, start + size)
    return None


def named_sources(question: str, titles: dict[str, str]) -> tuple[str, list[str]]:
    """Return the question without the words that only say where to look, and the refIds of the
    materials it names by title ("thinkpython2" is named by "Think Python"; every material of that
    title, when several share it)."""
    text = _WHERE_EN.sub("", _SOURCE_COVERS_EN.sub("", question)).strip()
    words = text.split()
    named, dropped = [], set()
    runs: dict[str, range | None] = {}  # a title several materials share is looked for once
    for ref_id, title in titles.items():
        key = _squeeze(re.sub(r"[\d_-]+$|\.\w{2,4}$", "", title))
        if len(key) < TITLE_MIN_CHARS:
            continue
        if key not in runs:
            runs[key] = _title_run(words, key)
        run = runs[key]
        if run is not None:
            named.append(ref_id)
            dropped.update(run)
    text = " ".join(word for index, word in enumerate(words) if index not in dropped)
    text = _WHERE_KO.sub("", text).strip()  # after the titles: "PC 어셈블리어 책에서" names the book, then says where
    text = re.sub(r"^(?:does|do|is)\s+(explain|say|describe|define)\b", r"\1", text, flags=re.IGNORECASE)
    text = covered_subject(text)  # "does it also cover X?": X is what is asked
    return (text or question), named


# "Does it also cover the Fibonacci heap?", "Is interpolation search explained anywhere?", "Is there anything on
# numpy arrays?", "듀얼 라이선스도 나와?", "SIMD 명령어도 설명돼 있어?": the learner asks whether the materials
# cover something. "What kinds of shift operations does the book cover?" asks what they say, not whether.
_ASKS_IF_COVERED_EN = re.compile(
    # The asking verb stands in the question's first sentence: "Does American Water Works have positive working
    # capital …? If it is not a useful metric, … explain why." asks about the company, not the filing's coverage.
    r"^\s*(?:so\s+|and\s+|also\s+)?(?:does|do|did|will|is|are|can)\b(?:[^.?!]|\.(?=\d))*?\b(?:cover(?:s|ed)?|explain(?:s|ed)?|mention(?:s|ed)?|"
    r"discuss(?:es|ed)?|talk(?:s|ed)?\s+about|describe[sd]?|show(?:s|n)?|include[sd]?|introduce[sd]?)\b"
    r"|^\s*(?:is|are)\s+there\s+(?:anything|something|a\s+(?:section|chapter|part))\s+(?:on|about)\b",
    re.IGNORECASE,
)
# The Korean ways of asking it, shared by the test and the cut: "나와?", "다뤄?", "설명돼 있어?", "들어 있나요?".
_APPEARS_KO = r"나와|나와\s*있어|나오나|나오니|나와요|나와\s*있나요|다뤄|다뤄요|다루나|다루니|다루나요"
_IS_THERE_KO = r"있(?:어|어요|나|나요|니)"
_ASKS_IF_COVERED_KO = re.compile(
    rf"(?:{_APPEARS_KO}|(?:설명|소개|언급)(?:돼|되어|되어\s*)?\s*{_IS_THERE_KO}|들어\s*{_IS_THERE_KO}|"
    rf"(?:설명|내용|얘기|이야기)(?:도|이|은)?\s*{_IS_THERE_KO})\s*\??\s*$"
)
# The words that ask whether something is covered, not what: never a subject the materials must mention.
COVERAGE_FRAME_WORDS = frozenset(
    "cover explain mention discuss talk describe show include introduce anywhere also too anything something "
    "book deck slide slides text material materials chapter section part document "
    "설명 소개 내용 나오 다루 언급 들어 얘기 이야기".split()
)


_COVERED_FRAME_EN = re.compile(
    r"^\s*(?:so\s+|and\s+|also\s+)?(?:does|do|did|will|can)\s+(?:it|this|that|they|these|the\s+\w+|this\s+\w+|my\s+\w+)\s+"
    r"(?:also\s+|even\s+|ever\s+)?(?:cover|explain|mention|discuss|talk\s+about|describe|show(?:\s+(?:me\s+)?how\s+to)?|include|introduce)\s+"
    r"|^\s*(?:is|are)\s+there\s+(?:anything|something|a\s+(?:section|chapter|part))\s+(?:on|about)\s+"
    r"|^\s*(?:is|are)\s+(?=.+\b(?:covered|explained|mentioned|discussed|described|included|introduced)\b)",
    re.IGNORECASE,
)
_COVERED_TAIL_EN = re.compile(
    r"\s*\b(?:(?:covered|explained|mentioned|discussed|described|included|introduced)\b\s*)?(?:anywhere|too|as\s+well|at\s+all|also|in\s+(?:it|there))?\s*\??\s*$",
    re.IGNORECASE,
)
_COVERED_TAIL_KO = re.compile(
    r"(?:도|은|는|이|가)?\s*(?:(?:설명|내용|얘기|이야기)(?:도|이|은)?\s*)?"
    rf"(?:{_APPEARS_KO}|(?:설명|소개|언급)(?:돼|되어)?\s*{_IS_THERE_KO}|들어\s*{_IS_THERE_KO}|{_IS_THERE_KO})\s*\??\s*$"
)


def covered_subject(question: str) -> str:
    """What a question asking whether the materials cover something asks about ("is interpolation search
    covered anywhere?" → "interpolation search", "인터럽트도 다뤄?" → "인터럽트"), or the question as it is:
    searched for "explain" or "다뤄", the answer quotes "simple to explain"."""
    if not asks_if_covered(question):
        return question
    if _ASKS_IF_COVERED_KO.search(question.strip()):
        subject = _COVERED_TAIL_KO.sub("", question.strip())
    else:
        subject = _COVERED_TAIL_EN.sub("", _COVERED_FRAME_EN.sub("", question, count=1))
    return subject.strip(" ,") or question


def asks_if_covered(question: str) -> bool:
    """Whether ``question`` asks if the materials cover something ("is interpolation search covered anywhere?")."""
    return bool(_ASKS_IF_COVERED_EN.search(question) or _ASKS_IF_COVERED_KO.search(question.strip()))
