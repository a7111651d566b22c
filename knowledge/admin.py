from django.contrib import admin, messages

from .models import Chunk, Material
from .services.embedding import active_embedder
from .services.materials import material_reembed_start, material_reingest


@admin.register(Material)
class MaterialAdmin(admin.ModelAdmin):
    list_display = ("ref_id", "title", "owner", "status", "progress", "page_count", "chunk_count", "embedding_model", "created_at")
    list_filter = ("status", "type", "embedding_model")
    search_fields = ("ref_id", "title", "original_filename", "owner__email")
    list_select_related = ("owner",)
    readonly_fields = [field.name for field in Material._meta.fields if field.name not in ("title", "type")]
    actions = ["rerun_ingestion", "reembed_with_current_model"]
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin is for content managers across tenants: staff-only by Django's admin permissions.
        return Material.objects.unscoped().select_related("owner")

    @admin.display(description="progress")
    def progress(self, material):
        return f"{material.progress_done}/{material.progress_total}"

    @admin.action(description="Re-run ingestion")
    def rerun_ingestion(self, request, queryset):
        for material in queryset:
            material_reingest(material=material)
        self.message_user(request, f"Queued ingestion of {queryset.count()} material(s).", messages.SUCCESS)

    @admin.action(description="Re-embed with the current model")
    def reembed_with_current_model(self, request, queryset):
        model = active_embedder().model
        ready = queryset.filter(status=Material.Status.READY)
        for material in ready:
            material_reembed_start(material=material, model=model)
        self.message_user(request, f"Queued re-embedding of {ready.count()} READY material(s) with {model}.", messages.SUCCESS)


@admin.register(Chunk)
class ChunkAdmin(admin.ModelAdmin):
    list_display = ("material", "chunk_index", "page_number", "page_end", "token_count", "section_title", "owner")
    list_filter = ("type",)
    search_fields = ("content", "material__ref_id", "material__title")
    list_select_related = ("material", "owner")
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin is for content managers across tenants.
        return Chunk.objects.unscoped().select_related("material", "owner")

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
