"""A conversation as Markdown: each question and answer, the answer's sources as page references."""

from __future__ import annotations

from django.utils.translation import gettext

from plans.services.export import Export, citation_reference, markdown_export, one_line, quote_block

from ..models import Conversation
from ..selectors import message_list


def conversation_markdown(*, user, conversation: Conversation) -> Export:
    """The conversation in order; every ``[n]`` of an answer is listed under it with its quote and page
    reference ("(Title, p. 12)"); refusals say so."""
    title = conversation.title or gettext("Conversation %(number)s") % {"number": conversation.pk}
    lines = [f"# {one_line(title)}", ""]
    sources = sorted(conversation.material_titles.values())
    if sources:
        label = gettext("Materials:")  # outside the f-string: makemessages does not read calls inside one
        lines += [f"**{label}** " + "; ".join(sources), ""]
    for message in message_list(user=user, conversation=conversation):
        if message.role == message.Role.USER:
            lines += ["## " + one_line(message.content), ""]
            continue
        lines += [message.content.strip(), ""]
        if message.refused:
            lines += ["*" + gettext("The tutor found no answer in your materials.") + "*", ""]
        for citation in message.citations:
            reference = citation_reference(citation, conversation.material_titles)
            lines += [f"[{citation.get('n', '')}] {reference}", *quote_block(citation.get("quote", "")), ""]
    return markdown_export(title=title, lines=lines)
