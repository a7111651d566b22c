"""The learner's journey in a real browser (Debian's Chromium driven by Playwright) against the live
test server and a real Celery worker. Screenshots of each step go to test-artifacts/e2e/."""

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.pdfgen import make_pdf

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("BAEUM_CHROMIUM", "/usr/bin/chromium")
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

PAGES = [
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU. General purpose registers hold data while "
    "it is being computed. The EAX register is the accumulator.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program so that an event can be handled. An interrupt handler "
    "is the routine that processes the interrupt. Hardware interrupts come from devices such as the keyboard.",
]


@pytest.fixture
def browser():
    if not shutil.which(CHROMIUM) and not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make test` installs Debian's chromium with apt (make test-deps).")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(
            executable_path=CHROMIUM,
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        yield instance
        instance.close()


def test_sign_up_upload_plan_study_ask_and_check_sources(live_server, worker, browser, tmp_path):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(60_000)

    def shot(name: str) -> None:
        page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)

    page.goto(f"{live_server.url}/signup/")
    page.fill("#id_email", "learner@example.com")
    page.fill("#id_password", "a-long-pass-phrase")
    shot("01-signup")
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/library/$"))

    pdf = tmp_path / "assembly.pdf"
    pdf.write_bytes(make_pdf(PAGES))
    notes = tmp_path / "notes.md"
    notes.write_text("# Notes\n\nThe accumulator EAX holds arithmetic results.")
    page.set_input_files("#file-input", [str(pdf), str(notes)])  # several files chosen at once: all are uploaded
    page.wait_for_selector("#materials progress, #materials .badge.READY")
    shot("02-uploading")
    page.wait_for_function("document.querySelectorAll('#materials .badge.READY').length == 2")
    shot("03-ready")

    page.click("text=Plans")
    page.locator("label", has_text="assembly").locator("input[name=ref_ids]").check()  # the PDF, not the notes
    page.fill("#title", "Assembly basics")
    page.fill("#minutes", "5")
    page.click("text=Create plan")
    page.wait_for_selector("ol.sessions a")
    shot("04-plan")
    page.locator("ol.sessions a").first.click()
    page.wait_for_selector("text=Practice questions")
    page.locator("details.answer summary").first.click()
    shot("05-session")

    page.click("text=Ask about this session")
    page.wait_for_url(re.compile(r".*/chat/\d+/$"))
    page.fill("#question", "What is a register?")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg.assistant .meta")
    shot("06-answer")
    page.locator("a.cite").first.click()
    page.wait_for_selector("#source-text mark")
    assert "register" in page.locator("#source-text mark").inner_text().lower()
    shot("07-source")

    page.fill("#question", "What is the capital of France?")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.msg.assistant .meta').length >= 2")
    refusal = page.locator(".msg.assistant").last
    assert "refused" in refusal.get_attribute("class")
    assert "couldn't find" in refusal.inner_text()
    shot("08-refusal")

    # A phone: no page is wider than the screen (conversation titles, the library table, Korean text).
    page.set_viewport_size({"width": 390, "height": 844})
    for path in ("/library/", "/plans/", "/chat/"):
        page.goto(f"{live_server.url}{path}")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
    shot("09-phone-chat")
