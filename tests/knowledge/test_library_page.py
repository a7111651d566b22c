"""The library page: translated badges and failure reasons, Retry, the search box, the rows the page polls."""

import json
import re

import pytest

from knowledge.models import Material, MaterialPage
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

# transaction=True: an upload queues its ingestion with transaction.on_commit, which a test transaction never runs.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def browser_client(client, user):
    client.force_login(user)
    return client


def _page(client, url: str, language: str = "en") -> str:
    response = client.get(url, HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 200
    return response.content.decode()


def test_a_failed_material_shows_its_reason_in_the_learners_language_and_no_pointless_retry(browser_client, user, ingest):
    failed = ingest(user, b"", "empty-notes.txt")
    assert failed.status == "FAILED" and failed.error_code == "empty_file"

    english = _page(browser_client, "/library/")
    assert f'data-retry="{failed.ref_id}"' not in english  # the same empty file would fail again (a learner's walkthrough)
    assert "“empty-notes.txt” is empty. Upload the file again; it may not have been saved fully." in english
    assert '<span class="badge FAILED">Failed</span>' in english

    korean = _page(browser_client, "/library/", "ko")
    assert "“empty-notes.txt” 파일이 비어 있습니다." in korean  # the stored English reason, translated at display
    assert "is empty" not in korean.split('id="materials"')[1].split("</table>")[0]
    assert '<span class="badge FAILED">실패</span>' in korean


def test_retry_runs_ingestion_again_through_the_reingest_api(client, user, api_client, ingest):
    material = ingest(user, b"Notes about registers and stacks.", "notes.txt")
    message = "“notes.txt” took too long to process. Split it into smaller files and upload them."
    Material.objects.filter(pk=material.pk).update(status="FAILED", error_code="timeout", error_message=message)
    client.force_login(user)
    assert f'data-retry="{material.ref_id}"' in _page(client, "/library/rows")
    response = api_client.post(f"/api/v1/materials/{material.ref_id}/reingest")  # what the Retry button calls
    assert response.status_code == 202
    material.refresh_from_db()
    assert material.status == "READY" and material.error_message == ""  # the tasks run eagerly in the tests
    rows = _page(client, "/library/rows")
    assert f'data-retry="{material.ref_id}"' not in rows and "Ready" in rows and "took too long" not in rows


def test_ready_rows_show_translated_badges_and_no_internals(browser_client, user, ingest):
    ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU."] * 3), "regs.pdf")
    english = _page(browser_client, "/library/")
    assert '<span class="badge READY">Ready</span>' in english
    assert ">READY<" not in english and "Chunks" not in english and "chunks" not in english.lower().replace("chunkindex", "")
    korean = _page(browser_client, "/library/", "ko")
    assert '<span class="badge READY">준비됨</span>' in korean
    headers = re.findall(r"<th[^>]*>(.*?)</th>", korean)
    assert "제목" in headers[0] and "상태" in headers[1] and "쪽수" in headers[2]


def test_rows_fragment_is_what_the_page_polls_and_is_scoped(client, user, other_user, ingest):
    mine = ingest(user, b"Notes about registers and stacks.", "mine.txt")
    theirs = ingest(other_user, b"Private notes about caches.", "theirs.txt")
    Material.objects.filter(pk=mine.pk).update(status="EMBEDDING", progress_done=3, progress_total=8)
    client.force_login(user)
    rows = _page(client, "/library/rows")
    assert rows.lstrip().startswith("<tr") and "<html" not in rows
    assert 'data-status="EMBEDDING"' in rows and "Indexing passages 3/8" in rows and "Processing" in rows
    assert theirs.title not in rows and theirs.ref_id not in rows
    Material.objects.filter(pk=mine.pk).update(status="PENDING", progress_done=0, progress_total=0)
    assert "0/" not in _page(client, "/library/rows")  # no "0/?" while the total is unknown


def test_search_box_finds_passages_and_links_to_their_page(browser_client, user, other_user, ingest):
    pages = [
        "Chapter 1 Registers\nA register is a very fast storage location inside the CPU.",
        "Chapter 2 Interrupts\nAn interrupt handler is the routine that processes the interrupt raised by a keyboard.",
    ]
    material = ingest(user, make_pdf(pages), "assembly.pdf")
    ingest(other_user, make_pdf(["Chapter 1 Secret\nAn interrupt handler of someone else's private notes."]), "secret.pdf")
    html = _page(browser_client, "/library/?q=interrupt+handler")
    results = html[html.index('id="results"') :]
    assert "Results for “interrupt handler”" in results
    assert f"/library/{material.ref_id}/?page=2&quote=" in results  # the passage's page, its first words highlighted there
    assert "assembly" in results and "page 2" in results
    assert "secret" not in results.lower() and "someone else" not in results
    assert 'id="only-by-meaning"' not in results
    # The walkthrough's "apropos" after the manual holding it was deleted: results by meaning alone say so.
    meaning = _page(browser_client, "/library/?q=apropos")
    assert 'id="only-by-meaning"' in meaning and "No page of your ready materials contains “apropos”" in meaning

    korean = _page(browser_client, "/library/?q=interrupt+handler", "ko")
    assert "“interrupt handler” 검색 결과" in korean and "2쪽" in korean
    # The number the book prints, as the tutor and the viewer show it; the link keeps the PDF position.
    MaterialPage.objects.filter(material=material, number=2).update(label="17")
    labelled = _page(browser_client, "/library/?q=interrupt+handler")
    labelled = labelled[labelled.index('id="results"') :]
    assert "page 17" in labelled and f"/library/{material.ref_id}/?page=2&quote=" in labelled
    browser_client.force_login(UserFactory())
    nothing = _page(browser_client, "/library/?q=interrupt+handler")
    assert "Nothing in your ready materials matches" in nothing


def test_upload_errors_are_translated_in_the_browser_with_the_pages_catalogue(browser_client):
    korean = _page(browser_client, "/library/", "ko")
    catalogue = json.loads(re.search(r'<script id="reason-patterns" type="application/json">(.*?)</script>', korean, re.DOTALL).group(1))
    by_pattern = {entry["pattern"]: entry["text"] for entry in catalogue}
    assert "%(name)s" in by_pattern["“%(name)s” is %(size)s MB; the limit is %(limit)s MB. Split or compress it."]
    assert by_pattern["“%(name)s” is %(size)s MB; the limit is %(limit)s MB. Split or compress it."].startswith("“%(name)s”")
    assert (
        json.loads(
            re.search(
                r'<script id="reason-patterns" type="application/json">(.*?)</script>', _page(browser_client, "/library/"), re.DOTALL
            ).group(1)
        )
        == []
    )


def test_a_search_result_opens_on_the_sentence_that_matches_prose_before_a_listing(browser_client, user, ingest):
    page = (
        "Chapter 3 Endianness\nThe program below inverts the bytes of a word.\n"
        "1 unsigned invert_endian ( unsigned x ) {\n2 unsigned invert ; /* reverse the bytes */\n3 return invert ; }\n"
        "Network byte order is big endian, so TCP/IP libraries convert integers between host and network byte order."
    )
    material = ingest(
        user, make_pdf(["Chapter 1 Registers\nA register is a very fast storage location inside the CPU.", page]), "bytes.pdf"
    )
    html = _page(browser_client, "/library/?q=network+byte+order")
    results = html[html.index('id="results"') :]
    snippet = results[results.index('class="snippet"') :]
    assert snippet.startswith('class="snippet">Network byte order is big endian'), snippet[:200]
    assert f"/library/{material.ref_id}/?page=2&quote=Network%20byte%20order" in results


def test_a_material_titled_by_its_file_name_can_be_renamed_from_the_library(browser_client, api_client, user, other_user, ingest):
    """A walkthrough's "crc-doc" (no title in the PDF's metadata) could not be renamed in the browser: each row
    has a Rename button the page's script sends as the API's PATCH; another learner renames nothing of it."""
    from rest_framework.test import APIClient

    material = ingest(user, make_pdf(["Chapter 1 Cyclic redundancy checks\nA CRC detects errors in data."] * 3), "crc-doc.pdf")
    rows = _page(browser_client, "/library/", "ko")
    assert f'data-rename="{material.ref_id}"' in rows and "이름 바꾸기" in rows and "새 제목:" in rows
    other = APIClient()
    other.force_authenticate(other_user)
    assert other.patch(f"/api/v1/materials/{material.ref_id}/", {"title": "Mine"}, format="json").status_code == 404
    response = browser_client.patch(
        f"/api/v1/materials/{material.ref_id}/", {"title": "Everything we know about CRC"}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    assert "Everything we know about CRC" in _page(browser_client, "/library/")
