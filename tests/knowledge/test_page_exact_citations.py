"""Every quote carries the page of the sentence it quotes: plan key points, practice questions and
session parts, chat citations and search hits, on real books (../shared/samples) and generated PDFs."""

import re
from pathlib import Path

import pytest

from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.lines import looks_like_code
from baeum.extraction.pages import page_span, quote_pages
from baeum.language.text import split_sentences
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from knowledge.models import MaterialPage
from plans.models import Plan
from plans.services.plans import plan_create, plan_generate
from plans.services.session_content import session_content

SAMPLES = Path(__file__).resolve().parents[3] / "shared" / "samples" / "text"


def _squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text).casefold()


def _first_prose_sentence(text: str) -> list[str]:
    for sentence in split_sentences(text):
        words = sentence.split()
        letters = sum(char.isalpha() for char in sentence)
        if len(words) >= 5 and letters >= 0.7 * len(sentence.replace(" ", "")) and not looks_like_code(sentence):
            return [sentence]
    return []


def quote_is_on_its_pages(owner, ref_id: str, quote: str, first: int, last: int) -> bool:
    """The quote is on page ``first``, or starts there and ends by ``last`` (a quote may run over a page break,
    and a chat citation spans every page the answer quotes its passage on)."""
    pages = {
        page.number: _squeezed(page.text)
        for page in MaterialPage.objects.for_user(owner).filter(material__ref_id=ref_id, number__gte=first, number__lte=last)
    }
    squeezed = _squeezed(quote)
    if squeezed in pages.get(first, ""):
        return True
    edge = min(20, len(squeezed) // 2)
    return squeezed[:edge] in pages.get(first, "") and any(
        squeezed[-edge:] in pages.get(number, "") for number in range(first + 1, last + 1)
    )


def test_chunks_record_where_each_page_begins():
    pages = [PageText(1, "Alpha one. " * 30), PageText(2, "Beta two. " * 30), PageText(3, "Gamma three. " * 30)]

    chunks = chunk_pages(pages, target_tokens=120, overlap=0.12)

    words = {1: ("Alpha", "one"), 2: ("Beta", "two"), 3: ("Gamma", "three")}
    for chunk in chunks:
        assert chunk.page_starts[0] == (0, chunk.page_start)
        bounds = [start for start, _ in chunk.page_starts[1:]] + [len(chunk.content)]
        for (start, number), end in zip(chunk.page_starts, bounds, strict=True):
            segment = set(chunk.content[start:end].replace(".", " ").split())
            assert segment <= set(words[number]), (number, segment)  # only that page's words
        for number, (word, _) in words.items():
            position = chunk.content.find(word)
            if position >= 0:
                assert page_span(chunk.page_starts, position, position + len(word), chunk.page_start)[0] == number
    spanning = next(chunk for chunk in chunks if chunk.page_start != chunk.page_end)
    assert quote_pages(spanning.content, spanning.page_starts, spanning.content, spanning.page_start) == (
        spanning.page_start,
        spanning.page_end,
    )


def test_moved_footnotes_and_repeated_table_headers_keep_the_page_they_are_printed_on():
    prose = "The stack grows down in memory and each call pushes its return address before the callee runs. " * 3
    rows = "\n".join(f"Line item number {index} of the statement {100 + index:,} {200 + index:,}" for index in range(40))
    page_one = (
        f"{prose}\nStatements of Operations\n(In millions) 2018 2017\n{rows}\nThe code is for the free GNU10-based compiler.\n"
        "From the command line, type: nasm first.asm\n10GNU is a project of the Free Software Foundation"
    )
    pages = [PageText(1, page_one), PageText(2, prose)]

    chunks = chunk_pages(pages, target_tokens=200, overlap=0.12)

    parts = [chunk for chunk in chunks if "Line item number" in chunk.content]
    assert len(parts) >= 3
    for chunk in parts:
        assert quote_pages(chunk.content, chunk.page_starts, "Statements of Operations\n(In millions) 2018 2017", 0) == (1, 1)
    holding = next(chunk for chunk in chunks if "GNU is a project" in chunk.content)
    note = "10 GNU is a project of the Free Software Foundation"
    assert [holding.content[start:end] for start, end in holding.note_spans] == [note]
    assert quote_pages(holding.content, holding.page_starts, note, 0) == (1, 1)
    assert _squeezed(note) in _squeezed(page_one)  # the viewer finds it as printed ("10GNU …")


@pytest.mark.slow
@pytest.mark.django_db
@pytest.mark.parametrize("book", ["pcasm-book-english.pdf", "pcasm-book-korean.pdf"])
def test_every_cited_quote_of_plans_chat_and_search_is_on_its_cited_page(user, ingest, book):
    material = ingest(user, (SAMPLES / book).read_bytes(), book)
    assert material.status == "READY", material.error_message
    plan = plan_create(owner=user, title=book, ref_ids=[material.ref_id], minutes_per_session=25, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)

    wrong, checked = [], 0
    for session in plan.sessions.all():
        content = session_content(user=user, plan=plan, session=session)
        quotes = [(point["text"], point) for point in content.key_points]
        quotes += [(question["citation"]["quote"], question["citation"]) for question in content.questions]
        # A part of the session's text is shown under its page: its first sentence of prose is on that page.
        quotes += [(sentence, part) for part in content.parts for sentence in _first_prose_sentence(part["text"])]
        for quote, source in quotes:
            checked += 1
            if not quote_is_on_its_pages(user, material.ref_id, quote, source["pageNumber"], source.get("pageEnd", source["pageNumber"])):
                wrong.append((session.number, source["pageNumber"], quote[:80]))

    korean = "korean" in book
    questions = (
        ["스택이란 무엇인가?", "2의 보수는 무엇인가?", "리틀 엔디안이란?", "인터럽트란 무엇인가?", "레지스터란 무엇인가?"]
        if korean
        else [
            "What is the stack?",
            "What is two's complement?",
            "What is little endian?",
            "What is an interrupt?",
            "What does the CALL instruction do?",
        ]
    )
    conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
    for question in questions:
        reply = chat_reply(conversation=conversation, content=question)
        for citation in reply.citations:
            checked += 1
            if not quote_is_on_its_pages(user, material.ref_id, citation["quote"], citation["pageNumber"], citation["pageEnd"]):
                wrong.append(("chat", citation["pageNumber"], citation["quote"][:80]))

    assert checked > 60
    assert wrong == [], f"{len(wrong)} of {checked} quotes are not on their cited page: {wrong}"


@pytest.mark.django_db
def test_a_stored_chunk_knows_its_footnotes_and_the_tutor_quotes_one_only_when_the_body_says_nothing(user, ingest):
    from tests.pdfgen import make_pdf

    page = (
        "The code is for the free GNU10-based compiler. The compiler turns assembly source into machine code.\n"
        "From the command line, type: nasm first.asm\n"
        "10GNU is a project of the Free Software Foundation and its compiler is free software."
    )
    material = ingest(user, make_pdf([page]), "gnu.pdf")
    (chunk,) = material.chunks.all()
    assert [chunk.content[start:end] for start, end in chunk.note_spans] == [
        "10 GNU is a project of the Free Software Foundation and its compiler is free software."
    ]
    conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
    # Only the footnote says it: then the footnote is quoted (without its number), rather than a refusal.
    reply = chat_reply(conversation=conversation, content="What is GNU a project of?")
    assert reply.content.startswith("GNU is a project of the Free Software Foundation"), reply.content
    reply = chat_reply(conversation=conversation, content="What does the compiler turn assembly source into?")
    assert "machine code" in reply.content and "Foundation" not in reply.content  # the body answers: no aside added
