from django.urls import path

from . import apis, apis_notes, apis_study

urlpatterns = [
    path("plans/", apis.PlanListCreateApi.as_view(), name="plan-list"),
    path("plans/<int:plan_id>/", apis.PlanDetailApi.as_view(), name="plan-detail"),
    path("plans/<int:plan_id>/regenerate", apis.PlanRegenerateApi.as_view(), name="plan-regenerate"),
    path("plans/<int:plan_id>/sessions/<int:number>/", apis.SessionDetailApi.as_view(), name="plan-session"),
    path("plans/<int:plan_id>/sessions/<int:number>/progress", apis.SessionProgressApi.as_view(), name="plan-session-progress"),
    path("plans/<int:plan_id>/sessions/<int:number>/export.md", apis_notes.SessionExportApi.as_view(), name="plan-session-export"),
    path("plans/<int:plan_id>/export.md", apis_notes.PlanExportApi.as_view(), name="plan-export"),
    path("plans/<int:plan_id>/deck.apkg", apis_notes.DeckAnkiApi.as_view(), name="plan-deck-anki"),
    path("plans/<int:plan_id>/deck.csv", apis_notes.DeckCsvApi.as_view(), name="plan-deck-csv"),
    path("plans/<int:plan_id>/settings", apis_notes.PlanSettingsApi.as_view(), name="plan-settings"),
    path("plans/<int:plan_id>/today", apis_notes.PlanTodayApi.as_view(), name="plan-today"),
    path(
        "plans/<int:plan_id>/sessions/<int:number>/questions/<str:question_id>/answer",
        apis_study.QuestionAnswerApi.as_view(),
        name="plan-session-question-answer",
    ),
    path("plans/<int:plan_id>/sessions/<int:number>/cards", apis_study.SessionCardsApi.as_view(), name="plan-session-cards"),
    path("review/", apis_study.ReviewApi.as_view(), name="review"),
    path("review/cards/<int:card_id>/answer", apis_study.CardAnswerApi.as_view(), name="review-card-answer"),
    path("review/cards/<int:card_id>/rate", apis_study.CardRateApi.as_view(), name="review-card-rate"),
    path("notes/", apis_notes.NoteListCreateApi.as_view(), name="note-list"),
    path("notes/export.md", apis_notes.NotesExportApi.as_view(), name="notes-export"),
    path("notes/<int:note_id>/", apis_notes.NoteDetailApi.as_view(), name="note-detail"),
    path("materials/<str:ref_id>/guide", apis_notes.StudyGuideApi.as_view(), name="material-guide"),
]
