"""Notes, downloads (Markdown, Anki, CSV), a plan's settings and days, and a material's study guide."""

from dataclasses import asdict

from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api_errors import ApiError
from core.pagination import paginate, paginated_schema
from core.providers import configured_llm

from . import selectors, selectors_guide
from .models import Note
from .services import export
from .services.notes import UNCHANGED, note_create_or_existing, note_delete, note_update
from .services.plans import CHOSEN_RANGES, plan_exam_date_set, plan_regenerate

# --- Notes -----------------------------------------------------------------------------------------


class NoteCitationSerializer(serializers.Serializer):
    refId = serializers.CharField(max_length=32)
    title = serializers.CharField(max_length=300, required=False, allow_blank=True)
    pageNumber = serializers.IntegerField(min_value=1, max_value=1_000_000)
    pageEnd = serializers.IntegerField(min_value=1, max_value=1_000_000, required=False)
    quote = serializers.CharField(max_length=2000, required=False, allow_blank=True)


class NoteSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Note.Kind.choices)
    text = serializers.CharField()
    comment = serializers.CharField()
    citations = NoteCitationSerializer(many=True)
    planId = serializers.IntegerField(source="plan_id", allow_null=True)
    planTitle = serializers.CharField(source="plan.title", allow_null=True, default=None)
    source = serializers.CharField(help_text="where it was saved from, e.g. a conversation or a session")
    createdAt = serializers.DateTimeField(source="created_at")


PLAN_FILTER = OpenApiParameter("planId", int, required=False, description="only the notes filed under this plan")


def _plan_filter(request) -> int | None:
    raw = request.query_params.get("planId")
    if raw in (None, ""):
        return None
    try:
        return int(raw)
    except ValueError:
        raise ApiError("planId must be a number.", code="invalid", details={"planId": raw}) from None


class NoteListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "NoteCreateInput"

        kind = serializers.ChoiceField(choices=Note.Kind.choices, default=Note.Kind.OWN)
        text = serializers.CharField(max_length=20_000)
        comment = serializers.CharField(max_length=5_000, required=False, allow_blank=True, default="")
        citations = NoteCitationSerializer(many=True, required=False, max_length=20)
        planId = serializers.IntegerField(required=False, allow_null=True, min_value=1)
        source = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")

    @extend_schema(operation_id="notes_list", parameters=[PLAN_FILTER], responses=paginated_schema(NoteSerializer, "PaginatedNotes"))
    def get(self, request):
        notes = selectors_guide.note_list(user=request.user, plan_id=_plan_filter(request))
        return paginate(request, self, notes, NoteSerializer)

    @extend_schema(
        operation_id="notes_create",
        description="A key point, passage or tutor answer saved again from the same place answers 200 with the note "
        "already saved (one note per source); a new note answers 201.",
        request=InputSerializer,
        responses={201: NoteSerializer, 200: NoteSerializer},
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        note, created = note_create_or_existing(
            owner=request.user,
            kind=values["kind"],
            text=values["text"],
            comment=values["comment"],
            citations=values.get("citations"),
            plan_id=values.get("planId"),
            source=values["source"],
        )
        return Response(NoteSerializer(note).data, status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class NoteDetailApi(APIView):
    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "NoteUpdateInput"

        text = serializers.CharField(max_length=20_000, required=False)
        comment = serializers.CharField(max_length=5_000, required=False, allow_blank=True)
        planId = serializers.IntegerField(required=False, allow_null=True, min_value=1)

    @extend_schema(operation_id="notes_retrieve", responses=NoteSerializer)
    def get(self, request, note_id: int):
        return Response(NoteSerializer(selectors_guide.access_note(user=request.user, note_id=note_id)).data)

    @extend_schema(operation_id="notes_partial_update", request=UpdateSerializer, responses=NoteSerializer)
    def patch(self, request, note_id: int):
        note = selectors_guide.access_note(user=request.user, note_id=note_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        note = note_update(note=note, text=values.get("text"), comment=values.get("comment"), plan_id=values.get("planId", UNCHANGED))
        return Response(NoteSerializer(note).data)

    @extend_schema(operation_id="notes_destroy", responses={204: None})
    def delete(self, request, note_id: int):
        note_delete(note=selectors_guide.access_note(user=request.user, note_id=note_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Downloads ---------------------------------------------------------------------------------------


class AnyAccept(DefaultContentNegotiation):
    """A download is what it is whatever the client accepts (``Accept: text/markdown`` must not be a
    406); errors are then answered as JSON."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class DownloadApi(APIView):
    content_negotiation_class = AnyAccept

    @staticmethod
    def download(result: export.Export) -> HttpResponse:
        response = HttpResponse(result.content, content_type=result.content_type)
        response["Content-Disposition"] = content_disposition_header(True, result.filename)
        return response


MARKDOWN_RESPONSE = {(200, "text/markdown"): OpenApiTypes.STR}


class NotesExportApi(DownloadApi):
    @extend_schema(operation_id="notes_export_markdown", parameters=[PLAN_FILTER], responses=MARKDOWN_RESPONSE)
    def get(self, request):
        plan_id = _plan_filter(request)
        title = "Notes"
        if plan_id is not None:
            title = f"Notes · {selectors.access_plan(user=request.user, plan_id=plan_id).title}"
        return self.download(
            export.notes_markdown(user=request.user, notes=selectors_guide.note_list(user=request.user, plan_id=plan_id), title=title)
        )


class PlanExportApi(DownloadApi):
    @extend_schema(operation_id="plans_export_markdown", responses=MARKDOWN_RESPONSE)
    def get(self, request, plan_id: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        return self.download(export.plan_markdown(user=request.user, plan=plan))


class SessionExportApi(DownloadApi):
    @extend_schema(operation_id="plans_sessions_export_markdown", responses=MARKDOWN_RESPONSE)
    def get(self, request, plan_id: int, number: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        session = selectors.access_session(user=request.user, plan=plan, number=number)
        return self.download(export.session_markdown(user=request.user, plan=plan, session=session))


class DeckAnkiApi(DownloadApi):
    @extend_schema(operation_id="plans_deck_anki", responses={(200, export.ANKI.split(";")[0]): OpenApiTypes.BINARY})
    def get(self, request, plan_id: int):
        return self.download(export.deck_anki(user=request.user, plan=selectors.access_plan(user=request.user, plan_id=plan_id)))


class DeckCsvApi(DownloadApi):
    @extend_schema(operation_id="plans_deck_csv", responses={(200, "text/csv"): OpenApiTypes.STR})
    def get(self, request, plan_id: int):
        return self.download(export.deck_csv(user=request.user, plan=selectors.access_plan(user=request.user, plan_id=plan_id)))


# --- A plan's settings and days ----------------------------------------------------------------------


class ChosenRangeSerializer(serializers.Serializer):
    refId = serializers.CharField(max_length=32)
    pages = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=1_000_000), min_length=2, max_length=2)


class ChapterSerializer(serializers.Serializer):
    title = serializers.CharField()
    pages = serializers.ListField(child=serializers.IntegerField(), help_text="first and last, as positions in the file")
    labels = serializers.ListField(child=serializers.CharField(), help_text="the same pages as the book prints them")


class SettingsMaterialSerializer(serializers.Serializer):
    refId = serializers.CharField()
    title = serializers.CharField()
    chapters = ChapterSerializer(many=True, help_text="what can be chosen: the material's chapters with their pages")


class PlanSettingsSerializer(serializers.Serializer):
    refIds = serializers.ListField(child=serializers.CharField())
    ranges = ChosenRangeSerializer(many=True, help_text="the chapters or pages chosen; a material with none is read whole")
    minutesPerSession = serializers.IntegerField()
    examDate = serializers.DateField(allow_null=True)
    materials = SettingsMaterialSerializer(many=True)


def _settings(*, user, plan) -> dict:
    library = selectors.library_ref_ids(user=user)  # a removed material has no chapters to choose
    return {
        "refIds": plan.ref_ids,
        "ranges": plan.assumptions.get(CHOSEN_RANGES, []),
        "minutesPerSession": plan.minutes_per_session,
        "examDate": plan.exam_date,
        "materials": [
            {
                "refId": material.ref_id,
                "title": material.title,
                "chapters": selectors_guide.material_chapters(user=user, ref_id=material.ref_id) if material.ref_id in library else [],
            }
            for material in plan.snapshot.all()
        ],
    }


class PlanSettingsApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PlanSettingsInput"

        refIds = serializers.ListField(child=serializers.CharField(max_length=32), min_length=1, max_length=50, required=False)
        ranges = ChosenRangeSerializer(many=True, required=False, max_length=500)
        minutesPerSession = serializers.IntegerField(required=False, min_value=5, max_value=240)
        examDate = serializers.DateField(required=False, allow_null=True)

    @extend_schema(operation_id="plans_settings_retrieve", responses=PlanSettingsSerializer)
    def get(self, request, plan_id: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        return Response(PlanSettingsSerializer(_settings(user=request.user, plan=plan)).data)

    @extend_schema(
        operation_id="plans_settings_partial_update",
        description="Changing the materials, the chosen chapters or pages, or the minutes regenerates the plan (202; "
        "completed sessions whose ranges come out the same keep their progress). The exam date alone spreads the "
        "sessions still to study over the days left before it (200).",
        request=InputSerializer,
        responses={200: PlanSettingsSerializer, 202: PlanSettingsSerializer},
    )
    def patch(self, request, plan_id: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        if "examDate" in values:
            plan_exam_date_set(plan=plan, exam_date=values["examDate"])
        rebuild = any(name in values for name in ("refIds", "ranges", "minutesPerSession"))
        if rebuild:
            plan_regenerate(
                plan=plan,
                ref_ids=values.get("refIds"),
                ranges=values.get("ranges"),
                minutes_per_session=values.get("minutesPerSession"),
            )
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        body = PlanSettingsSerializer(_settings(user=request.user, plan=plan)).data
        return Response(body, status=status.HTTP_202_ACCEPTED if rebuild else status.HTTP_200_OK)


class ScheduledSessionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    status = serializers.CharField()
    scheduledFor = serializers.DateField(source="scheduled_for", allow_null=True)


class PlanTodaySerializer(serializers.Serializer):
    examDate = serializers.DateField(allow_null=True)
    daysLeft = serializers.IntegerField(allow_null=True)
    dueSessions = serializers.ListField(child=serializers.IntegerField(), help_text="sessions scheduled for today or earlier, not done")
    cardsDue = serializers.IntegerField(help_text="the plan's review cards due now")
    sessions = ScheduledSessionSerializer(many=True)


class PlanTodayApi(APIView):
    @extend_schema(operation_id="plans_today", responses=PlanTodaySerializer)
    def get(self, request, plan_id: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        body = {**selectors_guide.plan_today(user=request.user, plan=plan), "sessions": plan.sessions.all()}
        return Response(PlanTodaySerializer(body).data)


# --- Study guide -------------------------------------------------------------------------------------


class GuideKeyPointSerializer(serializers.Serializer):
    text = serializers.CharField()
    refId = serializers.CharField()
    chunkIndex = serializers.IntegerField()
    pageNumber = serializers.IntegerField()
    pageEnd = serializers.IntegerField(required=False)


class GuideSectionSerializer(serializers.Serializer):
    title = serializers.CharField(allow_blank=True)
    level = serializers.IntegerField()
    pageNumber = serializers.IntegerField()
    keyPoints = GuideKeyPointSerializer(many=True)


class GlossaryEntrySerializer(serializers.Serializer):
    term = serializers.CharField()
    aliases = serializers.ListField(child=serializers.CharField())
    definition = serializers.CharField(help_text="the sentence that defines it")
    pageNumber = serializers.IntegerField()
    pageEnd = serializers.IntegerField()


class StudyGuideSerializer(serializers.Serializer):
    refId = serializers.CharField(source="ref_id")
    title = serializers.CharField()
    pageCount = serializers.IntegerField(source="page_count")
    planId = serializers.IntegerField(source="plan_id", allow_null=True, help_text="the plan whose sessions gave the key points")
    sections = GuideSectionSerializer(many=True)
    glossary = GlossaryEntrySerializer(many=True)


class StudyGuideApi(APIView):
    @extend_schema(operation_id="materials_guide", responses=StudyGuideSerializer)
    def get(self, request, ref_id: str):
        guide = selectors_guide.study_guide(user=request.user, ref_id=ref_id, llm=configured_llm())
        return Response(StudyGuideSerializer(asdict(guide)).data)
