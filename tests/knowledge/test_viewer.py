"""The page viewer: the original page as a picture (PDFium, owner only, kept on disk), jump to page, find, OCR note."""

import io
from pathlib import Path

import pytest
from PIL import Image

from knowledge.models import Material, MaterialPage
from knowledge.services.materials import material_delete
from knowledge.services.page_images import PAGE_IMAGE_DIRECTORY
from tests.pdfgen import make_pdf, with_page_labels

pytestmark = pytest.mark.django_db

PAGES = [
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program. An interrupt handler processes it.",
    "Chapter 3 Stacks\nThe stack grows downwards in memory.",
]


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(PAGES), "assembly.pdf")


def test_the_original_page_is_drawn_once_kept_beside_the_original_and_shown_beside_the_text(client, user, book):
    client.force_login(user)
    html = client.get(f"/library/{book.ref_id}/?page=2").content.decode()
    assert f'<img src="/library/{book.ref_id}/pages/2.webp"' in html and 'id="page-text"' in html  # both, side by side
    assert "Original page" in html

    response = client.get(f"/library/{book.ref_id}/pages/2.webp")
    assert response.status_code == 200 and response["Content-Type"] == "image/webp"
    assert response["Cache-Control"].startswith("private")
    picture = Image.open(io.BytesIO(b"".join(response.streaming_content)))
    assert picture.mode == "RGB" and picture.width > 800  # sharp enough for the viewer's column
    assert picture.getextrema() != ((255, 255), (255, 255), (255, 255))  # the page's text is drawn, not a blank

    cached = Path(book.file.path).parent / PAGE_IMAGE_DIRECTORY / "page-0002.webp"
    assert cached.exists()
    stamp = cached.stat().st_mtime_ns
    assert client.get(f"/library/{book.ref_id}/pages/2.webp").status_code == 200
    assert cached.stat().st_mtime_ns == stamp  # served from disk, not drawn again


def test_only_the_owner_sees_a_page_picture_and_only_pages_that_exist(client, user, other_user, book, ingest):
    client.force_login(other_user)
    assert client.get(f"/library/{book.ref_id}/pages/1.webp").status_code == 404
    assert not (Path(book.file.path).parent / PAGE_IMAGE_DIRECTORY).exists()  # nothing drawn for a stranger
    client.force_login(user)
    assert client.get(f"/library/{book.ref_id}/pages/4.webp").status_code == 404
    assert client.get(f"/library/{book.ref_id}/pages/0.webp").status_code == 404
    notes = ingest(user, b"Plain notes about registers.", "notes.txt")
    assert client.get(f"/library/{notes.ref_id}/pages/1.webp").status_code == 404  # text files have no page pictures
    html = client.get(f"/library/{notes.ref_id}/").content.decode()
    assert "<img" not in html.split("<main")[1].split("</main>")[0].replace('<img src="/static/img/favicon.svg"', "")
    assert "Original page" not in html


def test_view_switch_and_jump_to_page(client, user, book):
    client.force_login(user)
    text_only = client.get(f"/library/{book.ref_id}/?page=3&view=text").content.decode()
    assert "/pages/3.webp" not in text_only and "The stack grows downwards" in text_only
    image_only = client.get(f"/library/{book.ref_id}/?page=3&view=image").content.decode()
    assert "/pages/3.webp" in image_only and 'id="page-text"' not in image_only
    assert 'name="page"' in image_only and 'max="3"' in image_only  # the jump box
    beyond = client.get(f"/library/{book.ref_id}/?page=99").content.decode()
    assert "Page 3 of 3" in beyond  # a page past the end shows the last one
    korean = client.get(f"/library/{book.ref_id}/?page=2", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "원본 페이지" in korean and "페이지에서 찾기" in korean and '"%(total)s개 중 %(n)s번째"' in korean


def test_a_page_read_by_ocr_says_so(client, user, book):
    MaterialPage.objects.filter(material=book, number=2).update(ocr=True)
    client.force_login(user)
    assert "text recognition (OCR)" in client.get(f"/library/{book.ref_id}/?page=2").content.decode()
    assert "text recognition (OCR)" not in client.get(f"/library/{book.ref_id}/?page=1").content.decode()
    korean = client.get(f"/library/{book.ref_id}/?page=2", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "문자 인식(OCR)" in korean


def test_deleting_a_material_removes_its_page_pictures(client, user, book, django_capture_on_commit_callbacks):
    client.force_login(user)
    client.get(f"/library/{book.ref_id}/pages/1.webp")
    directory = Path(book.file.path).parent / PAGE_IMAGE_DIRECTORY
    assert directory.exists()
    with django_capture_on_commit_callbacks(execute=True):
        material_delete(material=Material.objects.for_user(user).get(pk=book.pk))
    assert not directory.exists()


# --- Drawing is rationed: a hostile page costs its budget once, a learner draws one page at a time ---------------------


def _hostile_page() -> bytes:
    """A million and a half tiny filled rectangles: about 7 s of PDFium work here (a normal page: 0.6 s, the child's
    start included), on a page of a 2 MB file."""
    import zlib

    return zlib.compress(b"0 g\n" + b"".join(b"%d %d 1 1 re f\n" % (index % 500, index // 1000) for index in range(1_500_000)))


def test_a_page_that_cannot_be_drawn_in_its_budget_fails_once_and_is_remembered(client, user, ingest, monkeypatch):
    import time

    from baeum.extraction.pageimage import PageImageBudget
    from knowledge.services import page_images

    hostile = ingest(user, make_pdf([PAGES[0], PAGES[1]]), "hostile.pdf")
    # The kept original swapped for one whose page 2 is hostile (reading its text at ingestion costs as much).
    Path(hostile.file.path).write_bytes(make_pdf([PAGES[0], PAGES[1]], raw_contents={1: _hostile_page()}))
    client.force_login(user)
    assert client.get(f"/library/{hostile.ref_id}/pages/1.webp").status_code == 200  # the good page is drawn
    monkeypatch.setattr(page_images, "PAGE_IMAGE_BUDGET", PageImageBudget(seconds=2.0))  # 3 × a normal page
    assert client.get(f"/library/{hostile.ref_id}/pages/2.webp").status_code == 404  # past its budget: no picture
    marker = Path(hostile.file.path).parent / PAGE_IMAGE_DIRECTORY / "page-0002.failed"
    assert marker.read_text() in ("too_slow", "render_failed")
    started = time.monotonic()
    assert client.get(f"/library/{hostile.ref_id}/pages/2.webp").status_code == 404
    assert time.monotonic() - started < 0.25  # remembered: not drawn again


def test_a_learner_draws_one_page_at_a_time_and_is_told_when_to_come_back(client, user, other_user, ingest, book, monkeypatch):
    from django.core.cache import cache

    from core.learner_cache import learner_key
    from knowledge.services import page_images

    cache.set(learner_key(user.pk, "page-images", "drawing"), 1, timeout=30)  # a drawing of this learner is under way
    client.force_login(user)
    busy = client.get(f"/library/{book.ref_id}/pages/3.webp")
    assert busy.status_code == 503 and busy["Retry-After"] == "1"
    theirs = ingest(other_user, make_pdf(PAGES), "theirs.pdf")
    client.force_login(other_user)
    assert client.get(f"/library/{theirs.ref_id}/pages/3.webp").status_code == 200  # another learner is not held up
    cache.delete(learner_key(user.pk, "page-images", "drawing"))
    client.force_login(user)
    assert client.get(f"/library/{book.ref_id}/pages/3.webp").status_code == 200
    monkeypatch.setattr(page_images, "PAGE_IMAGE_REQUESTS_PER_MINUTE", 2)
    cache.delete(learner_key(user.pk, "page-images", "requests"))
    statuses = [client.get(f"/library/{book.ref_id}/pages/3.webp").status_code for _ in range(3)]
    assert statuses == [200, 200, 429]
    html = client.get(f"/library/{book.ref_id}/?page=3").content.decode()
    assert 'picture.addEventListener("error"' in html  # the viewer asks again after a busy answer


def test_the_numbers_the_book_prints_are_what_a_learner_reads(client, user, api_client, ingest):
    """A PDF whose page labels say i, ii, 1, 2: the viewer, the tutor's citations and a note's reference say
    "p. 1" for the third page of the file, which the book prints as 1."""
    from knowledge.models import MaterialPage
    from plans.services.export import citation_reference

    pages = ["Contents\nRegisters 1", "Preface\nThis book is about the CPU.", *PAGES[:2]]
    book = ingest(user, with_page_labels(make_pdf(pages), front_pages=2), "labelled.pdf")
    labels = dict(MaterialPage.objects.for_user(user).filter(material=book).values_list("number", "label"))
    assert labels == {1: "i", 2: "ii", 3: "1", 4: "2"}
    client.force_login(user)
    assert "Page 1 (3 of 4 in the file)" in client.get(f"/library/{book.ref_id}/?page=3").content.decode()
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    reply = api_client.post(f"/api/v1/conversations/{conversation}/messages", {"content": "What is a register?"}, format="json").json()
    cited = next(citation for citation in reply["citations"] if citation["pageNumber"] == 3)
    assert cited["pageLabel"] == "1"  # the position stays in pageNumber: the viewer opens the file's 3rd page
    assert citation_reference({**cited, "title": "Assembly"}) == "(Assembly, p. 1)"
    korean = client.get(f"/library/{book.ref_id}/?page=3", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "1쪽 (파일의 4쪽 중 3번째)" in korean
    from plans.services.plans import plan_create, plan_generate

    plan = plan_create(owner=user, title="Assembly", ref_ids=[book.ref_id], minutes_per_session=30, enqueue=False)
    plan_generate(plan_id=plan.pk)
    session = client.get(f"/plans/{plan.pk}/sessions/1/").content.decode()
    assert "?page=3&quote=" in session and ">p.1</a>" in session  # the link opens the file's 3rd page, labelled as printed
    # A graded answer's source says the printed page too (the session page's script shows pageLabel).
    from plans.services.session_content import session_content

    question = session_content(user=user, plan=plan, session=plan.sessions.get(number=1)).questions[0]
    answered = api_client.post(
        f"/api/v1/plans/{plan.pk}/sessions/1/questions/{question['id']}/answer", {"response": "x"}, format="json"
    ).json()
    page = answered["card"]["citation"]["pageNumber"]
    assert answered["card"]["citation"]["pageLabel"] == labels[page]
    review = api_client.post(f"/api/v1/review/cards/{answered['card']['id']}/answer", {"response": "x"}, format="json").json()
    assert review["card"]["citation"]["pageLabel"] == labels[page]  # a review card's source, labelled as well


def test_a_korean_word_broken_over_two_lines_reads_whole_in_the_viewer(client, user, ingest):
    """At 390 px the viewer broke "특 / 허를" again: the PDF's line break inside a word goes, the others stay."""
    korean = ingest(user, make_pdf(["이 라이선스는 사용자가 소유하는 특\n허를 보호한다.\n둘째 줄은 그대로 남는다."]), "licence.pdf")
    client.force_login(user)
    html = client.get(f"/library/{korean.ref_id}/?page=1&view=text").content.decode()
    assert "소유하는 특허를 보호한다." in html and "보호한다.\n둘째 줄은" in html


def test_a_markdown_heading_reads_as_its_title_in_the_viewer(client, user, other_user, ingest):
    """The viewer and the tutor's source panel showed Node's "#### Two reading modes" as written; a text file's "#"
    line is its text."""
    notes = ingest(user, b"# Streams\n\n#### Two reading modes\n\nReadable streams operate in one of two modes.\n", "streams.md")
    plain = ingest(user, b"# not a heading in a text file\n\nA sentence of the file.\n", "plain.txt")
    client.force_login(user)
    html = client.get(f"/library/{notes.ref_id}/?page=1").content.decode()
    assert (
        "Streams\n\nTwo reading modes\n\nReadable streams operate" in html and "#" not in html.split('id="page-text"')[1].split("</div>")[0]
    )
    assert "# not a heading in a text file" in client.get(f"/library/{plain.ref_id}/?page=1").content.decode()
    # The tutor's source panel reads the pages through the API: the same text.
    [page] = client.get(f"/api/v1/materials/{notes.ref_id}/pages?first=1&last=1").json()
    assert page["text"].startswith("Streams\n\nTwo reading modes\n\nReadable streams operate")
    client.force_login(other_user)
    assert client.get(f"/library/{notes.ref_id}/?page=1").status_code == 404


def test_the_viewer_knows_a_pages_headings_code_and_list_items(client, user, other_user, api_client, ingest):
    """The walkthrough's Node page read flat: a heading looked like a sentence and a code block lost its shape. The
    pages API says what each line is, read from the passages on the page, and the viewer gets the same."""
    notes = ingest(
        user,
        b"# Events\n\nAll objects that emit events are instances of the EventEmitter class.\n\n"
        b"```js\nconst myEmitter = new MyEmitter();\nmyEmitter.on('event', () => {\n  console.log('an event occurred!');\n});\n```\n\n"
        b"* eventName The name of the event.\n* listener The callback function.\n",
        "events.md",
    )
    [page] = api_client.get(f"/api/v1/materials/{notes.ref_id}/pages?first=1&last=1").json()
    kinds = dict(zip(page["text"].split("\n"), page["lines"], strict=True))
    assert kinds["Events"] == "heading"
    assert kinds["All objects that emit events are instances of the EventEmitter class."] == ""
    assert kinds["myEmitter.on('event', () => {"] == "code" and kinds["});"] == "code"
    assert kinds["  console.log('an event occurred!');"] == "code"  # a listing keeps its indentation
    assert kinds["• eventName The name of the event."] == "item"
    client.force_login(user)
    html = client.get(f"/library/{notes.ref_id}/?page=1").content.decode()
    assert 'id="page-line-kinds"' in html and '"heading"' in html.split('id="page-line-kinds"')[1].split("</script>")[0]
    api_client.force_authenticate(other_user)
    assert api_client.get(f"/api/v1/materials/{notes.ref_id}/pages?first=1&last=1").status_code == 404
