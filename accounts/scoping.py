"""The one way user-owned rows are reached: ``Model.objects.for_user(user)``, which fails closed.

Guards against the classic multi-tenant leak where a missing user silently means "all rows".
Crossing tenants is possible only through ``unscoped()``, and each call site says why.
"""

from django.db import models


class ScopeError(LookupError):
    """A query for user-owned rows was attempted without a user."""


def owner_id_of(user) -> int:
    """Return the primary key of an authenticated user, or raise ``ScopeError``."""
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        raise ScopeError("A user is required to read user-owned data.")
    return user.pk


class OwnedQuerySet(models.QuerySet):
    def for_user(self, user):
        """Return only ``user``'s rows; raise ``ScopeError`` when there is no user."""
        return self.filter(owner_id=owner_id_of(user))


class OwnedManager(models.Manager.from_queryset(OwnedQuerySet)):
    def unscoped(self):
        """Return every tenant's rows. Callers must say why in a comment (admin, system tasks)."""
        return super().get_queryset()
