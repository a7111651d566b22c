"""One error format for the whole API: {"error": {"code", "message", "details"}}."""

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from baeum.errors import NotFound, ScopeError


class ApiError(exceptions.APIException):
    """An error a service raises for the API to report with a specific code and status."""

    def __init__(self, message: str, *, code: str = "invalid", status_code: int = 400, details=None):
        self.status_code = status_code
        self.code = code
        self.details = details or {}
        super().__init__(detail=message, code=code)


def _message_from(detail) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            text = _message_from(value)
            return text if key in ("detail", "non_field_errors") else f"{key}: {text}"
        return _("Invalid request.")
    if isinstance(detail, list):
        return _message_from(detail[0]) if detail else "Invalid request."
    return str(detail)


def exception_handler(exc, context):
    from django.db import InterfaceError, OperationalError

    if isinstance(exc, (OperationalError, InterfaceError)):
        return Response(
            {
                "error": {
                    "code": "unavailable",
                    "message": _("The database is unreachable right now. Nothing was changed; try again in a moment."),
                    "details": {},
                }
            },
            status=503,
            headers={"Retry-After": "5"},
        )
    if isinstance(exc, NotFound):
        exc = ApiError(str(exc), code=exc.code, status_code=404)
    elif isinstance(exc, ScopeError):
        exc = exceptions.NotAuthenticated()
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, ApiError):
        body = {"code": exc.code, "message": str(exc.detail), "details": exc.details}
    else:
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
