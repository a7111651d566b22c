"""Grounded answers: the extractive (offline) answer, the citation check every answer must pass,
the sufficiency judgement that decides a refusal, and the token-budgeted context. No Django imports.

An LLM may phrase an answer; only this module decides whether it is grounded.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from .analysis import QUESTION_FRAME_WORDS, content_terms, function_word_share, may_name_a_topic, named_terms, without_particle_forms
from .chunking import looks_like_code, quote_pages
from .tables import superscript_references
from .text import estimate_tokens, is_hangul_heavy, sentence_spans

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
    # (start, end) of the footnotes in ``text`` (moved to the end of their page): never quoted as an answer.
    note_spans: tuple = ()
    matter: str = ""  # "front" or "back" when every page of the passage is front or back matter (a title page, an index)
    korean: bool | None = None  # its material is written in Korean (None: not known; then its own text decides)


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


@dataclass
class Answer:
    text: str
    citations: list[Citation] = field(default_factory=list)
    refused: bool = False
    confidence: float = 0.0
    generator: str = "extractive"


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
        return f"{REFUSAL_KO} 자료 {len(titles)}개를 모두 찾아보았지만 이 질문에 답하는 내용이 없습니다." if korean else (
            f"{REFUSAL_EN} I searched all {len(titles)} of your materials, and they do not answer this question."
        )
    names = ", ".join(f"“{title}”" for title in titles) or "—"
    if korean:
        return f"{REFUSAL_KO} 검색한 자료({names})에는 이 질문에 답하는 내용이 없습니다."
    return f"{REFUSAL_EN} I searched {names}, and {'it does' if len(titles) == 1 else 'they do'} not answer this question."


# --- Sufficiency ---------------------------------------------------------------------------


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def _found_terms(terms: list[str], text: str) -> set[str]:
    """Terms of ``terms`` present in ``text``: as analysed terms, or (for Korean compounds written
    without spaces, "인터럽트핸들러") as a substring of the text, both with spaces removed: a name Kiwi reads
    as one ("구리야마 히데키") is found however it is spaced."""
    analysed = set(content_terms(text))
    squeezed = _squeezed(text)
    return {term for term in terms if term in analysed or (len(term) >= 2 and _squeezed(term) in squeezed) or _period_found(term, analysed)}


# "fy2018", "q3": fiscal periods a question names the way filings' tables do not ("2018", "Three Months Ended").
_FISCAL_PERIOD = re.compile(r"^fy(\d{2}|\d{4})$")


def _period_found(term: str, analysed: set[str]) -> bool:
    match = _FISCAL_PERIOD.match(term)
    if not match:
        return False
    year = match.group(1)
    return year in analysed or (len(year) == 2 and f"20{year}" in analysed)


@dataclass(frozen=True)
class Evidence:
    coverage: float  # share of the question's weighted terms found in the best passage
    vector: float  # best cosine similarity among the passages
    sufficient: bool


_INTERROGATIVE = re.compile(r"^(?:무엇|뭐|뭔|어떻|어떤|어디|언제|왜|누구|어느|얼마|몇)")
# A question term carrying this share of the question's weight, found in no passage, decides alone.
TOPIC_WEIGHT_SHARE = 0.6


def _asked_terms(question: str) -> list[str]:
    """The question's terms once each, without Kiwi's particle-glued duplicates, and without the words that
    only frame it unless nothing else is left ("What is the difference?")."""
    terms = without_particle_forms(list(dict.fromkeys(content_terms(question))))
    return [term for term in terms if term not in QUESTION_FRAME_WORDS] or terms


def judge_evidence(
    question: str,
    passages: list[Passage],
    *,
    min_coverage: float,
    min_vector: float | None,
    strong_coverage: float,
    known: Callable[[list[str]], set[str]] | None = None,
) -> Evidence:
    """Decide whether the passages can answer the question.

    Coverage weights each question term by its rarity in the passages at hand (a term that appears in
    every passage says little), so "What is X's population?" is not covered by passages that merely
    contain "population". Enough coverage with a plausible vector match, or very high coverage, is
    sufficient; anything else is refused. A vector match is plausible at ``min_vector`` when given,
    else at each passage's own ``vector_threshold`` (its embedding model's).
    """
    terms = _asked_terms(question)
    if not passages or not terms:
        return Evidence(0.0, 0.0, False)
    if crosses_languages(question, passages):
        evidence = _judge_across_languages(question, passages, min_vector=min_vector)
        return replace(evidence, sufficient=False) if names_missing(question, passages, known) else evidence
    found_in = [_found_terms(terms, passage.text) for passage in passages]
    total = len(found_in)
    weights = {term: math.log(1 + (total + 1) / (1 + sum(term in found for found in found_in))) for term in terms}
    weight_sum = sum(weights.values()) or 1.0
    coverage = max(sum(weights[term] for term in terms if term in found) / weight_sum for found in found_in)
    vector = max((passage.vector_score or 0.0) for passage in passages)
    plausible = any(
        passage.vector_score is not None
        and passage.vector_score >= (min_vector if min_vector is not None else passage.vector_threshold or 0.0)
        for passage in passages
    )
    # The word a question turns on ("광합성" in "광합성은 어떻게 일어나는가?") found in no passage: the
    # passages are about something else, however well the rest of the question matches.
    core = [
        term
        for term in terms
        if not any(other != term and len(other) >= 2 and term.startswith(other) for other in terms)  # "일어나는" is "일어나"
        and not _INTERROGATIVE.match(term)  # "무엇인" asks; it is not what the question is about
    ]
    core_sum = sum(weights[term] for term in core) or 1.0
    heavy_missing = [
        term
        for term in core
        if weights[term] / core_sum >= TOPIC_WEIGHT_SHARE
        and not any(term in found for found in found_in)
        and may_name_a_topic(term, question)
    ]
    # ...and nowhere in the materials either (``known``: the terms the learner's materials contain):
    # "used" in "What is a register used for?" is missing from the passages but not from the book.
    missing_topic = bool(heavy_missing) and known is not None and not (set(heavy_missing) & known(heavy_missing))
    sufficient = not missing_topic and not names_missing(question, passages, known) and (coverage >= strong_coverage or (coverage >= min_coverage and plausible))
    return Evidence(round(coverage, 4), round(vector, 4), sufficient)


_ENGLISH_INTERROGATIVES = frozenset("what which who whom whose when where why how".split())
# Words a follow-up asks with ("Give me one", "Tell me more", "Show me another"), whatever the materials say.
_ASKING_WORDS = frozenset("one ones give gives tell show more another other thing things something anything".split())


def unknown_topics(question: str, passages: list[Passage], known: Callable[[list[str]], set[str]]) -> list[str]:
    """The words ``question`` could be about that no passage holds and the learner's materials never use
    ("laptop" in "What's the best gaming laptop to buy this year?" over an assembly book)."""
    terms = [term for term in _asked_terms(question) if term not in QUESTION_FRAME_WORDS]
    absent = [
        term
        for term in terms
        if len(term) > 1
        and not _INTERROGATIVE.match(term)
        and term not in _ENGLISH_INTERROGATIVES
        and term not in _ASKING_WORDS
        and "'" not in term
        and "’" not in term  # "can't", "i've": how it is asked
        and any(char.isalpha() for char in term)
        and may_name_a_topic(term, question)
        and not any(term in _found_terms([term], passage.text) for passage in passages)
    ]
    return [term for term in absent if term not in known(absent)] if absent else []


def names_missing(question: str, passages: list[Passage], known: Callable[[list[str]], set[str]] | None) -> bool:
    """The question names something ("How do I write an if statement in Rust?", "… in Java?" over a Korean
    book) and neither the passages nor the materials contain any of its names: the materials are about
    something else. One name found is enough ("Block (formerly known as Square)")."""
    names = [name for name in named_terms(question) if not _FISCAL_PERIOD.match(name)]
    if not names or known is None or any(_found_terms(names, passage.text) for passage in passages):
        return False
    return not known(names)


# --- Across languages ----------------------------------------------------------------------
#
# A Korean learner studies from an English textbook: "스택 포인터 ESP는 무엇을 가리키나요?" shares no word
# with the page that answers it, so counting question terms in the passages refuses it. Across
# languages the judgement reads meaning (the multilingual embedding's similarity at the passage's
# model's threshold) and the words both languages write the same way: identifiers, numbers and
# Latin-script terms inside a Korean question ("ESP", "CALL") must be found if there are any.

# Of the question's shared-script terms, the share the best passage must contain.
SHARED_TERMS_MIN_SHARE = 0.5
CROSSLINGUAL_PASSAGES = 3  # answer from the best three passages (evaluation/crosslingual.jsonl, e5: 2 → 44 of 74 on an expected page, 3 → 46, 5 → 47)
CODE_WEIGHT = 2.0  # a code or number of the question, in a sentence across languages, counts twice a word
MEANING_WEIGHT = 4.0  # a sentence's cosine to the question outweighs its position (cosines differ by ~0.1–0.3)
# A short line before a cross-language answer, in the question's language; not a claim (ground check skips it).
NOTE_PREFIX = "※ "
_LATIN_TERM = re.compile(r"^[a-z0-9][a-z0-9_.+#-]*$")
_IDENTIFIER = re.compile(r"\b(?:[A-Z]{2,}[0-9]*|[A-Za-z]*[0-9]{2,}[A-Za-z0-9]*)\b")
# With every named identifier found verbatim, the meaning match may be this share of the usual threshold.
ANCHORED_VECTOR_SHARE = 0.6
_HANGUL = re.compile(r"[가-힣]")


def crosses_languages(question: str, passages: list[Passage]) -> bool:
    """Whether the best passage and most of the others are in another language than the question (Korean /
    not Korean), each passage in its material's language: a Korean paper's English reference list or a
    Korean book's code listing is Korean material. Over a library of both languages, a question is
    answered across languages only when its own language's material is not what answers it best."""
    if not passages:
        return False
    korean = is_hangul_heavy(question)
    other = [(passage.korean if passage.korean is not None else is_hangul_heavy(passage.text)) != korean for passage in passages]
    return other[0] and sum(other) * 2 > len(other)


def shared_script_terms(question: str) -> list[str]:
    """Terms of ``question`` written in the other language's script: Latin terms and numbers in a Korean
    question, Hangul terms in an English one. They can be matched as they are across languages."""
    terms = dict.fromkeys(content_terms(question))
    if is_hangul_heavy(question):
        return [term for term in terms if _LATIN_TERM.match(term) and len(term) > 1]
    return [term for term in terms if _HANGUL.search(term)]


def identifiers(question: str) -> list[str]:
    """Names written the same in every language: acronyms and codes ("ESP", "CALL", "80386", "x86")."""
    return list(dict.fromkeys(_IDENTIFIER.findall(question)))


def _judge_across_languages(question: str, passages: list[Passage], *, min_vector: float | None) -> Evidence:
    shared = shared_script_terms(question)
    found = max((len(_found_terms(shared, passage.text)) for passage in passages), default=0)
    share = found / len(shared) if shared else 1.0
    vector = max((passage.vector_score or 0.0) for passage in passages)
    # Identifiers the question names and a passage contains verbatim are evidence of their own: then a
    # weaker meaning match is enough (short pages, where a chunk mixes topics, score lower).
    names = identifiers(question)
    anchored = bool(names) and all(any(name in passage.text for passage in passages) for name in names)
    if not names and shared and is_hangul_heavy(question):
        # In a Korean question every Latin-script word is such a name ("NaN", "htonl", "vtable"), whatever its
        # case: each must be a word of a passage.
        anchored = all(any(term in content_terms(passage.text) for passage in passages) for term in shared)

    def threshold(passage: Passage) -> float:
        base = min_vector if min_vector is not None else passage.crosslingual_threshold or passage.vector_threshold or 0.0
        return base * ANCHORED_VECTOR_SHARE if anchored else base

    plausible = any(passage.vector_score is not None and passage.vector_score >= threshold(passage) for passage in passages)
    return Evidence(round(share, 4), round(vector, 4), plausible and share >= SHARED_TERMS_MIN_SHARE)


def crosslingual_note(question: str, passages: list[Passage]) -> str:
    """The line that tells the learner the answer is quoted from a material in another language."""
    if is_hangul_heavy(question):
        return f"{NOTE_PREFIX}영어로 된 자료에서 찾은 내용을 원문 그대로 인용합니다."
    return f"{NOTE_PREFIX}Quoted as written in your Korean material."


# Read across languages, a sentence is chosen by meaning alone, so it must at least end as a sentence does:
# instruction-table rows ("LODSB Load Byte LODSW Load Word …") and chunk-cut lines score as high as prose.
_ENDS_LIKE_A_SENTENCE = re.compile(r"[.!?:。][\"'”’)\]]*\s*$")


# A numbered section heading on a line of its own: "3.2.3 The XOR operation", "7.2.4 Classes", "3.1.2 쉬프트의 이용".
_SECTION_HEADING = re.compile(r"^[ \t]*(?P<number>\d+(?:\.\d+)+)\.?[ \t]+(?P<title>\S[^\n]{0,80})$", re.MULTILINE)


_RUNNING_HEAD = re.compile(r"^[^a-z가-힣]*[A-Z][^a-z가-힣]*\s\d+\s*$")  # a page's running head: "3.2. BOOLEAN BITWISE OPERATIONS 51"


def numbered_headings(text: str) -> list[re.Match]:
    """The numbered section headings of ``text``, in order: each match's ``number`` ("3.1.3") and ``title``
    ("Arithmetic shifts"); a page's running head is none."""
    return [
        match for match in _SECTION_HEADING.finditer(text) if is_heading(match.group(0)) and not _RUNNING_HEAD.search(match.group(0))
    ]


def section_headings(text: str) -> list[tuple[int, frozenset]]:
    """Where each numbered section heading of ``text`` starts, with its terms."""
    return [(match.start(), frozenset(content_terms(match.group(0)))) for match in numbered_headings(text)]


def _naming_first(passages: list[Passage], terms: list[str]) -> list[Passage]:
    """``passages`` with those that contain more of ``terms`` first, in retrieval order otherwise: a Korean
    question naming "htonl" is answered from the page that uses it, not from a page that says "function" more."""
    if not terms:
        return passages
    return sorted(passages, key=lambda passage: -len(set(terms) & set(content_terms(passage.text))))


def _crosslingual_candidates(question: str, passages: list[Passage], similarity=None, names: tuple[str, ...] = ()) -> list[_Candidate]:
    """Readable sentences of the best passages, ranked by meaning when ``similarity(question, sentences)``
    is given (the multilingual embedder's cosines), and by the question's shared-script terms and
    ``names`` (what the learner's glosses call its terms in the passages' language: "stack pointer")."""
    written = shared_script_terms(question)
    shared = set(written) | {term for name in names for term in content_terms(name)}
    # A code or a number the question names ("00000004", "MOVSB") says more than a word a gloss adds.
    codes = {term for name in identifiers(question) for term in content_terms(name)}
    weight = {term: CODE_WEIGHT if term in codes or any(char.isdigit() for char in term) else 1.0 for term in shared}
    named = written if is_hangul_heavy(question) else []  # Latin names in a Korean question ("htonl")
    # "스택이란 무엇인가요?" over an English book: the sentence that defines what the learner's glosses call it
    # ("A stack is a Last-In First-Out (LIFO) list.") comes first, as in one language.
    defined = names if defined_term(question) else ()
    naming_asked = asks_for_a_name(question)  # "그 4비트짜리 묶음은 뭐라고 불러?": "A 4-bit number is called a nibble."
    question = " ".join([question, *names])
    candidates = []
    for rank, passage in enumerate(_naming_first(passages, named)[:CROSSLINGUAL_PASSAGES]):
        spans = sentence_spans(passage.text)
        headings = section_headings(passage.text)
        for position, (start, end) in enumerate(spans):
            sentence, aside = _quoted_sentence(passage, start, end)
            terms = frozenset(content_terms(sentence))
            if not terms or not is_readable_sentence(sentence, opens_passage=position == 0) or _LIST_LEAD_IN.search(sentence):
                continue
            if sentence.rstrip().endswith("?") or not _ENDS_LIKE_A_SENTENCE.search(sentence):
                continue  # the text's own question is not an answer, nor a table row or a line cut off by the chunk's end
            under = next((heading for at, heading in reversed(headings) if at < start), frozenset())
            # A sentence is about the section it stands in: "The exclusive OR of 2 bits is 0 …" under "3.2.3 The
            # XOR operation" answers "XOR 연산의 진리표", the OR sentence before it does not.
            overlap = sum(weight[term] for term in shared & (terms | under)) / sum(weight.values()) if shared else 0.0
            defining = any(is_definition(sentence, name) for name in defined)
            score = (
                overlap
                + PASSAGE_RANK_WEIGHT / (1 + rank)
                + POSITION_WEIGHT / (1 + position)
                - (ASIDE_PENALTY if aside else 0.0)
                + (DEFINITION_BONUS if defining else 0.0)
                + (NAMING_BONUS if naming_asked and _GIVES_NAME.search(sentence) else 0.0)
            )
            candidates.append(_Candidate(score, rank, position, sentence, passage, defining, terms, (), 1.0, aside, under))
    if similarity is not None and candidates:
        cosines = similarity(question, [candidate.sentence for candidate in candidates])
        candidates = [
            replace(
                candidate, score=candidate.score + MEANING_WEIGHT * cosine, overlap=max(cosine, 1e-6)
            )  # _choose keeps those near the best
            for candidate, cosine in zip(candidates, cosines, strict=True)
        ]
    naming = {candidate.passage.n for candidate in candidates if named and set(named) <= candidate.terms | candidate.section}
    if naming:
        # A sentence uses the name the question asks about ("the htonl () function converts …"), or stands
        # under a heading that does: the answer stays on its pages, not on sentences near in meaning elsewhere
        # ("First, the inline function is faster.").
        candidates = [candidate for candidate in candidates if candidate.passage.n in naming or set(named) & (candidate.terms | candidate.section)]
    return candidates


# --- Extractive answer ---------------------------------------------------------------------
#
# An offline answer is made of whole, readable sentences of the passages: never a heading, a title
# line, a code line, a contact or reference entry, a fragment cut off by the chunk overlap, or a list
# lead-in without its list. A "what is X" question opens with the sentence that defines X.

# Sentences shorter than this are stray marks and numbers ("3.", "p. 12").
MIN_SENTENCE_CHARS = 12
# Fewer words than this is a fragment, not an explanation ("longer.", "two hopeful things.").
MIN_WORDS = 5
# Korean words (eojeol) carry their particles and endings, so three already make a clause ("인출은 과정이다.").
MIN_WORDS_HANGUL = 3
# A line this short that does not end like a sentence is a title ("1.2 Why We Forget: The Forgetting Curve").
HEADING_MAX_WORDS = 12
# Code has many operators and brackets; prose (even with a formula or a citation mark) has few.
CODE_SYMBOLS = frozenset("{}[]<>=;|&\\^~$@#+`")
CODE_SYMBOL_SHARE = 0.08
CODE_MIN_SYMBOLS = 3
# English prose is a fifth to a third function words ("the", "of", "into"); a run of table cells or register
# names is not ("reg/mem8 AX = AL*source1 reg/mem16 DX:AX = AX*source1 …"). Checked from this many words.
PROSE_MIN_FUNCTION_WORDS = 0.08
PROSE_CHECK_WORDS = 12
# A list lead-in brings at most this many item sentences with it (a long list is a reading, not an answer).
LIST_MAX_ITEMS = 6
# Term overlap (Jaccard) at which a second sentence says nothing new (a glossary entry restating the text).
NEAR_DUPLICATE = 0.6
# Puts the sentence that defines X ahead of every other candidate for "what is X" (scores are at most ~1.2).
DEFINITION_BONUS = 1.0
# A supporting sentence must share at least this part of the best sentence's question terms: one that
# only shares a common verb ("…것으로 보인다" for "무엇을 보여 주는가") is noise.
SUPPORT_MIN_SHARE = 0.5
# A sentence opening with "It"/"This"/"그" leans on the sentence before it, which the answer may lack.
ANAPHORIC_OPENING_PENALTY = 0.1
# An aside (a footnote's sentence, a title page, an index) leads an answer only when it shares far more of
# the question than the body does.
ASIDE_PENALTY = 0.5
# A sentence the previous answer quoted is quoted again only when no other answers as well (a follow-up
# asks for what the learner has not read yet; scores are at most ~1.2 before a definition's bonus).
ALREADY_SAID_PENALTY = 1.0
# Relevance tie-breakers: prefer higher-ranked passages and earlier sentences; penalise very long sentences.
PASSAGE_RANK_WEIGHT = 0.15
POSITION_WEIGHT = 0.02
LONG_SENTENCE_CHARS = 300
LONG_SENTENCE_PENALTY = 0.0005  # per character beyond LONG_SENTENCE_CHARS

# Ends like a sentence: punctuation (then closing quotes, or a note such as "[citation needed]"), or a
# Korean declarative ending written without a full stop ("… 번역되어 있다").
_TERMINAL_PUNCTUATION = re.compile(r"(?:[.!?。！？…:;]['\"”’)\]]*|[가-힣]다)(?:\s*\[[^\]]{1,40}\])?$")
_EMAIL_OR_URL = re.compile(r"[\w.+-]+@[\w-]+\.[\w.-]+|https?://|\bwww\.", re.IGNORECASE)
_AUTHOR_LINE = re.compile(
    r"©|\b(?i:copyright|all rights reserved)\b|\bISBN\b"
    r"|^(?:[Bb]y|[Ww]ritten by|[Ee]dited by|[Tt]ranslated by|Authors?:)\s+(?:(?:and\s+)?[A-Z][\w.'-]*,?\s*){1,8}$"
)
_REFERENCE_ENTRY = re.compile(
    r"^\s*\[\d{1,3}\]\s|\bdoi:\s*10\.|\bpp\.\s*\d+\s*[-–]\s*\d+|^[A-Z][\w'-]+,\s(?:[A-Z]\.\s?){1,3}"
    r"|^[A-Z][^.]{0,80}\(\d{4}[a-z]?\)\.\s"
)
_CODE_LINE = re.compile(
    # A numbered listing line ("10 return ret status ;", "9 data = i ;", "27 else 28 printf (…);"), a C control line.
    r"^\s*\d{1,3}\s+\S.*;\s*$|^\s*\d{1,3}\s+(?:else|if|for|while|return|printf)\b|^\s*\d{1,3}\s+[A-Za-z_]\w*\s*(?:=|\[)"
    r"|^\s*(?:if|while|for|switch)\s*\(.*\)\s*\S*;\s*$"
    r"|^\s*(?:>>>|\.\.\.\s|\$\s|#include\b|(?:def|class|import|return|public|private|static|void|int)\s+\w+[\s(:;=]|//|/\*)"
    r"|^\s*(?:\w+:\s*)?(?i:mov|movzx|movsx|lea|push|pop|call|ret|jmp|j[a-z]{1,3}|add|sub|cmp|test|inc|dec|and|or|xor|not|shl|shr"
    r"|mul|imul|div|idiv|int|loop|enter|leave)\s+[\w\[\]+*]+(?:\s*,\s*[\w\[\]+*'-]+)?\s*(?:;.*)?$"
)
# A figure's or table's caption ("Figure 3.4: How to Determine Endianness", "그림 4.12: printf 내부의 스택
# 모습"): in a "sentence" it means the figure's labels were read along with it.
_CAPTION_LABEL = re.compile(r"(?:\bFigure|\bFig\.|\bTable|그림|표)\s*\d+(?:\.\d+)*\s*:")
# A table of contents read as a sentence: leaders and page numbers ("1.5 Skeleton File … 25 2 Basic …").
_CONTENTS_ENTRY = re.compile(r"(?:…|\.{3,})\s*\d{1,4}\b.*(?:…|\.{3,})\s*\d{1,4}\b")
_LIST_ITEM = re.compile(r"^\s*(?:[-•*·▪●◦]|\(?\d{1,2}[.)]|[a-z][.)])\s+\S")
# Announces what follows ("… include the following:", "… 다음과 같다."): it needs what it announces.
_LIST_LEAD_IN = re.compile(
    r":\s*$|(?:as follows|the following|below)[.:]?\s*$|^(?:here|below) (?:is|are)\b"
    r"|다음과\s*같(?:다|습니다|이\s*\S+다)\.?\s*$|아래와\s*같|^(?:아래|다음)(?:는|은)\s",  # "아래는 예제 코드 이다." points at what follows
    re.IGNORECASE,
)
# "... found by the following two steps: 1." — the sentence splitter cut the first item's number off.
_DANGLING_LEAD_IN = re.compile(r":\s+\(?(?:\d{1,2}|[a-z])[.)]\s*$")

_DEFINITION_QUESTION_EN = re.compile(
    r"^\s*(?:so\s+|and\s+)?(?:what(?:'s|\s+is|\s+are|\s+was|\s+were)\s+(?:an?\s+|the\s+)?(?P<what>.+?)"
    r"|what\s+does\s+(?:an?\s+|the\s+)?(?P<mean>.+?)\s+mean|define\s+(?:an?\s+|the\s+)?(?P<define>.+?))\s*[?.!]*\s*$",
    re.IGNORECASE,
)
_DEFINITION_QUESTION_KO = re.compile(
    r"^\s*(?P<what>.+?)\s*(?:이란|란|이라는\s*것은|라는\s*것은|은|는|이|가)\s*"
    r"(?:무엇|뭐|뭔)(?:인가요|인가|입니까|이에요|이야|예요|야|인지|지|가요)?\s*[?.!]*\s*$"
)
# How many words a defined term may have ("the spacing effect", "복습 간격 일정"): longer is a real question.
DEFINED_TERM_MAX_WORDS = 5
_ANAPHORIC_OPENING = re.compile(r"^(?:It|Its|This|That|These|Those|They|Their|He|His|She|Her)\b|^(?:그|이|저)(?:\s|것|는|들|러한|런|와|에)")
_LEADING_MARKUP = re.compile(r"^[\s*_\"“'‘(]+")
_ENGLISH_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)
# After the term: "X is a/the …", "X are …", "X refers to …", "**X** — …" (not "X is hard", "X does …").
_DEFINES_EN = re.compile(
    r"^[*_]{0,2}\s*(?:(?:is|was)\s+(?:a|an|the|one|any)\b|(?:are|were)\s+(?!not\b)\w|refers\s+to\b|means\b|[—–:-]\s)", re.IGNORECASE
)
# After the term a topic or subject particle (or a glossary dash), and a copula or "말한다" at the end:
# "X는 …하는 과정이다." defines; "X는 두 가지 원리를 결합한다." says something else about X.
_DEFINES_KO = re.compile(r"^[*_]{0,2}\s*(?:이란|란|은|는|이|가|[—–:-])\s")
_DEFINITION_END_KO = re.compile(r"(?:이다|입니다|이에요|(?:을|를)\s*(?:말한다|뜻한다|가리킨다|의미한다)|(?:이)?라고\s*(?:한다|부른다))\.$")


def _quoted_sentence(passage: Passage, start: int, end: int) -> tuple[str, bool]:
    """The passage's sentence at ``start:end`` as an answer quotes it (``_quotable``), and whether it is an
    aside: a footnote's ("5 Actually, reversing …"), or front or back matter (a title page, an index)."""
    note = any(first <= start < last for first, last in passage.note_spans)
    return _quotable(passage.text[start:end], note=note), note or bool(passage.matter)


def _sentences(passage: Passage) -> list[str]:
    return [passage.text[start:end] for start, end in sentence_spans(passage.text)]


def defined_term(question: str) -> str:
    """Return X when the question asks what X is ("What is spaced repetition?", "간격 반복이란 무엇인가?"), else ""."""
    match = _DEFINITION_QUESTION_KO.match(question) if is_hangul_heavy(question) else _DEFINITION_QUESTION_EN.match(question)
    if not match:
        return ""
    term = next(value for value in match.groupdict().values() if value)
    term = _WHERE_KO.sub("", _ENGLISH_ARTICLE.sub("", term.strip()))  # "어셈블리어에서 스택" asks what a stack is
    return term if len(term.split()) <= DEFINED_TERM_MAX_WORDS else ""


_WHERE_KO = re.compile(r"^\S+에서\s+(?=\S)")


def without_place(question: str) -> str:
    """A "what is X" question without the place it names ("어셈블리어에서 스택이란 무엇인가요?" → "스택이란
    무엇인가요?"): the word for a whole book's subject draws its every page; "" when it names none."""
    question = question.strip()
    if not is_hangul_heavy(question) or not _DEFINITION_QUESTION_KO.match(question):
        return ""
    stripped = _WHERE_KO.sub("", question)
    return stripped if stripped != question else ""


# "What is the difference between A and B?", "A와 B의 차이는?", "A vs B": each side is defined by the text.
_COMPARED_EN = (
    re.compile(
        r"(?:difference|differences|distinguish(?:es)?)\s+between\s+(?:an?\s+|the\s+)?(?P<a>.+?)\s+and\s+(?:an?\s+|the\s+)?(?P<b>.+?)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
    re.compile(r"^\s*(?:compare\s+)?(?:an?\s+|the\s+)?(?P<a>[\w -]+?)\s+(?:vs\.?|versus)\s+(?:an?\s+|the\s+)?(?P<b>[\w -]+?)\s*[?.!]*\s*$", re.IGNORECASE),
    # "How does SAR differ from SHR?", "How is a tuple different from a list?"
    re.compile(
        r"^\s*how\s+(?:does|do|is|are)\s+(?:an?\s+|the\s+)?(?P<a>[\w -]+?)\s+(?:differ|different)\s+from\s+(?:an?\s+|the\s+)?(?P<b>[\w -]+?)\s*[?.!]*\s*$",
        re.IGNORECASE,
    ),
)
_COMPARED_KO = (
    re.compile(
        r"^\s*(?P<a>.+?)\s*(?:와|과|랑|이랑|하고|vs\.?)\s+(?P<b>.+?)\s*(?:의|은|는)?\s*(?:차이|비교|다른\s*점|(?:어떻게|뭐가|무엇이)\s*(?:다른|달라|다르))"
    ),
    # "SAR 명령은 SHR 과 어떻게 다른가요?"
    re.compile(r"^\s*(?P<a>.+?)\s*(?:은|는)\s+(?P<b>.+?)\s*(?:와|과|랑|이랑|하고)\s+(?:어떻게|뭐가|무엇이)\s*(?:다른|달라|다르)"),
)


def compared_terms(question: str) -> tuple[str, ...]:
    """The two things a comparison question compares ("big endian", "little endian"), else ()."""
    patterns = _COMPARED_KO if is_hangul_heavy(question) else _COMPARED_EN
    match = next((found for found in (pattern.search(question) for pattern in patterns) if found), None)
    if not match:
        return ()
    first, second = (_ENGLISH_ARTICLE.sub("", match.group("a").strip()), _ENGLISH_ARTICLE.sub("", match.group("b").strip()))
    if len(first.split()) == 1 and len(second.split()) > 1 and not is_hangul_heavy(question):
        # "external and internal interrupts", "big and little endian": the first side shares the second's noun.
        first = " ".join([first, *second.split()[1:]])
    sides = (first, second)
    return sides if all(0 < len(side.split()) <= DEFINED_TERM_MAX_WORDS for side in sides) else ()


def defined_terms(question: str) -> tuple[str, ...]:
    """What the answer should define first: X for "what is X", both sides of "the difference between A and B"."""
    term = defined_term(question)
    return (term,) if term else compared_terms(question)


def is_definition(sentence: str, term: str) -> bool:
    """Tell whether ``sentence`` defines ``term``: "X is …", "**X** — …", "X는 …이다"."""
    if not term:
        return False
    opening = _ENGLISH_ARTICLE.sub("", _LEADING_MARKUP.sub("", sentence))
    # The term as the learner wrote it, with or without spaces ("인출 연습" / "인출연습").
    term_pattern = r"\s*".join(re.escape(character) for character in re.sub(r"\s+", "", term))
    match = re.match(term_pattern, opening, re.IGNORECASE)
    if not match:
        return False
    rest = opening[match.end() :]
    if is_hangul_heavy(term):
        return bool(_DEFINES_KO.match(rest) and _DEFINITION_END_KO.search(sentence.rstrip()))
    return bool(_DEFINES_EN.match(rest))


def _word_count(sentence: str) -> int:
    return len(sentence.split())


def is_heading(sentence: str) -> bool:
    """A title line: short and not ending like a sentence ("Spaced Repetition", "4.4 The CALL and RET Instructions")."""
    return _word_count(sentence) <= HEADING_MAX_WORDS and not _TERMINAL_PUNCTUATION.search(sentence.strip())


def is_code(sentence: str) -> bool:
    """A line of code or assembly ("mov eax, 1", ">>> print(x)", "x = y[i] + 1;"), or a piece of a listing
    that the sentence splitter took for prose: numbered lines, comment marks, operators ("44 ; 만일 target 을
    찾았다면", "if ( p[0] == 0x12 ) printf (…);")."""
    if _CODE_LINE.search(sentence) or looks_like_code(sentence, listing_numbers=False):
        return True
    if is_hangul_heavy(sentence):
        return False  # code is ASCII; Korean prose uses <…> and + in titles ("<소설, 영화와 만나다>")
    characters = [character for character in sentence if not character.isspace()]
    symbols = sum(character in CODE_SYMBOLS for character in characters)
    return symbols >= CODE_MIN_SYMBOLS and symbols / max(1, len(characters)) > CODE_SYMBOL_SHARE


# A Korean table read as one sentence: among its words, this share or more are capital codes and flag
# letters ("… 플래그 이름 설명 형식 O S Z A P C JNA 초과 아니면 분기 I JNAE …", an instruction table).
TABLE_CODE_SHARE = 0.3
# ...and at least this many words: a sentence that lists registers is prose ("먼저, C 는 서브루틴이 다음의
# 레지스터의 값을 보관하다고 생각한다: EBX, ESI, EDI, EBP, CS, DS, SS, ES.", 18 words).
TABLE_MIN_WORDS_KOREAN = 30
_CAPITAL_CODE = re.compile(r"^[A-Z][A-Z0-9,]*$")


def is_table_run(sentence: str) -> bool:
    """Table cells or a list of names read as one sentence: many English words, almost no function words;
    in Korean, many words and a large share of them capital codes."""
    if is_hangul_heavy(sentence):
        tokens = sentence.split()
        codes = sum(bool(_CAPITAL_CODE.match(token)) for token in tokens)
        return len(tokens) >= TABLE_MIN_WORDS_KOREAN and codes >= TABLE_CODE_SHARE * len(tokens)
    words, share = function_word_share(sentence)
    return words >= PROSE_CHECK_WORDS and share < PROSE_MIN_FUNCTION_WORDS


# A list cut short before its full stop: "예를 들어서 각각의 비트를 a, b, c, ." (the rest was a figure).
_CUT_LIST = re.compile(r",\s*\.\s*$")


def _opens_inside_parentheses(sentence: str) -> bool:
    """Whether the sentence starts inside a parenthesis whose opening is elsewhere ("4 에서 다룰 것이다) 스택은
    …": a chunk or a footnote cut it); a list marker ("1) 첫째", "a) the first") is not."""
    closing = sentence.find(")")
    opening = sentence.find("(")
    return closing != -1 and (opening == -1 or closing < opening) and len(sentence[:closing].split()) >= 2


def is_fragment(sentence: str) -> bool:
    """Too few words to explain anything on its own, a list cut off before its end, or the tail of a
    parenthesis cut from its start."""
    minimum = MIN_WORDS_HANGUL if is_hangul_heavy(sentence) else MIN_WORDS
    return (
        len(sentence) < MIN_SENTENCE_CHARS
        or _word_count(sentence) < minimum
        or bool(_CUT_LIST.search(sentence))
        or _opens_inside_parentheses(sentence)
    )


def is_readable_sentence(sentence: str, *, opens_passage: bool = False) -> bool:
    """Whether a passage sentence can stand in an answer as prose.

    ``opens_passage``: the passage's first sentence, which a chunk overlap may have cut mid-sentence
    ("who practised recall usually remember more.").
    """
    if is_fragment(sentence) or is_heading(sentence) or is_code(sentence) or is_table_run(sentence) or _DANGLING_LEAD_IN.search(sentence):
        return False
    if any(pattern.search(sentence) for pattern in (_EMAIL_OR_URL, _AUTHOR_LINE, _REFERENCE_ENTRY, _CAPTION_LABEL, _CONTENTS_ENTRY)):
        return False
    return not (opens_passage and sentence[:1].islower())


_GLUED_HEADING = re.compile(
    r"^(?P<heading>[A-Z][\w’'-]*(?:\s+(?:[a-z][\w’'-]*|[A-Z][a-z][\w’'-]*)){0,5})\s+(?:The|A|An|This|These|In|We|It|If|When|For|Here|There)\s"
)
_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|can|will|would|does|do|did|may|must|should)\b")


# A footnote marker PDFium glued after a sentence's full stop ("the opposite transformation.5").
_FOOTNOTE_MARKER_AT_END = re.compile(r"(?<=[a-z]{2}[.!?])\d{1,2}$")
_NOTE_NUMBER = re.compile(r"^\d{1,3}\)?\s+(?=\S)")


def _quotable(sentence: str, *, note: bool = False) -> str:
    """The part of a passage sentence an answer quotes: without a title line glued before it, a footnote
    marker after it or, in a footnote, its number ("10 GNU is …"); still a verbatim piece of the page, so
    the citation's quote is found there."""
    sentence = without_leading_heading(sentence)
    sentence = _FOOTNOTE_MARKER_AT_END.sub("", _without_leading_listing(_without_leading_prompt(_without_leading_formula(sentence))))
    return _NOTE_NUMBER.sub("", sentence) if note else sentence


def _without_leading_prompt(sentence: str) -> str:
    """Drop an interpreter session glued before a sentence by a lost line break (">>> cheeses[0] 'Cheddar'
    Unlike strings, lists are mutable."): from the prompt to the first capitalised word of prose."""
    if not sentence.startswith(">>>"):
        return sentence
    words = sentence.split(" ")
    for index, word in enumerate(words[:40]):
        if index and re.fullmatch(r"[A-Z][a-z]+,?", word) and len(words) - index >= 3:
            return " ".join(words[index:])
    return sentence


_PROSE_WORD = re.compile(r"[A-Za-z]{3,}|[가-힣]{2,}")


def _without_leading_formula(sentence: str) -> str:
    """Drop a worked formula glued before a sentence by a lost line break ("110.0112 = 4 + 2 + 0.25 = 6.375
    Converting from decimal to binary is …", "2BD16 = 2 × 162 + 11 × 161 = 701 To convert …"): words up to
    the first capitalised one, holding an "=" and no word of prose."""
    words = sentence.split(" ")
    for index, word in enumerate(words[:40]):
        if index and re.match(r"[A-Z][a-z]", word):
            head = words[:index]
            if "=" in head and not any(_PROSE_WORD.fullmatch(re.sub(r"[^\w]", "", part)) for part in head):
                return " ".join(words[index:])
            return sentence
    return sentence


def _without_leading_listing(sentence: str) -> str:
    """Drop a code listing or a figure's numbers glued before a sentence by a lost line break ("6 ror ax, 1 ;
    ax = C123H, CF = 1 There are two additional rotate instructions …", "110 0000 0101 1010 0111 11102 6 0 5 A
    7 E16 A 4-bit number is called a nibble ."): the words before the first capitalised one that starts prose,
    when they are code, or numbers and capitals only ("In 1990 The …" and "x86 Assembly …" keep theirs)."""
    words = sentence.split(" ")
    for index in range(1, min(len(words) - 2, 60)):
        if not (re.fullmatch(r"[A-Z][a-z]*", words[index]) and all(re.search(r"[a-z]{2}", word) for word in words[index + 1 : index + 3])):
            continue
        head = words[:index]
        numbers = (
            len(head) >= 3  # a figure's row, not a year or a line number ("2003 Korean users …")
            and any(char.isdigit() for word in head for char in word)
            and not any(char.islower() for word in head for char in word)
        )
        if numbers or is_code(" ".join(head)):
            return " ".join(words[index:])
        return sentence
    return sentence


def without_leading_heading(sentence: str) -> str:
    """Drop a title line glued to its sentence by a single line break ("Chapter 1 Registers\\nA register is …")."""
    first, separator, rest = sentence.partition("\n")
    if separator and rest.strip() and is_heading(first):
        return rest.strip()
    glued = _GLUED_HEADING.match(sentence)  # the line break lost: "Signed magnitude The first method is …"
    if glued and not _VERB.search(glued.group("heading")):
        return sentence[glued.end("heading") :].strip()
    return sentence


@dataclass(frozen=True)
class _Candidate:
    score: float
    rank: int  # the passage's retrieval rank
    position: int  # the sentence's index in its passage
    sentence: str
    passage: Passage
    defining: bool
    terms: frozenset
    items: tuple[str, ...] = ()  # the list a lead-in introduces, quoted with it
    overlap: float = 0.0  # the share of the question's terms the sentence contains
    aside: bool = False  # a footnote's sentence, or front or back matter: quoted only when the body says nothing better, and alone
    section: frozenset = frozenset()  # the terms of the numbered heading the sentence stands under (across languages)


# "What is a 4-bit number called?", "그 4비트짜리 묶음은 뭐라고 불러?": the answer is the sentence that gives the name.
_ASKS_NAME = re.compile(
    r"\bwhat\s+(?:is|are|was|were)\b.*\bcalled\b|\bwhat\s+do\s+(?:you|we|they)\s+call\b|\bwhat(?:'s| is)\s+the\s+name\b"
    r"|(?:뭐|무엇|무어)(?:이)?라고\s*(?:불러|부르|불리|해|하나|하지|하는|합니)|이름은\s*(?:뭐|무엇)",
    re.IGNORECASE,
)
_GIVES_NAME = re.compile(
    r"\b(?:is|are)\s+(?:called|known\s+as|named|termed)\b|\bwe\s+call\b"
    r"|(?:이?라고?|으로)\s*(?:부른다|부르며|부르고|불린다|불리며|한다|하며|하고|칭한다)",
    re.IGNORECASE,
)
NAMING_BONUS = 0.5  # a sentence that gives a name, for a question that asks for one


def asks_for_a_name(question: str) -> bool:
    return bool(_ASKS_NAME.search(question))


def _passage_candidates(query: Counter, defined: tuple[str, ...], rank: int, passage: Passage, naming_asked: bool = False) -> list[_Candidate]:
    candidates = []
    spans = sentence_spans(passage.text)
    for position, (start, end) in enumerate(spans):
        sentence, aside = _quoted_sentence(passage, start, end)
        terms = frozenset(content_terms(sentence))
        if not terms or not is_readable_sentence(sentence, opens_passage=position == 0) or sentence.rstrip().endswith("?"):
            continue  # the text's own question ("Why do all C functions not use this convention, then?") is not an answer
        overlap = sum(1 for word in query if word in terms) / len(query)
        if overlap == 0:
            continue
        items = () if _LIST_ITEM.match(sentence) else _list_items(passage.text, spans, position)
        if any(is_code(item) for item in items):
            items = ()  # a code listing is not prose to quote
        if _LIST_LEAD_IN.search(sentence) and not items:
            continue  # a lead-in whose list is not in this passage would dangle
        defining = any(is_definition(sentence, term) for term in defined)
        score = (
            overlap
            + PASSAGE_RANK_WEIGHT / (1 + rank)
            + POSITION_WEIGHT / (1 + position)
            - LONG_SENTENCE_PENALTY * max(0, len(sentence) - LONG_SENTENCE_CHARS)
            + (DEFINITION_BONUS if defining else 0.0)
            + (NAMING_BONUS if naming_asked and _GIVES_NAME.search(sentence) else 0.0)
            - (ANAPHORIC_OPENING_PENALTY if _ANAPHORIC_OPENING.match(sentence) else 0.0)
            - (ASIDE_PENALTY if aside else 0.0)
        )
        candidates.append(_Candidate(score, rank, position, sentence, passage, defining, terms, items, overlap, aside))
    return candidates


def _is_truncated_copy(candidate: _Candidate, candidates: list[_Candidate]) -> bool:
    """A sentence that is part of a longer candidate: the overlap of two chunks cut it."""
    return any(candidate.sentence != other.sentence and candidate.sentence in other.sentence for other in candidates)


def _repeats(candidate: _Candidate, chosen: list[_Candidate]) -> bool:
    return any(
        candidate.sentence == other.sentence or len(candidate.terms & other.terms) / len(candidate.terms | other.terms) >= NEAR_DUPLICATE
        for other in chosen
    )


def _quoted(chosen: list[_Candidate]) -> set[str]:
    return {line for candidate in chosen for line in (candidate.sentence, *candidate.items)}


def _choose(candidates: list[_Candidate], max_sentences: int) -> list[_Candidate]:
    """The best candidates, best first, up to ``max_sentences`` lines, skipping repeats and sentences
    that share too little of the question; a lead-in takes over the items of its list."""
    candidates = sorted(candidates, key=lambda candidate: (-candidate.score, candidate.rank))
    chosen: list[_Candidate] = []
    for candidate in candidates:
        if chosen and candidate.overlap < SUPPORT_MIN_SHARE * chosen[0].overlap:
            continue
        if candidate.sentence in _quoted(chosen) or _repeats(candidate, chosen) or _is_truncated_copy(candidate, candidates):
            continue
        if chosen and (candidate.aside or chosen[0].aside):
            continue  # a footnote is an aside: never added to the body's answer, nor the body to a footnote's
        chosen = [other for other in chosen if other.sentence not in candidate.items] + [candidate]
        if sum(1 + len(other.items) for other in chosen) >= max_sentences:
            break  # a list counts line by line: after a list, the answer is long enough
    return chosen


def _prose_order(chosen: list[_Candidate]) -> list[_Candidate]:
    """The best sentence first (the definition, for "what is X"); then the others passage by passage,
    in the order the passages were chosen, each passage's sentences in the order of its text."""
    lead, *rest = chosen
    passages = list(dict.fromkeys(candidate.passage.n for candidate in chosen))
    rest = sorted(rest, key=lambda candidate: (passages.index(candidate.passage.n), candidate.position))
    # The sentence the lead goes on from comes before it ("External interrupts are raised from outside the CPU.",
    # then "(The mouse is an example of this type.)").
    before = next((other for other in rest if other.passage.n == lead.passage.n and other.position == lead.position - 1), None)
    if before is None or lead.defining:
        return [lead, *rest]
    return [before, lead, *(other for other in rest if other is not before)]


def _list_items(text: str, spans: list[tuple[int, int]], position: int) -> tuple[str, ...]:
    """The list that follows the sentence at ``position`` (its lead-in): items and their continuations."""
    items: list[str] = []
    for index in range(position + 1, min(len(spans), position + 1 + LIST_MAX_ITEMS)):
        start, end = spans[index]
        sentence = text[start:end]
        continues_item = bool(items) and "\n" not in text[spans[index - 1][1] : start]
        if not (_LIST_ITEM.match(sentence) or continues_item) or not _PROSE_WORD.search(sentence):
            break  # not an item, or an item with no word in it ("15) .")
        items.append(sentence)
    return tuple(items)


def _lines(candidate: _Candidate) -> list[str]:
    """The answer lines for one chosen sentence (a list lead-in brings its items), each cited. A line
    break inside a sentence (PDF text) becomes a space: the ground check reads the answer line by line.
    The document's own reference markers ("KorQuAD 1.0[1]") become superscripts, so only the tutor's
    citations read as [n] (the citation's quote stays verbatim, to be found on its page)."""
    return [f"{' '.join(superscript_references(line).split())} [{candidate.passage.n}]" for line in (candidate.sentence, *candidate.items)]


def _unsaid(candidates: list[_Candidate], said: frozenset[str]) -> list[_Candidate]:
    """``candidates``, those the previous answer already quoted ranked after every other."""
    if not said:
        return candidates
    said = frozenset(" ".join(line.split()) for line in said)
    return [
        replace(candidate, score=candidate.score - ALREADY_SAID_PENALTY)
        if " ".join(superscript_references(candidate.sentence).split()) in said
        else candidate
        for candidate in candidates
    ]


def extractive_answer(
    question: str,
    passages: list[Passage],
    *,
    max_sentences: int = 3,
    similarity=None,
    said: frozenset[str] = frozenset(),
    names: tuple[str, ...] = (),
    naming: tuple[str, ...] = (),
) -> Answer:
    """Answer with the passage sentences that best answer the question, each cited, read as prose:
    the defining sentence first for "what is X", then sentences in the order of their passage.
    ``said``: the lines of the previous answer, quoted again only when nothing else answers; ``names``: the
    question's terms in the passages' language, when they are in another (``baeum.glossary``); ``naming``:
    the terms of the item a follow-up points at, which its sentences must name when any does."""
    query = Counter(content_terms(question))
    if not query:
        return Answer(text="", refused=True)
    across = crosses_languages(question, passages)
    if across:
        chosen = _choose(_unsaid(_crosslingual_candidates(question, passages, similarity, names), said), max_sentences)
    else:
        defined, naming_asked = defined_terms(question), asks_for_a_name(question)
        candidates = [
            candidate for rank, passage in enumerate(passages) for candidate in _passage_candidates(query, defined, rank, passage, naming_asked)
        ]
        chosen = _choose(_unsaid(_naming(_about_a_side(candidates, compared_terms(question)), naming), said), max_sentences)
    if not chosen:
        return Answer(text="", refused=True)
    citations: dict[int, Citation] = {}
    parts = [crosslingual_note(question, passages)] if across else []
    for candidate in _prose_order(chosen):
        parts += _lines(candidate)
        citations[candidate.passage.n] = _citation(candidate.passage, candidate.sentence, citations.get(candidate.passage.n))
    return Answer(text="\n".join(parts), citations=sorted(citations.values(), key=lambda c: c.n), generator="extractive")


def _about_a_side(candidates: list[_Candidate], sides: tuple[str, ...]) -> list[_Candidate]:
    """For a comparison, the sentences that name one of its sides (by the side's first term), when any does:
    "How does SAR differ from SHR?" is not answered with "The calling conventions can differ from compiler to
    compiler"."""
    firsts = {terms[0] for terms in (content_terms(side) for side in sides) if terms}
    kept = [candidate for candidate in candidates if firsts & candidate.terms]
    return kept or candidates


def _naming(candidates: list[_Candidate], naming: tuple[str, ...]) -> list[_Candidate]:
    """Only the sentences that name the item a follow-up is about (every term of ``naming``: "semantic",
    "error"), when any does; a list lead-in among them comes without its items, which are the other ones."""
    if not naming:
        return candidates
    # A sentence right after one that names the item goes on about it ("External interrupts are raised from
    # outside the CPU. (The mouse is an example of this type.)").
    naming_at = {(candidate.passage.chunk_id, candidate.position) for candidate in candidates if set(naming) <= candidate.terms}
    named = [
        replace(candidate, items=())
        for candidate in candidates
        if {(candidate.passage.chunk_id, candidate.position), (candidate.passage.chunk_id, candidate.position - 1)} & naming_at
    ]
    return named or candidates


def _citation(passage: Passage, quote: str, earlier: Citation | None = None) -> Citation:
    """The citation of ``passage`` for ``quote``; with ``earlier`` (the same passage cited for another sentence
    of the answer), that citation, its pages widened to this quote's: two sentences of one passage, on p.13
    and p.14, are cited as p.13–14, quoting the one on p.13 (where the citation opens the page)."""
    first, last = quote_pages(passage.text, passage.page_starts, quote, passage.page_number)
    if earlier is not None:
        end = max(earlier.pageEnd or earlier.pageNumber, last)
        return replace(earlier, pageEnd=end) if earlier.pageNumber <= first else replace(earlier, pageNumber=first, quote=quote, pageEnd=end)
    return Citation(
        n=passage.n,
        refId=passage.ref_id,
        materialTitle=passage.title,
        chunkIndex=passage.chunk_index,
        pageNumber=first,
        quote=quote,
        pageEnd=last,
    )


# --- Ground check --------------------------------------------------------------------------


def best_quote(claim: str, passage: Passage) -> tuple[str, float]:
    """Return the passage sentence that best supports ``claim`` and its term overlap (0..1)."""
    claim_terms = set(content_terms(claim))
    best, best_overlap = "", 0.0
    for sentence in map(_quotable, _sentences(passage)):  # as an answer quotes it: no code or heading glued before
        terms = set(content_terms(sentence))
        if not claim_terms or not terms:
            continue
        overlap = len(claim_terms & terms) / len(claim_terms)
        if overlap > best_overlap:
            best, best_overlap = sentence, overlap
    return best, best_overlap


_LEADING_CITATIONS = re.compile(r"^((?:\s*\[\d{1,2}\])+)[.,;:]?\s*")


def _claims(text: str) -> list[str]:
    """Split an answer into claims, keeping each ``[n]`` with the sentence it follows
    ("X. [1] Y [2]." → "X. [1]", "Y [2].")."""
    claims: list[str] = []
    for line in text.split("\n"):
        if line.startswith(NOTE_PREFIX):
            continue  # a note about the answer (its language), not a claim
        for start, end in sentence_spans(line):
            sentence = line[start:end].strip()
            match = _LEADING_CITATIONS.match(sentence)
            if match and claims:
                claims[-1] += " " + match.group(1).strip()
                sentence = sentence[match.end() :].strip()
            if sentence:
                claims.append(sentence)
    return claims


# --- Contradictions: what shared words cannot catch ----------------------------------------------

_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)*(?!\w)")
# Number words above one ("one" is as often a pronoun as a number); baeum.grading adds zero and one.
NUMBER_WORDS = {"two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8", "nine": "9", "ten": "10",
                "eleven": "11", "twelve": "12", "sixteen": "16", "thirty-two": "32", "sixty-four": "64"}  # fmt: skip
_NEGATION = re.compile(r"\b(?:not|no|never|none|neither|nor|without|cannot)\b|n't\b|없|않|못하|못한|아니", re.IGNORECASE)
# Words whose swap turns a sentence into its opposite (English stems, Korean morphemes or strings).
_OPPOSITES_EN = [("increas", "decreas"), ("first-in", "last-in"), ("most significant", "least significant"), ("upward", "downward"),
                 ("higher", "lower"), ("minimum", "maximum"), ("smallest", "largest"), ("before", "after"), ("inside", "outside")]  # fmt: skip
_OPPOSITES_KO = [({"늘어나", "늘리", "늘"}, {"줄이", "줄어들", "줄"}), ({"증가"}, {"감소"}), ({"최대"}, {"최소"}), ({"높"}, {"낮"})]
_OPPOSITE_STRINGS_KO = [("선입", "후입"), ("최상위", "최하위"), ("이전", "이후")]


def numbers_in(text: str) -> set[str]:
    """The numbers a text states: digits (1,577 = 1577; 4-bit → 4) and English number words above one."""
    found = {match.replace(",", "") for match in _NUMBER.findall(text)}
    found |= {NUMBER_WORDS[word] for word in re.findall(r"[a-z]+(?:-[a-z]+)?", text.casefold()) if word in NUMBER_WORDS}
    return found


def contradicts(claim: str, passages: list[Passage]) -> str:
    """Why ``claim`` says something its cited passages do not, or "": a number they never state, a
    negation their best-matching sentence does not have (or lacks one it has), or an opposite word
    ("decreasing" where the text says "increasing", "선입" for "후입")."""
    cited = " ".join(passage.text for passage in passages)
    missing = numbers_in(claim) - numbers_in(cited)
    if missing:
        return f"number {sorted(missing)[0]} is not in the source"
    sentence = max((best_quote(claim, passage) for passage in passages), key=lambda item: item[1])[0] or cited
    if len(_NEGATION.findall(claim)) % 2 != len(_NEGATION.findall(sentence)) % 2:
        return "negation differs from the source"
    lowered_claim, lowered_sentence = claim.casefold(), sentence.casefold()
    for first, second in _OPPOSITES_EN + [(second, first) for first, second in _OPPOSITES_EN]:
        if first in lowered_claim and second in lowered_sentence and first not in lowered_sentence:
            return f"“{first}” where the source says “{second}”"
    for first, second in _OPPOSITE_STRINGS_KO + [(second, first) for first, second in _OPPOSITE_STRINGS_KO]:
        if first in claim and second in sentence and first not in sentence:
            return f"“{first}” where the source says “{second}”"
    claim_terms, sentence_terms = set(content_terms(claim)), set(content_terms(sentence))
    for first, second in _OPPOSITES_KO + [(second, first) for first, second in _OPPOSITES_KO]:
        if claim_terms & first and sentence_terms & second and not sentence_terms & first:
            return f"“{sorted(claim_terms & first)[0]}” where the source says “{sorted(sentence_terms & second)[0]}”"
    return ""


# Where a claim ends in an answer still being written: a full stop (with the citations after it) or a
# line break, then the start of the next sentence.
_CLAIM_BOUNDARY = re.compile(r"(?:[.!?。](?:\s*\[\d{1,2}\])*\s+|\n+\s*)(?=[^\s\[])")


def complete_claims_end(text: str, start: int = 0) -> int:
    """How far ``text`` — a model's answer as it streams — holds whole claims from ``start``: up to the
    start of the sentence still being written (``start`` when none is complete)."""
    end = start
    for match in _CLAIM_BOUNDARY.finditer(text, start):
        end = match.end()
    return end


def claims_problem(text: str, passages: list[Passage]) -> str:
    """The first reason the claims in ``text`` do not stand (see ``ground_check``), or ""."""
    _, _, problems = ground_check(text, passages)
    return problems[0] if problems else ""


def _quoted_verbatim(claim: str, passages: list[Passage]) -> bool:
    """Whether ``claim`` is a passage's own sentence, word for word (spacing aside): a quote cannot
    contradict its source, though its negation may differ from the sentence ``best_quote`` picks
    ("Now the parameter is at ESP + 8 not ESP + 4." beside "ESP + 8 Parameter")."""
    words = " ".join(superscript_references(claim).split())
    return len(words) >= MIN_SENTENCE_CHARS and any(words in " ".join(superscript_references(passage.text).split()) for passage in passages)


def in_reading_order(answer: Answer) -> Answer:
    """``answer`` with its citations numbered 1, 2, 3 in the order the text first cites them (an extract
    cites passages by their retrieval rank: "[3] … [1]" read as skipped and out of order)."""
    order: dict[int, int] = {}
    for match in CITATION.finditer(answer.text):
        order.setdefault(int(match.group(1)), len(order) + 1)
    if all(old == new for old, new in order.items()):
        return answer
    answer.text = CITATION.sub(lambda match: f"[{order.get(int(match.group(1)), int(match.group(1)))}]", answer.text)
    answer.citations = sorted((replace(citation, n=order.get(citation.n, citation.n)) for citation in answer.citations), key=lambda c: c.n)
    return answer


def ground_check(answer_text: str, passages: list[Passage], *, min_support: float = 0.5) -> tuple[bool, list[Citation], list[str]]:
    """Check that every claim cites a passage of this turn that supports it.

    Returns ``(grounded, citations, problems)``. A sentence with fewer than three content terms
    (a connective such as "In short:") needs no citation; every other sentence needs at least one
    ``[n]`` that exists, and the cited passages together must contain at least ``min_support`` of
    its terms. The quote of each citation is the cited passage's best-supporting sentence, verbatim.
    """
    by_number = {passage.n: passage for passage in passages}
    problems: list[str] = []
    citations: dict[int, Citation] = {}
    text = answer_text.strip()
    if not text:
        return False, [], ["empty answer"]
    for sentence in _claims(text):
        numbers = [int(number) for number in CITATION.findall(sentence)]
        claim = CITATION.sub("", sentence).strip()
        claim_terms = set(content_terms(claim))
        if not numbers:
            if len(claim_terms) >= 3:
                problems.append(f"uncited claim: {claim[:80]}")
            continue
        unknown = [number for number in numbers if number not in by_number]
        if unknown:
            problems.append(f"cites passage(s) {unknown} that were not retrieved")
            continue
        cited_terms = set().union(*(set(content_terms(by_number[number].text)) for number in numbers))
        if claim_terms and len(claim_terms & cited_terms) / len(claim_terms) < min_support:
            problems.append(f"not supported by [{', '.join(map(str, numbers))}]: {claim[:80]}")
            continue
        cited = [by_number[number] for number in numbers]
        contradiction = "" if _quoted_verbatim(claim, cited) else contradicts(claim, cited)
        if contradiction:
            problems.append(f"contradicts [{', '.join(map(str, numbers))}] ({contradiction}): {claim[:80]}")
            continue
        for number in numbers:
            quote, _ = best_quote(claim, by_number[number])
            if quote:
                citations[number] = _citation(by_number[number], quote, citations.get(number))
    return not problems and bool(citations), sorted(citations.values(), key=lambda c: c.n), problems


# --- Context budgets -----------------------------------------------------------------------

# Tokens of the tutor's prompt each part may take (estimate_tokens): the passages and the recent turns
# get most, the summary and the learner's stated facts a little; together with the system prompt they
# stay well under the smallest context window the providers offer.
BUDGETS = {"memory": 500, "entities": 200, "recent": 1500, "passages": 1500}
PASSAGE_HEADER_TOKENS = 12  # the "[n] (title, p.N)" line that introduces a passage in the prompt


def fit_passages(passages: list[Passage], budget: int = BUDGETS["passages"]) -> list[Passage]:
    """Keep whole passages, best first, while they fit the token budget (never cut one in half)."""
    kept, used = [], 0
    for passage in passages:
        cost = estimate_tokens(passage.text) + PASSAGE_HEADER_TOKENS
        if kept and used + cost > budget:
            continue
        kept.append(passage)
        used += cost
    return kept


def fit_text(lines: list[str], budget: int) -> list[str]:
    """Keep the first lines (most recent/important first) that fit the budget, whole."""
    kept, used = [], 0
    for line in lines:
        cost = estimate_tokens(line)
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    return kept
