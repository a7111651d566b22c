"""The knowledge API as a mobile client uses it, including the second user who must see nothing."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from knowledge.models import Chunk, Material

# transaction=True: an upload queues its ingestion with transaction.on_commit, which a test transaction never runs.
pytestmark = pytest.mark.django_db(transaction=True)


def _upload(client, data: bytes, name: str = "notes.pdf", **fields):
    return client.post("/api/v1/materials/", {"file": SimpleUploadedFile(name, data), **fields}, format="multipart")


def test_upload_is_accepted_then_becomes_ready(api_client, english_pdf, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api_client, english_pdf, "python.pdf", title="Think Python excerpt")
    assert response.status_code == 202
    ref_id = response.json()["refId"]
    assert ref_id.startswith("mat_") and response.json()["status"] == "PENDING"
    detail = api_client.get(f"/api/v1/materials/{ref_id}/").json()
    assert detail["status"] == "READY"
    assert detail["title"] == "Think Python excerpt"
    assert detail["type"] == "material"
    assert detail["pageCount"] == 3
    assert detail["chunkCount"] >= 3
    assert detail["progress"] == {"stage": "READY", "done": detail["chunkCount"], "total": detail["chunkCount"]}
    assert detail["error"] is None
    listing = api_client.get("/api/v1/materials/").json()
    assert listing["count"] == 1 and listing["results"][0]["refId"] == ref_id


def test_failed_material_reports_its_reason(api_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        ref_id = _upload(api_client, b"plain words", "slides.pdf").json()["refId"]
    detail = api_client.get(f"/api/v1/materials/{ref_id}/").json()
    assert detail["status"] == "FAILED"
    assert detail["errorCode"] == "content_mismatch"
    assert "slides.pdf" in detail["error"]


def test_a_failed_material_says_it_cannot_be_used_not_wait_for_it(api_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        ref_id = _upload(api_client, b"plain words", "slides.pdf").json()["refId"]
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [ref_id]}, format="json")
    plan = api_client.post("/api/v1/plans/", {"refIds": [ref_id]}, format="json")
    for refused in (conversation, plan):
        error = refused.json()["error"]
        assert refused.status_code == 400 and error["code"] == "material_not_ready", refused.content[:300]
        assert "could not be read" in error["message"] and "wait" not in error["message"]
    pages = api_client.get(f"/api/v1/materials/{ref_id}/pages")
    assert pages.status_code == 409 and pages.json()["error"]["code"] == "material_not_ready"


def test_oversized_and_unsupported_uploads_are_rejected_before_any_work(api_client, settings):
    settings.BAEUM = {**settings.BAEUM, "MAX_UPLOAD_BYTES": 1000}
    too_big = _upload(api_client, b"%PDF-" + b"x" * 2000)
    assert too_big.status_code == 413
    assert too_big.json()["error"]["code"] == "file_too_large"
    unsupported = _upload(api_client, b"PK\x03\x04", "deck.key")
    assert unsupported.status_code == 400 and unsupported.json()["error"]["code"] == "unsupported_type"
    assert Material.objects.count() == 0


def test_page_limit_is_checked_at_upload(api_client, settings):
    from tests.pdfgen import make_pdf

    settings.BAEUM = {**settings.BAEUM, "MAX_PAGES": 2}
    response = _upload(api_client, make_pdf(["one", "two", "three"]))
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "too_many_pages"
    assert Material.objects.count() == 0


def test_chunks_stats_and_search_endpoints(api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    chunks = api_client.get(f"/api/v1/materials/{material.ref_id}/chunks?start=0&end=1").json()
    assert [chunk["chunkIndex"] for chunk in chunks] == [0, 1]
    assert chunks[0]["refId"] == material.ref_id and chunks[0]["pageNumber"] == 1
    stats = api_client.get(f"/api/v1/materials/stats?refIds={material.ref_id},mat_nope").json()
    assert stats == {"stats": {material.ref_id: {"chunkCount": material.chunk_count, "status": "READY", "pageCount": 3}}}
    results = api_client.post("/api/v1/search", {"query": "what is a recursive function", "k": 2}, format="json").json()
    assert len(results) == 2
    assert set(results[0]) == {
        "refId", "materialTitle", "chunkIndex", "pageNumber", "pageEnd", "sectionTitle", "score", "vectorScore", "lexicalScore", "text", "content"
    }  # fmt: skip
    assert results[0]["pageNumber"] == results[0]["pageEnd"] == 3
    assert results[0]["sectionTitle"] == "Chapter 3 Recursion"
    per_page = api_client.post("/api/v1/search", {"query": "what is a recursive function", "k": 3, "perPage": True}, format="json").json()
    assert len({hit["pageNumber"] for hit in per_page}) == len(per_page) >= 2  # each hit on its own page
    pages = api_client.get(f"/api/v1/materials/{material.ref_id}/pages?first=2&last=3").json()
    assert [page["number"] for page in pages] == [2, 3]
    assert [page["number"] for page in api_client.get(f"/api/v1/materials/{material.ref_id}/pages?first=2").json()] == [2, 3]
    for query, says in [
        ("first=99999", "1 to 3"),
        ("first=0", "1 to 3"),
        ("first=-2", "1 to 3"),
        ("first=3&last=2", "before first"),
        ("first=1&last=60", "at most 50"),
        ("first=x", "page numbers"),
    ]:
        refused = api_client.get(f"/api/v1/materials/{material.ref_id}/pages?{query}")
        assert refused.status_code == 400 and says in refused.json()["error"]["message"], (query, refused.content[:200])


def test_delete_removes_the_material_its_chunks_and_file(api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    path = material.file.path
    assert api_client.delete(f"/api/v1/materials/{material.ref_id}/").status_code == 204
    assert not Material.objects.filter(pk=material.pk).exists()
    assert not Chunk.objects.filter(material_id=material.pk).exists()
    import os

    assert not os.path.exists(path)


def test_second_user_sees_nothing_and_changes_nothing(other_api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf)
    base = f"/api/v1/materials/{material.ref_id}"
    for method, url in [
        ("get", f"{base}/"),
        ("delete", f"{base}/"),
        ("get", f"{base}/chunks?start=0&end=3"),
        ("get", f"{base}/pages"),
        ("post", f"{base}/reingest"),
    ]:
        response = getattr(other_api_client, method)(url)
        assert response.status_code == 404, url
        assert response.json()["error"]["code"] == "not_found"
    assert other_api_client.get("/api/v1/materials/").json()["count"] == 0
    assert other_api_client.get(f"/api/v1/materials/stats?refIds={material.ref_id}").json() == {"stats": {}}
    assert other_api_client.post("/api/v1/search", {"query": "recursion"}, format="json").json() == []
    denied = other_api_client.post("/api/v1/search", {"query": "recursion", "refIds": [material.ref_id]}, format="json")
    assert denied.status_code == 404
    material.refresh_from_db()
    assert material.status == "READY" and Chunk.objects.filter(material=material).count() == material.chunk_count


def test_anonymous_requests_are_refused(anonymous_client):
    for url in ["/api/v1/materials/", "/api/v1/materials/stats?refIds=x", "/api/v1/materials/mat_x/"]:
        response = anonymous_client.get(url)
        assert response.status_code == 401
        assert response.json()["error"]["code"] == "not_authenticated"


def test_reingest_recovers_a_failed_material(api_client, user, ingest, english_pdf, django_capture_on_commit_callbacks):
    material = ingest(user, english_pdf)
    Material.objects.filter(pk=material.pk).update(status="FAILED", error_code="timeout", error_message="took too long")
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client.post(f"/api/v1/materials/{material.ref_id}/reingest")
    assert response.status_code == 202
    material.refresh_from_db()
    assert material.status == "READY" and material.error_message == ""


@pytest.mark.parametrize("code", ["content_mismatch", "encrypted", "malformed"])
def test_reingesting_a_file_that_would_fail_the_same_way_is_refused(api_client, user, ingest, english_pdf, code):
    material = ingest(user, english_pdf)
    message = "“slides.pdf” is named .pdf but its content is not a PDF (text). Export it as a real PDF and upload it again."
    Material.objects.filter(pk=material.pk).update(status="FAILED", error_code=code, error_message=message)
    response = api_client.post(f"/api/v1/materials/{material.ref_id}/reingest")
    error = response.json()["error"]
    assert response.status_code == 409 and error["code"] == "retry_will_not_help"
    assert (
        error["message"].startswith("Reading the same file again would fail the same way.")
        and "Export it as a real PDF" in error["message"]
    )
    material.refresh_from_db()
    assert material.status == "FAILED" and material.error_code == code  # nothing queued, the reason kept


def test_material_list_query_count_is_constant(api_client, user, ingest, english_pdf, django_assert_max_num_queries):
    # token lookup + row-level security set/reset + authentication + count + page = 6, whatever the size
    for _ in range(3):
        ingest(user, english_pdf)
    with django_assert_max_num_queries(6):
        assert api_client.get("/api/v1/materials/").json()["count"] == 3
    for _ in range(4):
        ingest(user, b"More notes about registers.", "more.txt")
    with django_assert_max_num_queries(6):
        assert api_client.get("/api/v1/materials/").json()["count"] == 7


def test_upload_and_reingest_answer_with_the_material_location(api_client, english_pdf, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api_client, english_pdf, "python.pdf")
    ref_id = response.json()["refId"]
    assert response["Location"] == f"http://testserver/api/v1/materials/{ref_id}/"
    assert api_client.get(response["Location"]).json()["refId"] == ref_id
    with django_capture_on_commit_callbacks(execute=True):
        again = api_client.post(f"/api/v1/materials/{ref_id}/reingest")
    assert again.status_code == 202 and again["Location"] == response["Location"]


def test_patch_renames_a_material_and_only_its_owner_can(api_client, other_api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf, "python.pdf", title="Old title")
    renamed = api_client.patch(f"/api/v1/materials/{material.ref_id}/", {"title": "  Think Python, chapters 1–3  "}, format="json")
    assert renamed.status_code == 200
    assert renamed.json()["title"] == "Think Python, chapters 1–3"
    assert renamed.json()["filename"] == "python.pdf" and renamed.json()["status"] == "READY"
    assert api_client.get(f"/api/v1/materials/{material.ref_id}").json()["title"] == "Think Python, chapters 1–3"
    blank = api_client.patch(f"/api/v1/materials/{material.ref_id}/", {"title": " "}, format="json")
    assert blank.status_code == 400 and blank.json()["error"]["code"] == "invalid"
    for path in (f"/api/v1/materials/{material.ref_id}/", f"/api/v1/materials/{material.ref_id}"):
        stolen = other_api_client.patch(path, {"title": "mine now"}, format="json")
        assert stolen.status_code == 404 and stolen.json()["error"]["code"] == "not_found"
    material.refresh_from_db()
    assert material.title == "Think Python, chapters 1–3"


def test_consistent_field_names_sit_beside_the_ones_kept_for_existing_clients(api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf, "python.pdf")
    detail = api_client.get(f"/api/v1/materials/{material.ref_id}/").json()
    assert detail["processing"] == detail["progress"] == {"stage": "READY", "done": material.chunk_count, "total": material.chunk_count}
    assert detail["failure"] is None and detail["error"] is None and detail["errorCode"] == ""
    pages = api_client.get(f"/api/v1/materials/{material.ref_id}/pages?first=2&last=3").json()
    assert [page["pageNumber"] for page in pages] == [page["number"] for page in pages] == [2, 3]
    hits = api_client.post("/api/v1/search", {"query": "recursion base case", "k": 2}, format="json").json()
    assert hits and all(hit["text"] == hit["content"] and hit["pageNumber"] >= 1 for hit in hits)
    chunks = api_client.get(f"/api/v1/materials/{material.ref_id}/chunks?start=0&end=1").json()
    assert chunks and all(chunk["text"] == chunk["content"] for chunk in chunks)


def test_a_failed_material_has_the_failure_shape_in_the_requested_language(api_client, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        ref_id = _upload(api_client, b"plain words", "slides.pdf").json()["refId"]
    english = api_client.get(f"/api/v1/materials/{ref_id}/").json()
    assert english["status"] == "FAILED"
    assert english["failure"] == {"code": "content_mismatch", "message": english["error"]}
    assert english["errorCode"] == "content_mismatch" and english["error"].startswith("“slides.pdf” is named .pdf")
    korean = api_client.get(f"/api/v1/materials/{ref_id}/", HTTP_ACCEPT_LANGUAGE="ko").json()
    assert korean["failure"]["code"] == "content_mismatch"  # the code stays stable
    assert "slides.pdf" in korean["failure"]["message"] and korean["failure"]["message"] != english["error"]
    assert any("\uac00" <= char <= "\ud7a3" for char in korean["failure"]["message"]), korean["failure"]["message"]
    assert korean["error"] == korean["failure"]["message"]


def test_original_file_downloads_for_its_owner_only(api_client, other_api_client, anonymous_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf, "python notes.pdf")
    for path in (f"/api/v1/materials/{material.ref_id}/file", f"/api/v1/materials/{material.ref_id}/file/"):
        response = api_client.get(path, HTTP_ACCEPT="application/pdf")
        assert response.status_code == 200
        assert response["Content-Type"] == "application/pdf"
        assert response["Content-Disposition"] == 'attachment; filename="python notes.pdf"'
        assert b"".join(response.streaming_content) == english_pdf
    for client, status, code in ((other_api_client, 404, "not_found"), (anonymous_client, 401, "not_authenticated")):
        refused = client.get(f"/api/v1/materials/{material.ref_id}/file", HTTP_ACCEPT="application/pdf")
        assert refused.status_code == status
        assert refused["Content-Type"] == "application/json" and refused.json()["error"]["code"] == code


def test_original_file_keeps_a_korean_name_and_a_text_type(api_client, user, ingest):
    data = "레지스터는 CPU 안의 빠른 저장 공간이다.".encode("cp949")
    material = ingest(user, data, "어셈블리 노트.txt")
    response = api_client.get(f"/api/v1/materials/{material.ref_id}/file")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain"
    assert response["Content-Disposition"].startswith("attachment; filename*=utf-8''")
    assert "%EC%96%B4%EC%85%88%EB%B8%94%EB%A6%AC" in response["Content-Disposition"]  # 어셈블리, percent-encoded
    assert b"".join(response.streaming_content) == data  # the bytes as uploaded, not re-encoded


def test_original_file_missing_from_storage_is_a_clear_404(api_client, user, ingest, english_pdf):
    material = ingest(user, english_pdf, "python.pdf")
    material.file.storage.delete(material.file.name)
    response = api_client.get(f"/api/v1/materials/{material.ref_id}/file")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "file_missing" and "python.pdf" in response.json()["error"]["message"]
