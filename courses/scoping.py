"""The one place a course widens a learner's reading scope.

``for_user(user)`` is what a user owns and may change; ``for_reader(user)`` adds the rows a course they
belong to publishes: its materials (and their pages, chunks, vectors, postings, glosses) and its plan (with
its modules and sessions). Read only: every write path uses ``for_user``. Row-level security's read-only
``course_member`` policies say the same in the database (``accounts.rls.course_member_sql``).
"""

from django.db import models

from accounts.scoping import OwnedManager, OwnedQuerySet, owner_id_of


class ReadableQuerySet(OwnedQuerySet):
    course_path = "material__course"  # how a row reaches the course that publishes it

    def for_reader(self, user):
        from .selectors import member_course_ids

        me = owner_id_of(user)
        return self._scoped().filter(models.Q(owner_id=me) | models.Q(**{f"{self.course_path}__in": member_course_ids(user)}))


class ReadableManager(OwnedManager.from_queryset(ReadableQuerySet)):
    def for_reader(self, user):
        """``user``'s own rows and those of the courses they belong to; ``ScopeError`` with no user."""
        return super().get_queryset().for_reader(user)


def readable_manager(course_path: str) -> ReadableManager:
    """A manager whose rows reach their course through ``course_path`` ("course", "material__course",
    "plan__course")."""
    queryset = type(f"ReadableQuerySet_{course_path}", (ReadableQuerySet,), {"course_path": course_path})
    return ReadableManager.from_queryset(queryset)()
