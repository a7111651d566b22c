"""One error format for the whole API: {"error": {"code", "message", "details"}}."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler
from rest_framework.views import set_rollback

from baeum.errors import BaeumError, ScopeError


class ApiError(BaeumError):
    """An ad-hoc refusal an API view raises itself (a malformed parameter); domain errors raise their own class."""

    def __init__(self, message, *, code: str = "invalid", status_code: int = 400, details: dict | None = None):
        super().__init__(message, code=code, status=status_code, details=details)


# The API's input fields as a message names them: the key itself in English, a Korean word in Korean
# ("이메일: 올바른 이메일 주소를 입력하세요." rather than "email: …"). ``details`` keep the keys.
FIELD_LABELS = {
    "email": pgettext_lazy("API field", "email"),
    "password": pgettext_lazy("API field", "password"),
    "newPassword": pgettext_lazy("API field", "newPassword"),
    "oldPassword": pgettext_lazy("API field", "oldPassword"),
    "device": pgettext_lazy("API field", "device"),
    "content": pgettext_lazy("API field", "content"),
    "mode": pgettext_lazy("API field", "mode"),
    "title": pgettext_lazy("API field", "title"),
    "refIds": pgettext_lazy("API field", "refIds"),
    "refId": pgettext_lazy("API field", "refId"),
    "planId": pgettext_lazy("API field", "planId"),
    "session": pgettext_lazy("API field", "session"),
    "query": pgettext_lazy("API field", "query"),
    "type": pgettext_lazy("API field", "type"),
    "examDate": pgettext_lazy("API field", "examDate"),
    "minutesPerSession": pgettext_lazy("API field", "minutesPerSession"),
    "ranges": pgettext_lazy("API field", "ranges"),
    "goal": pgettext_lazy("API field", "goal"),
    "language": pgettext_lazy("API field", "language"),
    "text": pgettext_lazy("API field", "text"),
    "comment": pgettext_lazy("API field", "comment"),
    "kind": pgettext_lazy("API field", "kind"),
    "citations": pgettext_lazy("API field", "citations"),
    "pageNumber": pgettext_lazy("API field", "pageNumber"),
    "pageEnd": pgettext_lazy("API field", "pageEnd"),
    "quote": pgettext_lazy("API field", "quote"),
    "response": pgettext_lazy("API field", "response"),
    "rating": pgettext_lazy("API field", "rating"),
    "file": pgettext_lazy("API field", "file"),
    "name": pgettext_lazy("API field", "name"),
}


def _message_from(detail) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _message_from(value)
            return text if key in ("detail", "non_field_errors") else f"{FIELD_LABELS.get(key, key)}: {text}"
        return _("Invalid request.")
    if isinstance(detail, list):
        return _message_from(detail[0]) if detail else "Invalid request."
    return str(detail)


def _database_unreachable() -> Response:
    body = {
        "code": "unavailable",
        "message": _("The database is unreachable right now. Nothing was changed; try again in a moment."),
        "details": {},
    }
    return Response({"error": body}, status=503, headers={"Retry-After": "5"})


def _baeum_error(exc: BaeumError) -> Response:
    """Answer a domain error with its own status and code: the one place a ``BaeumError`` becomes HTTP."""
    set_rollback()  # as DRF does for its own exceptions: a refused request writes nothing
    return Response({"error": {"code": exc.code, "message": exc.public_message(), "details": exc.details}}, status=exc.status)


def exception_handler(exc, context):
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        return _database_unreachable()
    if isinstance(exc, ScopeError):
        exc = exceptions.NotAuthenticated()  # no user reached a user-owned query: DRF's own 401, in the client's language
    elif isinstance(exc, BaeumError):
        return _baeum_error(exc)
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    code = getattr(exc, "default_code", "error")
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
    details = exc.detail if isinstance(exc.detail, (dict, list)) else {}
    body = {"code": code, "message": _message_from(exc.detail), "details": details}
    if response.status_code == status.HTTP_429_TOO_MANY_REQUESTS:
        body["code"] = "throttled"
    headers = {name: response[name] for name in ("Retry-After", "WWW-Authenticate") if response.has_header(name)}
    return Response({"error": body}, status=response.status_code, headers=headers)


FALLBACK_ROUTE_NAME = "api-fallback"


@csrf_exempt  # the view it hands the request to (a DRF view) enforces CSRF for session-authenticated calls itself
def api_fallback(request):
    """Serve an /api/ path no route matched: the same route with its trailing slash toggled, else a JSON 404.

    Every endpoint answers with and without its trailing slash, with no redirect: a redirected POST
    loses its body in many HTTP clients, and an HTML 404 or 301 is no answer for a mobile app.
    """
    path = request.path_info
    alternative = path[:-1] if path.endswith("/") else path + "/"
    try:
        match = resolve(alternative)
    except Resolver404:
        match = None
    if match is None or match.url_name == FALLBACK_ROUTE_NAME:
        return JsonResponse(
            {"error": {"code": "not_found", "message": _("No such API endpoint: %(path)s") % {"path": request.path}, "details": {}}},
            status=404,
        )
    request.path_info = alternative
    request.path = request.path[:-1] if request.path.endswith("/") else request.path + "/"
    request.resolver_match = match
    return match.func(request, *match.args, **match.kwargs)
