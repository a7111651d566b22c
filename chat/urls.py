from django.urls import path

from . import apis, apis_export

urlpatterns = [
    path("conversations/", apis.ConversationListCreateApi.as_view(), name="conversation-list"),
    path("conversations/<int:conversation_id>/", apis.ConversationDetailApi.as_view(), name="conversation-detail"),
    path("conversations/<int:conversation_id>/messages", apis.MessageCreateApi.as_view(), name="conversation-messages"),
    path(
        "conversations/<int:conversation_id>/messages/<int:message_id>/flag",
        apis.MessageFlagApi.as_view(),
        name="conversation-message-flag",
    ),
    path("conversations/<int:conversation_id>/export.md", apis_export.ConversationExportApi.as_view(), name="conversation-export"),
]
