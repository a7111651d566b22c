"""DRF endpoints of courses: one class per operation, no business logic here.

A learner lists their courses, joins by code and leaves; a teacher makes and edits courses, invites
(a code for anyone who has it, or one per email address) and manages the roster. A course's materials
are listed by ``GET /materials/?courseId=`` (the knowledge app), published by ``PATCH /materials/{refId}``.
"""

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from core.pagination import paginate, paginated_schema

from . import selectors, services
from .models import Course, Invitation, Membership


class CourseSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    description = serializers.CharField()
    language = serializers.ChoiceField(choices=Course.Language.choices)
    role = serializers.SerializerMethodField(help_text="teacher (you own it) or learner / co_teacher (you joined it)")
    teacher = serializers.SerializerMethodField(help_text="the teacher's name, or their address when they gave none")
    memberCount = serializers.IntegerField(source="learner_count", help_text="learners who joined")
    createdAt = serializers.DateTimeField(source="created_at")

    def get_role(self, course) -> str:
        user = self.context["request"].user
        if course.owner_id == user.pk:
            return "teacher"
        return self.context.get("roles", {}).get(course.pk, Membership.Role.LEARNER)

    def get_teacher(self, course) -> str:
        return course.owner.get_full_name() or course.owner.email


class CourseInputSerializer(serializers.Serializer):
    class Meta:
        ref_name = "CourseInput"

    title = serializers.CharField(max_length=200)
    description = serializers.CharField(max_length=5000, required=False, allow_blank=True, default="")
    language = serializers.ChoiceField(choices=Course.Language.choices, default=Course.Language.KOREAN)


def _context(request) -> dict:
    roles = dict(Membership.objects.for_user(request.user).filter(user_id=request.user.pk).values_list("course_id", "role"))
    return {"request": request, "roles": roles}


class CourseListCreateApi(APIView):
    @extend_schema(operation_id="courses_list", responses=paginated_schema(CourseSerializer, "PaginatedCourses"))
    def get(self, request):
        """The courses you teach or belong to, newest first."""
        return paginate(request, self, selectors.course_list(user=request.user), CourseSerializer, context=_context(request))

    @extend_schema(operation_id="courses_create", request=CourseInputSerializer, responses={201: CourseSerializer})
    def post(self, request):
        """Make a course (teachers only: 403 `not_a_teacher` otherwise)."""
        data = CourseInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        course = services.course_create(user=request.user, **data.validated_data)
        course = selectors.course_get(user=request.user, course_id=course.pk)
        return Response(CourseSerializer(course, context=_context(request)).data, status=status.HTTP_201_CREATED)


class CourseDetailApi(APIView):
    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseUpdateInput"

        title = serializers.CharField(max_length=200, required=False)
        description = serializers.CharField(max_length=5000, required=False, allow_blank=True)
        language = serializers.ChoiceField(choices=Course.Language.choices, required=False)

    @extend_schema(operation_id="courses_retrieve", responses=CourseSerializer)
    def get(self, request, course_id: int):
        course = selectors.course_get(user=request.user, course_id=course_id)
        return Response(CourseSerializer(course, context=_context(request)).data)

    @extend_schema(operation_id="courses_update", request=UpdateSerializer, responses=CourseSerializer)
    def patch(self, request, course_id: int):
        """Rename or describe a course you teach."""
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.course_update(user=request.user, course_id=course_id, **data.validated_data)
        course = selectors.course_get(user=request.user, course_id=course_id)
        return Response(CourseSerializer(course, context=_context(request)).data)

    @extend_schema(operation_id="courses_destroy", responses={204: None})
    def delete(self, request, course_id: int):
        """Delete a course you teach: its materials stay in your library; its learners lose them at once."""
        services.course_delete(user=request.user, course_id=course_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CourseJoinApi(APIView):
    throttle_scope = "course_join"  # codes cannot be guessed by trying many

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseJoinInput"

        code = serializers.CharField(max_length=16)

    def get_throttles(self):
        return [ScopedRateThrottle(), *super().get_throttles()]

    @extend_schema(operation_id="courses_join", request=InputSerializer, responses={200: CourseSerializer})
    def post(self, request):
        """Join the course an invitation code is for (joining again is harmless). 404 `invitation_invalid`
        for a code that is unknown, expired, revoked or meant for another address."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.course_join(user=request.user, code=data.validated_data["code"])
        course = selectors.course_get(user=request.user, course_id=membership.course_id)
        return Response(CourseSerializer(course, context=_context(request)).data)


class CourseLeaveApi(APIView):
    @extend_schema(operation_id="courses_leave", request=None, responses={204: None})
    def post(self, request, course_id: int):
        """Leave a course: its materials are out of your reach at once (your own notes and answers stay)."""
        services.course_leave(user=request.user, course_id=course_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class InvitationSerializer(serializers.Serializer):
    code = serializers.CharField()
    email = serializers.EmailField(allow_blank=True, help_text="only this address's account may use it; blank: anyone with the code")
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    expiresAt = serializers.DateTimeField(source="expires_at")
    revoked = serializers.SerializerMethodField()
    usable = serializers.SerializerMethodField()
    uses = serializers.IntegerField()
    link = serializers.SerializerMethodField(help_text="a page that joins the course when a signed-in learner opens it")

    def get_revoked(self, invitation: Invitation) -> bool:
        return invitation.revoked_at is not None

    def get_usable(self, invitation: Invitation) -> bool:
        return selectors.invitation_usable(invitation)

    def get_link(self, invitation: Invitation) -> str:
        return self.context["request"].build_absolute_uri(reverse("course-join-page", args=[invitation.code]))


class InvitationListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "InvitationCreateInput"

        emails = serializers.ListField(
            child=serializers.EmailField(),
            required=False,
            max_length=500,
            help_text="one invitation per address; none: one code for anyone",
        )
        days = serializers.IntegerField(min_value=1, max_value=services.MAX_INVITATION_DAYS, default=services.INVITATION_DAYS)
        role = serializers.ChoiceField(choices=Membership.Role.choices, default=Membership.Role.LEARNER)

    @extend_schema(operation_id="courses_invitations_list", responses=paginated_schema(InvitationSerializer, "PaginatedInvitations"))
    def get(self, request, course_id: int):
        invitations = selectors.invitation_list(user=request.user, course_id=course_id)
        return paginate(request, self, invitations, InvitationSerializer, context={"request": request})

    @extend_schema(operation_id="courses_invitations_create", request=InputSerializer, responses={201: InvitationSerializer(many=True)})
    def post(self, request, course_id: int):
        """Invite to a course you teach: one code anyone may use, or one per email address (each sent its link by
        email; 400 `invalid` naming the addresses refused, and then none is made)."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        emails, days, role = data.validated_data.get("emails") or [], data.validated_data["days"], data.validated_data["role"]
        if emails:
            made = services.invitations_for_emails(
                user=request.user, course_id=course_id, emails=emails, days=days, role=role, request=request
            )
        else:
            made = [services.invitation_create(user=request.user, course_id=course_id, days=days, role=role)]
        return Response(InvitationSerializer(made, many=True, context={"request": request}).data, status=status.HTTP_201_CREATED)


class InvitationRevokeApi(APIView):
    @extend_schema(operation_id="courses_invitations_revoke", request=None, responses={204: None})
    def delete(self, request, course_id: int, code: str):
        services.invitation_revoke(user=request.user, course_id=course_id, code=code)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MemberSerializer(serializers.Serializer):
    userId = serializers.IntegerField(source="user_id")
    email = serializers.EmailField(source="user.email")
    name = serializers.SerializerMethodField()
    role = serializers.ChoiceField(choices=Membership.Role.choices)
    joinedAt = serializers.DateTimeField(source="joined_at")

    def get_name(self, membership) -> str:
        return membership.user.get_full_name()


class MemberListApi(APIView):
    @extend_schema(operation_id="courses_members_list", responses=paginated_schema(MemberSerializer, "PaginatedMembers"))
    def get(self, request, course_id: int):
        """The roster of a course you teach or co-teach, by the order they joined."""
        return paginate(request, self, selectors.roster(user=request.user, course_id=course_id), MemberSerializer)


class MemberRemoveApi(APIView):
    @extend_schema(operation_id="courses_members_remove", responses={204: None})
    def delete(self, request, course_id: int, user_id: int):
        """Remove a member: the course's materials are out of their reach at once."""
        services.member_remove(user=request.user, course_id=course_id, member_id=user_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MembershipApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MembershipUpdateInput"

        shareName = serializers.BooleanField(
            help_text="let the teacher see your name beside the questions you ask and the answers you flag"
        )

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseMembership"

        courseId = serializers.IntegerField(source="course_id")
        role = serializers.CharField()
        shareName = serializers.BooleanField(source="share_name")

    @extend_schema(operation_id="courses_membership_update", request=InputSerializer, responses=OutputSerializer)
    def patch(self, request, course_id: int):
        """Your own membership: whether the teacher sees your name (off unless you turn it on)."""
        selectors.membership_of(user=request.user, course_id=course_id)  # not yours: 404 before any 400
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        membership = services.membership_update(user=request.user, course_id=course_id, share_name=data.validated_data["shareName"])
        return Response(self.OutputSerializer(membership).data)


class GapQuestionSerializer(serializers.Serializer):
    text = serializers.CharField()
    askedAt = serializers.DateTimeField()
    learner = serializers.CharField(allow_null=True, help_text="null unless the learner shares their name")


class GapSerializer(serializers.Serializer):
    topic = serializers.CharField(help_text="the words its questions share most")
    count = serializers.IntegerField()
    questions = GapQuestionSerializer(many=True)


class GapListApi(APIView):
    @extend_schema(operation_id="courses_gaps", responses=GapSerializer(many=True))
    def get(self, request, course_id: int):
        """What the materials don't cover: questions learners asked that the tutor could not answer from the
        course's materials, grouped by topic, biggest first (a course you teach)."""
        return Response(GapSerializer(selectors.gaps(user=request.user, course_id=course_id), many=True).data)


class FlagSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    question = serializers.CharField()
    answer = serializers.CharField()
    quote = serializers.CharField()
    refId = serializers.CharField(source="ref_id")
    pageNumber = serializers.IntegerField(source="page_number", allow_null=True)
    comment = serializers.CharField()
    learner = serializers.SerializerMethodField(help_text="null unless the learner shares their name")
    createdAt = serializers.DateTimeField(source="created_at")

    def get_learner(self, flag) -> str | None:
        return (flag.learner.get_full_name() or flag.learner.email) if flag.learner else None


class FlagListApi(APIView):
    @extend_schema(operation_id="courses_flags", responses=paginated_schema(FlagSerializer, "PaginatedFlags"))
    def get(self, request, course_id: int):
        """Answers learners flagged as wrong or whose citation is off the point, with the quote and page (teacher or co-teacher)."""
        return paginate(request, self, selectors.flags(user=request.user, course_id=course_id), FlagSerializer)
