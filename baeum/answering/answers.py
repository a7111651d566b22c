"""What an answer is made of: the passages a turn retrieved, the citations an answer carries, the answer itself,
and the refusals in the question's language. No Django imports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from enum import Enum

from baeum import rules
from baeum.extraction.pages import quote_pages
from baeum.language.text import is_hangul_heavy

REFUSAL_KO = "제공된 자료에서 관련 내용을 찾을 수 없습니다."


REFUSAL_EN = "I couldn't find this in your materials."


# A citation mark: "[3]" after a space or punctuation, never an index glued to a name ("dword[0]", "a[3][2]":
# the text's own code, which a quoted sentence keeps). The chat page links the same marks.
CITATION = re.compile(r"(?<![\w\]])\[(\d{1,2})\]")


@dataclass(frozen=True)
class Passage:
    n: int  # 1-based citation number for this turn
    chunk_id: int
    ref_id: str
    title: str
    chunk_index: int
    page_number: int
    text: str
    score: float = 0.0
    vector_score: float | None = None
    lexical_score: float | None = None
    # The cosine at which this passage's embedding model counts as a plausible match (models differ).
    vector_threshold: float | None = None
    # Where each page of ``text`` begins ((offset, page) pairs): citations carry the quote's own page.
    page_starts: tuple = ()
    model: str = ""  # the embedding model of this passage's vectors (to compare sentences by meaning)
    crosslingual_threshold: float | None = None  # that model's plausible cosine across languages
    crosslingual_threshold_from_korean: float | None = None  # the same for a Korean question (None: as above)
    # (start, end) of the footnotes in ``text`` (moved to the end of their page): never quoted as an answer.
    note_spans: tuple = ()
    code_spans: tuple = ()  # (start, end) of the lines of code in ``text``: never quoted as a sentence
    section_title: str = ""  # the heading in force where ``text`` begins
    heading_spans: tuple = ()  # (start, end, level) of the headings inside ``text``: a sentence stands under the last before it
    matter: str = ""  # "front" or "back" when every page of the passage is front or back matter (a title page, an index)
    korean: bool | None = None  # its material is written in Korean (None: not known; then its own text decides)


# A question that asks for the back matter itself ("which references does it list?", "참고문헌에 뭐가 있어?").
_ASKS_FOR_BACK_MATTER = re.compile(
    r"\b(?:bibliograph\w*|references?|works cited|further reading|index|glossary)\b|참고\s*문헌|색인|찾아보기|용어\s*(?:집|해설)",
    re.IGNORECASE,
)

BACK_MATTER = rules.register(
    rules.Rule(
        "passage:back-matter",
        lambda question, matter="back": matter == "back" and not _ASKS_FOR_BACK_MATTER.search(question),
        "What are the principles the compendium says it follows?",
        "a bibliography or an index read before the book's own prose (the licence guide's English bibliography "
        "answered English questions: 'Zittrain, Jonathan: Normative Principles …')",
    )
)[0]


def body_first(passages: list[Passage], question: str, *, k: int) -> list[Passage]:
    """The best ``k`` of ``passages`` (best first) with the book's body before its back matter (bibliography,
    index): a back-matter passage is read only when fewer than ``k`` body passages were found, or the question
    asks for the back matter. Measured in docs/evaluation.md (``passage:back-matter``)."""
    body = [passage for passage in passages if not rules.applies(BACK_MATTER, question, passage.matter)]
    kept = {passage.chunk_id for passage in body}
    return [*body, *(passage for passage in passages if passage.chunk_id not in kept)][:k]


@dataclass
class Citation:
    n: int
    refId: str
    materialTitle: str
    chunkIndex: int
    pageNumber: int  # the page of the quoted sentence (of the first, when the answer quotes several of this passage)
    quote: str
    pageEnd: int = 0  # the last page the answer quotes from this passage (a quote may run over a page break)

    def as_dict(self) -> dict:
        return dict(self.__dict__)


class Generator(Enum):
    """What wrote an answer: the pipeline branches on this, never on the ``generator`` label's wording."""

    EXTRACTIVE = "extractive"  # sentences of the passages, chosen offline (also the fallback when a model fails)
    MODEL = "model"  # an LLM, its every claim checked against the passages
    CONVERSATION = "conversation"  # small talk: a greeting, thanks, a statement about the learner
    MEMORY = "memory"  # a fact the learner stated earlier in the conversation


@dataclass(frozen=True)
class Answer:
    """An answer as the learner reads it; a changed answer is a new one (``dataclasses.replace``)."""

    text: str
    citations: list[Citation] = field(default_factory=list)
    refused: bool = False
    confidence: float = 0.0
    generator: str = "extractive"  # the label stored with the message: the model's name, "extractive (why)", …
    kind: Generator = Generator.EXTRACTIVE


def refusal_text(question: str) -> str:
    return REFUSAL_KO if is_hangul_heavy(question) else REFUSAL_EN


# More materials searched than this are counted, not named.
NAMED_MATERIALS = 3


def weak_results_text(question: str, titles: list[str], *, in_session: bool = False) -> str:
    """The refusal that says what was searched: the materials by title (or their number), or a study
    session's pages, with where to ask to search the whole book."""
    korean = is_hangul_heavy(question)
    if in_session:
        if korean:
            return f"{REFUSAL_KO} 이 세션의 쪽들에서만 찾아보았습니다. 책 전체에서 찾으려면 튜터에서 새 대화를 시작해 물어보세요."
        return f"{REFUSAL_EN} I searched only this session's pages; to search whole books, ask in a new conversation in the Tutor."
    if len(titles) > NAMED_MATERIALS:
        return (
            f"{REFUSAL_KO} 자료 {len(titles)}개를 모두 찾아보았지만 이 질문에 답하는 내용이 없습니다."
            if korean
            else (f"{REFUSAL_EN} I searched all {len(titles)} of your materials, and they do not answer this question.")
        )
    names = ", ".join(f"“{title}”" for title in titles) or "—"
    if korean:
        return f"{REFUSAL_KO} 검색한 자료({names})에는 이 질문에 답하는 내용이 없습니다."
    return f"{REFUSAL_EN} I searched {names}, and {'it does' if len(titles) == 1 else 'they do'} not answer this question."


def still_upgrading_text(question: str, upgrading: list[tuple[str, int | None]]) -> str:
    """Said after a refusal across languages while the materials' better search is still being made: the answer
    may be there, and asking again later may find it. The per cent done is left out while the work waits for a
    worker (it read "(0%)")."""
    names = ", ".join(f"“{title}”" + (f" ({done}%)" if done is not None else "") for title, done in upgrading)
    if is_hangul_heavy(question):
        return f"다른 언어로 묻는 질문은 {names}의 검색 품질을 높이는 작업이 끝나면 더 잘 찾습니다. 몇 분 뒤에 다시 물어보세요."
    return (
        f"Questions in another language than the material's are matched better once {names} "
        f"{'finishes' if len(upgrading) == 1 else 'finish'} improving search in the background: ask again in a few minutes."
    )


def never_mentioned_text(question: str, missing: tuple[str, ...]) -> str:
    """The answer to "does it cover X?" when the materials never mention X: no, naming what was looked for."""
    return f"{REFUSAL_KO if is_hangul_heavy(question) else REFUSAL_EN} {unmentioned_text(question, missing)}"


def unmentioned_text(question: str, missing: tuple[str, ...]) -> str:
    """The sentence naming what the materials never mention ("Your materials never mention “France”.")."""
    names = ", ".join(f"“{name}”" for name in missing[:3])
    if is_hangul_heavy(question):
        return f"자료 어디에도 나오지 않는 말: {names}."
    return f"Your materials never mention {names}."


def citation_for(passage: Passage, quote: str, earlier: Citation | None = None) -> Citation:
    """The citation of ``passage`` for ``quote``; with ``earlier`` (the same passage cited for another sentence
    of the answer), that citation, its pages widened to this quote's: two sentences of one passage, on p.13
    and p.14, are cited as p.13–14, quoting the one on p.13 (where the citation opens the page)."""
    first, last = quote_pages(passage.text, passage.page_starts, quote, passage.page_number)
    if earlier is not None:
        end = max(earlier.pageEnd or earlier.pageNumber, last)
        return (
            replace(earlier, pageEnd=end) if earlier.pageNumber <= first else replace(earlier, pageNumber=first, quote=quote, pageEnd=end)
        )
    return Citation(
        n=passage.n,
        refId=passage.ref_id,
        materialTitle=passage.title,
        chunkIndex=passage.chunk_index,
        pageNumber=first,
        quote=quote,
        pageEnd=last,
    )
