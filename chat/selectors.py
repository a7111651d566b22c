"""Reads of the chat app, scoped to the requesting user."""

from django.utils.translation import gettext as _

from baeum.errors import NotFound

from .models import Conversation, Message


class ConversationNotFound(NotFound):
    def __init__(self, conversation_id):
        super().__init__(_("No conversation %(id)s.") % {"id": conversation_id})


def conversation_list(*, user):
    """Return the user's conversations, most recently active first."""
    return Conversation.objects.for_user(user)


def access_conversation(*, user, conversation_id) -> Conversation:
    """Return the user's conversation or raise ``ConversationNotFound`` (same error if not theirs)."""
    try:
        conversation_id = int(conversation_id)
    except (TypeError, ValueError):
        raise ConversationNotFound(conversation_id) from None
    conversation = Conversation.objects.for_user(user).filter(pk=conversation_id).first()
    if conversation is None:
        raise ConversationNotFound(conversation_id)
    return conversation


def message_list(*, user, conversation: Conversation):
    """Return the conversation's messages in order."""
    return Message.objects.for_user(user).filter(conversation=conversation).order_by("turn", "id")


def material_titles(*, user, ref_ids: list[str]) -> dict[str, str]:
    """Return refId → title of those of the user's materials (for a conversation's sources)."""
    from knowledge.selectors import materials_in_scope

    return dict(materials_in_scope(user=user, ready_only=False).filter(ref_id__in=ref_ids).values_list("ref_id", "title"))


STARTERS = 4  # questions an empty conversation offers


def starter_questions(*, user, conversation: Conversation) -> list[str]:
    """Questions a learner can start an empty conversation with: "What is X?" for terms its materials define
    (the study guide's glossary), spread over the materials' pages, in each material's language."""
    from baeum.language.text import is_hangul_heavy, korean_particle
    from knowledge.selectors import materials_in_scope
    from plans.selectors_guide import material_reading

    ref_ids = None if conversation.all_materials else list(conversation.ref_ids)
    materials = list(materials_in_scope(user=user, ref_ids=ref_ids)[:3]) if ref_ids is None or ref_ids else []
    terms: list[tuple[str, bool]] = []
    for material in materials:
        glossary = sorted(material_reading(user=user, material=material)["glossary"], key=lambda entry: entry["pageNumber"])
        step = max(1, len(glossary) // STARTERS)
        terms += [(entry["term"], bool(material.korean)) for entry in glossary[::step][:STARTERS]]
    questions = []
    for term, korean in terms[:STARTERS]:
        if korean or is_hangul_heavy(term):
            questions.append(f"{term}{korean_particle(term, '은', '는')} 무엇인가요?")
        else:
            questions.append(f"What is {term}?")  # in the material's language: the tutor answers best in it
    return list(dict.fromkeys(questions))
