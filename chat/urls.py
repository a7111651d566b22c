from django.urls import path

from . import apis

urlpatterns = [
    path("conversations/", apis.ConversationListCreateApi.as_view(), name="conversation-list"),
    path("conversations/<int:conversation_id>/", apis.ConversationDetailApi.as_view(), name="conversation-detail"),
    path("conversations/<int:conversation_id>/messages", apis.MessageCreateApi.as_view(), name="conversation-messages"),
]
