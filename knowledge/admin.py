from django import forms
from django.contrib import admin, messages
from django.utils.html import format_html

from core.providers import active_embedder

from .failure_reasons import reason_translate
from .models import Chunk, Material
from .services.materials import RetryWillNotHelp, UploadRejected, material_create, material_reingest
from .services.reembed import material_reembed_start

FAILURE_COLUMN_CHARS = 70  # the failure reason in the list, cut so the list fits a 1366 px screen (full text on hover)


class MaterialAddForm(forms.ModelForm):
    """Upload a file for a learner: the same checks and ingestion as an upload through the API."""

    upload = forms.FileField(label="File", help_text="PDF, .txt, .md, .pptx, .docx or .hwpx; checked and ingested as any upload.")
    title = forms.CharField(required=False, max_length=300, help_text="Leave empty to use the file name.")

    class Meta:
        model = Material
        fields = ["owner", "title", "type"]

    def clean(self):
        # The upload service both checks the file (size, type, page limit) and stores it. Calling it here
        # lets a refused file come back as a form error; the admin's transaction queues the ingestion
        # once the row is committed, exactly as the API does.
        cleaned = super().clean()
        if self.errors:
            return cleaned
        try:
            self.material = material_create(
                owner=cleaned["owner"], upload=cleaned["upload"], title=cleaned.get("title") or "", type=cleaned.get("type") or "material"
            )
        except UploadRejected as error:
            raise forms.ValidationError({"upload": str(error)}) from error
        return cleaned


@admin.register(Material)
class MaterialAdmin(admin.ModelAdmin):
    # Few, short columns: the list fits a 1366 px screen. Page and chunk counts and the model are on each row's page.
    list_display = ("title", "owner", "state", "failure", "created")
    list_filter = ("status", "type", "embedding_model")
    search_fields = ("ref_id", "title", "original_filename", "owner__email")
    list_select_related = ("owner",)
    readonly_fields = ["failure_reason", *[field.name for field in Material._meta.fields if field.name not in ("title", "type")]]
    # The owner is searched by email as one types (accounts' UserAdmin searches emails), not typed as a numeric id.
    autocomplete_fields = ("owner",)
    actions = ["rerun_ingestion", "reembed_with_current_model"]
    show_full_result_count = False

    def get_queryset(self, request):
        # Admin is for content managers across tenants: staff-only by Django's admin permissions.
        return Material.objects.unscoped().select_related("owner")

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = MaterialAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request, obj=None):
        if obj is None:
            return ["upload", "owner", "title", "type"]
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.readonly_fields

    def save_form(self, request, form, change):
        if change:
            return super().save_form(request, form, change)
        return form.material  # created by the upload service while the form was validated

    def save_model(self, request, obj, form, change):
        if change:
            super().save_model(request, obj, form, change)

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)  # an added material has no relations to save

    @admin.display(description="status", ordering="status")
    def state(self, material):
        """The status, with its progress while the material is processed ("EMBEDDING 120/453")."""
        if material.status in (Material.Status.READY, Material.Status.FAILED):
            return material.get_status_display()
        return f"{material.get_status_display()} {material.progress_done}/{material.progress_total}"

    @admin.display(description="created", ordering="created_at")
    def created(self, material):
        return material.created_at.date().isoformat()

    @admin.display(description="failure")
    def failure(self, material):
        if not material.error_message:
            return ""
        reason = self.failure_reason(material)
        short = reason if len(reason) <= FAILURE_COLUMN_CHARS else reason[: FAILURE_COLUMN_CHARS - 1].rstrip() + "…"
        return format_html('<span title="{}">{}</span> <code>{}</code>', reason, short, material.error_code)

    @admin.display(description="failure reason")
    def failure_reason(self, material):
        return reason_translate(message=material.error_message, code=material.error_code, filename=material.original_filename)

    @admin.action(description="Re-run ingestion")
    def rerun_ingestion(self, request, queryset):
        queued, hopeless = 0, []
        for material in queryset:
            try:
                material_reingest(material=material)
                queued += 1
            except RetryWillNotHelp:
                hopeless.append(f"{material.title} ({material.error_code})")
        self.message_user(request, f"Queued ingestion of {queued} material(s).", messages.SUCCESS)
        if hopeless:
            self.message_user(
                request,
                f"Not queued — the same file would fail the same way, its owner needs to upload a fixed copy: {', '.join(hopeless)}.",
                messages.WARNING,
            )

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
