from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from knowledge.selectors import material_list
from plans.selectors_guide import saved_note_texts

from . import selectors
from .services.conversations import conversation_create, conversation_sources
from .steps import step_sentences


def _shown(
    *,
    user,
    message,
    titles: dict[str, str],
    saved: set[str] = frozenset(),
    conversation=None,
    course_refs: set[str] | None = None,
    asked: str = "",
) -> dict:
    """A message as the page shows it: the learner's words for its steps; timings and confidence for staff only;
    an answer with its citations as the note "Save to notes" keeps, filed under the question it answers
    (``asked``; the conversation's title, its first question, when not known), or "Saved" when it is kept
    already; an answer quoting a course's material can be flagged to its teacher."""
    answered = message.role == "assistant" and not message.refused and bool(message.citations)
    if course_refs is None:
        course_refs = selectors.course_material_refs(user=user) if answered else set()
    flag = None
    if answered and conversation is not None and {item.get("refId") for item in message.citations} & course_refs:
        flag = f"conversations/{conversation.pk}/messages/{message.pk}/flag"
    note = None
    if answered and message.content.strip() not in saved:
        note = {
            "kind": "answer",
            "text": message.content,
            "citations": message.citations,
            "planId": getattr(conversation, "plan_id", None),
            "source": asked or getattr(conversation, "title", "") or "",
        }
    return {
        "message": message,
        "steps": step_sentences(user=user, steps=message.steps, titles=titles) if message.role == "assistant" else [],
        "debug": user.is_staff,
        "note": note,
        "saved": answered and note is None,
        "flag": flag,
    }


def _saved_answers(*, user, messages) -> set[str]:
    return saved_note_texts(user=user, kind="answer", texts=[message.content for message in messages if message.role == "assistant"])


def _sources(*, user, conversation) -> dict:
    """What the conversation searches, what was removed, and the READY materials it could search instead."""
    searched, removed = conversation_sources(conversation=conversation)
    materials = (
        material_list(user=user, status="READY", with_courses=True)
        .select_related("course")
        .only("ref_id", "title", "owner_id", "course__title")
    )
    # A course's copy of a book is told apart from the learner's own copy of it by its course.
    library = [
        {
            "ref_id": material.ref_id,
            "title": material.title
            if material.owner_id == user.pk or material.course is None
            else _("%(title)s (course: %(course)s)") % {"title": material.title, "course": material.course.title},
        }
        for material in materials
    ]
    titles = {material["ref_id"]: material["title"] for material in library}
    return {
        "all_materials": conversation.all_materials,
        "searched": [
            {"ref_id": ref_id, "title": titles.get(ref_id, conversation.material_titles.get(ref_id, ref_id))} for ref_id in searched
        ],
        "removed": [{"ref_id": ref_id, "title": conversation.material_titles.get(ref_id, ref_id)} for ref_id in removed],
        "library": library,
        "searched_ids": set(searched),
        "session_scoped": bool(conversation.scope_ranges),
    }


@login_required
def chat_page(request, conversation_id: int | None = None):
    conversations = selectors.conversation_list(user=request.user)[:50]
    conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id) if conversation_id else None
    context = {"conversations": conversations, "conversation": conversation, "nav": "chat"}
    if conversation:
        titles = conversation.material_titles
        messages = list(selectors.message_list(user=request.user, conversation=conversation))
        saved = _saved_answers(user=request.user, messages=messages)
        course_refs = selectors.course_material_refs(user=request.user)
        asked = {(message.turn, message.role): message.content for message in messages}
        context["chat_messages"] = [
            _shown(
                user=request.user,
                message=message,
                titles=titles,
                saved=saved,
                conversation=conversation,
                course_refs=course_refs,
                asked=asked.get((message.turn, "user"), ""),
            )
            for message in messages
        ]
        context["sources"] = _sources(user=request.user, conversation=conversation)
        if not messages:
            context["starters"] = selectors.starter_questions(
                user=request.user, conversation=conversation, korean=request.LANGUAGE_CODE == "ko"
            )
    return render(request, "chat/chat.html", context)


@login_required
@require_GET
def chat_message(request, conversation_id: int, message_id: int):
    """One answer as the page shows it, with the conversation's title (set from the first question)."""
    conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
    message = selectors.message_list(user=request.user, conversation=conversation).filter(pk=message_id).first()
    if message is None:
        return JsonResponse({"error": {"code": "not_found", "message": "No such message."}}, status=404)
    question = selectors.message_list(user=request.user, conversation=conversation).filter(role="user", turn=message.turn).first()
    shown = _shown(
        user=request.user,
        message=message,
        titles=conversation.material_titles,
        saved=_saved_answers(user=request.user, messages=[message]),
        conversation=conversation,
        asked=question.content if question else "",
    )
    html = render_to_string("chat/_message.html", shown, request=request)
    return JsonResponse({"html": html, "title": conversation.title})


@login_required
@require_POST
def chat_start(request):
    plan_id = request.POST.get("plan_id")
    session = request.POST.get("session")
    if not (plan_id or "0").isdigit() or not (session or "0").isdigit():
        raise Http404("No such plan or session.")  # was a 500 (int("abc"))
    conversation = conversation_create(
        owner=request.user,
        ref_ids=[],
        plan_id=int(plan_id) if plan_id else None,
        session_number=int(session) if session else None,
    )
    return redirect("chat-page", conversation_id=conversation.pk)
