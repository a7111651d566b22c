"""A learner flags a tutor answer over a course's material: the answer is wrong, or a citation is off the
point. The flag goes to the course's teacher with the question, the answer and the cited quote and page."""

from __future__ import annotations

from django.utils.translation import gettext as _

from baeum.errors import BaeumError, NotFound
from courses.models import Feedback
from courses.services import feedback_flag
from knowledge.selectors import member_materials

from ..models import Conversation, Message


class NothingToFlag(BaeumError):
    code = "not_a_course_answer"
    status = 400


def message_flag(
    *, user, conversation: Conversation, message_id: int, kind: str, citation: int | None = None, comment: str = ""
) -> Feedback:
    """Flag answer ``message_id`` of ``conversation`` (the learner's own). ``citation`` (its ``n``) names the
    quote that is off the point; without it, the first quote of a course's material is sent along."""
    reply = Message.objects.for_user(user).filter(conversation=conversation, pk=message_id, role=Message.Role.ASSISTANT).first()
    if reply is None:
        raise NotFound(_("No answer %(id)s in this conversation.") % {"id": message_id})
    asked = Message.objects.for_user(user).filter(conversation=conversation, turn=reply.turn, role=Message.Role.USER).first()
    cited = [item for item in reply.citations if citation is None or item.get("n") == citation]
    if citation is not None and not cited:
        raise NotFound(_("This answer has no citation [%(n)s].") % {"n": citation})
    courses = member_materials(user=user, ref_ids=[item.get("refId") for item in cited])
    chosen = next((item for item in cited if item.get("refId") in courses), None)
    if chosen is None:
        raise NothingToFlag(_("This answer quotes none of your courses' materials, so there is no teacher to tell."))
    return feedback_flag(
        user=user,
        course_id=courses[chosen["refId"]],
        kind=kind,
        question=asked.content if asked else "",
        answer=reply.content,
        quote=chosen.get("quote", ""),
        ref_id=chosen["refId"],
        page_number=chosen.get("pageNumber"),
        comment=comment,
    )
