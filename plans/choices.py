"""What the plan forms offer and read back: each material's chapters to tick, and the chapters ticked or
pages typed turned into the ranges a plan is built from. Used by a learner's own plan forms and by the
teacher's course plan form alike."""

from __future__ import annotations

import re

from knowledge import selectors as knowledge

from . import selectors_guide


def material_choice(user, ref_id: str, title: str, page_count: int, chosen: list[dict] | None = None) -> dict:
    """A material as the plan forms offer it: its chapters to tick (ticked when chosen) and the pages
    chosen that are not a chapter, as the book prints their numbers ("12-30, 45")."""
    ranges = [item["pages"] for item in chosen or [] if item["refId"] == ref_id]
    chapters = [
        {**chapter, "checked": chapter["pages"] in ranges} for chapter in selectors_guide.material_chapters(user=user, ref_id=ref_id)
    ]
    typed = [pages for pages in ranges if pages not in [chapter["pages"] for chapter in chapters]]
    label_of = {position: label for label, position in knowledge.printed_pages(user=user, ref_ids=[ref_id]).get(ref_id, {}).items()}
    shown = [(label_of.get(first, str(first)), label_of.get(last, str(last))) for first, last in typed]
    pages = ", ".join(f"{first}-{last}" if first != last else first for first, last in shown)
    return {"ref_id": ref_id, "title": title, "page_count": page_count, "chapters": chapters, "pages": pages, "chosen": bool(ranges)}


_PAGES = re.compile(r"(\d+)\s*(?:[-–~]\s*(\d+))?")


def chosen_ranges(post, ref_ids: list[str], *, user=None) -> list[dict]:
    """The chapters ticked (``chapters_<refId>``: "first-last", page positions) and the pages typed
    (``pages_<refId>``: "12-30, 45") of each chosen material; a material with neither is read whole. Typed
    pages are the numbers the book prints, as the learner reads them on the page and in citations ("7" is
    the 17th page of a book whose first ten pages are numbered i–x); a number the book never prints, and
    every number of a material without printed numbers, is a page position."""
    typed = {ref_id: _PAGES.findall(post.get(f"pages_{ref_id}", "")) for ref_id in ref_ids}
    printed = knowledge.printed_pages(user=user, ref_ids=[ref_id for ref_id, spans in typed.items() if spans]) if user else {}
    ranges = []
    for ref_id in ref_ids:
        spans = [value.split("-") for value in post.getlist(f"chapters_{ref_id}") if re.fullmatch(r"\d+-\d+", value)]
        position = printed.get(ref_id, {})
        spans += [(position.get(first, first), position.get(last or first, last or first)) for first, last in typed[ref_id]]
        ranges += [{"refId": ref_id, "pages": [int(first), int(last)]} for first, last in spans]
    return ranges


DEFAULT_MINUTES = 25


def minutes_chosen(post) -> int:
    """The session length typed (``minutes``), kept between 5 and 240; the default when none or not a number."""
    try:
        minutes = int(post.get("minutes") or DEFAULT_MINUTES)
    except ValueError:
        minutes = DEFAULT_MINUTES
    return max(5, min(240, minutes))
