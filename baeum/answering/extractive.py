"""The offline answer: the passage sentences that best answer the question, each cited, read as prose.

The defining sentence comes first for "what is X", then sentences in the order of their passage; a list
lead-in brings its items; across languages, sentences are chosen by meaning (the multilingual embedder's
cosine) and the words both languages share.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace

from baeum import rules
from baeum.answering.answers import Answer, Citation, Passage, citation_for
from baeum.answering.crosslingual import (
    CODE_WEIGHT,
    CROSSLINGUAL_PASSAGES,
    MEANING_WEIGHT,
    crosses_languages,
    crosslingual_note,
    identifiers,
    in_other_language,
    shared_script_terms,
)
from baeum.answering.forms import ANAPHORIC_OPENING, GIVES_NAME, asks_for_a_name, compared_terms, defined_term, defined_terms, is_definition
from baeum.answering.groundcheck import claims_problem
from baeum.answering.quoting import quoted_sentence
from baeum.answering.sentences import (
    ENDS_LIKE_A_SENTENCE,
    LIST_LEAD_IN,
    PROSE_WORD,
    is_code,
    is_readable_sentence,
    section_headings,
)
from baeum.answering.tablerows import TABLE_ROW
from baeum.answering.weights import load_weights, observe
from baeum.extraction.tables import superscript_references
from baeum.language.analysis import content_terms, title_terms
from baeum.language.text import LIST_ITEM, is_hangul_heavy, sentence_spans


def _naming_first(passages: list[Passage], terms: list[str]) -> list[Passage]:
    """``passages`` with those that contain more of ``terms`` first, in retrieval order otherwise: a Korean
    question naming "htonl" is answered from the page that uses it, not from a page that says "function" more."""
    if not terms:
        return passages
    return sorted(passages, key=lambda passage: -len(set(terms) & set(content_terms(passage.text))))


def _crosslingual_candidates(question: str, passages: list[Passage], similarity=None, names: tuple[str, ...] = ()) -> list[Candidate]:
    """Readable sentences of the best passages, ranked by meaning when ``similarity(question, sentences)``
    is given (the multilingual embedder's cosines), and by the question's shared-script terms and
    ``names`` (what the learner's glosses call its terms in the passages' language: "stack pointer")."""
    written = shared_script_terms(question)
    # A code or a number the question names ("00000004", "MOVSB", "-k") says more than a word a gloss adds, and
    # an English question's codes are written alike in a Korean book ("-k, --keep 입력 파일을 삭제하지 않습니다.").
    coded = [terms for terms in map(content_terms, identifiers(question)) if terms]
    codes = {term for terms in coded for term in terms}
    shared = set(written) | {term for name in names for term in content_terms(name)} | {terms[0] for terms in coded}
    weight = {term: CODE_WEIGHT if term in codes or any(char.isdigit() for char in term) else 1.0 for term in shared}
    named = written if is_hangul_heavy(question) else []  # Latin names in a Korean question ("htonl")
    # "스택이란 무엇인가요?" over an English book: the sentence that defines what the learner's glosses call it
    # ("A stack is a Last-In First-Out (LIFO) list.") comes first, as in one language.
    # A term written alike in both languages ("CRC가 뭐야?") is looked for as the question writes it too.
    asked = defined_term(question)
    defined = (*names, *([asked] if asked.isascii() else [])) if asked else ()
    naming_asked = asks_for_a_name(question)  # "그 4비트짜리 묶음은 뭐라고 불러?": "A 4-bit number is called a nibble."
    question = " ".join([question, *names])
    candidates = []
    for rank, passage in enumerate(_naming_first(passages, named)[:CROSSLINGUAL_PASSAGES]):
        spans = sentence_spans(passage.text)
        headings = section_headings(passage.text)
        titles = _sections(passage)
        for position, (start, end) in enumerate(spans):
            sentence, aside = quoted_sentence(passage, start, end)
            terms = frozenset(content_terms(sentence))
            if not terms or not is_readable_sentence(sentence, opens_passage=position == 0) or LIST_LEAD_IN.search(sentence):
                continue
            if sentence.rstrip().endswith("?") or not ENDS_LIKE_A_SENTENCE.search(sentence):
                continue  # the text's own question is not an answer, nor a table row or a line cut off by the chunk's end
            under = next((heading for at, heading in reversed(headings) if at < start), frozenset())
            # A sentence is about the section it stands in: "The exclusive OR of 2 bits is 0 …" under "3.2.3 The
            # XOR operation" answers "XOR 연산의 진리표", the OR sentence before it does not.
            overlap = sum(weight[term] for term in shared & (terms | under)) / sum(weight.values()) if shared else 0.0
            defining = any(is_definition(sentence, name) for name in defined)
            # Across languages no sentence is penalised for its length or a pointing opening (not measured there).
            features = sentence_features(
                overlap=overlap, rank=rank, position=position, defines=defining, gives_name=naming_asked and bool(GIVES_NAME.search(sentence)),
                aside=aside,
            )  # fmt: skip
            title = next((title for at, title, _ in reversed(titles) if at <= start), "")
            candidates.append(
                Candidate(
                    sentence_score(features), rank, position, sentence, passage, defining, terms, (), 1.0, aside, under, features, title
                )
            )
    if similarity is not None and candidates:
        cosines = similarity(question, [candidate.sentence for candidate in candidates])
        candidates = [
            replace(
                candidate,
                score=sentence_score({**candidate.features, "meaning": cosine}),
                features={**candidate.features, "meaning": cosine},
                overlap=max(cosine, 1e-6),  # _choose keeps those near the best
            )
            for candidate, cosine in zip(candidates, cosines, strict=True)
        ]
    naming = {candidate.passage.n for candidate in candidates if named and set(named) <= candidate.terms | candidate.section}
    if naming:
        # A sentence uses the name the question asks about ("the htonl () function converts …"), or stands
        # under a heading that does: the answer stays on its pages, not on sentences near in meaning elsewhere
        # ("First, the inline function is faster.").
        candidates = [
            candidate for candidate in candidates if candidate.passage.n in naming or set(named) & (candidate.terms | candidate.section)
        ]
    return candidates


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


# A question's term in the title of the section a sentence stands under, not in the sentence itself, counts this
# share of a term the sentence holds: "d$ 라고 치면 그 줄 끝까지 지워집니다." under "Lesson 2.2: 다른 삭제 명령" says
# what "삭제 명령에는 어떤 것들이 있어?" asks, in words of its own.
SECTION_WEIGHT = 0.5


LONG_SENTENCE_CHARS = 300


LONG_SENTENCE_PENALTY = 0.0005  # per character beyond LONG_SENTENCE_CHARS


NAMING_BONUS = 0.5  # a sentence that gives a name, for a question that asks for one


# The named features a candidate sentence is scored on and their hand-set weights, for both candidate paths
# (in one language and across languages), each constant's comment saying why. They stand when no fitted
# weights ship (``baeum/answering/sentence_weights.json``, rebuilt by ``manage.py fit_weights``).
HAND_WEIGHTS = {
    "overlap": 1.0,  # the share of the question's terms in the sentence (across languages: shared-script terms, glosses, heading)
    "section_overlap": SECTION_WEIGHT,  # the share of the question's terms only the title of the sentence's section holds
    "passage_rank": PASSAGE_RANK_WEIGHT,  # the passage's retrieval rank, counted as 1 / (1 + rank)
    "position": POSITION_WEIGHT,  # the sentence's index in its passage, counted as 1 / (1 + index)
    "long_characters": -LONG_SENTENCE_PENALTY,  # characters beyond LONG_SENTENCE_CHARS
    "defines": DEFINITION_BONUS,  # defines what "what is X" asks for
    "gives_name": NAMING_BONUS,  # gives a name, for a question that asks for one
    "anaphoric_opening": -ANAPHORIC_OPENING_PENALTY,  # opens with "It"/"This"/"그": leans on the sentence before
    "aside": -ASIDE_PENALTY,  # a footnote's sentence, or front or back matter
    "meaning": MEANING_WEIGHT,  # the multilingual embedder's cosine to the question (across languages)
}

# The weights the score uses: fitted on the lock box's tuning part when the weights file ships.
FEATURE_WEIGHTS = load_weights(hand=HAND_WEIGHTS) or HAND_WEIGHTS


def sentence_features(
    *,
    overlap: float,
    rank: int,
    position: int,
    section_overlap: float = 0.0,
    long_characters: int = 0,
    defines: bool = False,
    gives_name: bool = False,
    anaphoric_opening: bool = False,
    aside: bool = False,
) -> dict[str, float]:
    """A candidate sentence's named features (see ``FEATURE_WEIGHTS``)."""
    return {
        "overlap": overlap,
        "section_overlap": section_overlap,
        "passage_rank": rank,
        "position": position,
        "long_characters": float(long_characters),
        "defines": float(defines),
        "gives_name": float(gives_name),
        "anaphoric_opening": float(anaphoric_opening),
        "aside": float(aside),
    }


def sentence_score(features: dict[str, float]) -> float:
    """The weighted sum of a candidate's features: the one score both candidate paths rank by. Rank and
    position count as 1 / (1 + n). Written out term by term, in one order, so that a score is the same
    number, to the last bit, however a path came by its features (a tie between two sentences stays a tie)."""
    weight = FEATURE_WEIGHTS
    return (
        weight["overlap"] * features["overlap"]
        + weight["section_overlap"] * features.get("section_overlap", 0.0)
        + weight["passage_rank"] / (1 + features["passage_rank"])
        + weight["position"] / (1 + features["position"])
        + weight["long_characters"] * features["long_characters"]
        + weight["defines"] * features["defines"]
        + weight["gives_name"] * features["gives_name"]
        + weight["anaphoric_opening"] * features["anaphoric_opening"]
        + weight["aside"] * features["aside"]
        + weight["meaning"] * features.get("meaning", 0.0)
    )


@dataclass(frozen=True)
class Candidate:
    score: float
    rank: int  # the passage's retrieval rank
    position: int  # the sentence's index in its passage
    sentence: str
    passage: Passage
    defining: bool
    terms: frozenset
    items: tuple[str, ...] = ()  # the list a lead-in introduces, quoted with it
    overlap: float = 0.0  # the share of the question's terms the sentence (or its section's title) contains
    aside: bool = False  # a footnote's sentence, or front or back matter: quoted only when the body says nothing better, and alone
    section: frozenset = frozenset()  # the terms of the heading the sentence stands under
    features: dict = field(default_factory=dict)  # what ``score`` is the weighted sum of (``sentence_features``)
    heading: str = ""  # the title of the section the sentence stands under


def _sections(passage: Passage) -> list[tuple[int, str, frozenset]]:
    """Where each section of ``passage`` begins, with its title and its title's terms (its number aside): the
    section in force where the passage begins at 0, then every heading inside it."""
    opening = [(0, passage.section_title)] if passage.section_title else []
    titles = opening + [(start, " ".join(passage.text[start:end].split())) for start, end, *_ in passage.heading_spans]
    return [(start, title, frozenset(title_terms(title))) for start, title in titles]


# An entry of a reference: a function, a method, an option ("emitter.removeListener(eventName, listener)",
# "--trace-warnings", "fs.ReadStream"). Its sentences leave it unnamed ("Removes the specified listener …").
_ENTRY = re.compile(r"^\S*[\w\]]\(.*\)$|^-{1,2}\w|^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$|^[a-z]+[A-Z]\w*$")
_ENTRY_NAME = re.compile(r"[A-Za-z_][\w-]*(?=\(|$)|(?<=-)[\w-]+")


def leaves_its_entry_unnamed(heading: str, sentence: str) -> bool:
    """Whether ``sentence`` stands under the heading of a reference's entry and does not name it: "Removes all
    listeners, or those of the specified eventName." under "emitter.removeAllListeners([eventName])"."""
    if not heading or len(heading) > ENTRY_HEADING_MAX_CHARS or not _ENTRY.match(heading):
        return False
    name = _ENTRY_NAME.search(heading.split("(", 1)[0].rsplit(".", 1)[-1] + ("(" if "(" in heading else ""))
    return bool(name) and name.group(0).casefold() not in sentence.casefold()


ENTRY_HEADING_MAX_CHARS = 80
(ENTRY_HEADING,) = rules.register(
    rules.Rule(
        "answer:entry-heading",
        lambda pair: leaves_its_entry_unnamed(*pair),
        ("emitter.removeAllListeners([eventName])", "Removes all listeners, or those of the specified eventName."),
        "a sentence of a reference's entry is quoted with the entry's heading, which names what it describes",
    ),
)


def _passage_candidates(
    query: Counter, defined: tuple[str, ...], rank: int, passage: Passage, naming_asked: bool = False
) -> list[Candidate]:
    candidates = []
    spans = sentence_spans(passage.text)
    sections = _sections(passage)
    for position, (start, end) in enumerate(spans):
        sentence, aside = quoted_sentence(passage, start, end)
        terms = frozenset(content_terms(sentence))
        if not terms or not is_readable_sentence(sentence, opens_passage=position == 0) or sentence.rstrip().endswith("?"):
            continue  # the text's own question ("Why do all C functions not use this convention, then?") is not an answer
        heading, under = next(((title, terms) for at, title, terms in reversed(sections) if at <= start), ("", frozenset()))
        overlap = sum(1 for word in query if word in terms) / len(query)
        section_overlap = sum(1 for word in query if word in under and word not in terms) / len(query)
        if overlap == 0 and section_overlap == 0:
            continue
        items = () if LIST_ITEM.match(sentence) else _list_items(passage.text, spans, position)
        if any(is_code(item) for item in items):
            items = ()  # a code listing is not prose to quote
        if LIST_LEAD_IN.search(sentence) and not items:
            continue  # a lead-in whose list is not in this passage would dangle
        defining = any(is_definition(sentence, term) for term in defined)
        features = sentence_features(
            overlap=overlap, rank=rank, position=position, section_overlap=section_overlap,
            long_characters=max(0, len(sentence) - LONG_SENTENCE_CHARS), defines=defining,
            gives_name=naming_asked and bool(GIVES_NAME.search(sentence)), anaphoric_opening=bool(ANAPHORIC_OPENING.match(sentence)),
            aside=aside,
        )  # fmt: skip
        candidates.append(
            Candidate(
                sentence_score(features),
                rank,
                position,
                sentence,
                passage,
                defining,
                terms,
                items,
                overlap + section_overlap,
                aside,
                under,
                features,
                heading,
            )  # fmt: skip
        )
    return candidates


def _is_truncated_copy(candidate: Candidate, candidates: list[Candidate]) -> bool:
    """A sentence that is part of a longer candidate: the overlap of two chunks cut it."""
    return any(candidate.sentence != other.sentence and candidate.sentence in other.sentence for other in candidates)


def _repeats(candidate: Candidate, chosen: list[Candidate]) -> bool:
    return any(
        candidate.sentence == other.sentence or len(candidate.terms & other.terms) / len(candidate.terms | other.terms) >= NEAR_DUPLICATE
        for other in chosen
    )


def _quoted(chosen: list[Candidate]) -> set[str]:
    return {line for candidate in chosen for line in (candidate.sentence, *candidate.items)}


def _choose(candidates: list[Candidate], max_sentences: int) -> list[Candidate]:
    """The best candidates, best first, up to ``max_sentences`` lines, skipping repeats and sentences
    that share too little of the question; a lead-in takes over the items of its list."""
    candidates = sorted(candidates, key=lambda candidate: (-candidate.score, candidate.rank))
    chosen: list[Candidate] = []
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


def _prose_order(chosen: list[Candidate]) -> list[Candidate]:
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
        if not (LIST_ITEM.match(sentence) or continues_item) or not PROSE_WORD.search(sentence):
            break  # not an item, or an item with no word in it ("15) .")
        items.append(sentence)
    return tuple(items)


def _lines(candidate: Candidate) -> list[str]:
    """The answer lines for one chosen sentence (a list lead-in brings its items), each cited. A line
    break inside a sentence (PDF text) becomes a space: the ground check reads the answer line by line.
    The document's own reference markers ("KorQuAD 1.0[1]") become superscripts, so only the tutor's
    citations read as [n] (the citation's quote stays verbatim, to be found on its page)."""
    return [f"{' '.join(superscript_references(line).split())} [{candidate.passage.n}]" for line in (candidate.sentence, *candidate.items)]


def _unsaid(candidates: list[Candidate], said: frozenset[str]) -> list[Candidate]:
    """``candidates``, those the previous answer already quoted ranked after every other."""
    if not said:
        return candidates
    said = frozenset(" ".join(line.split()) for line in said)

    def was_said(sentence: str) -> bool:  # a line may show the sentence under its entry's heading ("name: sentence")
        return sentence in said or any(line.endswith(f": {sentence}") for line in said)

    return [
        replace(candidate, score=candidate.score - ALREADY_SAID_PENALTY)
        if was_said(" ".join(superscript_references(candidate.sentence).split()))
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
    question's terms in the passages' language, when they are in another (``baeum.language.glossary``); ``naming``:
    the terms of the item a follow-up points at, which its sentences must name when any does."""
    query = Counter(content_terms(question))
    if not query:
        return Answer(text="", refused=True)
    across = crosses_languages(question, passages)
    if across:
        candidates = _crosslingual_candidates(question, passages, similarity, names)
        observe(question, candidates)
        chosen = _choose(_unsaid(candidates, said), max_sentences)
    else:
        row = rules.resolved(TABLE_ROW, question, passages)
        # "How much total current assets …?": the row of the balance sheet that names them, under the table's
        # column headings unless the check cannot read those against the table ("2016 2017" alone).
        for lines in (row.shown, row.shown[-1:]) if row is not None else ():
            text = "\n".join(f"{' '.join(line.split())} [{row.passage.n}]" for line in lines)
            if not claims_problem(text, [row.passage]):
                return Answer(text=text, citations=[citation_for(row.passage, row.line)], generator="extractive")
        defined, naming_asked = defined_terms(question), asks_for_a_name(question)
        candidates = [
            candidate
            for rank, passage in enumerate(passages)
            for candidate in _passage_candidates(query, defined, rank, passage, naming_asked)
        ]
        candidates = _naming(_about_a_side(candidates, compared_terms(question)), naming)
        observe(question, candidates)
        chosen = _choose(_unsaid(candidates, said), max_sentences)
    if not chosen:
        return Answer(text="", refused=True)
    citations: dict[int, Citation] = {}
    # Said whenever a quoted sentence is in the other language, also where most passages were in the question's
    # (an English question over a Korean manual and an English page quoted the manual without a word).
    quoted_across = across or any(in_other_language(question, candidate.passage) for candidate in chosen)
    parts = [crosslingual_note(question, passages)] if quoted_across else []
    entry = ""  # the reference entry whose heading the last line showed
    for candidate in _prose_order(chosen):
        lines = _lines(candidate)
        if candidate.heading != entry and rules.applies(ENTRY_HEADING, (candidate.heading, candidate.sentence)):
            lines[0] = f"{candidate.heading}: {lines[0]}"  # "emitter.removeAllListeners([eventName]): Removes all listeners, …"
            entry = candidate.heading
        parts += lines
        citations[candidate.passage.n] = citation_for(candidate.passage, candidate.sentence, citations.get(candidate.passage.n))
    return Answer(text="\n".join(parts), citations=sorted(citations.values(), key=lambda c: c.n), generator="extractive")


def _about_a_side(candidates: list[Candidate], sides: tuple[str, ...]) -> list[Candidate]:
    """For a comparison, the sentences that name one of its sides (by the side's first term), when any does:
    "How does SAR differ from SHR?" is not answered with "The calling conventions can differ from compiler to
    compiler"."""
    firsts = {terms[0] for terms in (content_terms(side) for side in sides) if terms}
    kept = [candidate for candidate in candidates if firsts & candidate.terms]
    return kept or candidates


def _naming(candidates: list[Candidate], naming: tuple[str, ...]) -> list[Candidate]:
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
