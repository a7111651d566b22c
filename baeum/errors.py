"""Domain errors shared by the apps, mapped to HTTP by ``config.api_errors``."""


class NotFound(LookupError):
    """The object does not exist for this user. Raised the same way when it exists but is not theirs."""

    code = "not_found"
