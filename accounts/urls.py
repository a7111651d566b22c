from django.urls import path

from . import apis

urlpatterns = [
    path("register", apis.RegisterApi.as_view(), name="auth-register"),
    path("token", apis.TokenApi.as_view(), name="auth-token"),
    path("token/revoke", apis.TokenRevokeApi.as_view(), name="auth-token-revoke"),
]
