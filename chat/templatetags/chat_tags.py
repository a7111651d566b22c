import json

from django import template
from django.utils import translation
from django.utils.translation import gettext as _

from baeum.language.text import is_hangul_heavy

register = template.Library()


@register.filter
def tojson(value) -> str:
    """Serialise for a data-* attribute (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False)


def _language_of(message) -> str:
    """The language the reply is in: its first line's (an answer across languages opens with a note in
    the question's language), so its labels read in the language of the question, not of the page."""
    first_line = (message.content or "").strip().split("\n", 1)[0]
    return "ko" if is_hangul_heavy(first_line) else "en"


@register.filter
def answer_kind(message) -> str:
    """Who wrote an answer, in the learner's words: quoted offline, or written by a model and checked."""
    generator = message.generator or ""
    if message.refused or generator in ("conversation", "memory"):
        return ""
    with translation.override(_language_of(message)):
        if generator.startswith("extractive"):
            if "ground check" in generator:
                return _("Quoted from your materials (the language model's answer did not match them)")
            if "unavailable" in generator:
                return _("Quoted from your materials (the language model did not answer)")
            return _("Quoted from your materials (no language model)")
        return _("Written by %(model)s from your materials, checked against them") % {"model": generator}


@register.filter
def refused_label(message) -> str:
    """The label under a refusal, in the refusal's language."""
    with translation.override(_language_of(message)):
        return _("Not in your materials")
