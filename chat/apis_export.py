"""Download a conversation as Markdown."""

from drf_spectacular.utils import extend_schema

from plans.apis_notes import MARKDOWN_RESPONSE, DownloadApi

from . import selectors
from .services.export import conversation_markdown


class ConversationExportApi(DownloadApi):
    @extend_schema(operation_id="conversations_export_markdown", responses=MARKDOWN_RESPONSE)
    def get(self, request, conversation_id: int):
        conversation = selectors.access_conversation(user=request.user, conversation_id=conversation_id)
        return self.download(conversation_markdown(user=request.user, conversation=conversation))
