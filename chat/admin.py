from django.contrib import admin

from .models import Conversation, Message


class MessageInline(admin.TabularInline):
    model = Message
    fields = ("turn", "role", "content", "refused", "confidence", "generator", "usage")
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "owner", "turn_count", "updated_at")
    search_fields = ("title", "owner__email")
    list_select_related = ("owner",)
    # Only the title can be changed here; what was said and searched stays as it was.
    readonly_fields = [field.name for field in Conversation._meta.fields if field.name not in ("id", "title")]
    inlines = [MessageInline]
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin is for content managers across tenants.
        return Conversation.objects.unscoped().select_related("owner")

    def has_add_permission(self, request):
        return False


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ("conversation", "turn", "role", "refused", "generator", "total_ms", "tokens", "created_at")
    list_filter = ("role", "refused", "mode")
    search_fields = ("content",)
    list_select_related = ("conversation",)
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin: cost and timing of every turn across tenants (read-only).
        return Message.objects.unscoped().select_related("conversation")

    @admin.display(description="total ms")
    def total_ms(self, message):
        return message.usage.get("totalMs")

    @admin.display(description="tokens in/out")
    def tokens(self, message):
        return f"{message.usage.get('inputTokens', 0)}/{message.usage.get('outputTokens', 0)}"

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
