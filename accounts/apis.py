from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from config.api_errors import ApiError

from .services import AccountError, user_register, user_token_issue, user_token_revoke


class CredentialsSerializer(serializers.Serializer):
    email = serializers.EmailField()
    password = serializers.CharField(write_only=True, style={"input_type": "password"})


class TokenOutputSerializer(serializers.Serializer):
    token = serializers.CharField()
    email = serializers.EmailField()


class _AuthApi(APIView):
    authentication_classes: list = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "auth"


class RegisterApi(_AuthApi):
    @extend_schema(request=CredentialsSerializer, responses={201: TokenOutputSerializer}, operation_id="auth_register")
    def post(self, request):
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            user, token = user_register(**data.validated_data)
        except AccountError as error:
            raise ApiError(str(error), code=error.code) from error
        except DjangoValidationError as error:
            raise ApiError(" ".join(error.messages), code="weak_password", details={"password": error.messages}) from error
        return Response({"token": token, "email": user.email}, status=status.HTTP_201_CREATED)


class TokenApi(_AuthApi):
    @extend_schema(request=CredentialsSerializer, responses={200: TokenOutputSerializer}, operation_id="auth_token")
    def post(self, request):
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, email=data.validated_data["email"].lower(), password=data.validated_data["password"])
        if user is None:
            raise ApiError("Email or password is wrong.", code="invalid_credentials", status_code=400)
        return Response({"token": user_token_issue(user=user), "email": user.email})


class TokenRevokeApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(request=None, responses={204: None}, operation_id="auth_token_revoke")
    def post(self, request):
        user_token_revoke(user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
