import json

from django import template
from django.utils.translation import gettext as _

register = template.Library()


@register.filter
def tojson(value) -> str:
    """Serialise for a data-* attribute (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False)


@register.filter
def answer_kind(message) -> str:
    """Who wrote an answer, in the learner's words: quoted offline, or written by a model and checked. In the
    page's language, like the buttons beside it (a walkthrough read "Quoted from your materials" next to
    "노트에 저장" when the label followed the question's language)."""
    generator = message.generator or ""
    if message.refused or generator in ("conversation", "memory"):
        return ""
    if generator.startswith("extractive"):
        if "ground check" in generator:
            return _("Quoted from your materials (the language model's answer did not match them)")
        if "unavailable" in generator:
            return _("Quoted from your materials (the language model did not answer)")
        return _("Quoted from your materials (no language model)")
    return _("Written by %(model)s from your materials, checked against them") % {"model": generator}


@register.filter
def refused_label(message) -> str:
    """The label under a refusal, in the page's language."""
    return _("Not in your materials")
