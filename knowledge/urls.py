from django.urls import path

from . import apis

urlpatterns = [
    path("materials/", apis.MaterialListCreateApi.as_view(), name="material-list"),
    path("materials/stats", apis.MaterialStatsApi.as_view(), name="material-stats"),
    # Before the detail route, which would take "stats" for a refId; one path in the schema.
    path("materials/stats/", apis.MaterialStatsApi.as_view(schema=None)),
    path("materials/<str:ref_id>/", apis.MaterialDetailApi.as_view(), name="material-detail"),
    path("materials/<str:ref_id>/chunks", apis.MaterialChunksApi.as_view(), name="material-chunks"),
    path("materials/<str:ref_id>/pages", apis.MaterialPagesApi.as_view(), name="material-pages"),
    path("materials/<str:ref_id>/file", apis.MaterialFileApi.as_view(), name="material-file"),
    path("materials/<str:ref_id>/reingest", apis.MaterialReingestApi.as_view(), name="material-reingest"),
    path("search", apis.SearchApi.as_view(), name="search"),
]
