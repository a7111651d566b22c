from rest_framework.pagination import LimitOffsetPagination


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


def paginate(request, view, queryset, serializer_class, context: dict | None = None):
    """Return a paginated response of ``queryset`` serialised with ``serializer_class``."""
    paginator = Pagination()
    page = paginator.paginate_queryset(queryset, request, view=view)
    return paginator.get_paginated_response(serializer_class(page, many=True, context=context or {}).data)


def paginated_schema(serializer_class, name: str):
    """The OpenAPI shape of ``paginate``'s response, for ``extend_schema(responses=...)``."""
    from drf_spectacular.utils import inline_serializer
    from rest_framework import serializers

    return inline_serializer(
        name,
        {
            "count": serializers.IntegerField(),
            "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": serializer_class(many=True),
        },
    )
