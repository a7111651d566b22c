from django.contrib import admin

from .models import Module, Plan, StudySession


class ModuleInline(admin.TabularInline):
    model = Module
    fields = ("position", "title", "ref_id", "chunk_start", "chunk_end", "page_first", "page_last", "tokens")
    readonly_fields = fields
    extra = 0
    can_delete = False


class SessionInline(admin.TabularInline):
    model = StudySession
    fields = ("number", "title", "estimated_minutes", "status", "ranges")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(Plan)
class PlanAdmin(admin.ModelAdmin):
    list_display = ("id", "title", "owner", "status", "minutes_per_session", "created_at")
    list_filter = ("status",)
    search_fields = ("title", "owner__email")
    list_select_related = ("owner",)
    readonly_fields = ("owner", "status", "progress_done", "progress_total", "error_message", "assumptions", "created_at", "updated_at")
    inlines = [ModuleInline, SessionInline]
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin is for content managers across tenants.
        return Plan.objects.unscoped().select_related("owner")

    def has_add_permission(self, request):
        # A plan is built by plan_create from a learner's READY materials (the API or the plans page);
        # an empty admin form could only make a plan with no owner and no materials.
        return False
