"""Downloads: a plan, a session or notes as Markdown (citations as page references), a plan's cards as an
Anki package or CSV. The Markdown helpers here are shared: the chat app exports conversations with them."""

from __future__ import annotations

import csv
import hashlib
import html
import io
import itertools
import json
import os
import sqlite3
import tempfile
import time
import zipfile
from dataclasses import dataclass

from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from core.providers import configured_llm
from knowledge import selectors as knowledge

from ..models import Card, Module, Plan, StudySession
from ..selectors import objectives_for_reader, removed_materials, session_is_removed
from .session_content import session_content

MARKDOWN = "text/markdown; charset=utf-8"
CSV = "text/csv; charset=utf-8"
ANKI = "application/apkg"  # what Anki's own site serves .apkg files as; no registered type exists


@dataclass(frozen=True)
class Export:
    content: bytes
    filename: str
    content_type: str


def export_filename(title: str, extension: str, *, fallback: str = "baeum") -> str:
    """A file name from a title, Korean kept (``content_disposition_header`` encodes it for the browser)."""
    return f"{slugify(title, allow_unicode=True)[:80] or fallback}.{extension}"


def markdown_export(*, title: str, lines: list[str]) -> Export:
    """One Markdown document: the lines joined, the title as its file name."""
    text = "\n".join(lines).strip() + "\n"
    return Export(content=text.encode(), filename=export_filename(title, "md"), content_type=MARKDOWN)


def page_reference(title: str, page: int | None, page_end: int | None = None, *, label: str = "", end_label: str = "") -> str:
    """``(Title, p. 12)``, or ``(Title, pp. 12–13)`` for a passage over a page break; with the numbers the book
    prints on those pages (``label``, ``end_label``), those: ``(Title, p. vii)``."""
    if not page:
        return f"({title})" if title else ""
    first, last = label or page, end_label or (page_end if page_end else "")
    if page_end and page_end > page:
        pages = gettext("pp. %(first)s–%(last)s") % {"first": first, "last": last}
    else:
        pages = gettext("p. %(page)s") % {"page": first}
    return f"({title}, {pages})" if title else f"({pages})"


def citation_reference(citation: dict, titles: dict[str, str] | None = None) -> str:
    """The page reference of a citation (a note's, a card's, a key point's or a tutor answer's)."""
    title = citation.get("title") or citation.get("materialTitle") or (titles or {}).get(citation.get("refId", ""), "")
    return page_reference(
        title,
        citation.get("pageNumber"),
        citation.get("pageEnd"),
        label=citation.get("pageLabel", ""),
        end_label=citation.get("pageEndLabel", ""),
    )


def one_line(text: str) -> str:
    """Text on one Markdown line (a list item or a table cell must not break the list)."""
    return " ".join(str(text).split())


def quote_block(text: str) -> list[str]:
    return [f"> {line}" if line.strip() else ">" for line in str(text).strip().splitlines()]


# --- Plans and sessions ---------------------------------------------------------------------------


def _titles(plan: Plan) -> dict[str, str]:
    return {material.ref_id: material.title for material in plan.snapshot.all()}


def _page_range(ref_id: str, first: int, last: int, titles: dict[str, str], labels: dict) -> str:
    """``(Title, pp. 1–7)`` with the numbers the book prints on those pages where it prints them (``labels``,
    from ``knowledge.page_labels``), as the plan page shows them, not the file's positions (pp. 4–10)."""
    return page_reference(
        titles.get(ref_id, ""), first, last, label=labels.get((ref_id, first), ""), end_label=labels.get((ref_id, last), "")
    )


def _plan_labels(*, user, plan: Plan) -> dict:
    """The printed numbers of every page a plan's sessions and modules start or end on (one query)."""
    pages = [(item["refId"], page) for session in plan.sessions.all() for item in session.ranges for page in item["pages"][:2]]
    pages += [(module.ref_id, page) for module in plan.modules.all() for page in (module.page_first, module.page_last)]
    return knowledge.page_labels(user=user, pages=pages)


def _session_pages(session: StudySession, titles: dict[str, str], labels: dict) -> str:
    return " ".join(_page_range(item["refId"], item["pages"][0], item["pages"][1], titles, labels) for item in session.ranges)


def _session_lines(
    *, user, plan: Plan, session: StudySession, titles: dict[str, str], removed: dict, questions: bool, labels: dict
) -> list[str]:
    lines = [f"## {session.number}. {one_line(session.title)}", ""]
    meta = [
        gettext("~%(minutes)s min") % {"minutes": session.estimated_minutes},
        _session_pages(session, titles, labels),
        session.get_status_display(),
    ]
    if session.scheduled_for:
        meta.append(gettext("scheduled for %(date)s") % {"date": f"{session.scheduled_for:%Y-%m-%d}"})
    lines += [" · ".join(part for part in meta if part), ""]
    if session_is_removed(session, removed):
        return [*lines, "*" + gettext("The material of this session was removed from the library.") + "*", ""]
    if session.objectives:
        lines += [
            "### " + gettext("Objectives"),
            "",
            *(f"- {one_line(objective)}" for objective in objectives_for_reader(session.objectives)),
            "",
        ]
    content = session_content(user=user, plan=plan, session=session, llm=configured_llm())
    if content.key_points:
        lines += ["### " + gettext("Key points"), ""]
        lines += [f"- {section_prefix(point)}{one_line(point['text'])} {citation_reference(point, titles)}" for point in content.key_points]
        lines.append("")
    if questions and content.questions:
        lines += ["### " + gettext("Practice questions"), ""]
        for number, question in enumerate(content.questions, start=1):
            lines.append(f"{number}. {one_line(question.get('question') or question.get('prompt', ''))}")
            lines += [f"   - {one_line(choice)}" for choice in question.get("choices") or []]
            reference = citation_reference(question.get("citation") or {}, titles)
            label = gettext("Answer:")  # outside the f-string: makemessages does not read calls inside one
            lines.append(f"   - **{label}** {one_line(question.get('answer', ''))} {reference}".rstrip())
        lines.append("")
    return lines


def plan_markdown(*, user, plan: Plan) -> Export:
    """The plan as Markdown: its materials, exam date, sessions with objectives and key points (cited)."""
    titles, removed = _titles(plan), removed_materials(user=user, plan=plan)
    lines = [f"# {one_line(plan.title)}", ""]
    if plan.goal:
        lines += [plan.goal.strip(), ""]
    # Labels outside the f-strings: makemessages does not read calls inside one.
    pages, materials_label, exam_label = gettext("%(pages)s pages"), gettext("Materials:"), gettext("Exam date:")
    materials = "; ".join(f"{material.title} ({pages % {'pages': material.page_count}})" for material in plan.snapshot.all())
    lines += [f"**{materials_label}** {materials}", ""]
    if plan.exam_date:
        lines += [f"**{exam_label}** {plan.exam_date:%Y-%m-%d}", ""]
    labels = _plan_labels(user=user, plan=plan)
    for session in plan.sessions.all():
        lines += _session_lines(user=user, plan=plan, session=session, titles=titles, removed=removed, questions=False, labels=labels)
    optional = [module for module in plan.modules.all() if module.optional]
    if optional:
        lines += ["## " + gettext("Optional reading"), ""]
        lines += [f"- {one_line(module.title)} {_module_pages(module, titles, labels)}" for module in optional]
    return markdown_export(title=plan.title, lines=lines)


def _module_pages(module: Module, titles: dict[str, str], labels: dict) -> str:
    return _page_range(module.ref_id, module.page_first, module.page_last, titles, labels)


def session_markdown(*, user, plan: Plan, session: StudySession) -> Export:
    """One session as Markdown: objectives, key points and practice questions with answers, each cited."""
    lines = [f"# {one_line(plan.title)}", ""]
    lines += _session_lines(
        user=user,
        plan=plan,
        session=session,
        titles=_titles(plan),
        removed=removed_materials(user=user, plan=plan),
        questions=True,
        labels=_plan_labels(user=user, plan=plan),
    )
    return markdown_export(title=f"{plan.title} {session.number} {session.title}", lines=lines)


# --- Notes -----------------------------------------------------------------------------------------

NOTE_KINDS = {"answer": _("Tutor answer"), "key_point": _("Key point"), "passage": _("Passage"), "own": _("Own note")}


def notes_markdown(*, user, notes, title: str = "Notes") -> Export:
    """Notes as Markdown, each with its comment, where it was saved from and its page references (the numbers
    the book prints on those pages, as the notes page shows them)."""
    notes = list(notes)
    labelled = iter(knowledge.with_page_labels(user=user, citations=[citation for note in notes for citation in note.citations or []]))
    lines = [f"# {one_line(title)}", ""]
    for note in notes:
        citations = [next(labelled) for _ in note.citations or []]
        heading = [str(NOTE_KINDS.get(note.kind, note.kind)), f"{note.created_at:%Y-%m-%d}"]
        if note.plan_id:
            heading.append(note.plan.title)
        if note.source:
            heading.append(note.source)
        lines += [f"## {one_line(' · '.join(heading))}", "", *quote_block(note.text), ""]
        references = [citation_reference(citation) for citation in citations]
        if references:
            lines += [" ".join(references), ""]
        if note.comment:
            lines += [note.comment.strip(), ""]
    return markdown_export(title=title, lines=lines)


# --- Decks -----------------------------------------------------------------------------------------


def _cards(*, user, plan: Plan) -> list[tuple[Card, dict]]:
    """The plan's cards, each with its citation as the book prints its pages (the source a card names); the
    cards themselves are left as stored."""
    from ..selectors_guide import plan_deck

    cards = plan_deck(user=user, plan=plan)
    return list(zip(cards, knowledge.with_page_labels(user=user, citations=[card.citation or {} for card in cards]), strict=True))


def _front(card: Card) -> str:
    choices = "\n".join(f"- {choice}" for choice in card.choices or [])
    return f"{card.prompt}\n{choices}" if choices else card.prompt


# A spreadsheet runs a cell that starts with one of these as a formula ("=HYPERLINK(…)" in a quote).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value) -> str:
    """``value`` as a CSV cell no spreadsheet runs: text starting like a formula gets a leading apostrophe
    (shown by none of them, the OWASP advice), so "=1+1" stays those characters."""
    text = str(value)
    return f"'{text}" if text.startswith(FORMULA_STARTS) else text


def deck_csv(*, user, plan: Plan) -> Export:
    """The plan's cards as CSV (front, back, source, quote, kind, session, due), UTF-8 with a BOM so
    spreadsheet programs read Korean right; Anki imports it too."""
    titles, out = _titles(plan), io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["front", "back", "source", "quote", "kind", "session", "due"])
    for card, citation in _cards(user=user, plan=plan):
        writer.writerow(
            spreadsheet_cell(cell)
            for cell in [
                _front(card),
                card.answer,
                citation_reference(citation, titles),
                citation.get("quote", ""),
                card.kind,
                card.session_number or "",
                card.due.date().isoformat() if card.due else "",  # a question not answered yet is not scheduled
            ]
        )
    return Export(content=("\ufeff" + out.getvalue()).encode(), filename=export_filename(plan.title, "csv"), content_type=CSV)


def stable_id(*parts) -> int:
    """An Anki id derived from ``parts``: importing the same plan's deck again updates it instead of
    adding a copy. In [2^30, 2^31), the range genanki's documentation recommends."""
    digest = hashlib.sha256(":".join(str(part) for part in parts).encode()).digest()
    return (1 << 30) + int.from_bytes(digest[:4], "big") % (1 << 30)


ANKI_CSS = ".card { font-family: sans-serif; font-size: 20px; text-align: left; } .source { color: #666; font-size: 14px; }"


def _anki_model(plan: Plan):
    import genanki

    return genanki.Model(
        stable_id("baeum-model", plan.pk),
        "Baeum card",
        fields=[{"name": "Front"}, {"name": "Back"}, {"name": "Source"}, {"name": "Quote"}],
        templates=[
            {
                "name": "Card 1",
                "qfmt": "{{Front}}",
                "afmt": '{{FrontSide}}<hr id="answer">{{Back}}<p class="source">{{Source}}<br><i>{{Quote}}</i></p>',
            }
        ],
        css=ANKI_CSS,
    )


def _html(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def deck_anki(*, user, plan: Plan) -> Export:
    """The plan's cards as an Anki package: front, back, and the page reference with its quote."""
    import genanki

    titles, model = _titles(plan), _anki_model(plan)
    deck = genanki.Deck(stable_id("baeum-deck", plan.pk), f"Baeum::{plan.title}")
    for card, citation in _cards(user=user, plan=plan):
        tags = [f"baeum_{card.kind}"] + ([f"session_{card.session_number}"] if card.session_number else [])
        deck.add_note(
            genanki.Note(
                model=model,
                fields=[
                    _html(_front(card)),
                    _html(card.answer),
                    _html(citation_reference(citation, titles)),
                    _html(citation.get("quote", "")),
                ],
                guid=genanki.guid_for("baeum", plan.pk, card.key),
                tags=tags,
            )
        )
    return Export(content=_package(genanki.Package(deck)), filename=export_filename(plan.title, "apkg"), content_type=ANKI)


def _package(package) -> bytes:
    """The .apkg bytes. ``Package.write_to_file`` would leave its SQLite file behind in /tmp at every
    export; this writes the same archive (collection.anki2 and an empty media map) and removes it."""
    timestamp = time.time()
    handle, path = tempfile.mkstemp(suffix=".anki2")
    os.close(handle)
    try:
        connection = sqlite3.connect(path)
        try:
            package.write_to_db(connection.cursor(), timestamp, itertools.count(int(timestamp * 1000)))
            connection.commit()
        finally:
            connection.close()
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as archive:
            archive.write(path, "collection.anki2")
            archive.writestr("media", json.dumps({}))
        return out.getvalue()
    finally:
        os.unlink(path)


def section_prefix(point: dict) -> str:
    """ "**process.send(…)**: ", the section a key point stands in, as the session page shows it above the point."""
    return f"**{one_line(point['section'])}**: " if point.get("section") else ""
