from django.urls import path

from . import apis

urlpatterns = [
    path("plans/", apis.PlanListCreateApi.as_view(), name="plan-list"),
    path("plans/<int:plan_id>/", apis.PlanDetailApi.as_view(), name="plan-detail"),
    path("plans/<int:plan_id>/regenerate", apis.PlanRegenerateApi.as_view(), name="plan-regenerate"),
    path("plans/<int:plan_id>/sessions/<int:number>/", apis.SessionDetailApi.as_view(), name="plan-session"),
    path("plans/<int:plan_id>/sessions/<int:number>/progress", apis.SessionProgressApi.as_view(), name="plan-session-progress"),
]
