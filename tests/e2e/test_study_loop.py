"""The study loop in a real browser: answer a session's questions, see them graded with their source,
then review the cards they became — at a phone's and a laptop's width, in English and Korean.
Screenshots go to test-artifacts/e2e/study/."""

import pytest

from tests.e2e.test_learner_journey import ARTIFACTS, FITS, LAPTOP, PHONE, browser  # noqa: F401 - the fixture
from tests.pdfgen import make_pdf

# transaction=True: the browser talks to the live server's threads, which see only committed rows.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PASSWORD = "a-long-pass-phrase"
BOOKS = {
    "en": [
        "Chapter 1 Numbers\nA single binary digit is called a bit. A 4-bit number is called a nibble. The basic unit of memory "
        "consists of 8 bits and is called a byte. Each hex digit corresponds to a nibble, so a byte is written with two hex digits.",
    ],
    "ko": [
        "제 1 장 수\n이진수에서 각 자리 숫자를 비트 (bit)라고 부른다. 4 비트 수를 니블 (nibble) 이라고 부른다. "
        "메모리의 기본 단위는 8 비트로 이루어지며 바이트 라고 부른다. 각 16 진수 자리는 니블 하나에 대응된다.",
    ],
}


@pytest.fixture
def learner(django_user_model, ingest):
    from plans.services.plans import plan_create, plan_generate

    user = django_user_model.objects.create_user(email="studier@example.com", password=PASSWORD)
    plans = {}
    for language, pages in BOOKS.items():
        book = ingest(user, make_pdf(pages), f"numbers-{language}.pdf", title=f"Numbers ({language})")
        plan = plan_create(owner=user, title=f"Numbers {language}", ref_ids=[book.ref_id], minutes_per_session=2, enqueue=False)
        plan_generate(plan_id=plan.pk)
        plans[language] = plan
    return user, plans


@pytest.mark.parametrize("language", ["en", "ko"])
def test_answer_questions_then_review_them_on_phone_and_laptop(live_server, learner, browser, language):  # noqa: F811
    _, plans = learner
    plan = plans[language]
    folder = ARTIFACTS / "study"
    folder.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("phone", PHONE), ("laptop", LAPTOP)):
        context = browser.new_context(viewport=viewport, locale="ko-KR" if language == "ko" else "en-US")
        page = context.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", "studier@example.com")
        page.fill("input[name=password]", PASSWORD)
        page.click("button[type=submit]")
        page.goto(f"{live_server.url}/plans/{plan.pk}/sessions/1/")
        question = page.locator("li.question[data-kind=short_answer]").filter(has_text="4 비트" if language == "ko" else "4-bit")
        question.locator("input[name=response]").fill("니블이요" if language == "ko" else "the nibble")
        question.locator("button[type=submit]").click()
        verdict = question.locator(".verdict")
        verdict.wait_for()
        assert "correct" in verdict.get_attribute("class")
        assert question.locator(".result a").first.get_attribute("href").startswith("/library/")  # its source page
        assert page.evaluate(FITS), f"session page scrolls sideways at {name} width"
        question.scroll_into_view_if_needed()
        page.screenshot(path=str(folder / f"{language}-{name}-graded-question.png"))
        page.screenshot(path=str(folder / f"{language}-{name}-session.png"), full_page=True)

        page.goto(f"{live_server.url}/review/")
        # An answer checked in the session is study: the day counts for the streak, no card is "reviewed" yet.
        page.locator("[data-stats] [data-streak]").filter(has_text="1").wait_for()
        assert page.locator("[data-stats] [data-reviewed]").inner_text().strip() == "0"
        assert page.evaluate(FITS), f"review page scrolls sideways at {name} width"
        page.screenshot(path=str(folder / f"{language}-{name}-review.png"), full_page=True)
        context.close()
