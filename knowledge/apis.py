"""DRF endpoints of the knowledge base: one class per operation, no business logic here."""

from django.http import FileResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle, UserRateThrottle
from rest_framework.views import APIView

from core.api_errors import ApiError
from core.pagination import paginate, paginated_schema

from . import selectors
from .failure_reasons import reason_translate
from .models import Material
from .selectors.materials import material_file_open
from .services.materials import material_create, material_delete, material_publish, material_reingest, material_rename


def _material_location(request, material: Material) -> str:
    return request.build_absolute_uri(reverse("material-detail", kwargs={"ref_id": material.ref_id}))


class ProcessingSerializer(serializers.Serializer):
    """Where a material's ingestion (or a plan's generation) is: one shape for both."""

    class Meta:
        ref_name = "Processing"

    stage = serializers.CharField(
        help_text="the status it is in (PENDING, EXTRACTING, OCR, CHUNKING, EMBEDDING, GENERATING, READY, FAILED)"
    )
    done = serializers.IntegerField(help_text="pages read, scanned pages recognised, passages embedded or materials planned so far")
    total = serializers.IntegerField(help_text="out of this many (0 while unknown)")


class FailureSerializer(serializers.Serializer):
    """Why processing failed: a stable code to branch on, a reason in the language of Accept-Language."""

    class Meta:
        ref_name = "Failure"

    code = serializers.CharField()
    message = serializers.CharField()


class EmbeddingUpgradeSerializer(serializers.Serializer):
    model = serializers.CharField()
    done = serializers.IntegerField()
    total = serializers.IntegerField()


class MaterialOutputSerializer(serializers.ModelSerializer):
    refId = serializers.CharField(source="ref_id")
    processing = serializers.SerializerMethodField()
    progress = serializers.SerializerMethodField(help_text="the same as processing (kept for existing clients)")
    pageCount = serializers.IntegerField(source="page_count")
    chunkCount = serializers.IntegerField(source="chunk_count")
    failure = serializers.SerializerMethodField()
    error = serializers.SerializerMethodField(help_text="failure.message, or null (kept for existing clients)")
    errorCode = serializers.CharField(source="error_code", help_text='failure.code, or "" (kept for existing clients)')
    filename = serializers.CharField(source="original_filename")
    sizeBytes = serializers.IntegerField(source="size_bytes")
    embeddingModel = serializers.CharField(source="embedding_model")
    embeddingUpgrade = serializers.SerializerMethodField()
    courseId = serializers.IntegerField(source="course_id", allow_null=True, help_text="the course it is published in, or null")
    createdAt = serializers.DateTimeField(source="created_at")

    class Meta:
        model = Material
        fields = [
            "refId",
            "title",
            "type",
            "status",
            "processing",
            "progress",
            "pageCount",
            "chunkCount",
            "failure",
            "error",
            "errorCode",
            "filename",
            "sizeBytes",
            "embeddingModel",
            "embeddingUpgrade",
            "courseId",
            "createdAt",
        ]

    @extend_schema_field(ProcessingSerializer)
    def get_processing(self, material: Material) -> dict:
        return {"stage": material.status, "done": material.progress_done, "total": material.progress_total}

    @extend_schema_field(ProcessingSerializer)
    def get_progress(self, material: Material) -> dict:
        return self.get_processing(material)

    @extend_schema_field(EmbeddingUpgradeSerializer(allow_null=True))
    def get_embeddingUpgrade(self, material: Material) -> dict | None:
        """The stronger embedding being written in the background; search uses ``embeddingModel`` until it is done."""
        if not material.pending_embedding_model:
            return None
        return {"model": material.pending_embedding_model, "done": material.reembed_done, "total": material.reembed_total}

    @extend_schema_field(FailureSerializer(allow_null=True))
    def get_failure(self, material: Material) -> dict | None:
        if material.status != Material.Status.FAILED:
            return None
        message = reason_translate(message=material.error_message, code=material.error_code, filename=material.original_filename)
        return {"code": material.error_code or "failed", "message": message}

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_error(self, material: Material) -> str | None:
        if not material.error_message:
            return None
        return reason_translate(message=material.error_message, code=material.error_code, filename=material.original_filename)


class MaterialListCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MaterialCreateInput"

        file = serializers.FileField()
        title = serializers.CharField(required=False, allow_blank=True, max_length=300)
        type = serializers.RegexField(r"^[a-z][a-z0-9_-]{0,39}$", required=False)

    class CreatedSerializer(serializers.Serializer):
        refId = serializers.CharField()
        status = serializers.CharField()

    def get_throttles(self):
        if self.request.method == "POST":
            self.throttle_scope = "uploads"
            return [ScopedRateThrottle(), UserRateThrottle()]
        return super().get_throttles()

    @extend_schema(
        operation_id="materials_list",
        parameters=[
            OpenApiParameter("status", str, enum=list(Material.Status.values), required=False),
            OpenApiParameter(
                "courseId", int, required=False, description="the materials of a course you teach or belong to, instead of yours"
            ),
        ],
        responses=paginated_schema(MaterialOutputSerializer, "PaginatedMaterials"),
    )
    def get(self, request):
        """List your materials, newest first (paginated; filter by status), or a course's (`courseId`)."""
        status_filter = request.query_params.get("status") or None
        raw_course = request.query_params.get("courseId")
        if raw_course not in (None, ""):
            if not raw_course.isdigit():
                raise ApiError("courseId must be a number.", code="invalid", details={"courseId": raw_course})
            materials = selectors.course_materials(user=request.user, course_id=int(raw_course), status=status_filter)
        else:
            materials = selectors.material_list(user=request.user, status=status_filter)
        return paginate(request, self, materials, MaterialOutputSerializer)

    @extend_schema(operation_id="materials_create", request={"multipart/form-data": InputSerializer}, responses={202: CreatedSerializer})
    def post(self, request):
        """Upload a file to study from; ingestion runs in the background.

        Answers 202 with the new `refId` and a `Location` header; poll that material (every 2 s) until its
        status is READY or FAILED. Oversized files are refused with 413, unsupported types and PDFs over the
        page limit with 400, before any work.
        """
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        material = material_create(
            owner=request.user,
            upload=data.validated_data["file"],
            title=data.validated_data.get("title", ""),
            type=data.validated_data.get("type", "material"),
        )  # a refused upload (UploadRejected) answers with its own code and status
        return Response(
            {"refId": material.ref_id, "status": material.status},
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": _material_location(request, material)},
        )


class MaterialDetailApi(APIView):
    @extend_schema(operation_id="materials_retrieve", responses=MaterialOutputSerializer)
    def get(self, request, ref_id: str):
        """Read one material: status, processing progress, counts, and why it failed."""
        material = selectors.read_material(user=request.user, ref_id=ref_id)
        return Response(MaterialOutputSerializer(material).data)

    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MaterialUpdateInput"

        title = serializers.CharField(max_length=300, required=False)
        courseId = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, help_text="publish it in a course you teach; null takes it out of its course"
        )

    @extend_schema(operation_id="materials_partial_update", request=UpdateSerializer, responses=MaterialOutputSerializer)
    def patch(self, request, ref_id: str):
        """Rename a material (its stored file keeps its name), or publish it in a course you teach."""
        material = selectors.access_material(user=request.user, ref_id=ref_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "title" in data.validated_data:
            material = material_rename(material=material, title=data.validated_data["title"])
        if "courseId" in data.validated_data:
            material = material_publish(user=request.user, material=material, course_id=data.validated_data["courseId"])
        return Response(MaterialOutputSerializer(material).data)

    @extend_schema(operation_id="materials_destroy", responses={204: None})
    def delete(self, request, ref_id: str):
        """Delete a material with its pages, passages, vectors and stored file.

        Plans and conversations that used it stay, and say that it was removed.
        """
        material = selectors.access_material(user=request.user, ref_id=ref_id)
        material_delete(material=material)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MaterialReingestApi(APIView):
    throttle_classes = [ScopedRateThrottle, UserRateThrottle]
    throttle_scope = "reingest"  # work for the shared worker, like an upload

    @extend_schema(operation_id="materials_reingest", request=None, responses={202: MaterialOutputSerializer})
    def post(self, request, ref_id: str):
        """Run ingestion again from the kept original (after a failure, or to apply new settings).

        Answers 202 with the material and a `Location` header to poll.
        """
        material = selectors.access_material(user=request.user, ref_id=ref_id)
        material = material_reingest(material=material)
        return Response(
            MaterialOutputSerializer(material).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": _material_location(request, material)},
        )


class ChunkOutputSerializer(serializers.Serializer):
    refId = serializers.CharField(source="material.ref_id")
    chunkIndex = serializers.IntegerField(source="chunk_index")
    pageNumber = serializers.IntegerField(source="page_number")
    pageEnd = serializers.IntegerField(source="page_end")
    type = serializers.CharField()
    sectionTitle = serializers.CharField(source="section_title")
    overlapChars = serializers.IntegerField(source="overlap_chars")
    tokenCount = serializers.IntegerField(source="token_count")
    text = serializers.CharField(source="content", help_text="the passage's text")
    content = serializers.CharField(help_text="the same as text (kept for existing clients)")


# What the original is, by extension: a client can open it in the right app. Text files are sent
# as they were uploaded (UTF-8, UTF-16 or CP949), so no charset is claimed.
ORIGINAL_CONTENT_TYPES = {
    ".pdf": "application/pdf",
    ".txt": "text/plain",
    ".text": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    ".hwpx": "application/hwp+zip",
}


class MaterialFileApi(APIView):
    """Download the original file of a material, as it was uploaded."""

    @extend_schema(
        operation_id="materials_file",
        responses={
            (200, content_type): OpenApiResponse(OpenApiTypes.BINARY, description="the original file")
            for content_type in dict.fromkeys([*ORIGINAL_CONTENT_TYPES.values(), "application/octet-stream"])
        },
    )
    def get(self, request, ref_id: str):
        """Download the original file, as it was uploaded.

        Its own content type and `Content-Disposition: attachment` naming the original file name (UTF-8
        names in `filename*`). Only the owner can download it; 404 `file_missing` if the stored file is gone.
        """
        material = selectors.access_material(user=request.user, ref_id=ref_id)
        handle = material_file_open(material=material)  # 404 file_missing when the stored file is gone
        content_type = ORIGINAL_CONTENT_TYPES.get(material.extension, "application/octet-stream")
        return FileResponse(handle, as_attachment=True, filename=material.original_filename, content_type=content_type)

    def perform_content_negotiation(self, request, force=False):
        # A download answers whatever the client accepts (Accept: application/pdf included); errors stay JSON.
        return super().perform_content_negotiation(request, force=True)


class MaterialChunksApi(APIView):
    class QuerySerializer(serializers.Serializer):
        start = serializers.IntegerField(min_value=0, default=0)
        end = serializers.IntegerField(min_value=0, required=False)

    @extend_schema(
        operation_id="materials_chunks",
        parameters=[OpenApiParameter("start", int, required=False), OpenApiParameter("end", int, required=False)],
        responses=ChunkOutputSerializer(many=True),
    )
    def get(self, request, ref_id: str):
        """Read a material's passages (chunks) between two indexes, in order (at most 500)."""
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        start = query.validated_data["start"]
        end = query.validated_data.get("end", start + 49)
        chunks = selectors.chunk_range(user=request.user, ref_id=ref_id, start=start, end=end)
        return Response(ChunkOutputSerializer(chunks, many=True).data)


class MaterialPagesApi(APIView):
    class PageSerializer(serializers.Serializer):
        pageNumber = serializers.IntegerField(source="number", help_text="1-based, as printed in citations and search hits")
        number = serializers.IntegerField(help_text="the same as pageNumber (kept for existing clients)")
        text = serializers.CharField()
        ocr = serializers.BooleanField(help_text="the text was recognised from a scanned image (OCR) and may contain errors")
        label = serializers.CharField(help_text='the number the book prints on the page ("vii", "7"), when the PDF gives one that differs')
        lines = serializers.ListField(
            source="line_kinds",
            child=serializers.CharField(allow_blank=True),
            help_text='what each line of `text` is, in order: "heading", "code" (show it in a fixed-pitch block), "item" '
            '(a list item begins) or "" (running text)',
        )

    @extend_schema(
        operation_id="materials_pages",
        parameters=[OpenApiParameter("first", int, required=False), OpenApiParameter("last", int, required=False)],
        responses=PageSerializer(many=True),
    )
    def get(self, request, ref_id: str):
        """Read a material's pages between `first` and `last` (at most 50; default: ten from `first`), for a page
        viewer. A range outside the material, backwards or wider than 50 pages is a 400 that says which."""
        material = selectors.read_material(user=request.user, ref_id=ref_id)
        first, last = _page_range(request.query_params, material)
        pages = selectors.material_pages(user=request.user, ref_id=ref_id, first=first, last=last)
        return Response(self.PageSerializer(pages, many=True).data)


MAX_PAGES_READ = 50  # pages one request of the page viewer reads


def _page_range(params, material: Material) -> tuple[int, int]:
    """``first`` and ``last`` of a pages request, checked against the material (400s that say what to send)."""
    if material.status != Material.Status.READY:
        raise ApiError(
            _("This material has no pages to read: it is %(status)s.") % {"status": material.get_status_display().lower()},
            code="material_not_ready",
            status_code=409,
            details={"status": material.status},
        )
    try:
        first = int(params.get("first", 1))
        last = int(params.get("last", min(first + 9, material.page_count)))
    except ValueError as error:
        raise ApiError(_("first and last must be page numbers."), code="invalid") from error
    if first < 1 or first > material.page_count:
        raise ApiError(
            _("first must be a page of this material: 1 to %(count)d.") % {"count": material.page_count},
            code="invalid",
            details={"first": first, "pageCount": material.page_count},
        )
    if last < first:
        raise ApiError(_("last must not come before first."), code="invalid", details={"first": first, "last": last})
    if last - first + 1 > MAX_PAGES_READ:
        raise ApiError(
            _("Read at most %(count)d pages at a time (first %(first)d to last %(last)d is %(asked)d).")
            % {"count": MAX_PAGES_READ, "first": first, "last": last, "asked": last - first + 1},
            code="invalid",
            details={"first": first, "last": last},
        )
    return first, min(last, material.page_count)


class MaterialStatsApi(APIView):
    @extend_schema(
        operation_id="materials_stats",
        parameters=[OpenApiParameter("refIds", str, description="Comma-separated refIds", required=True)],
        responses=inline_serializer("MaterialStats", {"stats": serializers.DictField(child=serializers.DictField())}),
    )
    def get(self, request):
        """Count passages and pages of several materials at once (unknown or others' refIds are left out)."""
        ref_ids = [ref_id for ref_id in request.query_params.get("refIds", "").split(",") if ref_id.strip()]
        if not ref_ids:
            raise ApiError(_("Give refIds as a comma-separated list."), code="invalid")
        return Response({"stats": selectors.material_stats(user=request.user, ref_ids=[ref_id.strip() for ref_id in ref_ids])})


class SearchApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "SearchInput"

        query = serializers.CharField(max_length=2000)
        refIds = serializers.ListField(child=serializers.CharField(max_length=32), required=False, max_length=100)
        type = serializers.CharField(required=False, max_length=40)
        k = serializers.IntegerField(required=False, min_value=1, max_value=50, default=selectors.TOP_K)
        mode = serializers.ChoiceField(choices=["hybrid", "semantic", "lexical"], default="hybrid")
        rerank = serializers.ChoiceField(choices=["keyword", "mmr"], required=False, help_text="hybrid mode only")
        minScore = serializers.FloatField(required=False, min_value=-1, max_value=1, help_text="semantic mode only")
        perPage = serializers.BooleanField(default=False, help_text="only the best passage of each page: k pages")

    class HitSerializer(serializers.Serializer):
        refId = serializers.CharField(source="chunk.material.ref_id")
        materialTitle = serializers.CharField(source="chunk.material.title")
        chunkIndex = serializers.IntegerField(source="chunk.chunk_index")
        pageNumber = serializers.SerializerMethodField(help_text="the page where the passage's own text begins")
        pageEnd = serializers.SerializerMethodField(help_text="the page where it ends")
        sectionTitle = serializers.CharField(source="chunk.section_title")
        score = serializers.FloatField()
        vectorScore = serializers.FloatField(source="vector_score", allow_null=True)
        lexicalScore = serializers.FloatField(source="lexical_score", allow_null=True)
        text = serializers.CharField(source="chunk.content", help_text="the passage's text")
        content = serializers.CharField(source="chunk.content", help_text="the same as text (kept for existing clients)")

        def get_pageNumber(self, hit) -> int:  # noqa: N802 - the API's field name
            return hit.chunk.own_pages[0]

        def get_pageEnd(self, hit) -> int:  # noqa: N802
            return hit.chunk.own_pages[1]

    @extend_schema(operation_id="search", request=InputSerializer, responses=HitSerializer(many=True))
    def post(self, request):
        """Search your materials: hybrid (default), semantic or lexical, limited to refIds or a type.

        Each hit names its material, the pages of its own text (`pageNumber`, `pageEnd`) and its scores;
        with `perPage`, each hit is the best passage of a different page.
        """
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        chosen = values.get("refIds")
        scope = (
            selectors.Scope.library(type=values.get("type"))
            if chosen is None
            else selectors.Scope.materials(chosen, type=values.get("type"))
        )
        options = {}
        if values["mode"] == "semantic":
            options["min_similarity"] = values.get("minScore")  # None: each embedding model's own floor
        if values["mode"] == "hybrid" and values.get("rerank"):
            options["reranker"] = values["rerank"]
        hits = selectors.retrieve(
            user=request.user, scope=scope, query=values["query"], k=values["k"], mode=values["mode"], per_page=values["perPage"], **options
        )
        return Response(self.HitSerializer(hits, many=True).data)
