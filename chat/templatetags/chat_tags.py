import json

from django import template

register = template.Library()


@register.filter
def tojson(value) -> str:
    """Serialise for a data-* attribute (the template escapes it)."""
    return json.dumps(value, ensure_ascii=False)
