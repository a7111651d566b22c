"""The one error base of Baeum: each domain error says its stable ``code`` and HTTP ``status`` itself.

``core.api_errors.exception_handler`` maps every ``BaeumError`` to the API's error format
(``{"error": {"code", "message", "details"}}``) in one place; views never re-map errors by hand.
No Django here: a raiser in Django code passes a translated (or lazily translated) message.
"""


class BaeumError(Exception):
    """An error with a stable ``code`` a client can branch on, an HTTP ``status`` and a message safe to show."""

    code: str = "error"
    status: int = 400

    def __init__(self, message="", *, code: str | None = None, status: int | None = None, details: dict | None = None):
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code
        if status is not None:
            self.status = status
        self.details = details or {}

    def public_message(self) -> str:
        """Return the message the API shows (in the active language when the raiser passed a lazy one)."""
        return str(self.message)


class NotFound(BaeumError, LookupError):
    """The object does not exist for this user. Raised the same way when it exists but is not theirs."""

    code = "not_found"
    status = 404


class ScopeError(BaeumError, LookupError):
    """A query for user-owned rows was attempted without a user (``accounts.scoping`` raises it).

    The API answers it as an unauthenticated request (401); its own message is for developers.
    """

    code = "not_authenticated"
    status = 401


class MaterialNotReady(BaeumError, ValueError):
    """A request names a material that is not READY yet (still being read, or failed)."""

    code = "material_not_ready"
    status = 400

    def __init__(self, message="", *, ref_id: str = ""):
        super().__init__(message, details={"refId": ref_id} if ref_id else None)
        self.ref_id = ref_id


class MaterialsRemoved(BaeumError, ValueError):
    """Every material a plan (or conversation) was built from has been removed from the library."""

    code = "materials_removed"
    status = 409
