"""The one way user-owned rows are reached: ``Model.objects.for_user(user)``, which fails closed.

Guards against the classic multi-tenant leak where a missing user silently means "all rows".
Crossing tenants is possible only through ``unscoped()``, and each call site says why.

``Model.objects`` refuses to read on its own: ``Material.objects.filter(...)`` raises
``UnscopedQueryError`` when evaluated, unless the query came from ``for_user()``, ``unscoped()``, a
row's related manager (``material.chunks``: reached through a row already in scope) or runs inside
``rls_system(why=...)`` (the admin's and operator commands' declared cross-tenant context, where
Django's own forms and validators read through the default manager). Writes that carry their owner
(``create``, ``bulk_create``) need no scope; the database checks the owner.
"""

from django.db import models

from baeum.errors import ScopeError


class UnscopedQueryError(RuntimeError):
    """``Model.objects`` was read without ``for_user()`` or ``unscoped()``: a programming error."""


def owner_id_of(user) -> int:
    """Return the primary key of an authenticated user, or raise ``ScopeError``."""
    if user is None or not getattr(user, "is_authenticated", False) or getattr(user, "pk", None) is None:
        raise ScopeError("A user is required to read user-owned data.")
    return user.pk


class OwnedQuerySet(models.QuerySet):
    _owner_scoped = False

    def for_user(self, user):
        """Return only ``user``'s rows; raise ``ScopeError`` when there is no user."""
        return self._scoped().filter(owner_id=owner_id_of(user))

    def _scoped(self):
        clone = self._chain()
        clone._owner_scoped = True
        return clone

    def _clone(self):
        clone = super()._clone()
        clone._owner_scoped = self._owner_scoped
        return clone

    def _check_scoped(self) -> None:
        if self._owner_scoped:
            return
        from .rls import current

        if current().kind == "system":
            return
        raise UnscopedQueryError(
            f"{self.model.__name__}.objects was read without an owner: use .for_user(user), or .unscoped() with a comment saying why."
        )

    # Every way a queryset reaches the database for reading or bulk writing checks the scope first.
    def _fetch_all(self):
        if self._result_cache is None:
            self._check_scoped()
        super()._fetch_all()

    def iterator(self, *args, **kwargs):
        self._check_scoped()
        return super().iterator(*args, **kwargs)

    def count(self):
        self._check_scoped()
        return super().count()

    def exists(self):
        self._check_scoped()
        return super().exists()

    def aggregate(self, *args, **kwargs):
        self._check_scoped()
        return super().aggregate(*args, **kwargs)

    def update(self, **kwargs):
        self._check_scoped()
        return super().update(**kwargs)

    def delete(self):
        self._check_scoped()
        return super().delete()

    def in_bulk(self, *args, **kwargs):
        self._check_scoped()
        return super().in_bulk(*args, **kwargs)


class OwnedManager(models.Manager.from_queryset(OwnedQuerySet)):
    def get_queryset(self):
        queryset = super().get_queryset()
        if getattr(self, "instance", None) is not None:
            queryset._owner_scoped = True  # a related manager (material.chunks): reached through a row in scope
        return queryset

    def for_user(self, user):
        """Return only ``user``'s rows; raise ``ScopeError`` when there is no user."""
        return super().get_queryset().for_user(user)

    def unscoped(self):
        """Return every tenant's rows. Callers must say why in a comment (admin, system tasks);
        row-level security still limits them to the session's learner unless in ``rls_system``."""
        return super().get_queryset()._scoped()
