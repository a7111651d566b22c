"""The course's plan through the API: its sessions with your progress, one session's content, your progress
on it, and (for the teacher) every learner's progress."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from baeum.errors import NotFound
from plans import selectors_course as course_plans
from plans.apis import ObjectivesField
from plans.apis_notes import ChosenRangeSerializer
from plans.apis_study import AnswerInputSerializer, GradeSerializer, answered
from plans.models import SessionProgress
from plans.selectors import objectives_for_reader
from plans.services.course_plans import course_plan_create, course_session_edit, session_progress_record
from plans.services.session_content import session_content


class CoursePlanMissing(NotFound):
    code = "no_course_plan"


def _plan(request, course_id: int):
    plan = course_plans.course_plan(user=request.user, course_id=course_id)
    if plan is None:
        raise CoursePlanMissing("The teacher has not built this course's plan yet.")
    return plan


def _session(request, course_id: int, number: int):
    plan = _plan(request, course_id)
    session = course_plans.course_session(user=request.user, plan=plan, number=number)
    if session is None:
        raise NotFound(f"No session {number} in this course's plan.")
    return plan, session


class CourseSessionSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    objectives = ObjectivesField()
    estimatedMinutes = serializers.IntegerField(source="estimated_minutes")
    myStatus = serializers.SerializerMethodField(help_text="not_started, started or completed: your own progress")

    def get_myStatus(self, session) -> str:  # noqa: N802 - the API's field name
        progress = self.context["progress"].get(session.pk)
        return progress.status if progress else "not_started"


class CoursePlanSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    title = serializers.CharField()
    status = serializers.CharField()
    sessions = serializers.SerializerMethodField()

    def get_sessions(self, plan) -> list:
        return CourseSessionSerializer(self.context["sessions"], many=True, context=self.context).data


def _plan_response(request, plan, **kwargs) -> Response:
    context = {
        "sessions": course_plans.course_sessions(user=request.user, plan=plan),
        "progress": course_plans.my_progress(user=request.user, plan=plan),
    }
    return Response(CoursePlanSerializer(plan, context=context).data, **kwargs)


class CoursePlanApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CoursePlanInput"

        refIds = serializers.ListField(
            child=serializers.CharField(), required=False, max_length=200, help_text="some of the course's materials; all when absent"
        )
        ranges = ChosenRangeSerializer(many=True, required=False, max_length=500)
        minutesPerSession = serializers.IntegerField(min_value=5, max_value=240, default=25)

    @extend_schema(operation_id="courses_plan", responses=CoursePlanSerializer)
    def get(self, request, course_id: int):
        """The course's plan (the newest the teacher built) with your status on each session. 404
        `no_course_plan` before the teacher builds one."""
        return _plan_response(request, _plan(request, course_id))

    @extend_schema(operation_id="courses_plan_build", request=InputSerializer, responses={202: CoursePlanSerializer})
    def post(self, request, course_id: int):
        """Build (or build again) the plan of a course you teach from its ready materials, the chapters or pages
        chosen (`ranges`, as for your own plans) and the session length. Answers 202 with the plan; GET it until
        its status is READY or FAILED. Building again makes a new plan: learners start its sessions afresh."""
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        plan = course_plan_create(
            user=request.user,
            course_id=course_id,
            ref_ids=values.get("refIds"),
            ranges=values.get("ranges"),
            minutes_per_session=values["minutesPerSession"],
        )
        return _plan_response(request, plan, status=status.HTTP_202_ACCEPTED)


class CourseSessionContentSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    title = serializers.CharField()
    objectives = ObjectivesField()
    keyPoints = serializers.ListField(child=serializers.DictField(), help_text="[{text, refId, chunkIndex, pageNumber, pageLabel?}]")
    questions = serializers.ListField(child=serializers.DictField(), help_text="as GET plans/{id}/sessions/{n}/ gives them")


class CourseSessionApi(APIView):
    class EditSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseSessionEdit"

        title = serializers.CharField(required=False, max_length=300, help_text="the session's new title")
        position = serializers.IntegerField(required=False, min_value=1, help_text="the place to move it to (1 is first)")

    @extend_schema(operation_id="courses_session_edit", request=EditSerializer, responses=CourseSessionSerializer)
    def patch(self, request, course_id: int, number: int):
        """Rename a session of a course you teach and/or move it to another place; the sessions between shift
        by one. Learners' progress, cards and conversations stay with the session (its number may change)."""
        data = self.EditSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = course_session_edit(user=request.user, course_id=course_id, number=number, **data.validated_data)
        return Response(CourseSessionSerializer(session, context={"progress": {}}).data)

    @extend_schema(operation_id="courses_session", responses=CourseSessionContentSerializer)
    def get(self, request, course_id: int, number: int):
        """One session of the course's plan: objectives, key points and practice questions, each cited."""
        plan, session = _session(request, course_id, number)
        if course_plans.session_out_of_reach(user=request.user, session=session):
            raise NotFound("The material of this session is no longer in the course.")
        content = session_content(user=request.user, plan=plan, session=session)
        return Response(
            {
                "number": session.number,
                "title": session.title,
                "objectives": objectives_for_reader(session.objectives),
                "keyPoints": content.key_points,
                "questions": content.questions,
            }
        )


class CourseSessionProgressApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseSessionProgressInput"

        status = serializers.ChoiceField(choices=SessionProgress.Status.choices)
        answered = serializers.IntegerField(min_value=0, max_value=1000, default=0)
        right = serializers.IntegerField(min_value=0, max_value=1000, default=0)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "CourseSessionProgress"

        status = serializers.CharField()
        questionsAnswered = serializers.IntegerField(source="questions_answered")
        questionsRight = serializers.IntegerField(source="questions_right")
        completedAt = serializers.DateTimeField(source="completed_at", allow_null=True)

    @extend_schema(operation_id="courses_session_progress", request=InputSerializer, responses=OutputSerializer)
    def post(self, request, course_id: int, number: int):
        """Your progress on a session of the course's plan (counts only grow; completed stays completed)."""
        session = _session(request, course_id, number)[1]
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        progress = session_progress_record(user=request.user, session=session, **data.validated_data)
        return Response(self.OutputSerializer(progress).data)


class CourseQuestionAnswerApi(APIView):
    @extend_schema(
        operation_id="courses_session_questions_answer",
        summary="Answer a practice question of a course's session",
        description="Graded as a question of your own plan's session; the answer is kept on your progress on the session "
        "(which your teacher's roster counts: questions answered and right) and the question becomes your review card.",
        request=AnswerInputSerializer,
        responses={200: GradeSerializer},
    )
    def post(self, request, course_id: int, number: int, question_id: str):
        plan, session = _session(request, course_id, number)
        if course_plans.session_out_of_reach(user=request.user, session=session):
            raise NotFound("The material of this session is no longer in the course.")
        return answered(request, plan=plan, session=session, question_id=question_id)


class LearnerProgressSerializer(serializers.Serializer):
    userId = serializers.IntegerField(source="membership.user_id")
    email = serializers.EmailField(source="membership.user.email")
    name = serializers.SerializerMethodField()
    sessionsCompleted = serializers.IntegerField(source="completed")
    sessions = serializers.IntegerField()
    questionsAnswered = serializers.IntegerField(source="answered")
    questionsRight = serializers.IntegerField(source="right")
    reviews = serializers.IntegerField(help_text="reviews of the cards the course's sessions gave the learner")
    retention = serializers.FloatField(allow_null=True, help_text="share of those reviews remembered (not rated Again); null before any")
    joinedAt = serializers.DateTimeField(source="membership.joined_at")

    def get_name(self, row) -> str:
        return row["membership"].user.get_full_name()


class CourseProgressApi(APIView):
    @extend_schema(operation_id="courses_progress", responses=LearnerProgressSerializer(many=True))
    def get(self, request, course_id: int):
        """Every learner of a course you teach or co-teach, with sessions completed, questions right and review retention on its plan."""
        return Response(LearnerProgressSerializer(course_plans.roster_progress(user=request.user, course_id=course_id), many=True).data)
