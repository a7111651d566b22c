"""Notes: answers, key points and passages a learner keeps, each with its citations (page references)."""

from __future__ import annotations

import re

from baeum.errors import BaeumError
from knowledge import selectors as knowledge

from ..models import Note
from ..selectors import access_plan

MAX_CITATIONS = 20  # a tutor answer cites at most a handful of passages; more is a malformed request
MAX_QUOTE_CHARS = 2000  # a quote is a sentence or two, never a page
CITATION_FIELDS = ("refId", "title", "pageNumber", "pageEnd", "quote", "pageLabel", "pageEndLabel")
# What a material's refId looks like (mat_ and letters, digits): a citation's refId becomes a link to the viewer.
REF_ID_SHAPE = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _clean_citations(*, owner, citations: list[dict] | None) -> list[dict]:
    """Keep the citation fields notes use; name each material by its title in the owner's library when
    the caller gave none (a material removed since keeps the title it was saved with)."""
    cleaned = []
    for citation in (citations or [])[:MAX_CITATIONS]:
        item = {name: citation[name] for name in CITATION_FIELDS if citation.get(name) not in (None, "")}
        if citation.get("materialTitle") and not item.get("title"):
            item["title"] = citation["materialTitle"]  # the tutor's citations name their material this way
        if not item.get("refId"):
            continue
        if not REF_ID_SHAPE.fullmatch(str(item["refId"])):
            raise BaeumError(
                f"A citation's refId is a material's id (like mat_abc123): {str(item['refId'])[:40]!r} is not one.",
                code="invalid",
                details={"citations": "refId"},
            )
        page = int(item.get("pageNumber") or 1)
        item["pageNumber"] = page
        item["pageEnd"] = max(page, int(item.get("pageEnd") or page))
        item["quote"] = str(item.get("quote", ""))[:MAX_QUOTE_CHARS]
        cleaned.append(item)
    untitled = {item["refId"] for item in cleaned if not item.get("title")}
    if untitled:
        titles = dict(knowledge.materials_in_scope(user=owner, ready_only=False).filter(ref_id__in=untitled).values_list("ref_id", "title"))
        for item in cleaned:
            item.setdefault("title", titles.get(item["refId"], ""))
    return cleaned


def note_create(**fields) -> Note:
    """Save a note for ``owner`` (the fields of ``note_create_or_existing``); ``plan_id`` must be one of the
    owner's plans (else ``PlanNotFound``). A key point, passage or answer already saved from the same place
    (same kind, text and first cited page) is that note, not a second one."""
    return note_create_or_existing(**fields)[0]


def note_create_or_existing(
    *,
    owner,
    kind: str,
    text: str,
    comment: str = "",
    citations: list[dict] | None = None,
    plan_id: int | None = None,
    source: str = "",
) -> tuple[Note, bool]:
    """``note_create``, and whether the note is new (False: the same source was saved before)."""
    plan = access_plan(user=owner, plan_id=plan_id) if plan_id is not None else None
    cleaned = _clean_citations(owner=owner, citations=citations)
    if kind != Note.Kind.OWN:
        for existing in Note.objects.for_user(owner).filter(kind=kind, text=text.strip()):
            if same_place(existing.citations, cleaned):
                return existing, False
    note = Note.objects.create(
        owner=owner, plan=plan, kind=kind, text=text.strip(), comment=comment.strip(), citations=cleaned, source=source.strip()[:300]
    )
    return note, True


def same_place(first: list[dict], second: list[dict]) -> bool:
    """Both cite the same page of the same material first (or neither cites anything)."""

    def place(citations: list[dict]) -> tuple | None:
        return (citations[0].get("refId"), citations[0].get("pageNumber")) if citations else None

    return place(first) == place(second)


UNCHANGED = object()  # "leave the note's plan as it is" (``None`` files it under no plan)


def note_update(*, note: Note, text: str | None = None, comment: str | None = None, plan_id=UNCHANGED) -> Note:
    """Change a note's text, comment or plan (``plan_id=None`` files it under no plan)."""
    fields = []
    if text is not None:
        note.text, fields = text.strip(), [*fields, "text"]
    if comment is not None:
        note.comment, fields = comment.strip(), [*fields, "comment"]
    if plan_id is not UNCHANGED:
        note.plan = access_plan(user=note.owner, plan_id=plan_id) if plan_id is not None else None
        fields.append("plan")
    if fields:
        note.save(update_fields=fields)
    return note


def note_delete(*, note: Note) -> None:
    """Delete one note."""
    note.delete()
