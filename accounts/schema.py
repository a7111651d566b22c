"""OpenAPI description of the device-token authentication (drf-spectacular finds it when imported)."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class DeviceTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.tokens.DeviceTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <key>` (or `Bearer <key>`): a device token from POST /api/v1/auth/token",
        }
