"""The agentic tutor's tool steps in words a learner understands (what was searched, which pages were read).

``Message.steps`` keeps the raw record (tool, input, number of results, judgement) for the API and staff; the
chat page shows these sentences instead, in the learner's language.
"""

from django.utils.translation import gettext, ngettext

from baeum.errors import NotFound
from knowledge.selectors import chunk_range

SEARCH_TOOLS = ("search_all", "search_by_metadata")


def _judgement(step: dict) -> str:
    judgement = step.get("judgement")
    if judgement == "answer":
        return gettext("Enough to answer.")
    if judgement == "search again":
        return gettext("Not enough to answer yet.")
    if judgement == "give up":
        return gettext("Still not enough to answer.")
    return ""


def _pages_read(*, user, step: dict) -> tuple[int, int] | None:
    """The pages the passages around a good hit span, or None when the material is gone."""
    entry = step.get("input") or {}
    try:
        index, radius = int(entry.get("chunkIndex", 0)), int(entry.get("radius", 1))
        chunks = chunk_range(user=user, ref_id=str(entry.get("refId", "")), start=max(0, index - radius), end=index + radius)
    except (NotFound, TypeError, ValueError):
        return None
    if not chunks:
        return None
    return min(chunk.page_number for chunk in chunks), max(chunk.page_end for chunk in chunks)


def step_sentences(*, user, steps: list[dict], titles: dict[str, str]) -> list[str]:
    """Return one sentence per step: "Searched your materials for “…”: 4 passages found. Enough to answer."."""
    sentences = []
    for step in steps or []:
        tool, entry = step.get("tool"), step.get("input") or {}
        if tool in SEARCH_TOOLS:
            count = int(step.get("results") or 0)
            text = ngettext(
                "Searched your materials for “%(query)s”: %(count)s passage found.",
                "Searched your materials for “%(query)s”: %(count)s passages found.",
                count,
            ) % {"query": entry.get("query", ""), "count": count}
        elif tool == "get_section":
            title = titles.get(str(entry.get("refId", "")), "")
            pages = _pages_read(user=user, step=step)
            if pages and pages[0] != pages[1]:
                text = gettext("Read pages %(first)s–%(last)s of “%(title)s” around the best passage.") % {
                    "first": pages[0],
                    "last": pages[1],
                    "title": title,
                }
            elif pages:
                text = gettext("Read page %(number)s of “%(title)s” around the best passage.") % {"number": pages[0], "title": title}
            else:
                text = gettext("Read the passages around the best one.")
        else:
            text = gettext("Looked through your materials.")
        judgement = _judgement(step) if tool in SEARCH_TOOLS else ""  # reading around a good hit always ends in an answer
        sentences.append(f"{text} {judgement}".strip())
    return sentences
