"""Chat API: conversations and messages (JSON, or server-sent events when asked for)."""

import json

from django.http import StreamingHttpResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import renderers, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.pagination import paginate, paginated_schema

from . import selectors
from .services.conversations import (
    conversation_create,
    conversation_delete,
    conversation_rename,
    conversation_sources,
    conversation_sources_update,
)
from .services.flags import message_flag
from .services.reply import chat_reply, chat_reply_stream

STREAM_FORMAT = """Server-sent events (`text/event-stream`), each `event: <name>` then `data: <JSON>` and a blank line, in this order:

- `token`, repeated: `data` is a JSON string, the next piece of the answer (offline: a word and the space after it; with a language model: a whole sentence as soon as it is written and has passed the ground check); joined, the pieces are the answer's `content`.
- `reset`, at most once, only with a language model: `data` is the reason (e.g. `"extractive (LLM answer failed the ground check)"`). Drop every token shown so far: the tokens that follow are the extractive answer that replaces it.
- `citations`, once: `data` is the list of citations, as in the JSON answer (`n`, `refId`, `materialTitle`, `chunkIndex`, `pageNumber`, `pageEnd`, `quote`).
- `done`, last: `data` is the saved message, the same object as the 201 JSON answer (its `generator` says who wrote it: a model's name, or `extractive …`).

No sentence is sent before it has been checked against the sources; what streams after the last `reset` is what is saved. Errors found before the stream starts (400, 401, 404, 429) are ordinary JSON error answers."""
STREAM_EXAMPLE = (
    'event: token\ndata: "The "\n\n'
    'event: token\ndata: "stack [1]."\n\n'
    'event: citations\ndata: [{"n": 1, "refId": "mat_k2x9c4q7b1zd", "materialTitle": "PC Assembly", "chunkIndex": 7, '
    '"pageNumber": 3, "pageEnd": 3, "quote": "The stack is a last-in first-out structure."}]\n\n'
    'event: done\ndata: {"id": 42, "turn": 1, "role": "assistant", "content": "The stack [1].", "answer": "The stack [1].", …}\n\n'
)


class EventStreamRenderer(renderers.BaseRenderer):
    media_type = "text/event-stream"
    format = "sse"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return json.dumps(data).encode()


class CitationSerializer(serializers.Serializer):
    n = serializers.IntegerField()
    refId = serializers.CharField()
    materialTitle = serializers.CharField()
    chunkIndex = serializers.IntegerField()
    pageNumber = serializers.IntegerField(help_text="the page of the quoted sentence")
    pageEnd = serializers.IntegerField(
        required=False, help_text="the last page the answer quotes this passage on (a quote may also run over a page break)"
    )
    quote = serializers.CharField()
    pageLabel = serializers.CharField(
        required=False, help_text="the number the book prints on pageNumber, when the PDF gives one that differs"
    )
    pageEndLabel = serializers.CharField(required=False, help_text="the same for pageEnd")


class MessageOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    turn = serializers.IntegerField()
    role = serializers.CharField()
    content = serializers.CharField()
    citations = CitationSerializer(many=True)
    refused = serializers.BooleanField()
    confidence = serializers.FloatField()
    mode = serializers.CharField()
    steps = serializers.ListField(child=serializers.DictField())
    usage = serializers.DictField()
    generator = serializers.CharField()
    createdAt = serializers.DateTimeField(source="created_at")


class ConversationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    refIds = serializers.ListField(child=serializers.CharField(), source="ref_ids")
    planId = serializers.IntegerField(source="plan_id", allow_null=True)
    session = serializers.IntegerField(source="session_number", allow_null=True)
    turnCount = serializers.IntegerField(source="turn_count")
    createdAt = serializers.DateTimeField(source="created_at")
    updatedAt = serializers.DateTimeField(source="updated_at")


class SourceSerializer(serializers.Serializer):
    refId = serializers.CharField()
    title = serializers.CharField()
    removed = serializers.BooleanField(help_text="deleted from the library: no longer searched")


class ConversationDetailSerializer(ConversationOutputSerializer):
    allMaterials = serializers.BooleanField(source="all_materials", help_text="follows the library: materials added later are searched")
    sources = serializers.SerializerMethodField(help_text="what the conversation searches now, and what was removed")
    messages = serializers.SerializerMethodField()
    summary = serializers.CharField()
    entities = serializers.ListField(child=serializers.DictField())

    @extend_schema_field(SourceSerializer(many=True))
    def get_sources(self, conversation) -> list:
        searched, removed = conversation_sources(conversation=conversation)
        titles = selectors.material_titles(user=self.context["user"], ref_ids=searched)
        rows = [{"refId": ref_id, "title": titles.get(ref_id, ref_id), "removed": False} for ref_id in searched]
        rows += [{"refId": ref_id, "title": conversation.material_titles.get(ref_id, ref_id), "removed": True} for ref_id in removed]
        return SourceSerializer(rows, many=True).data

    @extend_schema_field(MessageOutputSerializer(many=True))
    def get_messages(self, conversation) -> list:
        return MessageOutputSerializer(selectors.message_list(user=self.context["user"], conversation=conversation), many=True).data


class ConversationListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ConversationCreateInput"

        refIds = serializers.ListField(child=serializers.CharField(max_length=32), required=False, max_length=200)
        planId = serializers.IntegerField(required=False, min_value=1)
        session = serializers.IntegerField(required=False, min_value=1, help_text="with planId: ask about this study session")
        title = serializers.CharField(required=False, allow_blank=True, max_length=200)

        def validate(self, attrs):
            if "session" in attrs and "planId" not in attrs:
                raise serializers.ValidationError({"session": _("A session is one of a plan's: send planId with it.")})
            return attrs

    @extend_schema(operation_id="conversations_list", responses=paginated_schema(ConversationOutputSerializer, "PaginatedConversations"))
    def get(self, request):
        """List your tutor conversations, most recently active first (paginated)."""
        return paginate(request, self, selectors.conversation_list(user=request.user), ConversationOutputSerializer)

    @extend_schema(operation_id="conversations_create", request=InputSerializer, responses={201: ConversationOutputSerializer})
    def post(self, request):
        """Start a conversation over some materials, a plan, a plan's session, or all your materials.

        Answers 201 with a `Location` header. Without refIds it searches your whole library, materials
        added later included.
        """
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        conversation = conversation_create(
            owner=request.user,
            ref_ids=values.get("refIds") or [],
            title=values.get("title", ""),
            plan_id=values.get("planId"),
            session_number=values.get("session"),
        )
        location = request.build_absolute_uri(reverse("conversation-detail", kwargs={"conversation_id": conversation.pk}))
        return Response(ConversationOutputSerializer(conversation).data, status=status.HTTP_201_CREATED, headers={"Location": location})


class ConversationDetailApi(APIView):
    @extend_schema(operation_id="conversations_retrieve", responses=ConversationDetailSerializer)
    def get(self, request, conversation_id: int):
        """Read a conversation with its messages, sources, summary and entities."""
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        return Response(ConversationDetailSerializer(conversation, context={"user": request.user}).data)

    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ConversationUpdateInput"

        title = serializers.CharField(required=False, allow_blank=True, max_length=200)
        refIds = serializers.ListField(
            child=serializers.CharField(max_length=32), required=False, max_length=200, help_text="search these materials from now on"
        )
        allMaterials = serializers.BooleanField(required=False, help_text="true: search the whole library, materials added later included")

    @extend_schema(operation_id="conversations_partial_update", request=UpdateSerializer, responses=ConversationDetailSerializer)
    def patch(self, request, conversation_id: int):
        """Rename a conversation, or change the materials it searches."""
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if values.get("allMaterials"):
            conversation = conversation_sources_update(conversation=conversation, ref_ids=None)
        elif "refIds" in values:
            conversation = conversation_sources_update(conversation=conversation, ref_ids=values["refIds"])
        if "title" in values:
            conversation = conversation_rename(conversation=conversation, title=values["title"])
        return Response(ConversationDetailSerializer(conversation, context={"user": request.user}).data)

    @extend_schema(operation_id="conversations_destroy", responses={204: None})
    def delete(self, request, conversation_id: int):
        """Delete a conversation with its messages and memory."""
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        conversation_delete(conversation=conversation)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MessageCreateApi(APIView):
    renderer_classes = [renderers.JSONRenderer, EventStreamRenderer]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MessageCreateInput"

        content = serializers.CharField(max_length=4000, trim_whitespace=True)
        mode = serializers.ChoiceField(choices=["standard", "agentic"], default="standard")

    class ReplySerializer(MessageOutputSerializer):
        """The tutor's message, in the same shape as the conversation's messages (plus ``answer``)."""

        class Meta:
            ref_name = "Reply"

        answer = serializers.CharField(source="content", help_text="the same as content (kept for existing clients)")

    @extend_schema(
        operation_id="conversations_messages_create",
        request=InputSerializer,
        responses={
            (201, "application/json"): ReplySerializer,
            (200, "text/event-stream"): OpenApiResponse(
                OpenApiTypes.STR,
                description=STREAM_FORMAT,
                examples=[OpenApiExample("stream", value=STREAM_EXAMPLE, media_type="text/event-stream", status_codes=["200"])],
            ),
        },
    )
    def post(self, request, conversation_id: int):
        """Ask the tutor; the answer cites the pages it quotes, or says it cannot answer from your materials.

        By default the answer comes whole, as JSON (201). Send `Accept: text/event-stream` to receive it
        as server-sent events instead (200), word by word; the stream format is described with the 200
        response. Either way the turn is saved in the conversation.
        """
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        content, mode = data.validated_data["content"], data.validated_data["mode"]
        if "text/event-stream" in request.headers.get("Accept", ""):
            return self._stream(conversation, content, mode)
        message = chat_reply(conversation=conversation, content=content, mode=mode)
        return Response(self.ReplySerializer(message).data, status=status.HTTP_201_CREATED)

    def _stream(self, conversation, content, mode):
        def events():
            for kind, payload in chat_reply_stream(conversation=conversation, content=content, mode=mode):
                if kind == "done":
                    message = conversation.messages.get(pk=payload)
                    payload = self.ReplySerializer(message).data
                yield f"event: {kind}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"

        response = StreamingHttpResponse(events(), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"
        return response


class MessageFlagApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MessageFlagInput"

        kind = serializers.ChoiceField(choices=[("wrong_answer", "the answer is wrong"), ("citation_off", "a citation is off the point")])
        citation = serializers.IntegerField(required=False, min_value=1, help_text="the [n] of the quote that is off the point")
        comment = serializers.CharField(required=False, allow_blank=True, max_length=2000, default="")

    class FlagSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MessageFlag"

        courseId = serializers.IntegerField(source="course_id")
        kind = serializers.CharField()
        refId = serializers.CharField(source="ref_id")
        pageNumber = serializers.IntegerField(source="page_number", allow_null=True)

    @extend_schema(operation_id="conversations_messages_flag", request=InputSerializer, responses={201: FlagSerializer})
    def post(self, request, conversation_id: int, message_id: int):
        """Flag an answer that quotes a course's material as wrong, or one of its citations as off the point:
        the course's teacher sees the question, the answer and the quote (your name only if you share it).
        400 `not_a_course_answer` when the answer quotes no course material."""
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        flag = message_flag(user=request.user, conversation=conversation, message_id=message_id, **data.validated_data)
        return Response(self.FlagSerializer(flag).data, status=status.HTTP_201_CREATED)
