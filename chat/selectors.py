"""Reads of the chat app, scoped to the requesting user."""

import re

from django.utils.translation import gettext as _

from baeum.errors import NotFound
from baeum.language.text import is_hangul_heavy
from knowledge.selectors import member_materials

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
STARTER_KINDS = ("definition", "short_answer")  # questions that stand alone: "What is a variable?", "…을 무엇이라고 부르나요?"
# Glossary terms that are no concept: pronouns and a definition cut inside a conjunction ("프로앱스 또" of "또는").
STARTER_MATERIALS = 3  # materials a conversation's starter questions come from
STARTER_MATERIALS_READ = 50  # of which those in the learner's language come first
_NOT_A_TERM = frozenset("여러분 우리 이것 그것 저것 당신 저희 we you it this that they".split())
_CUT_ENDING = ("또", "및", "등", "또는", "혹은")


def starter_questions(*, user, conversation: Conversation, korean: bool | None = None) -> list[str]:
    """Questions a learner can start an empty conversation with, in each material's language: the practice
    questions its plan asks that stand alone ("What is a variable?"), spread over the plan's sessions; else
    "What is X?" for terms its materials define and use on several passages. ``korean``: the learner reads a
    Korean screen (or an English one, False): materials in that language are asked about first (the walkthrough's
    Korean phone offered "What is once?" from an English book beside a Korean manual)."""
    from knowledge.selectors import materials_in_scope

    ref_ids = None if conversation.all_materials else list(conversation.ref_ids)
    materials = list(materials_in_scope(user=user, ref_ids=ref_ids)[:STARTER_MATERIALS_READ]) if ref_ids is None or ref_ids else []
    if korean is not None:
        materials.sort(key=lambda material: material.korean is not None and material.korean != korean)  # stable: newest first stays
    materials = materials[:STARTER_MATERIALS]
    questions = _planned_questions(user=user, conversation=conversation, ref_ids=[material.ref_id for material in materials])
    in_their_language = korean is None or any(is_hangul_heavy(question) == korean for question in questions)
    if len(questions) < STARTERS or not in_their_language:
        # A term the plan already asks about is not asked again in other words ("‘파생작’이란 …?", "파생작은 …?").
        questions += [
            question
            for question in [*_glossary_questions(user=user, materials=materials), *_subject_questions(user=user, materials=materials)]
            if not any(_asked_term(question) in asked for asked in questions)
        ]
    questions = list(dict.fromkeys(questions))
    if korean is not None:  # in the learner's language first, each language's order kept
        questions.sort(key=lambda question: is_hangul_heavy(question) != korean)
    return questions[:STARTERS]


def _asked_term(question: str) -> str:
    """The term of a starter question ("파생작은 무엇인가요?" → "파생작", "What is an array?" → "array")."""
    term = re.sub(r"^What is (?:an? |the )?|\?$|(?:은\(는\)|\(이\)란|이란|란|은|는) 무엇인가요\?$", "", question)
    return term.strip() or question


def _planned_questions(*, user, conversation: Conversation, ref_ids: list[str]) -> list[str]:
    from plans.models import Plan
    from plans.services.session_content import session_content

    plans = Plan.objects.for_user(user).filter(status=Plan.Status.READY)
    plan = (
        plans.filter(pk=conversation.plan_id).first()
        if conversation.plan_id
        else plans.filter(snapshot__ref_id__in=ref_ids).order_by("-created_at", "-id").first()
    )
    if plan is None:
        return []
    asked: list[list[str]] = []
    for session in plan.sessions.order_by("number"):
        content = session_content(user=user, plan=plan, session=session)
        asked.append([question["question"] for question in content.questions if startable(question)])
    picked: list[str] = []
    while len(picked) < STARTERS and any(asked):  # one from each session in turn: spread over the plan
        step = max(1, len(asked) // STARTERS)
        for questions in asked[::step]:
            if questions and len(picked) < STARTERS:
                picked.append(questions.pop(0))
        asked = [questions for questions in asked if questions]
    return picked


def startable(question: dict) -> bool:
    """Whether a plan's practice question may open a conversation: one that stands alone (``STARTER_KINDS``) and is
    about a term, not "What is the value?" or "What is the output?" (a walkthrough over Node's stream docs)."""
    from baeum.study import checks

    problem = checks.question_problem(question["kind"], question["question"], question["answer"], question.get("choices"))
    return question["kind"] in STARTER_KINDS and problem is None


def _glossary_questions(*, user, materials) -> list[str]:
    from baeum.language.text import is_hangul_heavy, korean_particle
    from knowledge.models import Chunk
    from plans.selectors_guide import material_reading

    questions = []
    for material in materials:
        glossary = sorted(material_reading(user=user, material=material)["glossary"], key=lambda entry: entry["pageNumber"])
        for entry in glossary:
            term = entry["term"].strip("'\"‘’“”「」 ")
            if term.casefold() in _NOT_A_TERM or term.endswith(_CUT_ENDING) or len(term) < 2:
                continue
            if Chunk.objects.for_reader(user).filter(material=material, content__icontains=term).count() < 3:
                continue  # defined once in passing: not a concept the material teaches
            if material.korean or is_hangul_heavy(term):
                questions.append(f"{term}{korean_particle(term, '은', '는')} 무엇인가요?")
            else:
                questions.append(f"What is {_with_article(term, entry['definition'])}?")  # the material's language
            if len(questions) >= STARTERS:
                return questions
    return questions


# What a manual or a reference page is about, where it defines no term: a manual page's NAME line ("chsh - 로그인 쉘을
# 바꿉니다", "fuser - identify processes using files") or a Markdown page's title ("# Dispatcher"). The walkthrough's
# Korean phone had been offered only "What is kill?" from an English page beside two Korean manuals.
_SUBJECT_EXTENSIONS = (".txt", ".md", ".markdown")
_SUBJECT_MAX_WORDS = 3


def _subject_questions(*, user, materials) -> list[str]:
    from baeum.language.text import korean_particle
    from baeum.study.definitions import MANUAL_NAME_LINE
    from knowledge.models import Chunk

    questions = []
    for material in materials:
        if material.extension not in _SUBJECT_EXTENSIONS:
            continue
        first = Chunk.objects.for_reader(user).filter(material=material).order_by("chunk_index").first()
        if first is None:
            continue
        named = next(filter(None, map(MANUAL_NAME_LINE.match, first.content[:2000].split("\n"))), None)
        subject = named.group("term") if named else first.section_title if first.section_level == 1 else ""
        if not subject or len(subject.split()) > _SUBJECT_MAX_WORDS:
            continue
        questions.append(f"{subject}{korean_particle(subject, '은', '는')} 무엇인가요?" if material.korean else f"What is {subject}?")
    return questions


def _with_article(term: str, definition: str) -> str:
    """``term`` with the article its defining sentence gives it ("An array is …" → "an array")."""
    found = re.search(rf"\b(an?|the)\s+{re.escape(term)}\b", definition, re.IGNORECASE)
    return f"{found.group(1).lower()} {term}" if found else term


def course_material_refs(*, user) -> set[str]:
    """The refIds of the course materials ``user`` reads as a member (not their own): an answer quoting one
    can be flagged to the course's teacher."""
    return set(member_materials(user=user))
