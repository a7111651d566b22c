"""Server-rendered pages: they render, speak Korean and English, stay scoped and query-bounded."""

import html
import re

import pytest
from django.utils.html import escape

from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def browser_client(client, user):
    client.force_login(user)
    return client


def test_anonymous_visitors_are_sent_to_log_in(client):
    for url in ["/", "/library/", "/plans/", "/chat/"]:
        response = client.get(url)
        assert response.status_code == 302 and "/login/" in response["Location"]


def test_sign_up_creates_an_account_and_logs_in(client):
    response = client.post("/signup/", {"email": "new@example.com", "password": "a-long-pass-phrase"})
    assert response.status_code == 302 and response["Location"] == "/library/"
    assert client.get("/library/").status_code == 200
    client.logout()
    weak = client.post("/signup/", {"email": "other@example.com", "password": "123"})
    assert weak.status_code == 400 and "password" in weak.content.decode().lower()


def test_login_and_logout(client, user):
    response = client.post("/login/", {"username": user.email, "password": "correct horse battery"})
    assert response.status_code == 302
    assert client.post("/logout/").status_code == 302
    assert client.get("/library/").status_code == 302


def test_pages_render_in_korean_when_the_browser_asks(browser_client):
    korean = browser_client.get("/library/", HTTP_ACCEPT_LANGUAGE="ko")
    assert "내 자료실" in korean.content.decode()
    english = browser_client.get("/library/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Your library" in english.content.decode()
    # Each language is named in itself, whatever the page's language ("English", not "영어").
    assert re.search(r'<option value="en" lang="en"\s*>English</option>', korean.content.decode())
    assert re.search(r'<option value="ko" lang="ko"\s*selected>한국어</option>', korean.content.decode())
    switched = browser_client.post("/i18n/setlang/", {"language": "ko", "next": "/plans/"})
    assert switched.status_code == 302
    assert "학습 계획" in browser_client.get("/plans/").content.decode()


def test_library_material_plan_session_and_chat_pages(browser_client, user, other_user, ingest, django_capture_on_commit_callbacks):
    from chat.models import Conversation
    from plans.models import Plan

    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU."] * 2), "regs.pdf")
    theirs = ingest(
        other_user, make_pdf(["Chapter 1 Secret\nTheir private notes about caches."]), "secret.pdf", title="Their secret caches"
    )
    library = browser_client.get("/library/").content.decode()
    assert material.title in library and theirs.title not in library
    page = browser_client.get(f"/library/{material.ref_id}/?page=2&quote=fast storage").content.decode()
    assert "Page 2 of 2" in page and "fast storage location" in page
    with django_capture_on_commit_callbacks(execute=True):
        response = browser_client.post("/plans/new", {"title": "Regs", "ref_ids": [material.ref_id], "minutes": "10"})
    plan_url = response["Location"]
    plan = Plan.objects.for_user(user).get(pk=int(plan_url.strip("/").split("/")[-1]))
    session_titles = list(plan.sessions.values_list("title", flat=True))  # the plan's own sessions, in order
    plan_page = browser_client.get(plan_url).content.decode()
    assert session_titles and all(escape(title) in plan_page for title in session_titles)
    assert f"<h1>{plan.title}</h1>" in plan_page and f"Study guide: {material.title}" in plan_page
    assert theirs.title not in plan_page  # not offered among the materials to add either
    session = browser_client.get(f"{plan_url}sessions/1/").content.decode()
    assert "Practice questions" in session or "Key points" in session
    started = browser_client.post("/chat/new", {"plan_id": plan.pk, "session": "1"})
    assert started.status_code == 302
    conversation = Conversation.objects.for_user(user).get()
    assert started["Location"].rstrip("/").endswith(f"/{conversation.pk}")
    assert conversation.title == session_titles[0] and conversation.session_number == 1
    chat_page = browser_client.get(started["Location"]).content.decode()
    assert f'<h1 id="conversation-title">{escape(session_titles[0])}</h1>' in chat_page
    assert material.title in chat_page and theirs.title not in chat_page  # the sources it searches: only the learner's


def test_pages_of_another_user_are_404(client, other_user, user, ingest):
    material = ingest(
        other_user, make_pdf(["Chapter 1 Secret\nTheir private notes about caches."]), "secret.pdf", title="Their secret caches"
    )
    client.force_login(user)
    assert client.get(f"/library/{material.ref_id}/").status_code == 404
    assert client.get("/plans/999999/").status_code == 404
    assert client.get("/chat/999999/").status_code == 404
    assert material.title not in client.get("/library/").content.decode()


def test_library_query_count_does_not_grow_with_materials(browser_client, user, ingest, django_assert_max_num_queries):
    for number in range(3):
        ingest(user, f"Notes {number} about registers and stacks.".encode(), f"notes{number}.txt")
    with django_assert_max_num_queries(6):
        browser_client.get("/library/")
    for number in range(3, 8):
        ingest(user, f"Notes {number} about registers and stacks.".encode(), f"notes{number}.txt")
    with django_assert_max_num_queries(6):
        browser_client.get("/library/")


def test_library_shows_the_background_upgrade_in_english_and_korean(browser_client, user, ingest):
    from knowledge.models import Material

    material = ingest(user, b"Notes about registers and stacks.", "notes.txt")
    Material.objects.filter(pk=material.pk).update(pending_embedding_model="multilingual-e5-small", reembed_done=1, reembed_total=4)
    english = browser_client.get("/library/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "improving search quality in the background" in english and 'data-upgrade="1"' in english
    assert "1/4" not in english  # the re-embedding count is an internal: learners are only told it is happening
    korean = browser_client.get("/library/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "백그라운드에서 검색 품질을 높이는 중" in korean
    Material.objects.filter(pk=material.pk).update(pending_embedding_model="")
    done = browser_client.get("/library/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'data-upgrade="1"' not in done and "improving search quality" not in done


def test_sign_up_refuses_an_address_the_api_would_refuse(client):
    from accounts.models import User

    response = client.post("/signup/", {"email": "not-an-email", "password": "a-long-pass-phrase"})

    assert response.status_code == 400
    assert "valid email" in response.content.decode()
    assert not User.objects.filter(email="not-an-email").exists()


@pytest.mark.parametrize(
    "address",
    [
        "not-an-email",
        "a@b",
        "learner@localhost",
        "two@@example.com",
        "spaces in@example.com",
        "trailing.dot.@example.com",
        "learner@example.com",
        "  Padded.Learner@Example.COM  ",
        "학습자@예시.한국",
        "o'brien+tag@example.co.kr",
    ],
)
def test_sign_up_page_accepts_exactly_the_addresses_the_api_accepts(client, anonymous_client, address):
    """The browser form and POST /api/v1/auth/register agree on every address: same acceptance, same stored email."""
    from accounts.models import User

    api = anonymous_client.post("/api/v1/auth/register", {"email": address, "password": "a-long-pass-phrase"}, format="json")
    api_accepted = api.status_code == 201
    api_email = api.json().get("email") if api_accepted else None
    User.objects.all().delete()

    page = client.post("/signup/", {"email": address, "password": "a-long-pass-phrase"})
    page_accepted = page.status_code == 302
    assert page_accepted == api_accepted, (address, api.status_code, page.status_code)
    if page_accepted:
        assert User.objects.get().email == api_email
    else:
        assert User.objects.count() == 0 and page.status_code == 400


def test_plan_and_session_pages_show_badges_and_minutes_in_words_without_internals(
    browser_client, user, ingest, django_capture_on_commit_callbacks
):
    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU."] * 2), "regs.pdf")
    with django_capture_on_commit_callbacks(execute=True):
        plan_url = browser_client.post("/plans/new", {"title": "Regs", "ref_ids": [material.ref_id], "minutes": "10"})["Location"]
    english = browser_client.get(plan_url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert '<span class="badge READY">Ready</span>' in english and ">Not started</span>" in english
    assert re.search(r"~\d+ min", english) and "Sessions of about 10 minutes." in english
    korean = browser_client.get(plan_url, HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert '<span class="badge READY">준비됨</span>' in korean and ">시작 전</span>" in korean
    assert re.search(r"약 \d+분", korean) and "세션 하나는 약 10분입니다." in korean
    for page in (english, korean):
        assert "tokens" not in page and "토큰" not in page and ">READY<" not in page
    assert "준비됨" in browser_client.get("/plans/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    session = browser_client.get(f"{plan_url}sessions/1/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert ">시작 전</span>" in session and re.search(r"약 \d+분", session) and " min<" not in session


def test_every_page_has_a_favicon(client, user):
    from django.conf import settings

    public = client.get("/login/")
    client.force_login(user)
    for response in (public, client.get("/library/")):
        assert '<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">' in response.content.decode()
    icon = (settings.BASE_DIR / "static" / "img" / "favicon.svg").read_text()
    assert icon.startswith("<svg") and 'viewBox="0 0 64 64"' in icon


def test_a_failed_plan_says_why_in_the_learners_language(browser_client, user, ingest):
    from plans.models import Plan
    from plans.services.plans import plan_create

    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU."] * 2), "regs.pdf")
    plan = plan_create(owner=user, title="Regs", ref_ids=[material.ref_id], enqueue=False)
    Plan.objects.for_user(user).filter(pk=plan.pk).update(status="FAILED", error_message="Generation failed: ZeroDivisionError.")
    english = browser_client.get(f"/plans/{plan.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Generation failed: ZeroDivisionError." in english and '<span class="badge FAILED">Failed</span>' in english
    korean = browser_client.get(f"/plans/{plan.pk}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "ZeroDivisionError" not in korean and '<span class="badge FAILED">실패</span>' in korean
    assert "계획을 만들지 못했습니다." in korean


def test_a_sessions_text_shows_code_as_laid_out_and_its_prose_flowing(browser_client, user, ingest, django_capture_on_commit_callbacks):
    """Walkthrough 18: a session's code lost its indentation and font ("const { spawn } =" / "require(…)"), and a
    manual's hard line breaks made its prose ragged on a phone."""
    text = (
        "# Child processes\n\nThe spawn function starts a child process without blocking the event loop,\n"
        "and the parent reads its output as it arrives.\n\n```js\nconst { spawn } = require('node:child_process');\n"
        "const ls = spawn('ls', ['-lh']);\nls.stdout.on('data', (data) => {\n    console.log(`stdout: ${data}`);\n});\n```\n\n"
        + "The exec function runs a command in a shell and buffers what it prints for the callback.\n"
        * 3
    )
    material = ingest(user, text.encode(), "child.md")
    with django_capture_on_commit_callbacks(execute=True):
        plan_url = browser_client.post("/plans/new", {"title": "Child", "ref_ids": [material.ref_id], "minutes": "10"})["Location"]
    session = browser_client.get(f"{plan_url}sessions/1/").content.decode()
    assert '<pre class="page-code">' in session
    listing = session.split('<pre class="page-code">')[1].split("</pre>")[0]
    assert "\n    console.log(`stdout: ${data}`);\n" in html.unescape(listing)  # its indentation kept
    assert "without blocking the event loop, and the parent reads its output" in session  # one flowing paragraph
