from django.urls import path

from . import apis

urlpatterns = [
    path("courses/", apis.CourseListCreateApi.as_view(), name="course-list"),
    path("courses/join", apis.CourseJoinApi.as_view(), name="course-join"),
    path("courses/<int:course_id>/", apis.CourseDetailApi.as_view(), name="course-detail"),
    path("courses/<int:course_id>/leave", apis.CourseLeaveApi.as_view(), name="course-leave"),
    path("courses/<int:course_id>/membership", apis.MembershipApi.as_view(), name="course-membership"),
    path("courses/<int:course_id>/gaps", apis.GapListApi.as_view(), name="course-gaps"),
    path("courses/<int:course_id>/flags", apis.FlagListApi.as_view(), name="course-flags"),
    path("courses/<int:course_id>/invitations/", apis.InvitationListCreateApi.as_view(), name="course-invitations"),
    path("courses/<int:course_id>/invitations/<str:code>", apis.InvitationRevokeApi.as_view(), name="course-invitation"),
    path("courses/<int:course_id>/members/", apis.MemberListApi.as_view(), name="course-members"),
    path("courses/<int:course_id>/members/<int:user_id>", apis.MemberRemoveApi.as_view(), name="course-member"),
]
