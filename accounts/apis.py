import tempfile

from django.contrib.auth import authenticate, update_session_auth_hash
from django.http import FileResponse
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from core.api_errors import ApiError

from . import services


class CredentialsSerializer(serializers.Serializer):
    email = serializers.EmailField()
    password = serializers.CharField(write_only=True, style={"input_type": "password"})
    device = serializers.CharField(required=False, max_length=100, allow_blank=True, help_text="A name for this token's device")


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send as `Authorization: Token <token>`; shown once")
    email = serializers.EmailField()
    id = serializers.UUIDField(help_text="The token's id in /auth/tokens/")
    expiry = serializers.DateTimeField(allow_null=True)


def _token_body(user, issued: services.IssuedToken) -> dict:
    return {"token": issued.key, "email": user.email, "id": str(issued.token.public_id), "expiry": issued.token.expiry}


class _AuthApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"


class RegisterApi(_AuthApi):
    @extend_schema(
        request=CredentialsSerializer,
        responses={201: TokenOutputSerializer},
        operation_id="auth_register",
        description="With BAEUM_REQUIRE_EMAIL_VERIFICATION on, the answer is `{email, verificationRequired: true}` "
        "and no token: the account signs in once the emailed link is confirmed (POST /auth/verify).",
    )
    def post(self, request):
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # Refused (registration_refused, the same for any address) or a weak password (weak_password): each error says its code.
        try:
            user = services.user_register(email=data.validated_data["email"], password=data.validated_data["password"])
        except services.RegistrationRefused as refused:
            if not services.registration_answered_like_a_new_one(refused):
                raise
            services.user_signup_attempt_notify(email=data.validated_data["email"], request=request._request)
            email = data.validated_data["email"].strip().lower()
            return Response({"email": email, "verificationRequired": True}, status=status.HTTP_201_CREATED)
        if user.must_verify_email:  # no token until the address is confirmed through the emailed link
            services.user_verification_send(user=user, request=request._request)
            return Response({"email": user.email, "verificationRequired": True}, status=status.HTTP_201_CREATED)
        issued = services.user_token_issue(user=user, name=data.validated_data.get("device", ""))
        return Response(_token_body(user, issued), status=status.HTTP_201_CREATED)


class TokenApi(_AuthApi):
    """Sign in: issue a new device token (the endpoint existing API clients already use)."""

    @extend_schema(request=CredentialsSerializer, responses={200: TokenOutputSerializer}, operation_id="auth_token")
    def post(self, request):
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, email=data.validated_data["email"].lower(), password=data.validated_data["password"])
        if user is None:
            raise ApiError("Email or password is wrong.", code="invalid_credentials", status_code=400)
        if user.must_verify_email:
            raise ApiError(str(services.VERIFICATION_NEEDED), code="email_not_verified", status_code=403)
        issued = services.user_token_issue(user=user, name=data.validated_data.get("device", ""))
        return Response(_token_body(user, issued))


class TokenRevokeApi(APIView):
    """Revoke the token this request is made with (this device only)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None}, operation_id="auth_token_revoke")
    def post(self, request):
        services.user_token_revoke(user=request.user, current=request.auth)
        return Response(status=status.HTTP_204_NO_CONTENT)


class TokenListApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "DeviceToken"

        id = serializers.UUIDField(source="public_id")
        name = serializers.CharField()
        created = serializers.DateTimeField()
        expiry = serializers.DateTimeField(allow_null=True)
        lastUsedAt = serializers.DateTimeField(source="last_used_at", allow_null=True)
        current = serializers.SerializerMethodField()

        def get_current(self, token) -> bool:
            return getattr(self.context["request"].auth, "pk", None) == token.pk

    @extend_schema(responses={200: OutputSerializer(many=True)}, operation_id="auth_tokens_list")
    def get(self, request):
        tokens = services.user_token_list(user=request.user)
        return Response(self.OutputSerializer(tokens, many=True, context={"request": request}).data)


class TokenDeleteApi(APIView):
    @extend_schema(responses={204: None, 404: OpenApiResponse(description="No such token of yours")}, operation_id="auth_tokens_revoke")
    def delete(self, request, token_id):
        if not services.user_token_revoke(user=request.user, public_id=token_id):
            raise ApiError("No such token.", code="not_found", status_code=404)
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Me"

        email = serializers.EmailField()
        name = serializers.CharField(source="first_name")
        dateJoined = serializers.DateTimeField(source="date_joined")
        emailVerified = serializers.SerializerMethodField()

        def get_emailVerified(self, user) -> bool:  # noqa: N802 - the API's field name
            return user.email_verified_at is not None

    class UpdateSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MeUpdate"

        name = serializers.CharField(max_length=150, allow_blank=True)

    class DeleteSerializer(serializers.Serializer):
        class Meta:
            ref_name = "MeDelete"

        password = serializers.CharField(write_only=True, help_text="The account's password, to confirm")

    @extend_schema(responses={200: OutputSerializer}, operation_id="me_read")
    def get(self, request):
        return Response(self.OutputSerializer(request.user).data)

    @extend_schema(request=UpdateSerializer, responses={200: OutputSerializer}, operation_id="me_update")
    def patch(self, request):
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_update(user=request.user, name=data.validated_data["name"])
        return Response(self.OutputSerializer(user).data)

    @extend_schema(request=DeleteSerializer, responses={204: None}, operation_id="me_delete")
    def delete(self, request):
        data = self.DeleteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_delete(user=request.user, password=data.validated_data["password"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class MeExportApi(APIView):
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "export"

    @extend_schema(responses={(200, "application/zip"): OpenApiResponse(description="originals + JSON")}, operation_id="me_export")
    def get(self, request):
        archive = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes it once sent
        services.user_export(user=request.user, into=archive)
        archive.seek(0)
        return FileResponse(archive, as_attachment=True, filename="baeum-export.zip", content_type="application/zip")


class PasswordChangeApi(APIView):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PasswordChange"

        oldPassword = serializers.CharField(write_only=True)
        newPassword = serializers.CharField(write_only=True)

    @extend_schema(request=InputSerializer, responses={204: None}, operation_id="me_password_change")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_password_change(
            user=request.user,
            old_password=data.validated_data["oldPassword"],
            new_password=data.validated_data["newPassword"],
            keep_token=request.auth,
        )
        if request.auth is None:
            update_session_auth_hash(request._request, request.user)  # the browser stays signed in
        return Response(status=status.HTTP_204_NO_CONTENT)


class PasswordResetApi(_AuthApi):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PasswordReset"

        email = serializers.EmailField()

    @extend_schema(request=InputSerializer, responses={202: None}, operation_id="auth_password_reset")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_password_reset_request(email=data.validated_data["email"], request=request._request)
        # The same answer whether or not the address has an account.
        return Response({"detail": "If this address has an account, a reset link is on its way."}, status=status.HTTP_202_ACCEPTED)


class PasswordResetConfirmApi(_AuthApi):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "PasswordResetConfirm"

        uid = serializers.CharField()
        token = serializers.CharField()
        newPassword = serializers.CharField(write_only=True)

    @extend_schema(request=InputSerializer, responses={204: None}, operation_id="auth_password_reset_confirm")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_password_reset_confirm(
            uid=data.validated_data["uid"], token=data.validated_data["token"], new_password=data.validated_data["newPassword"]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class EmailVerifyApi(_AuthApi):
    """Confirm an address with the ``uid`` and ``token`` of the link emailed at sign-up."""

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "EmailVerify"

        uid = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(request=InputSerializer, responses={200: None}, operation_id="auth_email_verify")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = services.user_email_verify(uid=data.validated_data["uid"], token=data.validated_data["token"])
        return Response({"email": user.email, "emailVerified": True})


class EmailVerifyResendApi(_AuthApi):
    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "EmailVerifyResend"

        email = serializers.EmailField()

    @extend_schema(request=InputSerializer, responses={202: None}, operation_id="auth_email_verify_resend")
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        services.user_verification_resend(email=data.validated_data["email"], request=request._request)
        # The same answer whether or not the address has an account waiting for confirmation.
        return Response({"detail": "If this address waits for confirmation, a new link is on its way."}, status=status.HTTP_202_ACCEPTED)
