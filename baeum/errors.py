"""Domain errors shared by the apps, mapped to HTTP by ``core.api_errors``."""


class NotFound(LookupError):
    """The object does not exist for this user. Raised the same way when it exists but is not theirs."""

    code = "not_found"


class ScopeError(LookupError):
    """A query for user-owned rows was attempted without a user (``accounts.scoping`` raises it)."""
