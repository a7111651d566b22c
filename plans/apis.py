"""Plans API: create from READY materials, read modules and sessions, study sessions, progress."""

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from core.pagination import paginate, paginated_schema
from core.providers import configured_llm
from knowledge.apis import FailureSerializer, ProcessingSerializer

from . import selectors
from .failure_reasons import plan_failure_code, plan_failure_reason
from .models import StudySession
from .services.plans import plan_create, plan_delete, plan_regenerate, plan_rename, session_progress_record
from .services.review import cards_from_key_points
from .services.session_content import session_content


def _plan_location(request, plan) -> str:
    return request.build_absolute_uri(reverse("plan-detail", kwargs={"plan_id": plan.pk}))


class RangeSerializer(serializers.Serializer):
    refId = serializers.CharField()
    chunkRange = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)
    pages = serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2)


class ObjectivesField(serializers.ListField):
    """A session's objectives in the language the request asks for (Accept-Language): "Explain the stack" reads
    "the stack 설명하기" for a Korean reader (``baeum.study.objectives``)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("child", serializers.CharField())
        kwargs.setdefault("help_text", "what the session teaches, the template's words in the request's language")
        super().__init__(**kwargs)

    def to_representation(self, data):
        return selectors.objectives_for_reader(data)


class SessionSummarySerializer(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    objectives = ObjectivesField()
    ranges = RangeSerializer(many=True)
    estimatedMinutes = serializers.IntegerField(source="estimated_minutes")
    status = serializers.CharField()


class ModuleSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    title = serializers.CharField()
    refId = serializers.CharField(source="ref_id")
    chunkRange = serializers.SerializerMethodField()
    pages = serializers.SerializerMethodField()
    optional = serializers.BooleanField(help_text="front or back matter (title, contents, preface, index…): optional reading, no session")

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_chunkRange(self, module) -> list[int]:
        return [module.chunk_start, module.chunk_end]

    @extend_schema_field(serializers.ListField(child=serializers.IntegerField()))
    def get_pages(self, module) -> list[int]:
        return [module.page_first, module.page_last]


class SnapshotSerializer(serializers.Serializer):
    refId = serializers.CharField(source="ref_id")
    title = serializers.CharField()
    chunkCount = serializers.IntegerField(source="chunk_count")
    pageCount = serializers.IntegerField(source="page_count")


class ProgressSerializer(serializers.Serializer):
    class Meta:
        ref_name = "PlanProgress"

    percentComplete = serializers.IntegerField()
    completed = serializers.IntegerField()
    total = serializers.IntegerField()
    nextSession = serializers.IntegerField(allow_null=True)
    removedSessions = serializers.IntegerField(help_text="sessions of materials removed from the library: not counted; regenerate the plan")


class PlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    goal = serializers.CharField()
    minutesPerSession = serializers.IntegerField(source="minutes_per_session")
    language = serializers.CharField()
    status = serializers.CharField()
    processing = serializers.SerializerMethodField()
    generation = serializers.SerializerMethodField(help_text="the same as processing (kept for existing clients)")
    failure = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField(help_text='failure.message, or "" (kept for existing clients)')
    errorCode = serializers.SerializerMethodField(help_text='failure.code, or ""')
    materials = SnapshotSerializer(source="snapshot", many=True)
    progress = serializers.SerializerMethodField()
    assumptions = serializers.DictField()
    createdAt = serializers.DateTimeField(source="created_at")

    @extend_schema_field(ProcessingSerializer)
    def get_processing(self, plan) -> dict:
        return {"stage": plan.status, "done": plan.progress_done, "total": plan.progress_total}

    @extend_schema_field(ProcessingSerializer)
    def get_generation(self, plan) -> dict:
        return self.get_processing(plan)

    @extend_schema_field(FailureSerializer(allow_null=True))
    def get_failure(self, plan) -> dict | None:
        code = plan_failure_code(plan)
        return {"code": code, "message": plan_failure_reason(plan)} if code else None

    def get_error(self, plan) -> str:
        return plan_failure_reason(plan)

    def get_errorCode(self, plan) -> str:  # noqa: N802 - the API's field name
        return plan_failure_code(plan)

    @extend_schema_field(ProgressSerializer)
    def get_progress(self, plan) -> dict:
        return selectors.plan_progress(plan, self._removed(plan))

    def _removed(self, plan) -> dict[str, str]:
        library = self.context.get("library")
        return {} if library is None else selectors.removed_materials(user=plan.owner, plan=plan, library=library)


class PlanDetailSerializer(PlanSerializer):
    modules = ModuleSerializer(many=True)
    sessions = serializers.SerializerMethodField()

    @extend_schema_field(SessionSummarySerializer(many=True))
    def get_sessions(self, plan) -> list:
        removed = self._removed(plan)
        return [
            {**SessionSummarySerializer(session).data, "removed": selectors.session_is_removed(session, removed)}
            for session in plan.sessions.all()
        ]


class PlanListCreateApi(APIView):
    def get_throttles(self):
        if self.request.method == "POST":
            self.throttle_scope = "plans"  # generation is work for the shared worker
            return [ScopedRateThrottle(), UserRateThrottle()]
        return super().get_throttles()

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PlanCreateInput"

        title = serializers.CharField(max_length=200, required=False, allow_blank=True)
        refIds = serializers.ListField(child=serializers.CharField(max_length=32), min_length=1, max_length=50)
        goal = serializers.CharField(required=False, allow_blank=True, max_length=2000)
        minutesPerSession = serializers.IntegerField(required=False, min_value=5, max_value=240, default=25)
        language = serializers.ChoiceField(choices=["", "en", "ko"], required=False, default="")

    @extend_schema(operation_id="plans_list", responses=paginated_schema(PlanSerializer, "PaginatedPlans"))
    def get(self, request):
        """List your study plans, newest first (paginated), with study progress."""
        library = selectors.library_ref_ids(user=request.user)
        return paginate(request, self, selectors.plan_list(user=request.user), PlanSerializer, context={"library": library})

    @extend_schema(operation_id="plans_create", request=InputSerializer, responses={202: PlanSerializer})
    def post(self, request):
        """Create a study plan from READY materials; it is generated in the background.

        Answers 202 with the plan and a `Location` header; poll it until its status is READY or FAILED.
        400 `material_not_ready` names a material that is not READY yet.
        """
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        plan = plan_create(
            owner=request.user,
            title=values.get("title", ""),
            ref_ids=values["refIds"],
            goal=values.get("goal", ""),
            minutes_per_session=values["minutesPerSession"],
            language=values["language"],
        )
        plan = selectors.access_plan(user=request.user, plan_id=plan.pk)
        return Response(PlanSerializer(plan).data, status=status.HTTP_202_ACCEPTED, headers={"Location": _plan_location(request, plan)})


class PlanDetailApi(APIView):
    @extend_schema(operation_id="plans_retrieve", responses=PlanDetailSerializer)
    def get(self, request, plan_id: int):
        """Read a plan with its modules, sessions and progress."""
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        return Response(PlanDetailSerializer(plan, context={"library": selectors.library_ref_ids(user=request.user)}).data)

    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PlanUpdateInput"

        title = serializers.CharField(max_length=200)

    @extend_schema(operation_id="plans_partial_update", request=UpdateSerializer, responses=PlanDetailSerializer)
    def patch(self, request, plan_id: int):
        """Rename a plan."""
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        plan_rename(plan=plan, title=data.validated_data["title"])
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        return Response(PlanDetailSerializer(plan, context={"library": selectors.library_ref_ids(user=request.user)}).data)

    @extend_schema(operation_id="plans_destroy", responses={204: None})
    def delete(self, request, plan_id: int):
        """Delete a plan with its sessions and progress (its materials stay)."""
        plan_delete(plan=selectors.access_plan(user=request.user, plan_id=plan_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlanRegenerateApi(APIView):
    throttle_classes = [ScopedRateThrottle, UserRateThrottle]
    throttle_scope = "plans"  # work for the shared worker

    @extend_schema(operation_id="plans_regenerate", request=None, responses={202: PlanSerializer})
    def post(self, request, plan_id: int):
        """Build the plan again from its materials still in the library.

        Completed sessions whose ranges are unchanged keep their progress. Answers 202 with a `Location`
        header; 409 `materials_removed` when every material of the plan was deleted.
        """
        plan = plan_regenerate(plan=selectors.access_plan(user=request.user, plan_id=plan_id))
        return Response(
            PlanSerializer(selectors.access_plan(user=request.user, plan_id=plan.pk)).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": _plan_location(request, plan)},
        )


class SessionDetailSerializer(SessionSummarySerializer):
    parts = serializers.ListField(child=serializers.DictField())
    keyPoints = serializers.ListField(child=serializers.DictField())
    questions = serializers.ListField(child=serializers.DictField())
    answers = serializers.DictField()


class SessionDetailApi(APIView):
    @extend_schema(operation_id="plans_sessions_retrieve", responses=SessionDetailSerializer)
    def get(self, request, plan_id: int, number: int):
        """Read one study session: objectives, its text page by page, key points and practice questions."""
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        session = selectors.access_session(user=request.user, plan=plan, number=number)
        content = session_content(user=request.user, plan=plan, session=session, llm=configured_llm())
        body = SessionSummarySerializer(session).data
        body.update(
            parts=content.parts,
            keyPoints=content.key_points,
            questions=content.questions,
            answers=session.answers,
            removed=bool(content.removed_materials),
            removedMaterials=content.removed_materials,
        )
        return Response(body)


class SessionProgressApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "SessionProgressInput"

        status = serializers.ChoiceField(choices=[StudySession.Status.STARTED, StudySession.Status.COMPLETED])
        answers = serializers.DictField(child=serializers.CharField(max_length=500, allow_blank=True), required=False)

    @extend_schema(operation_id="plans_sessions_progress", request=InputSerializer, responses={200: ProgressSerializer})
    def post(self, request, plan_id: int, number: int):
        """Mark a session started or completed (with practice answers); answers the plan's progress."""
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        session = selectors.access_session(user=request.user, plan=plan, number=number)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session_progress_record(session=session, status=data.validated_data["status"], answers=data.validated_data.get("answers"))
        if data.validated_data["status"] == StudySession.Status.COMPLETED:
            cards_from_key_points(user=request.user, plan=plan, session=session)  # what was learnt comes back for review
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        return Response(selectors.plan_progress(plan, selectors.removed_materials(user=request.user, plan=plan)))
