from django.http import Http404
from django.views.defaults import page_not_found

from baeum.errors import NotFound


class NotFoundMiddleware:
    """Render a domain ``NotFound`` (someone else's or a missing object) as the same 404 page."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        if isinstance(exception, NotFound):
            return page_not_found(request, Http404(str(exception)))
        return None


class RowLevelSecurityMiddleware:
    """Limit the database session to the requesting user's rows for the whole request (see accounts/rls.py).

    Token-authenticated API calls are resolved here (DRF authenticates later, inside the view), so the
    limit is in place before any view code runs. Staff on the admin site work across tenants by design.
    A streamed response keeps the limit until its last chunk is sent.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.db import InterfaceError, OperationalError

        from accounts.rls import set_rls_user

        if request.path == "/healthz":
            return self.get_response(request)  # touches no user data, and must answer when the database is down
        try:
            user_id = self._user_id(request)
            if user_id is None:
                return self.get_response(request)
            set_rls_user(user_id)
        except (OperationalError, InterfaceError):
            return database_unavailable(request)
        streaming = False
        try:
            response = self.get_response(request)
            if getattr(response, "streaming", False):
                streaming = True
                response.streaming_content = self._limited(response.streaming_content, user_id)
            return response
        finally:
            if not streaming:
                set_rls_user(None)

    @staticmethod
    def _limited(content, user_id):
        from accounts.rls import set_rls_user

        set_rls_user(user_id)
        try:
            yield from content
        finally:
            set_rls_user(None)

    @staticmethod
    def _user_id(request) -> int | None:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.is_staff and request.path.startswith("/admin/"):
                return None  # content managers see every tenant in the admin
            return user.pk
        header = request.headers.get("Authorization", "")
        if header.startswith("Token "):
            from rest_framework.authtoken.models import Token

            owner = Token.objects.filter(key=header[6:].strip()).values_list("user_id", flat=True).first()
            return owner or 0
        return 0


class DatabaseUnavailableMiddleware:
    """Answer 503 with a clear message when PostgreSQL cannot be reached, instead of a 500.

    Nothing is half-written: every service writes inside a transaction, which the failed connection
    rolls back.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import InterfaceError, OperationalError

        if not isinstance(exception, (OperationalError, InterfaceError)):
            return None
        return database_unavailable(request)


UNAVAILABLE = "The database is unreachable right now. Nothing was changed; try again in a moment."


def database_unavailable(request):
    from django.http import HttpResponse, JsonResponse

    if request.path.startswith("/api/"):
        response = JsonResponse({"error": {"code": "unavailable", "message": UNAVAILABLE, "details": {}}}, status=503)
    else:
        response = HttpResponse(UNAVAILABLE, status=503, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = "5"
    return response
