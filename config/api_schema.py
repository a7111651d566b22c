"""The OpenAPI schema: every operation documents the errors it can answer, in the one error format.

Errors are added by rule, not by hand on each view, so a new endpoint is documented the day it is
written: 401/403 where sign-in is required, 404 where the path names an object (someone else's
object is the same 404), 400 where the request carries input, 413 for uploads, 429 everywhere
(throttling), 503 when the database is unreachable. A view's own ``extend_schema(responses=...)``
for a status wins.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny

ErrorSerializer = inline_serializer(
    "Error",
    {
        "error": inline_serializer(
            "ErrorBody",
            {
                "code": serializers.CharField(help_text="stable, for programs: not_found, invalid, file_too_large, throttled…"),
                "message": serializers.CharField(help_text="for people, in the language of Accept-Language (English or Korean)"),
                "details": serializers.JSONField(help_text="per-field messages for invalid input, else {} or context such as refId"),
            },
        )
    },
)

ERRORS = {  # status: (code, when, an example message)
    400: ("invalid", "The request is invalid: a field is missing or wrong (`details` names each field), or it cannot be honoured.",
          "title: This field is required."),
    401: ("not_authenticated", "No token or session, or the token was revoked. Send `Authorization: Token <key>`.",
          "Authentication credentials were not provided."),
    403: ("permission_denied", "Signed in with a session but without the CSRF token, or not allowed.",
          "You do not have permission to perform this action."),
    404: ("not_found", "No such object for this user: it does not exist or it is someone else's (never said which).",
          "No material 'mat_abc123def456' in your library."),
    413: ("file_too_large", "The file is over the upload limit (`BAEUM_MAX_UPLOAD_MB`).",
          "“book.pdf” is 80.0 MB; the limit is 50 MB. Split or compress it."),
    429: ("throttled", "Too many requests; `Retry-After` says how many seconds to wait.",
          "Request was throttled. Expected available in 5 seconds."),
    503: ("unavailable", "The database is unreachable; nothing was changed. Retry after `Retry-After` seconds.",
          "The database is unreachable right now. Nothing was changed; try again in a moment."),
}  # fmt: skip
PAGINATION_PARAMETERS = {"limit", "offset"}  # ignored when invalid: they never cause a 400


def error_response(status: int) -> OpenApiResponse:
    """The documented error answer for ``status``: the error shape, when it happens, an example."""
    code, description, message = ERRORS[status]
    example = OpenApiExample(code, value={"error": {"code": code, "message": message, "details": {}}}, status_codes=[str(status)])
    return OpenApiResponse(ErrorSerializer, description=description, examples=[example])


class ApiSchema(AutoSchema):
    """drf-spectacular's schema plus the error responses each operation can give, and a summary line."""

    def get_summary(self) -> str | None:
        """The first line of the operation's description (its method's or view's docstring)."""
        description = (self.get_description() or "").strip()
        return description.splitlines()[0].rstrip(".") if description else None

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        if direction != "response":
            return responses
        for status in self._error_statuses():
            if str(status) not in responses:
                responses[str(status)] = self._get_response_for_code(error_response(status), str(status), direction=direction)
        return dict(sorted(responses.items()))

    def _error_statuses(self) -> list[int]:
        statuses = [503]
        if self.view.get_throttles():
            statuses.append(429)
        if not all(isinstance(permission, AllowAny) for permission in self.view.get_permissions()):
            statuses += [401, 403]
        if "{" in self.path:
            statuses.append(404)
        if self.method in ("POST", "PUT", "PATCH") or self.method == "GET" and self._query_parameters():
            statuses.append(400)
        if self.method == "POST" and any("multipart" in media_type for media_type in self.map_parsers()):
            statuses.append(413)
        return statuses

    def _query_parameters(self) -> bool:
        return any(
            parameter.get("in") == "query" and parameter.get("name") not in PAGINATION_PARAMETERS for parameter in self._get_parameters()
        )


API_DESCRIPTION = """Study from your own materials: ingestion, retrieval, plans and a cited tutor.

**Signing in.** `POST /api/v1/auth/token` with `{email, password}` gives a token; send it as
`Authorization: Token <key>` on every call.

**Paths.** Every path answers with and without its trailing slash, with no redirect. An unknown path
or a method a path does not take answers 404 or 405 in the error format below, never HTML.

**Errors** always look like `{"error": {"code", "message", "details"}}`. `code` is stable, for programs;
`message` is for people, in the language of `Accept-Language` (English or Korean; `Content-Language`
says which). A failed material or plan has `failure: {code, message}` the same way. Someone else's
object is the same 404 as one that does not exist.

**Work in the background.** Uploading (`POST materials/`), re-ingesting, creating and regenerating a
plan answer 202 with a `Location` header: poll that URL (every 2 s) until `status` is `READY` or
`FAILED`; `processing: {stage, done, total}` says how far it is.

**Field names.** `processing`, `failure`, `text` (a passage), `pageNumber` and a reply's `content` are
canonical; `progress`/`generation`, `error`/`errorCode`, `content` (a passage), `number` (a page) and
`answer` carry the same values for clients written before them.

**Lists** are paginated with `?limit=&offset=` (`count`, `next`, `previous`, `results`)."""


def describe_api(result, generator, request, public):
    """Postprocessing hook: the conventions every operation follows, at the top of the schema."""
    result["info"]["description"] = API_DESCRIPTION
    return result
