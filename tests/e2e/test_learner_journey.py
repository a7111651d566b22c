"""The learner's journey in a real browser (Debian's Chromium driven by Playwright) against the live
test server. Screenshots of each step go to test-artifacts/e2e/, and of every page at a phone's and a
laptop's width, in English and Korean, to test-artifacts/e2e/responsive/."""

import os
import re
import shutil
from pathlib import Path

import pytest

from tests.pdfgen import make_pdf

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e"
CHROMIUM = os.environ.get("BAEUM_CHROMIUM", "/usr/bin/chromium")
# transaction=True: the browser talks to the live server's threads, which see only committed rows.
pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
PASSWORD = "a-long-pass-phrase"

PAGES = [
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU. General purpose registers hold data while "
    "it is being computed. The EAX register is the accumulator.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program so that an event can be handled. An interrupt handler "
    "is the routine that processes the interrupt. Hardware interrupts come from devices such as the keyboard.",
]
KOREAN_PAGES = [
    "제1장 레지스터\n레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다. 범용 레지스터는 계산하는 동안 데이터를 임시로 보관한다. "
    "누산기 레지스터는 산술 연산의 결과를 담는다.",
    "제2장 인터럽트\n인터럽트는 프로그램의 흐름을 잠시 멈추고 이벤트를 처리하게 하는 메커니즘이다. 인터럽트 핸들러가 이벤트를 처리한다. "
    "키보드 같은 장치에서 하드웨어 인터럽트가 들어온다.",
]
PHONE, LAPTOP = {"width": 390, "height": 844}, {"width": 1366, "height": 900}
FITS = "document.documentElement.scrollWidth <= window.innerWidth"
# Korean words (runs of Hangul syllables) that a line break cuts in two: each run must sit on one line.
BROKEN_KOREAN_WORDS = """(() => {
  const broken = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest("script, style, textarea, select, option, [hidden]")) continue;
    for (const match of node.textContent.matchAll(/[\\uac00-\\ud7a3]+/g)) {
      if (match[0].length < 2) continue;
      const range = document.createRange();
      range.setStart(node, match.index); range.setEnd(node, match.index + match[0].length);
      const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (lines.size > 1) broken.push(match[0]);
    }
  }
  return broken;
})()"""


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


def _shooter(page, folder: Path):
    folder.mkdir(parents=True, exist_ok=True)

    def shot(name: str) -> None:
        page.screenshot(path=str(folder / f"{name}.png"), full_page=True)

    return shot


def test_sign_up_upload_plan_study_ask_and_check_sources(live_server, worker, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(60_000)
    shot = _shooter(page, ARTIFACTS)

    page.goto(f"{live_server.url}/signup/")
    page.fill("#id_email", "learner@example.com")
    page.fill("#id_password", PASSWORD)
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

    page.click("header nav >> text=Plans")
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
    page.wait_for_selector(".msg.assistant[data-done]")
    shot("06-answer")
    page.locator("a.cite").first.click()
    page.wait_for_selector("#source-text mark")
    assert "register" in page.locator("#source-text mark").inner_text().lower()
    shot("07-source")

    page.fill("#question", "What is the capital of France?")
    page.keyboard.press("Enter")
    page.wait_for_function("document.querySelectorAll('.msg.assistant[data-done]').length >= 2")
    refusal = page.locator(".msg.assistant").last
    assert "refused" in refusal.get_attribute("class")
    assert "couldn't find" in refusal.inner_text()
    shot("08-refusal")

    # A phone: no page is wider than the screen (conversation titles, the library table, Korean text).
    page.set_viewport_size(PHONE)
    for path in ("/library/", "/plans/", "/chat/"):
        page.goto(f"{live_server.url}{path}")
        assert page.evaluate(FITS), path
    shot("09-phone-chat")


def test_library_viewer_and_tutor_in_the_browser(live_server, browser, tmp_path):
    """No Retry where it cannot help, upload errors that stay, the search box, the page picture, find and jump, live titles, steps in
    words, rename and delete, in English then Korean (switched in the header). Tasks run in the server here."""
    page = browser.new_page(viewport=LAPTOP)
    page.set_default_timeout(60_000)
    shot = _shooter(page, ARTIFACTS / "details")
    page.goto(f"{live_server.url}/signup/")
    page.fill("#id_email", "details@example.com")
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url(re.compile(r".*/library/$"))

    pdf, fake, unsupported = tmp_path / "assembly.pdf", tmp_path / "exported-notes.pdf", tmp_path / "slides.key"
    pdf.write_bytes(make_pdf(PAGES))
    fake.write_bytes(b"These notes were saved as text, not as a PDF.")
    unsupported.write_bytes(b"not a supported file")
    page.set_input_files("#file-input", [str(unsupported)])
    page.wait_for_selector("#uploads li.error")
    page.set_input_files("#file-input", [str(pdf), str(fake)])  # a later upload never wipes an earlier error
    page.wait_for_function("document.querySelectorAll('#materials .badge.READY').length == 1")
    page.wait_for_selector("#materials .badge.FAILED")
    error = page.locator("#uploads li.error")
    assert error.count() == 1 and "slides.key" in error.inner_text() and "not a supported type" in error.inner_text()
    failed_row = page.locator("#materials tr", has_text="exported-notes")
    assert "is named .pdf but its content is not a PDF" in failed_row.inner_text()
    assert failed_row.locator("button[data-retry]").count() == 0  # the same bytes would fail again: no Retry
    assert "Chunks" not in page.locator("#materials").inner_text()
    shot("01-library-errors")

    page.fill("#library-search", "interrupt handler")
    page.click("form.search button[type=submit]")
    page.wait_for_selector("#results .results-list a")
    assert "page 2" in page.locator("#results").inner_text()
    assert page.locator("#results .snippet mark", has_text="interrupt").count() >= 1  # the query's words marked
    shot("02-search")
    page.locator("#results .results-list a").first.click()
    page.wait_for_selector("#page-text mark#quote")
    page.wait_for_function("document.querySelector('.page-image img').naturalWidth > 800")  # drawn by PDFium
    assert page.locator(".page-image img").is_visible() and page.locator("#page-text").is_visible()  # side by side
    page.fill("#find-input", "interrupt")
    page.wait_for_selector("#page-text mark.found")
    assert page.locator("#page-text mark.found").count() >= 3 and "of" in page.locator("#find-count").inner_text()
    shot("03-viewer-find")
    page.fill("#jump-page", "1")
    page.click("#jump button[type=submit]")
    page.wait_for_url(re.compile(r".*page=1.*"))
    assert "register" in page.locator("#page-text").inner_text()

    page.click("header nav >> text=Tutor")
    page.click("text=+ New conversation")
    page.wait_for_url(re.compile(r".*/chat/\d+/$"))
    page.select_option("#mode", "agentic")
    page.fill("#question", "What is an interrupt handler and where do hardware interrupts come from?")
    page.keyboard.press("Enter")
    page.wait_for_selector(".msg.assistant[data-done]")
    title = page.locator("#conversation-title").inner_text()
    assert title.startswith("What is an interrupt handler and where do") and title.endswith("…")  # no reload, cut between words
    assert page.locator(".thread-list a.active").inner_text() == title
    answer = page.locator(".msg.assistant").last
    answer.locator("details.steps summary").click()
    assert "Searched your materials for" in answer.inner_text()
    assert "search_all" not in answer.inner_text() and "confidence" not in answer.inner_text()
    at_end = "(() => { const l = document.getElementById('messages'); return l.scrollTop + l.clientHeight >= l.scrollHeight - 2; })()"
    assert page.evaluate(at_end)
    page.reload()
    assert "Searched your materials for" in page.locator(".msg.assistant details.steps").text_content()  # kept with the message
    shot("04-tutor-steps")

    page.click("#rename")
    page.fill("#rename-input", "Interrupts")
    page.click("#rename-form button[type=submit]")
    page.wait_for_function("document.getElementById('conversation-title').textContent === 'Interrupts'")
    page.reload()
    assert page.locator("#conversation-title").inner_text() == "Interrupts"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#delete")
    page.wait_for_url(re.compile(r".*/chat/$"))
    assert page.locator(".thread-list a").count() == 0

    page.goto(f"{live_server.url}/library/")
    page.select_option("#language", "ko")  # the header's language switch
    page.wait_for_function("document.documentElement.lang === 'ko'")
    navigation = page.locator("header nav").inner_text()
    assert "자료실" in navigation and "학습 계획" in navigation and "튜터" in navigation
    failed_row = page.locator("#materials tr", has_text="exported-notes")
    assert "내용은 PDF가 아닌 텍스트입니다" in failed_row.inner_text() and "실패" in failed_row.inner_text()
    assert "준비됨" in page.locator("#materials").inner_text()
    page.set_input_files("#file-input", [str(unsupported)])
    page.wait_for_selector("#uploads li.error")
    assert "지원하지 않는 형식" in page.locator("#uploads li.error").inner_text()
    shot("05-library-korean")


@pytest.fixture
def studied(user, ingest):
    """A learner with an English and a Korean book, a failed upload, a plan and a conversation with answers."""
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply
    from plans.services.plans import plan_create, plan_generate

    user.set_password(PASSWORD)
    user.save()
    book = ingest(user, make_pdf(PAGES * 2), "assembly-language-for-the-x86-processor-family-second-edition.pdf")
    korean = ingest(user, make_pdf(KOREAN_PAGES), "어셈블리어로-배우는-컴퓨터-구조와-운영체제의-기초-개정판.pdf")
    ingest(user, b"", "an-empty-file-with-a-rather-long-name-that-has-no-spaces-at-all.txt")
    plan = plan_create(owner=user, title="Assembly basics", ref_ids=[book.ref_id, korean.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    conversation = conversation_create(owner=user, ref_ids=[])
    chat_reply(conversation=conversation, content="What is a register and what does the accumulator register hold?", mode="agentic")
    chat_reply(conversation=conversation, content="레지스터는 무엇인가요?")
    return {"user": user, "book": book, "plan": plan, "conversation": conversation}


def _long_page(route):
    """The real pages of a citation, each with sixty lines of text before its own."""
    response = route.fetch()
    pages = response.json()
    for item in pages:
        item["text"] = "A line of text that comes before the quoted passage on this page.\n" * 60 + item["text"]
    route.fulfill(response=response, json=pages)


def test_every_page_fits_a_phone_and_a_laptop_in_english_and_korean(
    studied, live_server, browser
):  # data first: Playwright runs an event loop
    paths = {
        "login": "/login/",
        "signup": "/signup/",
        "password-reset": "/password-reset/",
        "password-reset-sent": "/password-reset/sent/",
        "password-change": "/account/password/",
        "library": "/library/",
        "search": "/library/?q=interrupt+handler",
        "viewer": f"/library/{studied['book'].ref_id}/?page=2",
        "viewer-text": f"/library/{studied['book'].ref_id}/?page=2&view=text",
        "plans": "/plans/",
        "plan": f"/plans/{studied['plan'].pk}/",
        "session": f"/plans/{studied['plan'].pk}/sessions/1/",
        "review": "/review/",
        "notes": "/notes/",
        "guide": f"/library/{studied['book'].ref_id}/guide/",
        "tutor": "/chat/",
        "conversation": f"/chat/{studied['conversation'].pk}/",
    }
    public = {"login", "signup", "password-reset", "password-reset-sent"}
    for language in ("en", "ko"):
        context = browser.new_context(viewport=PHONE, locale=language, extra_http_headers={"Accept-Language": language})
        page = context.new_page()
        page.set_default_timeout(60_000)
        shot = _shooter(page, ARTIFACTS / "responsive")
        for name in public:
            for size, viewport in (("390", PHONE), ("1366", LAPTOP)):
                page.set_viewport_size(viewport)
                page.goto(f"{live_server.url}{paths[name]}")
                assert page.evaluate("document.documentElement.lang") == language
                assert page.evaluate(FITS), (name, language, size)
                shot(f"{name}-{language}-{size}")
        page.goto(f"{live_server.url}/login/")
        page.fill("#id_username", studied["user"].email)
        page.fill("#id_password", PASSWORD)
        page.click("form button[type=submit]")
        page.wait_for_url(re.compile(r".*/library/$"))
        for name, path in paths.items():
            if name in public:
                continue
            for size, viewport in (("390", PHONE), ("1366", LAPTOP)):
                page.set_viewport_size(viewport)
                page.goto(f"{live_server.url}{path}")
                if name == "viewer":
                    page.wait_for_function("document.querySelector('.page-image img').complete")
                if name == "conversation":
                    # The cited page as a real book's: a long page, its quote far down (the fixture's pages are short).
                    page.route("**/api/v1/materials/*/pages*", _long_page)
                    page.locator(".msg.assistant a.cite").first.click()  # the source panel open beside the answer
                    page.wait_for_selector("#source-text")
                    head = page.evaluate(
                        "(() => { const r = document.querySelector('.source-head').getBoundingClientRect(); return [r.top, r.bottom, innerHeight]; })()"
                    )
                    assert 0 <= head[0] and head[1] <= head[2], (language, size, head)  # the panel opens with its header on screen
                    assert page.evaluate("document.getElementById('quote').getBoundingClientRect().bottom <= innerHeight")  # and the quote
                    page.unroute("**/api/v1/materials/*/pages*")
                width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
                assert width[0] <= width[1], (name, language, size, width)
                if language == "ko":
                    assert page.evaluate(BROKEN_KOREAN_WORDS) == [], (name, size)
                if size == "390":
                    header = page.evaluate("document.querySelector('header.top').getBoundingClientRect().height")
                    assert header <= 90, (name, language, header)  # two short rows, not a third of the screen
                shot(f"{name}-{language}-{size}")
        context.close()


@pytest.fixture
def deleted_source(user, ingest):
    """A conversation whose answer cites a book that was deleted afterwards."""
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply
    from knowledge.services.materials import material_delete

    user.set_password(PASSWORD)
    user.save()
    book = ingest(user, make_pdf(PAGES), "assembly.pdf")
    conversation = conversation_create(owner=user, ref_ids=[])
    reply = chat_reply(conversation=conversation, content="What is a register?")
    assert reply.citations and not reply.refused
    material_delete(material=book)
    return {"user": user, "conversation": conversation, "quote": reply.citations[0]["quote"]}


def test_a_citation_of_a_deleted_material_says_so_and_shows_its_quote(deleted_source, live_server, browser):
    """A learner's walkthrough: after deleting a book, its old [1] did nothing (a 404 in the console)."""
    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", deleted_source["user"].email)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/library/$"))
    page.goto(f"{live_server.url}/chat/{deleted_source['conversation'].pk}/")
    page.locator(".msg.assistant a.cite").first.click()
    page.wait_for_selector("#source-gone")
    assert "no longer in your library" in page.locator("#source").inner_text()
    assert deleted_source["quote"][:30] in page.locator("#source blockquote").inner_text()
    _shooter(page, ARTIFACTS / "details")("06-citation-of-deleted-material")


@pytest.fixture
def orphaned_plan(user, ingest):
    """A plan whose only book was deleted."""
    from knowledge.services.materials import material_delete
    from plans.services.plans import plan_create, plan_generate

    user.set_password(PASSWORD)
    user.save()
    book = ingest(user, make_pdf(PAGES), "assembly.pdf")
    plan = plan_create(owner=user, title="Assembly", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    material_delete(material=book)
    return {"user": user, "plan": plan}


def test_regenerating_a_plan_whose_materials_are_all_gone_says_why(orphaned_plan, live_server, browser):
    """A learner's walkthrough: the button posted, got a 409 and the page showed nothing; a later one read
    "0 of 0 sessions" beside a button that could only fail. The page now says why at once, with no button."""
    page = browser.new_page(viewport=PHONE)
    page.set_default_timeout(60_000)
    page.goto(f"{live_server.url}/login/")
    page.fill("#id_username", orphaned_plan["user"].email)
    page.fill("#id_password", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(re.compile(r".*/library/$"))
    page.goto(f"{live_server.url}/plans/{orphaned_plan['plan'].pk}/")
    assert "create a new plan" in page.locator("#removed-note").inner_text()
    assert page.locator("#regenerate").count() == 0
    # Walkthrough 24: "Ready 0 of 0 sessions done (0%)" above the listed sessions; every session is removed, so no count.
    assert page.locator("#plan-progress").count() == 0
