"""Every domain error reaches an API client the same way: its own status and stable code, in one JSON shape.

The errors are raised from a real DRF view through the project's exception handler (no database):
``core.api_errors.exception_handler`` is the one place a ``BaeumError`` becomes HTTP.
"""

import json
from types import SimpleNamespace

import pytest
from django.utils import translation
from django.utils.translation import gettext_lazy
from rest_framework.permissions import AllowAny
from rest_framework.test import APIRequestFactory
from rest_framework.views import APIView

from accounts.services import REGISTRATION_REFUSED, AccountError, RegistrationRefused, WeakPassword
from baeum.errors import BaeumError, MaterialNotReady, MaterialsRemoved, NotFound, ScopeError
from chat.selectors import ConversationNotFound
from core.api_errors import ApiError
from knowledge.selectors.materials import MaterialFileMissing, MaterialNotFound
from knowledge.services.materials import UploadRejected
from plans.selectors import CardNotFound, PlanNotFound, SessionNotFound
from plans.selectors_guide import NoteNotFound
from plans.services.review import QuestionNotFound


def _answer(error: Exception, *, language: str = "en"):
    """Raise ``error`` inside a DRF view and return (status, headers, body) as a client sees them."""

    class Raising(APIView):
        authentication_classes: list = []
        permission_classes = [AllowAny]

        def get(self, request):
            raise error

    request = APIRequestFactory().get("/api/v1/anything")
    with translation.override(language):  # what LocaleMiddleware does for Accept-Language
        response = Raising.as_view()(request)
        response.render()
    return response.status_code, response, json.loads(response.content)


ERRORS = [
    # (the error as raised, the status and code a client sees, the details it carries)
    (NotFound("No such thing."), 404, "not_found", {}),
    (MaterialNotFound("mat_x"), 404, "not_found", {}),
    (MaterialFileMissing(SimpleNamespace(original_filename="notes.pdf")), 404, "file_missing", {}),
    (PlanNotFound(7), 404, "not_found", {}),
    (SessionNotFound(3), 404, "not_found", {}),
    (CardNotFound(5), 404, "not_found", {}),
    (NoteNotFound(9), 404, "not_found", {}),
    (QuestionNotFound(2), 404, "not_found", {}),
    (ConversationNotFound(4), 404, "not_found", {}),
    (ScopeError("A user is required to read user-owned data."), 401, "not_authenticated", {}),
    (AccountError("The password is wrong.", code="wrong_password"), 400, "wrong_password", {}),
    (RegistrationRefused(reason="email_taken"), 400, "registration_refused", {}),
    (
        WeakPassword(["This password is too short.", "This password is too common."]),
        400,
        "weak_password",
        {"password": ["This password is too short.", "This password is too common."]},
    ),
    (UploadRejected("“a.exe” is not a supported type. Upload a PDF.", code="unsupported_type"), 400, "unsupported_type", {}),
    (
        UploadRejected("“big.pdf” is 90.0 MB; the limit is 50 MB. Split or compress it.", code="file_too_large", status=413),
        413,
        "file_too_large",
        {},
    ),
    (
        UploadRejected("Baeum is checking other uploads right now; upload “a.pdf” again in a minute.", code="busy", status=503),
        503,
        "busy",
        {},
    ),
    (MaterialNotReady("Material mat_x is PENDING, not READY.", ref_id="mat_x"), 400, "material_not_ready", {"refId": "mat_x"}),
    (MaterialsRemoved("Every material of this plan was removed."), 409, "materials_removed", {}),
    (ApiError("first and last must be page numbers."), 400, "invalid", {}),
    (ApiError("No such token.", code="not_found", status_code=404), 404, "not_found", {}),
    (BaeumError("Something specific.", code="specific", status=422, details={"field": "x"}), 422, "specific", {"field": "x"}),
]


@pytest.mark.parametrize(
    ("error", "status", "code", "details"), ERRORS, ids=lambda value: type(value).__name__ if isinstance(value, Exception) else None
)
def test_each_error_answers_with_its_own_status_and_code_in_the_one_error_format(error, status, code, details):
    answered, _, body = _answer(error)
    assert answered == status
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == code
    assert body["error"]["details"] == details
    assert body["error"]["message"]


def test_each_domain_error_is_a_baeum_error_and_keeps_the_builtin_class_callers_catch():
    assert all(isinstance(error, BaeumError) for error, *_ in ERRORS)
    assert isinstance(MaterialNotFound("mat_x"), LookupError)  # callers catching LookupError still do
    assert isinstance(MaterialNotReady("not ready"), ValueError)
    assert isinstance(MaterialsRemoved("removed"), ValueError)


def test_the_message_shown_is_the_raisers_own_in_the_active_language():
    _, _, english = _answer(AccountError(gettext_lazy("This reset link is invalid or has expired. Ask for a new one."), code="x"))
    _, _, korean = _answer(
        AccountError(gettext_lazy("This reset link is invalid or has expired. Ask for a new one."), code="x"), language="ko"
    )
    assert english["error"]["message"] == "This reset link is invalid or has expired. Ask for a new one."
    assert any("\uac00" <= char <= "\ud7a3" for char in korean["error"]["message"])
    _, _, refused = _answer(RegistrationRefused(reason="email_too_long"))
    with translation.override("en"):
        assert refused["error"]["message"] == str(REGISTRATION_REFUSED)  # never says why, so no address is confirmed


def test_a_refused_upload_reads_in_korean_but_stays_english_where_it_is_printed():
    error = UploadRejected("“virus.exe” is not a supported type. Upload a PDF.", code="unsupported_type")
    _, _, korean = _answer(error, language="ko")
    assert "virus.exe" in korean["error"]["message"] and "지원하지 않는 형식" in korean["error"]["message"]
    assert str(error) == "“virus.exe” is not a supported type. Upload a PDF."  # what the CLI and the admin show


def test_a_missing_user_answers_drfs_own_401_without_its_developer_message():
    status, response, body = _answer(ScopeError("A user is required to read user-owned data."))
    assert status == 401 and body["error"]["code"] == "not_authenticated"
    assert "user-owned" not in body["error"]["message"]
    assert not response.has_header("WWW-Authenticate")
