from django.urls import path

from . import apis

urlpatterns = [
    path("register", apis.RegisterApi.as_view(), name="auth-register"),
    path("token", apis.TokenApi.as_view(), name="auth-token"),
    path("token/revoke", apis.TokenRevokeApi.as_view(), name="auth-token-revoke"),
    path("tokens", apis.TokenListApi.as_view(), name="auth-tokens"),
    path("tokens/<uuid:token_id>", apis.TokenDeleteApi.as_view(), name="auth-token-delete"),
    path("password/reset", apis.PasswordResetApi.as_view(), name="auth-password-reset"),
    path("verify", apis.EmailVerifyApi.as_view(), name="auth-email-verify"),
    path("verify/resend", apis.EmailVerifyResendApi.as_view(), name="auth-email-verify-resend"),
    path("password/reset/confirm", apis.PasswordResetConfirmApi.as_view(), name="auth-password-reset-confirm"),
]

# The signed-in learner's own account (included at /api/v1/).
me_urlpatterns = [
    path("me", apis.MeApi.as_view(), name="me"),
    path("me/export", apis.MeExportApi.as_view(), name="me-export"),
    path("me/password", apis.PasswordChangeApi.as_view(), name="me-password"),
]
