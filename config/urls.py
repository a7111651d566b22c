from django.contrib import admin
from django.contrib.auth.views import LogoutView
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from accounts import urls as account_urls
from accounts import views as account_views
from chat import views as chat_views
from classroom import views as classroom_views
from core.api_errors import FALLBACK_ROUTE_NAME, api_fallback
from courses import views as course_views
from knowledge import views as knowledge_views
from plans import views as plan_views
from plans import views_study

from .health import healthz
from .views import home


class ApiDocsView(SpectacularSwaggerSplitView):
    """Swagger UI with its script served as a file (no inline script: the CSP allows none without a nonce)."""

    metadata_class = None  # OPTIONS answers 405 (it rendered a page without a template: a 500)


api_v1 = [
    path("auth/", include("accounts.urls")),
    path("", include(account_urls.me_urlpatterns)),
    path("", include("knowledge.urls")),
    path("", include("plans.urls")),
    path("", include("chat.urls")),
    path("", include("courses.urls")),
    path("", include("classroom.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", ApiDocsView.as_view(url_name="schema"), name="api-docs"),
]

pages = [
    path("", home, name="home"),
    path("login/", account_views.EmailLoginView.as_view(), name="login"),
    path("logout/", LogoutView.as_view(next_page="login"), name="logout"),
    path("signup/", account_views.signup, name="signup"),
    path("verify/<uidb64>/<token>/", account_views.verify_email, name="verify-email"),
    path("verify/resend/", account_views.verify_resend, name="verify-resend"),
    path("account/password/", account_views.password_change, name="password-change"),
    path("account/password/done/", account_views.password_change_done, name="password-change-done"),
    path("account/export", account_views.account_export, name="account-export"),
    path("password-reset/", account_views.password_reset, name="password-reset"),
    path("password-reset/sent/", account_views.password_reset_sent, name="password-reset-sent"),
    path("reset/<uidb64>/<token>/", account_views.password_reset_confirm, name="password-reset-confirm"),
    path("reset/done/", account_views.password_reset_complete, name="password-reset-complete"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("courses/", course_views.course_list_page, name="course-list-page"),
    path("courses/join/<str:code>", course_views.course_join_page, name="course-join-page"),
    path("courses/<int:course_id>/", classroom_views.course_page, name="course-page"),
    path("courses/<int:course_id>/publish", classroom_views.course_publish, name="course-publish-page"),
    path("courses/<int:course_id>/invite", classroom_views.course_invite, name="course-invite-page"),
    path(
        "courses/<int:course_id>/invitations/<str:code>/revoke",
        classroom_views.course_invitation_revoke,
        name="course-invitation-revoke-page",
    ),
    path("courses/<int:course_id>/members/<int:user_id>/remove", classroom_views.course_member_remove, name="course-member-remove-page"),
    path("courses/<int:course_id>/ask", classroom_views.course_ask, name="course-ask-page"),
    path("courses/<int:course_id>/plan", classroom_views.course_plan_build, name="course-plan-build-page"),
    path("courses/<int:course_id>/plan/edit", classroom_views.course_plan_edit_page, name="course-plan-edit-page"),
    path("courses/<int:course_id>/sessions/<int:number>/", classroom_views.course_session_page, name="course-session-page"),
    path("courses/<int:course_id>/sessions/<int:number>/edit", classroom_views.course_session_edit_view, name="course-session-edit-page"),
    path(
        "courses/<int:course_id>/sessions/<int:number>/complete",
        classroom_views.course_session_complete,
        name="course-session-complete-page",
    ),
    path("courses/<int:course_id>/share-name", classroom_views.course_share_name, name="course-share-name-page"),
    path("courses/<int:course_id>/leave", classroom_views.course_leave, name="course-leave-page"),
    path("library/", knowledge_views.library, name="library"),
    path("library/rows", knowledge_views.library_rows, name="library-rows"),
    path("library/<str:ref_id>/", knowledge_views.material_detail, name="material-page"),
    path("library/<str:ref_id>/pages/<int:number>.webp", knowledge_views.material_page_image_view, name="material-page-image"),
    path("plans/", plan_views.plan_list, name="plan-list-page"),
    path("review/", views_study.review_page, name="review-page"),
    path("plans/new", plan_views.plan_create_view, name="plan-create-page"),
    path("plans/<int:plan_id>/", plan_views.plan_detail, name="plan-page"),
    path("plans/<int:plan_id>/sessions/<int:number>/", plan_views.session_detail, name="session-page"),
    path("plans/<int:plan_id>/rename", plan_views.plan_rename_view, name="plan-rename-page"),
    path("plans/<int:plan_id>/delete", plan_views.plan_delete_view, name="plan-delete-page"),
    path("plans/<int:plan_id>/regenerate", plan_views.plan_regenerate_view, name="plan-regenerate-page"),
    path("plans/<int:plan_id>/exam-date", plan_views.plan_exam_date_view, name="plan-exam-date-page"),
    path("notes/", plan_views.notes_page, name="notes-page"),
    path("library/<str:ref_id>/guide/", plan_views.study_guide_page, name="study-guide-page"),
    path("chat/", chat_views.chat_page, name="chat-page"),
    path("chat/new", chat_views.chat_start, name="chat-start"),
    path("chat/<int:conversation_id>/", chat_views.chat_page, name="chat-page"),
    path("chat/<int:conversation_id>/messages/<int:message_id>/", chat_views.chat_message, name="chat-message"),
]

urlpatterns = [
    *pages,
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    # Last: any other /api/ path is the same route with the trailing slash toggled, or a JSON 404.
    re_path(r"^api/", api_fallback, name=FALLBACK_ROUTE_NAME),
]
