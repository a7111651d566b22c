"""Template filters that put what the models store into words a learner reads, in their language."""

from django import template
from django.utils.translation import gettext, gettext_lazy, ngettext

from ..failure_reasons import reason_translate

register = template.Library()

# Statuses of materials, plans and study sessions as badges. Every stage of ingestion reads "Processing":
# the row's progress line says which stage.
STATUS_LABELS = {
    "PENDING": gettext_lazy("Waiting"),
    "EXTRACTING": gettext_lazy("Processing"),
    "OCR": gettext_lazy("Processing"),
    "CHUNKING": gettext_lazy("Processing"),
    "EMBEDDING": gettext_lazy("Processing"),
    "GENERATING": gettext_lazy("Building"),
    "READY": gettext_lazy("Ready"),
    "FAILED": gettext_lazy("Failed"),
    "not_started": gettext_lazy("Not started"),
    "started": gettext_lazy("Started"),
    "completed": gettext_lazy("Completed"),
}

STAGE_LABELS = {
    "PENDING": gettext_lazy("Waiting"),
    "EXTRACTING": gettext_lazy("Reading pages"),
    "OCR": gettext_lazy("Reading scanned pages (text recognition)"),
    "CHUNKING": gettext_lazy("Cutting into passages"),
    "EMBEDDING": gettext_lazy("Indexing passages"),
}


@register.filter
def status_label(status: str) -> str:
    """``READY`` → "Ready" (준비됨): a badge's words."""
    return str(STATUS_LABELS.get(status, status))


@register.filter
def stage_label(status: str) -> str:
    """What ingestion is doing now, for the progress line."""
    return str(STAGE_LABELS.get(status, ""))


@register.filter
def failure_reason(material) -> str:
    """The material's failure reason in the active language."""
    return reason_translate(message=material.error_message, code=material.error_code, filename=material.original_filename)


@register.filter
def minutes(value) -> str:
    """``23`` → "~23 min" (약 23분)."""
    try:
        count = int(value)
    except (TypeError, ValueError):
        return ""
    return ngettext("~%(count)s min", "~%(count)s min", count) % {"count": count}


@register.filter
def page_ref(value) -> str:
    """A page, a range or a citation's pages as the learner's language writes them: "p.7", "p.7–9" / "7쪽",
    "7–9쪽" (the Korean screen had said "p.1" beside the tutor's "1쪽"). A dict is a citation: its printed labels
    (``pageLabel``, ``pageEndLabel``) before its positions."""
    if isinstance(value, dict):
        first = value.get("pageLabel") or value.get("pageNumber")
        spans = value.get("pageEnd") and value.get("pageEnd") != value.get("pageNumber")
        value = f"{first}–{value.get('pageEndLabel') or value['pageEnd']}" if spans else first
    return gettext("p.%(page)s") % {"page": value}
