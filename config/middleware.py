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
    limit is in place before any view code runs. Anonymous requests see no user-owned row. Staff on the
    admin site work across tenants by design (the system context). A streamed response keeps the limit
    until its last chunk is sent; afterwards the connection returns to the process's closed default.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.db import InterfaceError, OperationalError

        if request.path == "/healthz":
            return self.get_response(request)  # touches no user data, and must answer when the database is down
        if self._mixed_credentials(request):
            return bad_request(
                request, "This request carries a signed-in session and a token of another account (or an invalid token): send one of them."
            )
        try:
            context = self._context(request)
            context.__enter__()
        except (OperationalError, InterfaceError):
            return database_unavailable(request)
        try:
            response = self.get_response(request)
            if getattr(response, "streaming", False):
                response.streaming_content = self._limited(response.streaming_content, self._user_id(request))
            return response
        finally:
            context.__exit__(None, None, None)

    @staticmethod
    def _mixed_credentials(request) -> bool:
        """A session of one account and a token header naming another (or nothing): DRF would take the token's
        user and the database the session's, so the request is refused instead of answered for neither."""
        from accounts.tokens import header_key, request_token

        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or header_key(request) is None:
            return False
        resolved = request_token(request)
        return resolved is None or resolved.user.pk != user.pk

    @staticmethod
    def _limited(content, user_id):
        from accounts.rls import rls_user

        with rls_user(user_id):
            yield from content

    def _context(self, request):
        from accounts.rls import rls_system, rls_user

        user_id = self._user_id(request)
        if user_id is None:
            return rls_system(why="staff manage every tenant's rows in the admin")
        return rls_user(user_id)

    @staticmethod
    def _user_id(request) -> int | None:
        """The requesting user's id; 0 for anonymous or an unknown token; None for staff in the admin."""
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated:
            if user.is_staff and request.path.startswith("/admin/"):
                return None  # content managers see every tenant in the admin
            return user.pk
        from accounts.tokens import request_token

        resolved = request_token(request)
        return resolved.user.pk if resolved else 0


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


def client_address(request) -> str:
    """The client's address: the TCP peer, or with ``NUM_PROXIES`` trusted proxies in front the address
    the first of them saw (X-Forwarded-For counted from the right). Never a value the client chose."""
    from django.conf import settings

    remote = request.META.get("REMOTE_ADDR", "")
    proxies = settings.NUM_PROXIES
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR")
    if not proxies or not forwarded:
        return remote
    addresses = [part.strip() for part in forwarded.split(",") if part.strip()]
    return addresses[-min(proxies, len(addresses))] if addresses else remote


# Sign-in and account forms, and how each says "wrong credentials" (the status of a failed attempt).
_SIGN_IN_FAILURE = {"/login": 200, "/admin/login": 200, "/api/v1/auth/token": 400}
_ACCOUNT_FORMS = {
    "/signup",
    "/api/v1/auth/register",
    "/api/v1/auth/password/reset",
    "/password-reset",
    "/verify/resend",
    "/api/v1/auth/verify/resend",
}
# Forms that send an email to the account they name: counted per account at every attempt (no mail bombing).
_MAILING_FORMS = {"/api/v1/auth/password/reset", "/password-reset", "/verify/resend", "/api/v1/auth/verify/resend"}


# A lock for one account from one address grows with each lock in a day: 15 minutes, 30, 60, … up to a day.
SIGNIN_LOCK_MAX_SECONDS = 24 * 3600
# Wrong passwords for one account from every address together, as a multiple of the per-address limit: a
# guesser spread over many addresses is stopped too, while one address guessing cannot lock the learner out.
SIGNIN_ACCOUNT_SPREAD = 5


class SignInThrottleMiddleware:
    """Throttle sign-in on the browser, the admin and the API.

    - Per address (generous: a class shares one address): every attempt on every account form counts.
    - Per account and address (strict, failed attempts only): ``BAEUM_SIGNIN_LIMITS["account"]`` wrong
      passwords lock that account *from that address* — the right password too — for the window, doubled
      with each further lock that day. A guesser elsewhere does not lock the learner out.
    - Per account from everywhere: ``SIGNIN_ACCOUNT_SPREAD`` times as many wrong passwords lock it for the window.
    - Forms that send mail (password reset, confirmation resend) count per account on their own keys, every
      attempt: a sign-in lock never blocks a password reset, and resets never lock sign-in.

    The account is read from the body as the view reads it (``_account_of``); an API sign-in whose account
    cannot be read is refused before it reaches the view. Limits: ``BAEUM_SIGNIN_LIMITS``; the address
    honours ``NUM_PROXIES``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        path = request.path.rstrip("/") or "/"
        if request.method != "POST" or (path not in _SIGN_IN_FAILURE and path not in _ACCOUNT_FORMS):
            return self.get_response(request)
        from django.conf import settings
        from django.core.cache import cache

        limits = settings.BAEUM_SIGNIN_LIMITS
        address = client_address(request)
        if _count(f"signin:address:{address}", limits["address"][1]) > limits["address"][0]:
            return _too_many(request, limits["address"][1])
        account = _account_of(request)
        if path in _MAILING_FORMS:
            if account and _count(f"mail:account:{account}", limits["account"][1]) > limits["account"][0]:
                return _too_many(request, limits["account"][1])
            return self.get_response(request)
        if path not in _SIGN_IN_FAILURE:
            return self.get_response(request)
        if not account:
            if path.startswith("/api/"):
                return bad_request(request, "Send the email and password as JSON (Content-Type: application/json) or as a form.")
            return self.get_response(request)  # the browser's form names the missing field itself
        here = f"{account}:{address}"
        locked = cache.ttl(f"signin:locked:{here}") if cache.get(f"signin:locked:{here}") else 0
        if locked or (cache.get(f"signin:fail:{account}") or 0) >= limits["account"][0] * SIGNIN_ACCOUNT_SPREAD:
            return _too_many(request, locked or limits["account"][1])
        response = self.get_response(request)
        if response.status_code == _SIGN_IN_FAILURE[path]:
            _count(f"signin:fail:{account}", limits["account"][1])
            if _count(f"signin:fail:{here}", limits["account"][1]) >= limits["account"][0]:
                locks = _count(f"signin:locks:{here}", SIGNIN_LOCK_MAX_SECONDS)
                seconds = min(limits["account"][1] * 2 ** (locks - 1), SIGNIN_LOCK_MAX_SECONDS)
                cache.set(f"signin:locked:{here}", 1, timeout=seconds)
                cache.delete(f"signin:fail:{here}")
        return response


def _count(key: str, seconds: int) -> int:
    from core.counters import count_in_window

    return count_in_window(key, seconds)


def _account_of(request) -> str:
    """The email an attempt names, read from the body the way the view will read it: a form's ``username``
    or ``email``; under /api/, whatever DRF's parsers make of the body (``*/*``, ``application/*`` and
    ``*/json`` are parsed as JSON there, not only ``application/json``). "" when no email can be read."""
    import hashlib

    email = (
        _email_in_api_body(request) if request.path.startswith("/api/") else request.POST.get("username") or request.POST.get("email") or ""
    )
    email = str(email).strip().lower()[:254]
    return hashlib.sha256(email.encode()).hexdigest()[:32] if email else ""


def _email_in_api_body(request) -> str:
    import json

    from rest_framework.negotiation import DefaultContentNegotiation
    from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
    from rest_framework.settings import api_settings

    parser = DefaultContentNegotiation().select_parser(request, [parser() for parser in api_settings.DEFAULT_PARSER_CLASSES])
    if isinstance(parser, JSONParser):
        try:
            body = json.loads(request.body or b"{}")
        except (ValueError, RecursionError):
            return ""
        return str(body.get("email") or body.get("username") or "") if isinstance(body, dict) else ""
    if isinstance(parser, FormParser | MultiPartParser):
        return request.POST.get("email") or request.POST.get("username") or ""
    return ""


def _too_many(request, seconds: int):
    from django.http import HttpResponse, JsonResponse
    from django.utils.translation import gettext

    message = gettext("Too many attempts. Wait a few minutes and try again.")
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": {"code": "throttled", "message": message, "details": {}}}, status=429)
    else:
        response = HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")
    response["Retry-After"] = str(seconds)
    return response


class BadInputMiddleware:
    """Answer 400 to input no view can serve, instead of a 500: NUL bytes in the path or query string
    (PostgreSQL refuses them in text), a value the database cannot hold (DataError: a NUL in a JSON
    field, an id beyond bigint) and JSON nested too deep to parse (RecursionError). JSON under /api/.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from urllib.parse import unquote

        if "\x00" in request.path or "\x00" in unquote(request.META.get("QUERY_STRING", "")):
            return bad_request(request, "The address contains a NUL character.")
        return self.get_response(request)

    def process_exception(self, request, exception):
        from django.db import DataError

        if isinstance(exception, RecursionError):
            return bad_request(request, "The request body is nested too deeply.")
        if isinstance(exception, DataError):
            return bad_request(request, "The request holds a value that cannot be stored (a NUL character or a number out of range).")
        return None


def bad_request(request, message: str):
    from django.http import HttpResponse, JsonResponse

    if request.path.startswith("/api/"):
        return JsonResponse({"error": {"code": "invalid", "message": message, "details": {}}}, status=400)
    return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")


# Room for the multipart form around an upload (boundaries, headers, title and type fields).
UPLOAD_FORM_OVERHEAD_BYTES = 1024 * 1024


class RequestSizeMiddleware:
    """Answer 413 to a body larger than the largest upload allowed, from its Content-Length, before any
    of it is read: a 300 MB upload used to be spooled to disk before its 413."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.conf import settings
        from django.http import HttpResponse, JsonResponse

        limit = settings.BAEUM["MAX_UPLOAD_BYTES"] + UPLOAD_FORM_OVERHEAD_BYTES
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        if length <= limit:
            return self.get_response(request)
        message = (
            f"The request is {length / 1_048_576:.0f} MB; files up to {settings.BAEUM['MAX_UPLOAD_BYTES'] / 1_048_576:.0f} MB are accepted."
        )
        if request.path.startswith("/api/"):
            response = JsonResponse({"error": {"code": "file_too_large", "message": message, "details": {}}}, status=413)
        else:
            response = HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
        response["Connection"] = "close"  # the rest of the body is never read
        return response
