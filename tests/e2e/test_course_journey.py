"""A course in a real browser: a teacher on a laptop, in Korean, uploads a book, makes a course with it,
builds its plan and makes an invitation; a learner on a phone opens the link, joins, answers a question of
session 1 (graded) and marks it done, asks the tutor a question the book answers (cited) and one it does
not, and flags the first answer; the teacher then sees the session done, the question the book does not
cover and the flag. Screenshots go to test-artifacts/e2e/course/."""

import re

import pytest

from accounts.content_managers import content_managers_group_sync
from tests.e2e.test_learner_journey import (
    ARTIFACTS,
    BROKEN_KOREAN_WORDS,
    FITS,
    LAPTOP,
    PASSWORD,
    PHONE,
    _shooter,
    browser,  # noqa: F401, F811 - the fixture
)
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

BOOK = [
    "제1장 스택\n스택은 마지막에 넣은 원소를 가장 먼저 꺼내는 자료구조이다. 푸시는 원소를 넣고 팝은 맨 위의 원소를 꺼낸다.",
    "제2장 큐\n큐는 먼저 넣은 원소를 먼저 꺼내는 자료구조이다. 인큐는 뒤에 원소를 넣고 디큐는 앞에서 원소를 꺼낸다.",
]


def _answer(question) -> None:
    """Answer a practice question whatever its kind (the verdict does not matter here, only that it is graded)."""
    kind = question.get_attribute("data-kind")
    if kind == "true_false":
        question.locator("button[value=true]").click()
        return
    if kind == "choice":
        question.locator("input[type=radio]").first.check()
    else:
        question.locator("[name=response]").fill("스택")
    question.locator("button[type=submit]").click()


def _sign_in(page, url: str, email: str) -> None:
    page.goto(f"{url}/login/")
    page.fill("#id_username", email)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/library/$"))


@pytest.fixture
def teacher_with_a_book(tmp_path):
    teacher = UserFactory(email="teacher@example.com", first_name="박교사", password=PASSWORD)
    teacher.groups.add(content_managers_group_sync())
    UserFactory(email="learner@example.com", first_name="이학생", password=PASSWORD)
    book = tmp_path / "자료구조.pdf"
    book.write_bytes(make_pdf(BOOK))
    return book


def test_a_teacher_publishes_a_course_and_sees_what_a_phone_learner_asked_and_flagged(
    teacher_with_a_book,
    live_server,
    browser,  # noqa: F811
):  # data first: Playwright runs an event loop

    laptop = browser.new_context(viewport=LAPTOP, locale="ko", extra_http_headers={"Accept-Language": "ko"})
    desk = laptop.new_page()
    desk.set_default_timeout(60_000)
    shoot_desk = _shooter(desk, ARTIFACTS / "course")
    _sign_in(desk, live_server.url, "teacher@example.com")
    desk.set_input_files("#file-input", [str(teacher_with_a_book)])  # the teacher uploads the book in their Library
    desk.wait_for_function("document.querySelectorAll('#materials .badge.READY').length == 1")
    desk.goto(f"{live_server.url}/courses/")
    desk.fill("#course-title", "자료구조 기초")
    desk.fill("#course-description", "스택과 큐")
    desk.click("#course-create button[type=submit]")
    desk.wait_for_url(re.compile(r".*/courses/\d+/$"))
    desk.select_option("#publish-ref", index=0)
    desk.click("#publish button[type=submit]")
    desk.wait_for_selector("text=빼기")  # the book is in the course, with its button to take it out
    desk.click("#plan a.button")  # the plan's page: chapters (all of the book, ticked) and session length
    desk.wait_for_url(re.compile(r".*/plan/edit$"))
    desk.click("#build button[type=submit]")
    desk.wait_for_selector("#plan ol.sessions li")
    desk.click("#invite form button[type=submit] >> nth=0")
    desk.wait_for_selector("#invite [role=status] .code")
    link = desk.locator("#invite [role=status] a").get_attribute("href")
    shoot_desk("01-teacher-course")

    phone = browser.new_context(viewport=PHONE, locale="ko", extra_http_headers={"Accept-Language": "ko"})
    hand = phone.new_page()
    hand.set_default_timeout(60_000)
    shoot_hand = _shooter(hand, ARTIFACTS / "course")
    _sign_in(hand, live_server.url, "learner@example.com")
    hand.goto(f"{live_server.url}{link}")
    assert "자료구조 기초" in hand.inner_text("main") and "박교사" in hand.inner_text("main")
    shoot_hand("02-learner-invitation")
    hand.click("main form button[type=submit]")
    hand.wait_for_url(re.compile(r".*/courses/\d+/$"))
    assert hand.evaluate(FITS) and hand.evaluate(BROKEN_KOREAN_WORDS) == []
    shoot_hand("03-learner-course")
    hand.click("#plan ol.sessions a >> nth=0")
    hand.wait_for_url(re.compile(r".*/sessions/1/$"))
    question = hand.locator("li.question").first
    _answer(question)
    question.locator(".result:not([hidden])").wait_for()
    assert hand.evaluate(FITS)
    shoot_hand("03b-learner-session-answered")
    hand.click("#complete button[type=submit]")
    hand.wait_for_url(re.compile(r".*/courses/\d+/$"))
    hand.goto(hand.url)
    hand.click("text=이 강좌에 대해 튜터에게 묻기")
    hand.wait_for_url(re.compile(r".*/chat/\d+/$"))
    hand.fill("#question", "스택은 어떤 자료구조야?")
    hand.keyboard.press("Enter")
    hand.wait_for_selector(".msg.assistant[data-done]")
    answer = hand.locator(".msg.assistant").first
    assert "마지막에 넣은 원소" in answer.inner_text() and answer.locator("a.cite").count() >= 1
    hand.fill("#question", "오늘 서울 날씨는 어때?")
    hand.keyboard.press("Enter")
    hand.wait_for_function("document.querySelectorAll('.msg.assistant[data-done]').length >= 2")
    assert "refused" in hand.locator(".msg.assistant").last.get_attribute("class")
    hand.locator(".msg.assistant details.flag-answer summary").first.click()
    hand.locator(".msg.assistant [data-kind=wrong_answer]").first.click()
    hand.wait_for_selector(".msg.assistant details.flag-answer [role=status]")
    assert hand.evaluate(FITS)
    shoot_hand("04-learner-asked-and-flagged")

    desk.reload()
    assert "이학생" in desk.inner_text("#roster") and re.search(r"1/\d+", desk.inner_text("#roster"))  # a session done
    assert "오늘 서울 날씨는 어때?" in desk.inner_text("#gaps") or desk.locator("#gaps summary").count() >= 1
    desk.locator("#gaps summary").first.click()
    assert "오늘 서울 날씨는 어때?" in desk.inner_text("#gaps")
    assert "이학생" not in desk.inner_text("#gaps")  # the learner did not share their name
    assert "스택은 어떤 자료구조야?" in desk.inner_text("#flags") and "마지막에 넣은 원소" in desk.inner_text("#flags")
    shoot_desk("05-teacher-sees-progress-gaps-and-flags")
    laptop.close()
    phone.close()
