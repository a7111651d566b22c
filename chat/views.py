from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from . import selectors
from .services.conversations import conversation_create


@login_required
def chat_page(request, conversation_id: int | None = None):
    conversations = selectors.conversation_list(user=request.user)[:50]
    conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id) if conversation_id else None
    messages = list(selectors.message_list(user=request.user, conversation=conversation)) if conversation else []
    context = {"conversations": conversations, "conversation": conversation, "chat_messages": messages, "nav": "chat"}
    return render(request, "chat/chat.html", context)


@login_required
@require_POST
def chat_start(request):
    plan_id = request.POST.get("plan_id")
    session = request.POST.get("session")
    conversation = conversation_create(
        owner=request.user,
        ref_ids=[],
        plan_id=int(plan_id) if plan_id else None,
        session_number=int(session) if session else None,
    )
    return redirect("chat-page", conversation_id=conversation.pk)
