from django.urls import path

from . import apis

urlpatterns = [
    path("courses/<int:course_id>/plan", apis.CoursePlanApi.as_view(), name="course-plan"),
    path("courses/<int:course_id>/sessions/<int:number>/", apis.CourseSessionApi.as_view(), name="course-session"),
    path("courses/<int:course_id>/sessions/<int:number>/progress", apis.CourseSessionProgressApi.as_view(), name="course-session-progress"),
    path(
        "courses/<int:course_id>/sessions/<int:number>/questions/<str:question_id>/answer",
        apis.CourseQuestionAnswerApi.as_view(),
        name="course-session-question-answer",
    ),
    path("courses/<int:course_id>/progress", apis.CourseProgressApi.as_view(), name="course-progress"),
]
