"""Study-loop API: answer a session's questions (graded offline, kept) and review due cards (FSRS)."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.providers import configured_llm
from knowledge import selectors as knowledge

from . import selectors
from .models import Card
from .services.review import answer_card, answer_question, cards_from_key_points, review_card


class AnswerInputSerializer(serializers.Serializer):
    response = serializers.CharField(
        max_length=2000, allow_blank=True, help_text="what the learner typed or picked (a choice's text or number; true/false)"
    )


class CardSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    planId = serializers.IntegerField(source="plan_id")
    planTitle = serializers.CharField(source="plan.title")
    sessionNumber = serializers.IntegerField(source="session_number", allow_null=True)
    kind = serializers.ChoiceField(choices=Card.Kind.choices)
    prompt = serializers.CharField()
    choices = serializers.ListField(child=serializers.CharField())
    due = serializers.DateTimeField()


class CardWithAnswerSerializer(CardSerializer):
    answer = serializers.CharField()
    citation = serializers.DictField(help_text="refId, chunkIndex, pageNumber, pageEnd and the quote the card comes from")


class GradeSerializer(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=["correct", "partial", "wrong"])
    score = serializers.FloatField()
    expected = serializers.CharField(help_text="the answer the text gives")
    rating = serializers.IntegerField(help_text="the FSRS rating the verdict was reviewed with: 1 again, 2 hard, 3 good")
    card = CardWithAnswerSerializer()


def graded(result, card, citation: dict | None = None) -> dict:
    """A grade as the API answers it; the card's citation with the page the book prints (``pageLabel``)."""
    if citation is None and card.citation.get("refId"):
        citation = knowledge.with_page_labels(user=card.owner, citations=[card.citation])[0]
    return {
        "verdict": result.verdict,
        "score": result.score,
        "expected": result.expected,
        "rating": result.rating,
        "card": {**CardWithAnswerSerializer(card).data, **({"citation": citation} if citation else {})},
    }


class QuestionAnswerApi(APIView):
    @extend_schema(
        operation_id="plans_sessions_questions_answer",
        summary="Answer a practice question",
        description="Grades the answer offline (spacing, particles, number formats and the text's own aliases do not matter), "
        "keeps it with the session and schedules the question as a review card.",
        request=AnswerInputSerializer,
        responses={200: GradeSerializer},
    )
    def post(self, request, plan_id: int, number: int, question_id: str):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        session = selectors.access_session(user=request.user, plan=plan, number=number)
        return answered(request, plan=plan, session=session, question_id=question_id)


def answered(request, *, plan, session, question_id: str) -> Response:
    """Grade the posted answer to one of ``session``'s questions (own plan or a course's) and answer with the grade."""
    data = AnswerInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    result, card, question = answer_question(
        user=request.user,
        plan=plan,
        session=session,
        question_id=question_id,
        response=data.validated_data["response"],
        llm=configured_llm(),
    )
    return Response(graded(result, card, question["citation"]))


class SessionCardsApi(APIView):
    @extend_schema(
        operation_id="plans_sessions_cards_create",
        summary="Remember a session's key points",
        description="Turns the session's key points into review cards (idempotent). Completing a session does the same.",
        request=None,
        responses={200: CardSerializer(many=True)},
    )
    def post(self, request, plan_id: int, number: int):
        plan = selectors.access_plan(user=request.user, plan_id=plan_id)
        session = selectors.access_session(user=request.user, plan=plan, number=number)
        return Response(CardSerializer(cards_from_key_points(user=request.user, plan=plan, session=session), many=True).data)


class ReviewStatsSerializer(serializers.Serializer):
    dueNow = serializers.IntegerField(help_text="cards due now")
    dueToday = serializers.IntegerField(help_text="cards due by the end of today (those due now included)")
    cards = serializers.IntegerField()
    reviewedToday = serializers.IntegerField()
    streakDays = serializers.IntegerField()
    retention = serializers.FloatField(allow_null=True, help_text="share of repeat reviews in the last 30 days not rated Again")
    retentionReviews = serializers.IntegerField(help_text="how many reviews retention is the share of")


class ReviewSerializer(serializers.Serializer):
    stats = ReviewStatsSerializer()
    cards = CardSerializer(many=True)


class ReviewApi(APIView):
    @extend_schema(
        operation_id="review_retrieve",
        summary="What is due for review",
        description="The cards due now across the learner's plans (or one plan's, with ?planId=), most overdue first, and streak and retention.",
        responses={200: ReviewSerializer},
    )
    def get(self, request):
        plan_id = request.query_params.get("planId")
        if plan_id is not None:
            plan_id = selectors.access_plan(user=request.user, plan_id=plan_id).pk
        cards = selectors.due_cards(user=request.user, plan_id=plan_id)
        return Response({"stats": selectors.review_stats(user=request.user), "cards": CardSerializer(cards, many=True).data})


class CardAnswerApi(APIView):
    @extend_schema(
        operation_id="review_cards_answer",
        summary="Answer a due card",
        description="Grades a typed or picked answer and reviews the card with the rating the grade means.",
        request=AnswerInputSerializer,
        responses={200: GradeSerializer},
    )
    def post(self, request, card_id: int):
        card = selectors.access_card(user=request.user, card_id=card_id)
        data = AnswerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result, card = answer_card(card=card, response=data.validated_data["response"], llm=configured_llm())
        return Response(graded(result, card))


class RateInputSerializer(serializers.Serializer):
    rating = serializers.ChoiceField(choices=[1, 2, 3, 4], help_text="1 again, 2 hard, 3 good, 4 easy")


class CardRateApi(APIView):
    @extend_schema(
        operation_id="review_cards_rate",
        summary="Rate a card",
        description="Again / Hard / Good / Easy: FSRS moves the card's due date accordingly.",
        request=RateInputSerializer,
        responses={200: CardWithAnswerSerializer},
    )
    def post(self, request, card_id: int):
        card = selectors.access_card(user=request.user, card_id=card_id)
        data = RateInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        card = review_card(card=card, rating=data.validated_data["rating"])
        body = CardWithAnswerSerializer(card).data
        if card.citation.get("refId"):  # the page the book prints, as every other source link shows it
            body["citation"] = knowledge.with_page_labels(user=card.owner, citations=[card.citation])[0]
        return Response(body)
