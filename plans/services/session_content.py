"""A study session's content: its text by page, key points and practice questions, each cited to the
page of its sentence -- built from the session's chunk ranges (offline, or with the LLM's questions
checked against their sentence) and cached for a day. Also the terms a range defines (offline objectives).

Not a selector: it analyses every sentence, may call the LLM and writes the cache.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field

from baeum import rules
from baeum.answering.quoting import without_leading_heading
from baeum.answering.sentences import is_readable_sentence
from baeum.extraction import pages
from baeum.extraction.lines import looks_like_code
from baeum.language import analysis, lexicon
from baeum.language.analysis import content_terms
from baeum.language.text import LIST_ITEM, is_hangul_heavy, sentence_spans
from baeum.study import keypoints, quiz, standing
from baeum.study import phrasing as study
from baeum.study.definitions import MANUAL_NAME_LINE, find_definitions
from core.learner_cache import learner_key
from knowledge import selectors as knowledge

from ..models import Plan, StudySession
from ..selectors import ranges_scope, removed_materials, session_is_removed


def characteristic_terms(*, user, plan: Plan, ranges: list[dict], limit: int = 5) -> list[str]:
    """Return the terms the ranges define ("A stack is …", "… is called a nibble"), in order; where they
    define none and have no section headings either, the terms most characteristic of them against the
    whole plan (TF-IDF), as they appear in the text. Used for offline objectives: nothing is invented."""
    chunks = [chunk for chunk in _range_chunks(user, ranges) if not chunk.matter]
    text = "\n".join(prose_of(chunk) for chunk in chunks)
    defined = list(dict.fromkeys(definition.term for definition in find_definitions(text)))
    if defined or any(chunk.section_level >= 2 and chunk.section_title for chunk in chunks):
        return defined[:limit]  # with section headings to name, a frequent word is not an objective
    # A noun or a name, as a question's term is: "마운트한 설명하기", "영역에 설명하기" had been objectives.
    written = (_written_form(term, text) for term, _ in _weighted_terms(user, plan, text, attached=False))
    return [term for term in written if _names_a_thing(term)][:limit]


def prose_of(chunk, offset: int = 0) -> str:
    """The chunk's text from ``offset``, its code blanked out (same length, so offsets hold): a listing's names and
    comments ("let mutabook = …", "// 에러!") are no objective nor glossary entry ("`mutabook` 설명하기" in walkthrough
    21's Rust by Example)."""
    content = chunk.content
    for start, end in chunk.code_spans:
        content = content[:start] + " " * (end - start) + content[end:]
    return content[offset:]


def _written_form(term: str, text: str) -> str:
    """A stemmed English term as the text writes it most often ("delet" → "delete", "modifi" → "modified"): an
    objective reads "Explain delete", never "Explain delet". Korean terms are morphemes as written already."""
    if not term.isascii():
        return term
    written = Counter(match.group(0).casefold() for match in re.finditer(rf"\b{re.escape(term)}\w*", text, re.IGNORECASE))
    return written.most_common(1)[0][0] if written else term


def _range_chunks(user, ranges: list[dict]):
    """The chunks of the ranges, range by range in order (``MaterialNotFound`` when a material is gone)."""
    if not ranges:
        return []
    return knowledge.retrieve_chunks(user=user, scope=ranges_scope(ranges))


def _source(chunk, start: int = 0, end: int | None = None) -> dict:
    """Where a part, key point or question comes from -- ``chunk.content[start:end]`` -- with the page
    that text is on (and where it ends): what the page viewer needs to open and highlight it."""
    first, last = chunk.pages_between(start, len(chunk.content) if end is None else end)
    return {"refId": chunk.material.ref_id, "chunkIndex": chunk.chunk_index, "pageNumber": first, "pageEnd": last}


def _page_parts(chunk, offset: int) -> list[dict]:
    """Cut the chunk's text from ``offset`` at its page breaks: each part is shown under its own page, with
    ``lineKinds``, what each of its lines is (``baeum.extraction.pages.line_kinds``'s kinds: a heading, code, a
    list item, text), read from the chunk's own heading and code spans."""
    breaks = [start for start, _ in chunk.page_starts if start > offset] + [len(chunk.content)]
    parts, start = [], offset
    for end in breaks:
        raw = chunk.content[start:end]
        text = raw.strip()
        if text:
            first = start + raw.find(text)
            parts.append({**_source(chunk, start, end), "text": text, "lineKinds": _line_kinds(chunk, first, text)})
        start = end
    return parts


def _line_kinds(chunk, start: int, text: str) -> list[str]:
    kinds, at = [], start
    for line in text.split("\n"):
        if any(span[0] <= at < span[1] for span in chunk.heading_spans):
            kinds.append(pages.HEADING)
        elif line.strip() and any(first <= at < last for first, last in chunk.code_spans):
            kinds.append(pages.CODE)
        else:
            kinds.append(pages.ITEM if LIST_ITEM.match(line) else pages.TEXT)
        at += len(line) + 1
    return kinds


def _laid_out(user, parts: list[dict]) -> None:
    """Lay out the listings of ``parts`` as their page does (``pages.laid_out``: indentation and blank lines; a
    chunk stores its lines with spaces collapsed): a session's listing had read flat, in a proportional font, on the
    phone and the laptop."""
    lines_of: dict[tuple[str, int, int], list[str]] = {}
    for part in parts:
        if pages.CODE not in part["lineKinds"]:
            continue
        where = (part["refId"], part["pageNumber"], part["pageEnd"])
        if where not in lines_of:
            lines_of[where] = knowledge.page_lines(user=user, ref_id=where[0], first=where[1], last=where[2])
        text, kinds = [], []
        lines = part["text"].split("\n")
        index = 0
        while index < len(lines):
            if part["lineKinds"][index] != pages.CODE:
                text.append(lines[index])
                kinds.append(part["lineKinds"][index])
                index += 1
                continue
            end = index
            while end < len(lines) and part["lineKinds"][end] == pages.CODE:
                end += 1
            listing = pages.laid_out(lines[index:end], lines_of[where])
            text += listing
            kinds += [pages.CODE] * len(listing)
            index = end
        part["text"], part["lineKinds"] = "\n".join(text), kinds


# A list item's own marker ("• insert a character"): the key points are a list already.
_BULLET = re.compile(r"^[•·◦▪‣●○■□]\s+")
# A sentence that goes on from the one before it: a connective or a pointing word first.
_GOES_ON = re.compile(
    # Drift: "its" and "their" here, not in lexicon.POINTING_SUBJECT_EN.
    rf"^(?:{lexicon.alternation(lexicon.CONNECTIVES_EN)}|this|these|that|those|it|its|they|their|such)\b"
    rf"|^(?:{lexicon.alternation(lexicon.CONNECTIVES_KO)}|이것|이는|이를|이러한|이런|그것|그는|그러한|그런|위의?|이|그)(?:\s|,)",
    re.IGNORECASE,
)
# Text that reads as a sentence but is not one a learner should be quizzed on: a table or figure caption
# inside it ("… Table 3.5: Uses of boolean operations"), a footnote glued on ("… remove the parame2 It is
# legal …"), or an opening in lower case (the tail of a code line: "lea eax, [ebp - 8] Now EAX holds …").
_NOT_A_SENTENCE = re.compile(
    r"\b(?:Table|Figure|Fig\.|Listing)\s+\d+(?:\.\d+)*\.?\s*:|(?:^|\s)(?:표|그림)\s*\d+(?:\.\d+)*\s*[:.]"
    r"|[a-z]{2,}\d{1,2}\s+[A-Z][a-z]|^[a-z]|__\w+__|\b\w+\([\w\s,'\"]*\)|(?:아래와|다음과)\s*같다\s+\S"
)


def _names_a_thing(term: str) -> bool:
    """A noun or a name, not a verb's stem ("빠져나가" of "빠져나가려면") nor a placeholder the text has the
    learner type ("FILENAME", "TEST")."""
    if is_hangul_heavy(term):
        # Read alone, Kiwi may take a stem for a word it does not know ("지정하" of "지정하지"); read as "지정하다" it is
        # 지정 + 하: so the term is also read before "다", and each of its own morphemes must be a noun or a name.
        alone = analysis.tokens(term)
        predicated = [token for token in analysis.tokens(f"{term}다") if token.start < len(term)]
        return all(token.tag.startswith(("NN", "SL", "SH")) for token in [*alone, *predicated])
    return (not term.isupper() or len(term) <= 4) and term.casefold() not in lexicon.FUNCTION_WORDS_EN


# Two sentences sharing this share of their words say one thing twice ("Since 2 is not 0, we take the second
# branch …" / "Since 1 is not 0, …"; "… 배포 및 재배포할 수 있기 때문이다." / "… 배포/재배포할 …"): one key point.
SAME_POINT = 0.8


def _same_point(words: set[str], other: set[str]) -> bool:
    return bool(words) and len(words & other) / len(words | other) >= SAME_POINT


def _is_prose(sentence: str) -> bool:
    """Skip code, tables and formulas: key points and questions come from sentences of words."""
    visible = [char for char in sentence if not char.isspace()]
    return bool(visible) and not looks_like_code(sentence) and sum(char.isalpha() for char in visible) / len(visible) >= 0.75


# A word that goes on from a dot, a dash, an equals sign or a slash is a file's suffix, an option's name or a
# path's part (".suf", "--suffix=.suf", "/usr/bin"), not what a session teaches: the xz manual's session had
# read "suf 설명하기".
_ATTACHED_WORD = re.compile(r"(?<=[.\-=/])[A-Za-z]\w*")


def _weighted_terms(user, plan: Plan, text: str, *, attached: bool = True) -> list[tuple[str, float]]:
    """The terms of ``text`` by TF-IDF against the plan's materials; without ``attached``, no word attached to a
    dot, a dash or a slash (what a session teaches, not "suf" of ".suf")."""
    counts = Counter(
        term for term in content_terms(text if attached else _ATTACHED_WORD.sub(" ", text)) if len(term) > 2 and term.isalpha()
    )
    if not counts:
        return []
    frequencies, total = knowledge.term_document_frequencies(user=user, ref_ids=plan.ref_ids, terms=counts)
    weights = {term: (1 + math.log(count)) * math.log(1 + (total + 1) / (1 + frequencies.get(term, 0))) for term, count in counts.items()}
    lowered = text.casefold()
    return sorted(((term, weight) for term, weight in weights.items() if term in lowered), key=lambda item: -item[1])


# Terms a session also asks about when its definitions and headings make fewer than MIN_QUESTIONS questions: its
# most characteristic ones (TF-IDF). (definitions found, questions made) → fires when too few were made.
FALLBACK_TERMS = 8
MIN_QUESTIONS = 3  # a Node readline session had one question, another none; the Vim tutor as text none at all
CHARACTERISTIC_TERMS = rules.register(
    rules.Rule(
        "question:characteristic-terms",
        lambda found: len(found[1]) < MIN_QUESTIONS,
        ({}, []),  # the Vim tutor as a text file had no practice question at all, and then only "Lesson" blanks
        "a session whose definitions and headings make too few questions also asks about its most characteristic terms",
    ),
)[0]

# How much more a sentence that defines a term counts as a key point than its terms alone say.
DEFINITION_BOOST = 1.5

# Part of the cache key: a deploy that changes what a session's content holds never reads older entries.
SESSION_CONTENT_VERSION = 12
# Sentences rated as not standing alone (``standing``) fill a session's key points only up to this many. Readers
# found 0.48 of the tuning books' candidates rated standing alone fine and 0.10–0.15 of the rest; on two manuals
# nobody had tuned on (libjpeg, the sed FAQ, blind), 0.56 and 0.42 against 0.25 and 0.
MIN_KEY_POINTS = 3


@dataclass
class SessionContent:
    parts: list[dict] = field(default_factory=list)  # [{"refId", "pageNumber", "chunkIndex", "text"}]
    key_points: list[dict] = field(default_factory=list)  # [{"text", "section", "refId", "chunkIndex", "pageNumber"}]
    questions: list[dict] = field(default_factory=list)
    removed_materials: list[str] = field(default_factory=list)  # titles: the session's material was deleted


def session_content(*, user, plan: Plan, session: StudySession, llm=None) -> SessionContent:
    """Return the session's text, key points and questions (see ``_session_content``), cached for a
    day: building them analyses every sentence, and a session page should open at once. The key
    covers the session's ranges and the question writer; a deleted material is never served."""
    import hashlib
    import json
    from dataclasses import asdict

    from django.core.cache import cache

    removed = removed_materials(user=user, plan=plan)
    if session_is_removed(session, removed):  # never served from the cache either
        # Each removed material once, however many of the session's ranges it held (walkthrough 23's real run: a
        # session over four ranges of one guide said "Kiwipiepy 문서, Kiwipiepy 문서, Kiwipiepy 문서, Kiwipiepy 문서").
        titles = dict.fromkeys(removed[item["refId"]] for item in session.ranges if item["refId"] in removed)
        return SessionContent(removed_materials=list(titles))
    ranges = hashlib.sha256(json.dumps(session.ranges, sort_keys=True).encode()).hexdigest()[:16]  # jsonb reorders keys
    key = learner_key(plan.owner_id, "plans", "session", SESSION_CONTENT_VERSION, session.pk, ranges, getattr(llm, "model", "offline"))
    try:
        cached = cache.get(key)
    except Exception:  # noqa: BLE001 - Redis unavailable: compute it
        cached = None
    if isinstance(cached, dict) and cached.keys() == SessionContent.__dataclass_fields__.keys():
        return SessionContent(**cached)
    content = _with_labels(user, _session_content(user=user, plan=plan, session=session, llm=llm))
    try:
        cache.set(key, asdict(content), 24 * 3600)
    except Exception:  # noqa: BLE001, S110 - a cache write failure only costs the next view time
        pass
    return content


def _session_content(
    *, user, plan: Plan, session: StudySession, max_key_points: int = 5, max_questions: int = 6, llm=None
) -> SessionContent:
    """Return the session's text (overlap removed, in chunk order, with page numbers), its key points
    (the most central sentences) and practice questions, each cited: short-answer questions written
    by the LLM when one is given (and checked against their sentence), else cloze questions built from
    the key terms of the key sentences."""
    content = SessionContent()
    sentences: list[tuple[str, object, int]] = []  # (sentence, chunk, its offset in chunk.content)
    named_lines: set[int] = set()  # the positions of manual NAME lines among them
    for chunk in _range_chunks(user, session.ranges):
        previous_in_range = (
            content.parts
            and content.parts[-1]["refId"] == chunk.material.ref_id
            and content.parts[-1]["chunkIndex"] == chunk.chunk_index - 1
        )
        offset = chunk.overlap_chars if previous_in_range and chunk.overlap_chars else 0
        text = chunk.content[offset:]
        content.parts += _page_parts(chunk, offset)
        for start, end in sentence_spans(text):
            sentence = text[start:end]
            body = without_leading_heading(sentence)  # "Signed magnitude\nThe first method is …"
            body = _BULLET.sub("", body)  # the list item's own marker
            start += sentence.find(body)
            if rules.applies(keypoints.ASIDE, (offset + start, chunk.note_spans)):
                continue
            if any(first <= offset + start < last for first, last in chunk.code_spans):
                continue  # a line of code (set in a fixed-pitch font) is no statement to learn or to ask about
            # "fuser - 파일 또는 …", a paragraph of its own: a manual's NAME line says what its command is, unpunctuated.
            before = text[:start].rstrip(" \t")
            named = bool(MANUAL_NAME_LINE.match(body)) and (not before.strip() or before.endswith("\n\n"))
            if not named and rules.applies(keypoints.CUT_OFF, sentence.rstrip()):
                continue
            stated = named or not _NOT_A_SENTENCE.search(body)
            readable = named and len(body) >= 10 or 25 <= len(body) and _is_prose(body) and is_readable_sentence(body)
            if readable and len(body) <= 400 and stated:  # "login - 시스템 접속" says what login is in few words
                if named:
                    named_lines.add(len(sentences))
                sentences.append((body, chunk, offset + start))
    weights = dict(_weighted_terms(user, plan, "\n".join(part["text"] for part in content.parts))[:40])
    candidates, defined = [], {}
    for position, (sentence, _, _) in enumerate(sentences):
        terms = set(content_terms(sentence))
        definitions = find_definitions(sentence)
        score = sum(weights.get(term, 0.0) for term in terms) / math.sqrt(max(4, len(terms)))
        if definitions:
            defined[position] = definitions
            score *= DEFINITION_BOOST  # what the text defines is what a learner must know
        candidates.append(quiz.Candidate(sentence, score, position))
    # A key point is read on its own, on a list: a sentence of the book's body that a reader would find standing
    # alone (``standing``, fitted on readers' verdicts) comes first; one that goes on from the sentence before it
    # ("따라서 …", "This data is …"), or from a preface or a bibliography, only when too few others are left.
    alone = {
        candidate.position: standing.standing(candidate.text) >= standing.STANDS_ALONE or candidate.position in named_lines
        for candidate in candidates
    }
    ranked = sorted(
        candidates,
        key=lambda candidate: (
            bool(sentences[candidate.position][1].matter),
            not alone[candidate.position],
            bool(_GOES_ON.match(sentences[candidate.position][0])),
            -candidate.score,
        ),
    )
    best, seen = [], []
    for candidate in ranked:  # a sentence the text repeats (a refrain, a summary restating it) is one key point
        words = set(re.findall(r"\w+", candidate.text.casefold()))
        if not alone[candidate.position] and len(best) >= MIN_KEY_POINTS:
            break  # three points a reader can read alone beat five with two that lean on their page
        if not any(_same_point(words, other) for other in seen) and not keypoints.not_a_key_point(candidate.text):
            seen.append(words)
            best.append(candidate)
        if len(best) == max_key_points:
            break
    for candidate in sorted(best, key=lambda candidate: candidate.position):
        sentence, chunk, offset = sentences[candidate.position]
        content.key_points.append({"text": sentence, "section": section_at(chunk, offset), **_quoted(sentence, (chunk, offset))})
    if llm is not None and best:
        sources = [
            sentences[candidate.position] for candidate in sorted(candidates, key=lambda candidate: -candidate.score)[: max_questions * 2]
        ]
        written = study.short_answer_questions(
            llm,
            sentences=[sentence for sentence, _, _ in sources],
            language="ko" if is_hangul_heavy(sources[0][0]) else "en",
            limit=max_questions,
        )
        if written:
            for item in written:
                sentence, chunk, offset = sources[item["source"]]
                content.questions.append(
                    _cited_question(quiz.Question(quiz.SHORT_ANSWER, item["question"], item["answer"], 0), sentence, chunk, offset)
                )
            return content
    headings = list(dict.fromkeys(chunk.section_title for _, chunk, _ in sentences if chunk.section_title))
    # A question shows its sentence: one that could not be a key point (a reader would not find it standing
    # alone, it introduces a listing, it is a preface's or a bibliography's) makes no question either.
    askable = [
        candidate
        for candidate in candidates
        if alone[candidate.position] and not sentences[candidate.position][1].matter and not keypoints.not_a_key_point(candidate.text)
    ]
    built = quiz.build_questions(askable, definitions=defined, headings=headings, limit=max_questions)
    if rules.applies(CHARACTERISTIC_TERMS, (defined, built)):
        # Too little defined, and few headings name what a sentence says ("Lesson 1 요약", a plain-text file with no
        # heading at all, a reference's "Event: 'history'"): the session's most characteristic terms, as the text
        # writes them, are what its other blanks ask, each about a sentence and a term not asked already.
        text = "\n".join(part["text"] for part in content.parts)
        # A term long enough to name a thing: four letters in English, two syllables in Korean ("압축", "스레드").
        unattached = set(content_terms(_ATTACHED_WORD.sub(" ", text)))
        long_enough = [term for term in weights if len(term) >= (2 if is_hangul_heavy(term) else 4) and term in unattached]
        written = [_written_form(term, text) for term in long_enough[:FALLBACK_TERMS]]
        asked_sources, asked_terms = {question.source for question in built}, {question.term.casefold() for question in built}
        more = quiz.build_questions(
            [candidate for candidate in askable if candidate.position not in asked_sources],
            definitions={},
            headings=[term for term in written if _names_a_thing(term)],
            limit=max_questions - len(built),
        )
        # A characteristic term swapped for another reads as nonsense, not as a false statement.
        more = [q for q in more if q.term.casefold() not in asked_terms and not (q.kind == quiz.TRUE_FALSE and q.answer == "false")]
        built = sorted([*built, *more], key=lambda question: question.source)
    for question in built:
        sentence, chunk, offset = sentences[question.source]
        content.questions.append(_cited_question(question, sentence, chunk, offset))
    return content


def _cited_question(question: quiz.Question, sentence: str, chunk, offset: int) -> dict:
    """A question as a session serves it: under its section (``question_section``), citing the sentence it was made from."""
    asked = question.as_dict()
    asked["section"] = question_section(asked, section_at(chunk, offset))
    return {**asked, "citation": {**_quoted(sentence, (chunk, offset)), "quote": sentence}}


def question_section(question: dict, section: str) -> str:
    """The section a question's sentence stands in, to show with it ("Resumes parsing after it has been suspended
    with _____." names no function without it), unless it gives the answer away: a blank's answer or the term asked
    about written in it ("오타 교정" over "_____을 위해서는 오타 정의자가 필요합니다.")."""
    shown = section.casefold()
    given = [question.get("answer") or "", question.get("term") or ""]
    if question.get("kind") == quiz.TRUE_FALSE:
        given = [question.get("term") or ""]  # "true" or "false" is in no section's name
    return "" if not section or any(word and word.casefold() in shown for word in given) else section


def _with_labels(user, content: SessionContent) -> SessionContent:
    """Key points and questions cite the numbers the book prints on their pages too (``pageLabel``), as the tutor does."""
    points = knowledge.with_page_labels(user=user, citations=content.key_points)
    cited = knowledge.with_page_labels(user=user, citations=[question["citation"] for question in content.questions])
    content.key_points = points
    _laid_out(user, content.parts)
    content.parts = knowledge.with_page_labels(user=user, citations=content.parts)  # the session's text, page by page
    content.questions = [{**question, "citation": citation} for question, citation in zip(content.questions, cited, strict=True)]
    return content


def section_at(chunk, offset: int) -> str:
    """The heading of the section ``chunk.content[offset]`` stands in: the last heading inside the chunk before it,
    else the one in force where the chunk begins. A key point is read on a list, away from its page; under its
    section it names what it describes ("process.send(message…)": "When true, the socket is kept open …"). Readers
    passed 37 of 88 key points of Node's reference docs alone, 63 with their section (docs/study.md)."""
    before = [(start, end) for start, end, _ in chunk.heading_spans if end <= offset]
    heading = chunk.content[before[-1][0] : before[-1][1]] if before else chunk.section_title
    return " ".join(heading.lstrip("#").split())


def _quoted(sentence: str, where: tuple) -> dict:
    chunk, offset = where
    return _source(chunk, offset, offset + len(sentence))
