"""Where the materials name the items of a list (database reads only): "The second method is known as one's
complement", or the book's numbered subsections of that kind ("3.1.3 Arithmetic shifts"), near the pages
the enumerating answer cited.
"""

from __future__ import annotations

import re
from collections import Counter

from baeum.answering.answers import Answer, Passage
from baeum.answering.followups import (
    ENUMERATED_ITEMS_MAX,
    ENUMERATION_QUESTION,
    FUNCTION_WORDS,
    carried_terms,
    enumerating_turn,
    first_sentence,
    from_the_ordinal,
    heading_head,
    nth,
    ordinal_in_text,
    ordinal_of,
    previous_turn,
    same_part,
    section_key,
    subject_phrases,
    topic_question,
)
from baeum.answering.history import Memory
from baeum.answering.sentences import is_readable_sentence, numbered_headings
from baeum.language import lexicon
from baeum.language.analysis import content_terms
from baeum.language.text import sentence_spans
from chat.services.retrieval import PREVIOUS_PASSAGES, passage_of
from knowledge.selectors import (
    chunk_range,
)

from ..models import Conversation, Message

ORDINAL_WINDOW = 6  # chunks either side of the enumerating answer's citation where the book may name the n-th item


def named_item(conversation: Conversation, question: str, memory: Memory) -> tuple[Passage, str, tuple[str, str]] | None:
    """Where the materials themselves name the item an ordinal follow-up points at ("What's wrong with the
    second one?" → "The second method is known as one's complement representation."): the first such sentence
    in the pages the enumerating answer cited or just after them, with its passage, and how the answer shows
    the sentence that names it (``_named_line``); else None."""
    ordinal = ordinal_of(question)
    pattern = ordinal_in_text(question, ordinal) if ordinal else None
    source = enumerating_turn(memory)
    if pattern is None or source is None:
        return None
    reply = _answer_to(conversation, source)
    near = [(citation["refId"], citation["chunkIndex"]) for citation in (reply.citations if reply else [])]
    topic = set(carried_terms(source["question"]))
    found = nth_in_text(conversation, near, topic, pattern)
    if found is not None:  # "1 의 보수 표현법두 번째 방법은 …" is shown from its ordinal on
        passage, sentence = found
        return passage, sentence, (sentence, from_the_ordinal(sentence, pattern.search(sentence)))
    subsection = nth(subsections(conversation, near, topic), ordinal)
    if not subsection:
        return None
    title, chunk, opening = subsection
    # Named by its heading and first sentence ("Method two. A lookup table can also be used …"): a heading alone
    # may name little; the answer shows that sentence under its heading ("Arithmetic shifts: These shifts are …").
    return passage_of(chunk, n=0, score=1.0), f"{title}. {opening}", (opening.strip(), f"{title}: {opening.strip()}")


def _answer_to(conversation: Conversation, entry: dict) -> Message | None:
    """The tutor's answer (not a refusal) to the turn of memory ``entry``, with its citations."""
    return (
        Message.objects.for_user(conversation.owner)
        .filter(conversation=conversation, role=Message.Role.ASSISTANT, turn=entry.get("turn"), refused=False)
        .first()
    )


def nth_in_text(
    conversation: Conversation, near: list[tuple[str, int]], topic: set[str], pattern: re.Pattern
) -> tuple[Passage, str] | None:
    """The first sentence matching ``pattern`` in the chunks near the first of ``near`` (refId, chunkIndex)
    pairs, nearest first, on ``topic`` and in the same part of the book; with its passage."""
    from baeum.errors import NotFound

    for ref_id, cited in near[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(user=conversation.owner, ref_id=ref_id, start=cited - ORDINAL_WINDOW, end=cited + ORDINAL_WINDOW)
        except NotFound:
            continue
        # The nearest mention on the enumerating answer's topic: "the first method" of the next section is another list.
        section = next((chunk.section_title for chunk in chunks if chunk.chunk_index == cited), "")
        for chunk in sorted(chunks, key=lambda chunk: abs(chunk.chunk_index - cited)):
            if not (topic & set(content_terms(chunk.content)) and same_part(section, chunk.section_title)):
                continue
            for start, end in sentence_spans(chunk.content):
                sentence = chunk.content[start:end]
                if pattern.search(sentence):
                    return passage_of(chunk, n=0, score=1.0), sentence
    return None


def subsections(conversation: Conversation, near: list[tuple[str, int]], topic: set[str]) -> list[tuple[str, object, str]]:
    """The numbered subsections about ``topic`` where the first of ``near`` (refId, chunkIndex) pairs stands,
    in order, each as (title, the chunk it starts in, its first sentence): after "What kinds of shift
    operations …", 3.1.1 Logical shifts, 3.1.3 Arithmetic shifts and 3.1.4 Rotate shifts ("3.1.2 Use of
    shifts" is no kind of shift); after "What methods …", 3.6.1 Method one … 3.6.3 Method three. They are the
    children, else the siblings, of the deepest section the citation stands in; at least two, else []."""
    from baeum.errors import NotFound

    for ref_id, cited in near[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(user=conversation.owner, ref_id=ref_id, start=cited - ORDINAL_WINDOW, end=cited + ORDINAL_WINDOW)
        except NotFound:
            continue
        headings: dict[tuple[int, ...], tuple[str, object, str]] = {}
        standing: list[tuple[int, ...]] = []  # the sections the cited chunk stands in: the last one before it, those in it
        for chunk in chunks:
            for match in numbered_headings(chunk.content):
                number = section_key(match.group("number"))
                headings.setdefault(number, (match.group("title").strip(), chunk, first_sentence(chunk.content[match.end() :])))
                if chunk.chunk_index < cited:
                    standing[:] = [number]
                elif chunk.chunk_index == cited:
                    standing.append(number)
        for number in sorted(standing, key=len, reverse=True):
            for parent in (number, number[:-1]):  # its subsections, else its siblings
                items = [
                    headings[key]
                    for key in sorted(headings)
                    if len(key) == len(parent) + 1 and key[:-1] == parent and heading_head(headings[key][0]) in topic
                ]
                if len(items) >= 2:
                    return items
    return []


def enumeration_lines(conversation: Conversation, question: str, answer: Answer) -> list[tuple[Passage, str]]:
    """For "what are the ways …", the sentences that name each way in order, found near the answer's first
    citation ("The first method is the simplest and is called signed magnitude.", "The second method is known
    as one's complement representation.", "Modern computers use a third method called two's complement
    representation."); [] unless at least the first two are found."""
    if answer.refused or not answer.citations or not ENUMERATION_QUESTION.search(question):
        return []
    near = [(citation.refId, citation.chunkIndex) for citation in answer.citations]
    topic = set(carried_terms(question)) - set(carried_terms(" ".join(lexicon.ENUMERATION_NOUNS_EN + lexicon.ENUMERATION_NOUNS_KO)))
    found: list[tuple[Passage, str]] = []
    for ordinal in range(1, ENUMERATED_ITEMS_MAX + 1):
        pattern = ordinal_in_text("", ordinal)
        hit = nth_in_text(conversation, near, topic, pattern) if pattern and topic else None
        if hit is None:
            break
        passage, sentence = hit
        found.append((passage, from_the_ordinal(sentence, pattern.search(sentence))))
    if len(found) >= 2:
        return found
    # The book's subsections, each with its first sentence: "Arithmetic shifts: These shifts are designed to …".
    found = [
        (passage_of(chunk, n=0, score=1.0), f"{title}: {opening.strip()}")
        for title, chunk, opening in subsections(conversation, near, set(carried_terms(question)))
        if is_readable_sentence(opening)
    ]
    return found[:ENUMERATED_ITEMS_MAX] if len(found) >= 2 else []


SIBLING_WINDOW = 1  # chunks either side of the last answer's citations where the book may name the other one


def sibling_question(conversation: Conversation, memory: Memory) -> str:
    """ "And the other one?" after "What is a shallow copy?": the last question asked about the sibling the book
    names beside its subject, near the pages the last answer cited ("What is a deep copy?"; "빅 엔디안이 뭐야?" →
    "리틀 엔디안이 뭐야?"): the same head word with another modifier, the one written there most often; ""
    when there is none."""
    from baeum.errors import NotFound

    previous = previous_turn(memory)
    if previous is None:
        return ""
    asked = topic_question(previous)
    reply = _answer_to(conversation, previous)
    texts = []
    for citation in (reply.citations if reply else [])[:PREVIOUS_PASSAGES]:
        try:
            chunks = chunk_range(
                user=conversation.owner,
                ref_id=citation["refId"],
                start=citation["chunkIndex"] - SIBLING_WINDOW,
                end=citation["chunkIndex"] + SIBLING_WINDOW,
            )
        except NotFound:
            continue
        texts += [chunk.content for chunk in chunks]
    text = "\n".join(texts)
    for modifier, head in reversed(subject_phrases(asked)):  # the last phrase of a question is most often its subject
        siblings = Counter(
            match.group(1)
            for match in re.finditer(rf"(?<![\w-])([^\W\d_][\w'-]*)[ -]{re.escape(head)}(?!\w)", text, re.IGNORECASE)
            if match.group(1).casefold() != modifier.casefold()
            and match.group(1).casefold() not in _NOT_MODIFIERS
            and content_terms(match.group(1))  # "of error", "in copy": a modifier is a word of its own
        )
        if siblings:
            return _renamed(asked, modifier, head, siblings.most_common(1)[0][0])
    return ""


def _renamed(question: str, modifier: str, head: str, sibling: str) -> str:
    """``question`` about "{sibling} {head}" instead of "{modifier} {head}"."""
    return re.sub(rf"{re.escape(modifier)}([ -]){re.escape(head)}", lambda match: f"{sibling}{match.group(1)}{head}", question, count=1)


# Words before a noun that are no kind of it ("the copy", "each variable", "이 엔디안").
_NOT_MODIFIERS = frozenset(
    {word.casefold() for word in (*FUNCTION_WORDS, *lexicon.POINTING_EN)}
    | {"the", "a", "an", "its", "our", "your", "my", "his", "her", "their", "some", "any", "no", "every", "each", "all"}
    | {"other", "same", "new", "one", "two", "first", "second", "another", "이", "그", "저", "두", "각", "이러한", "다른", "같은"}
)
