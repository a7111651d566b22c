"""The study loop: a session's questions are answered and graded, kept as FSRS cards, and come back for review."""

from datetime import timedelta

import pytest
from django.utils import timezone

from plans.models import Card, Review
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

PAGES = [
    "Chapter 1 Numbers\nA single binary digit is called a bit. A 4-bit number is called a nibble. "
    "The basic unit of memory consists of 8 bits and is called a byte. Each hex digit corresponds to a nibble, "
    "so a byte is written with two hex digits. Binary numbers are read from the least significant bit.",
    "Chapter 2 Stacks\nA stack is a Last-In First-Out list kept in memory. The stack pointer register holds the address "
    "of the top of the stack. The PUSH instruction stores a value on the stack and the POP instruction removes it.",
]
KOREAN_PAGES = [
    "제 1 장 수\n이진수에서 각 자리 숫자를 비트 (bit)라고 부른다. 4 비트 수를 니블 (nibble) 이라고 부른다. "
    "메모리의 기본 단위는 8 비트로 이루어지며 바이트 라고 부른다. 각 16 진수 자리는 니블 하나에 대응된다.",
]


@pytest.fixture
def plan(user, ingest):
    from plans.services.plans import plan_create, plan_generate

    book = ingest(user, make_pdf(PAGES), "numbers.pdf", title="Numbers")
    created = plan_create(owner=user, title="Numbers", ref_ids=[book.ref_id], minutes_per_session=2, enqueue=False)
    plan_generate(plan_id=created.pk)
    created.refresh_from_db()
    return created


def _questions(api_client, plan, number=1):
    return api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{number}/").json()["questions"]


def _answer(client, plan, question, response, number=1):
    return client.post(
        f"/api/v1/plans/{plan.pk}/sessions/{number}/questions/{question['id']}/answer", {"response": response}, format="json"
    )


def test_a_typed_answer_is_graded_kept_with_the_session_and_becomes_a_card(api_client, plan):
    questions = _questions(api_client, plan)
    named = next(question for question in questions if question["kind"] == "short_answer" and question["answer"] == "nibble")
    assert named["question"] == "What is a 4-bit number called?"
    assert named["citation"]["pageNumber"] == 1 and "nibble" in named["citation"]["quote"]
    right = _answer(api_client, plan, named, "  The Nibble ")
    assert right.status_code == 200, right.content
    body = right.json()
    assert body["verdict"] == "correct" and body["rating"] == 3 and body["expected"] == "nibble"
    assert body["card"]["citation"]["pageNumber"] == 1
    card = Card.objects.get(pk=body["card"]["id"])
    assert card.due > timezone.now() + timedelta(minutes=5)  # Good on a new card: not due again at once
    wrong = _answer(api_client, plan, named, "byte").json()
    assert wrong["verdict"] == "wrong" and wrong["card"]["id"] == card.pk  # the same question is one card
    assert Review.objects.filter(card=card).count() == 2
    session = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/1/").json()
    assert session["answers"][named["id"]] == {"response": "byte", "verdict": "wrong"}
    assert session["status"] == "started"  # answering a question starts the session


def test_answering_a_question_leaves_a_completed_session_completed(api_client, plan):
    done = api_client.post(f"/api/v1/plans/{plan.pk}/sessions/1/progress", {"status": "completed"}, format="json")
    assert done.status_code == 200, done.content
    _answer(api_client, plan, _questions(api_client, plan)[0], "nibble")
    assert api_client.get(f"/api/v1/plans/{plan.pk}/sessions/1/").json()["status"] == "completed"


def test_every_question_kind_can_be_answered_right(api_client, plan):
    kinds = set()
    for number in plan.sessions.values_list("number", flat=True):
        for question in _questions(api_client, plan, number):
            response = {"true_false": question["answer"], "definition": question["answer"]}.get(question["kind"], question["answer"])
            body = _answer(api_client, plan, question, response, number).json()
            assert body["verdict"] == "correct", (question, body)
            kinds.add(question["kind"])
    assert {"short_answer", "definition"} <= kinds


def test_fsrs_moves_due_dates_as_the_ratings_say(user, plan):
    from plans.services.review import review_card

    now = timezone.now()
    easy = Card.objects.create(owner=user, plan=plan, key="a", kind="cloze", prompt="p", answer="a", citation={}, due=now)
    again = Card.objects.create(owner=user, plan=plan, key="b", kind="cloze", prompt="p", answer="a", citation={}, due=now)
    review_card(card=easy, rating=4, now=now)
    review_card(card=again, rating=1, now=now)
    assert easy.due - now >= timedelta(days=1)
    assert again.due - now <= timedelta(minutes=10)
    first_interval = easy.due - now
    later = easy.due
    review_card(card=easy, rating=3, now=later)
    assert easy.due - later > first_interval  # remembered again: the next interval grows
    with pytest.raises(ValueError, match="rating"):
        review_card(card=easy, rating=5)


def test_review_shows_due_cards_takes_ratings_and_reports_streak_and_retention(api_client, user, plan):
    questions = _questions(api_client, plan)
    for question in questions[:2]:
        _answer(api_client, plan, question, "I do not know")  # wrong: due again within minutes
    completed = api_client.post(f"/api/v1/plans/{plan.pk}/sessions/1/progress", {"status": "completed"}, format="json")
    assert completed.status_code == 200
    key_points = Card.objects.filter(owner=user, session_number=1).exclude(key__in=[question["id"] for question in questions])
    assert key_points.exists()  # a completed session's key points come back for review
    review = api_client.get("/api/v1/review/").json()
    # Answers checked in the session are study: the streak counts the day, no card counts as reviewed yet.
    assert review["stats"]["reviewedToday"] == 0 and review["stats"]["streakDays"] == 1 and review["stats"]["retention"] is None
    assert review["stats"]["dueToday"] >= review["stats"]["dueNow"] == len(review["cards"]) >= key_points.count()
    assert all("_____" in card.prompt for card in key_points)  # a key point card asks for something
    card = review["cards"][0]
    assert "answer" not in card  # the answer is shown after answering
    rated = api_client.post(f"/api/v1/review/cards/{card['id']}/rate", {"rating": 3}, format="json")
    assert rated.status_code == 200 and rated.json()["answer"]
    assert card["id"] not in [item["id"] for item in api_client.get("/api/v1/review/").json()["cards"]]
    typed = next(item for item in review["cards"][1:] if item["kind"] != "key_point")
    graded = api_client.post(f"/api/v1/review/cards/{typed['id']}/answer", {"response": "nothing"}, format="json").json()
    assert graded["verdict"] == "wrong" and graded["rating"] == 1
    stats = api_client.get("/api/v1/review/").json()["stats"]
    assert stats["reviewedToday"] == 2 and stats["retention"] == 0.5  # rated Good, then answered wrong
    assert stats["retentionReviews"] == 2  # what the page updates retention from as the learner answers on


def test_streak_counts_consecutive_days_and_retention_is_remembered_over_reviewed(user, plan):
    from plans import selectors
    from plans.services.review import review_card

    now = timezone.now()
    card = Card.objects.create(owner=user, plan=plan, key="c", kind="cloze", prompt="p", answer="a", citation={}, due=now)
    for days_ago, rating in [(3, 3), (2, 1), (1, 3)]:
        review_card(card=card, rating=rating, now=now - timedelta(days=days_ago))
    review_card(card=card, rating=1, now=now - timedelta(days=10), in_session=True)  # a session's check: not a review
    stats = selectors.review_stats(user=user, now=now)
    assert stats["streakDays"] == 3  # nothing yet today: the streak still counts up to yesterday
    assert stats["retention"] == 0.667  # two of the three reviews remembered
    others = [
        Card.objects.create(owner=user, plan=plan, key=f"k{n}", kind="cloze", prompt="p", answer="a", citation={}, due=now)
        for n in range(10)
    ]
    for number, other in enumerate(others):
        review_card(card=other, rating=1 if number % 2 else 3, now=now)
    stats = selectors.review_stats(user=user, now=now)
    assert stats["reviewedToday"] == 10 and stats["retention"] == round(7 / 13, 3)  # 5 of 10 wrong today: not 100 %


def test_korean_answers_with_particles_and_spacing_are_right(user, api_client, ingest):
    from plans.services.plans import plan_create, plan_generate

    book = ingest(user, make_pdf(KOREAN_PAGES), "수.pdf", title="수")
    plan = plan_create(owner=user, title="수", ref_ids=[book.ref_id], minutes_per_session=2, enqueue=False)
    plan_generate(plan_id=plan.pk)
    questions = _questions(api_client, plan)
    nibble = next(question for question in questions if question["answer"] == "니블")
    assert nibble["question"].endswith("무엇이라고 부르나요?") and nibble["accepted"] == ["nibble"]
    assert _answer(api_client, plan, nibble, "니블이요").json()["verdict"] == "correct"
    assert _answer(api_client, plan, nibble, "nibble").json()["verdict"] == "correct"


def test_a_term_in_the_other_language_is_right_where_the_learners_books_pair_them(user, api_client, plan, ingest):
    card = Card.objects.create(owner=user, plan=plan, key="bit", kind="short_answer", prompt="A single binary digit is called?",
                               answer="bit", citation={}, due=timezone.now())  # fmt: skip
    assert api_client.post(f"/api/v1/review/cards/{card.pk}/answer", {"response": "비트"}, format="json").json()["verdict"] == "wrong"
    ingest(user, make_pdf(KOREAN_PAGES), "수.pdf", title="수")  # "비트 (bit)": the learner's Korean book pairs them
    graded = api_client.post(f"/api/v1/review/cards/{card.pk}/answer", {"response": "비트"}, format="json").json()
    assert graded["verdict"] == "correct"
    assert api_client.post(f"/api/v1/review/cards/{card.pk}/answer", {"response": "바이트"}, format="json").json()["verdict"] == "wrong"


def test_another_user_reaches_no_question_card_or_review(api_client, other_api_client, plan):
    question = _questions(api_client, plan)[0]
    card_id = _answer(api_client, plan, question, question["answer"]).json()["card"]["id"]
    assert _answer(other_api_client, plan, question, "x").status_code == 404
    assert other_api_client.post(f"/api/v1/plans/{plan.pk}/sessions/1/cards").status_code == 404
    assert other_api_client.post(f"/api/v1/review/cards/{card_id}/rate", {"rating": 3}, format="json").status_code == 404
    assert other_api_client.post(f"/api/v1/review/cards/{card_id}/answer", {"response": "x"}, format="json").status_code == 404
    assert other_api_client.get("/api/v1/review/").json()["cards"] == []
    assert other_api_client.get(f"/api/v1/review/?planId={plan.pk}").status_code == 404
    assert _answer(api_client, plan, {"id": "nosuchquestion"}, "x").status_code == 404


class ScriptedLLM:
    """A faked LLM (the transport is tested in tests/chat): returns the replies given, in order."""

    model = "scripted"

    def __init__(self, *replies):
        self.replies, self.prompts = list(replies), []

    def complete(self, *, system, prompt, max_tokens=800):
        from baeum.answering.llm import Completion

        self.prompts.append(prompt)
        return Completion(text=self.replies.pop(0) if self.replies else "?", input_tokens=1, output_tokens=1, model=self.model)


def test_with_an_llm_a_paraphrase_is_judged_against_the_cited_sentence(user, api_client, plan):
    from plans.services.review import answer_question

    session = plan.sessions.get(number=1)
    named = next(question for question in _questions(api_client, plan) if question["answer"] == "nibble")
    llm = ScriptedLLM('{"verdict": "correct"}')
    result, _, _ = answer_question(user=user, plan=plan, session=session, question_id=named["id"], response="half of a byte", llm=llm)
    assert result.verdict == "correct" and "A 4-bit number is called a nibble." in llm.prompts[0]  # judged on the quote
    unusable = ScriptedLLM("I think so!")
    result, _, _ = answer_question(user=user, plan=plan, session=session, question_id=named["id"], response="half of a byte", llm=unusable)
    assert result.verdict == "wrong"  # no usable verdict: the offline grade stands
    untouched = ScriptedLLM('{"verdict": "wrong"}')
    result, _, _ = answer_question(user=user, plan=plan, session=session, question_id=named["id"], response="nibble", llm=untouched)
    assert result.verdict == "correct" and untouched.prompts == []  # right offline: no model call


def test_with_an_exam_date_no_review_waits_past_it(user, plan):
    from datetime import timedelta

    from plans.services.review import review_card

    now = timezone.now()
    plan.exam_date = (now + timedelta(days=5)).date()
    plan.save(update_fields=["exam_date"])
    card = Card.objects.create(owner=user, plan=plan, key="e", kind="cloze", prompt="p", answer="a", citation={}, due=now)
    review_card(card=card, rating=4, now=now)
    review_card(card=card, rating=4, now=now + timedelta(days=1))  # Easy twice: FSRS alone would wait weeks
    assert timezone.localdate(card.due) == plan.exam_date - timedelta(days=1)
    soon = Card.objects.create(owner=user, plan=plan, key="f", kind="cloze", prompt="p", answer="a", citation={}, due=now)
    review_card(card=soon, rating=1, now=now)
    assert soon.due - now <= timedelta(minutes=10)  # an Again card still comes back within minutes


def test_cards_of_a_deleted_material_are_neither_served_nor_due(api_client, user, plan, ingest):
    """A walkthrough deleted a book and was still asked its cards in review, the source link "Not found"."""
    from knowledge.models import Material
    from knowledge.services.materials import material_delete

    other = ingest(user, make_pdf(KOREAN_PAGES), "수.pdf", title="수")
    for question in _questions(api_client, plan)[:2]:
        _answer(api_client, plan, question, "I do not know")  # wrong: due again within minutes
    Card.objects.filter(owner=user).update(due=timezone.now() - timedelta(minutes=1))
    before = api_client.get("/api/v1/review/").json()
    assert before["cards"] and before["stats"]["dueNow"] == len(before["cards"])

    material_delete(material=Material.objects.get(ref_id=plan.ref_ids[0]))
    after = api_client.get("/api/v1/review/").json()
    assert after["cards"] == [] and after["stats"]["dueNow"] == 0, after
    assert Card.objects.filter(owner=user).count() == before["stats"]["cards"]  # kept, with their review history
    assert other.ref_id not in plan.ref_ids


def test_a_key_points_card_blanks_a_term_of_the_book_not_its_longest_word():
    """A walkthrough's cards blanked "For an _____ of the syntax" (example) and "by _____ bit-by-bit"
    (traditional): the longest word of the point. A term the book uses in a few chunks comes first."""
    from plans.services.review import key_term_candidates

    frequencies = {"example": 180, "traditional": 1, "polynomial": 9, "syntax": 14}
    assert key_term_candidates({"example", "traditional", "polynomial", "syntax"}, frequencies, 1000) == ["polynomial", "syntax"]
    assert key_term_candidates({"example", "traditional"}, frequencies, 1000) == []  # no blank: recall the point
    # A walkthrough's Vim tutor cards blanked "either" and "every": rare in the book, but words that name nothing.
    assert key_term_candidates({"either", "every", "cursor"}, {"either": 3, "every": 4, "cursor": 9}, 1000) == ["cursor"]
