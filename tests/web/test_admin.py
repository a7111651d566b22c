"""The admin as a content manager uses it: add a material for a learner, read failures at a glance,
a limited "Content managers" role, a learner's materials and plans on their page."""

import pytest
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile

from accounts.content_managers import GROUP_NAME, PERMISSIONS
from knowledge.models import Material
from plans.models import Plan
from tests.factories import UserFactory
from tests.pdfgen import make_pdf

# transaction=True: the admin's upload queues its ingestion with transaction.on_commit, which a test transaction never runs.
pytestmark = pytest.mark.django_db(transaction=True)

PAGES = ["Chapter 1 Registers\n" + "A register is a fast storage location inside the CPU. " * 6]


@pytest.fixture
def superuser_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _migrate_content_managers() -> Group:
    """Run the migrations' own code with their historical models (other tests' flushes remove its rows): the
    group is made, then given the courses' permissions."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    for name in ("0004_content_managers_group", "0006_content_managers_teach_courses"):
        migration = executor.loader.get_migration("accounts", name)
        state_apps = executor.loader.project_state(("accounts", name)).apps
        migration.operations[0].code(state_apps, None)
    return Group.objects.get(name=GROUP_NAME)


@pytest.fixture
def manager_client(client):
    manager = UserFactory(is_staff=True)
    manager.groups.add(_migrate_content_managers())
    client.force_login(manager)
    return client


def test_add_material_with_a_file_and_an_owner_goes_through_the_upload_service_and_ingestion(superuser_client, user):
    form = superuser_client.get("/admin/knowledge/material/add/")
    assert form.status_code == 200
    page = form.content.decode()
    assert 'type="file"' in page and 'enctype="multipart/form-data"' in page and 'name="owner"' in page
    response = superuser_client.post(
        "/admin/knowledge/material/add/",
        {"upload": SimpleUploadedFile("registers.pdf", make_pdf(PAGES)), "owner": user.pk, "title": "", "type": "material"},
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    material = Material.objects.unscoped().get()  # test inspection
    assert material.owner == user and material.title == "registers" and material.original_filename == "registers.pdf"
    assert material.status == Material.Status.READY and material.chunk_count >= 1  # ingested (tasks run eagerly in tests)


def test_a_content_manager_finds_the_owner_by_email_as_they_type(manager_client, user):
    page = manager_client.get("/admin/knowledge/material/add/").content.decode()
    assert "admin-autocomplete" in page and 'name="owner"' in page  # a search box, not a numeric id field
    found = manager_client.get(
        "/admin/autocomplete/",
        {"app_label": "knowledge", "model_name": "material", "field_name": "owner", "term": user.email.split("@")[0]},
    )
    assert found.status_code == 200
    assert [item["id"] for item in found.json()["results"]] == [str(user.pk)]


def test_re_running_ingestion_skips_files_that_would_fail_the_same_way(superuser_client, user, ingest):
    readable, locked = ingest(user, b"Notes about registers.", "slow.txt"), ingest(user, b"Notes about stacks.", "locked.txt")
    Material.objects.unscoped().filter(pk=readable.pk).update(status="FAILED", error_code="timeout", error_message="took too long")
    Material.objects.unscoped().filter(pk=locked.pk).update(
        status="FAILED", error_code="encrypted", error_message="a password", title="locked"
    )
    response = superuser_client.post(
        "/admin/knowledge/material/", {"action": "rerun_ingestion", "_selected_action": [readable.pk, locked.pk]}, follow=True
    )
    page = response.content.decode()
    assert "Queued ingestion of 1 material(s)." in page and "locked (encrypted)" in page
    locked.refresh_from_db()
    assert locked.status == "FAILED" and locked.error_code == "encrypted"


def test_a_refused_file_comes_back_as_a_form_error(superuser_client, user):
    response = superuser_client.post(
        "/admin/knowledge/material/add/", {"upload": SimpleUploadedFile("virus.exe", b"MZ"), "owner": user.pk, "type": "material"}
    )
    assert response.status_code == 200
    assert "is not a supported type" in response.content.decode()
    missing_owner = superuser_client.post("/admin/knowledge/material/add/", {"upload": SimpleUploadedFile("a.txt", b"words"), "type": "x"})
    assert missing_owner.status_code == 200 and "This field is required" in missing_owner.content.decode()
    assert not Material.objects.unscoped().exists()  # test inspection


def test_plans_are_not_added_from_an_empty_admin_form(superuser_client):
    assert superuser_client.get("/admin/plans/plan/add/").status_code == 403
    assert "/admin/plans/plan/add/" not in superuser_client.get("/admin/plans/plan/").content.decode()


def test_the_materials_list_shows_failure_reasons_in_few_columns(superuser_client, user, ingest):
    ingest(user, b"plain words", "slides.pdf")
    ingest(user, make_pdf(PAGES), "registers.pdf")
    response = superuser_client.get("/admin/knowledge/material/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "content_mismatch" in page and "“slides.pdf” is named .pdf" in page
    header = page[page.index("<thead>") : page.index("</thead>")]
    assert header.count('scope="col"') <= 6  # checkbox + five short columns: fits 1366 px (the browser test below)
    korean = superuser_client.get("/admin/knowledge/material/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "content_mismatch" in korean


def test_content_managers_group_is_created_by_migration_with_exactly_its_permissions():
    Group.objects.filter(name=GROUP_NAME).delete()
    group = _migrate_content_managers()
    granted = {(permission.content_type.app_label, permission.codename) for permission in group.permissions.all()}
    assert granted == {(label, codename) for label, codenames in PERMISSIONS.items() for codename in codenames}
    assert not any(label == "auth" or codename in ("change_user", "add_user", "delete_user") for label, codename in granted)


def test_a_content_manager_works_on_materials_plans_and_conversations_but_not_on_users_or_permissions(
    manager_client, user, ingest, django_capture_on_commit_callbacks
):
    from chat.services.conversations import conversation_create
    from plans.services.plans import plan_create

    material = ingest(user, make_pdf(PAGES), "registers.pdf")
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Registers", ref_ids=[material.ref_id], minutes_per_session=5)
    conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
    for path in [
        "/admin/",
        "/admin/knowledge/material/",
        f"/admin/knowledge/material/{material.pk}/change/",
        "/admin/knowledge/material/add/",
        "/admin/plans/plan/",
        f"/admin/plans/plan/{plan.pk}/change/",
        "/admin/chat/conversation/",
        f"/admin/chat/conversation/{conversation.pk}/change/",
        f"/admin/accounts/user/{user.pk}/change/",
    ]:
        assert manager_client.get(path).status_code == 200, path
    renamed = manager_client.post(f"/admin/knowledge/material/{material.pk}/change/", {"title": "Registers, fixed", "type": "material"})
    assert renamed.status_code == 302
    material.refresh_from_db()
    assert material.title == "Registers, fixed"
    for path in [
        "/admin/auth/group/",
        "/admin/auth/group/add/",
        "/admin/accounts/user/add/",
        f"/admin/knowledge/material/{material.pk}/delete/",
    ]:
        assert manager_client.get(path).status_code == 403, path
    refused = manager_client.post(f"/admin/accounts/user/{user.pk}/change/", {"email": "taken@example.com", "is_superuser": "on"})
    assert refused.status_code == 403
    user.refresh_from_db()
    assert not user.is_superuser and user.email != "taken@example.com"


def test_a_users_page_lists_their_materials_and_plans_with_links(
    superuser_client, user, other_user, ingest, django_capture_on_commit_callbacks
):
    from plans.services.plans import plan_create

    material = ingest(user, make_pdf(PAGES), "registers.pdf", title="PC Assembly")
    theirs = ingest(other_user, make_pdf(PAGES), "theirs.pdf", title="Someone else's book")
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Learn registers", ref_ids=[material.ref_id], minutes_per_session=5)
    page = superuser_client.get(f"/admin/accounts/user/{user.pk}/change/").content.decode()
    assert "PC Assembly" in page and f"/admin/knowledge/material/{material.pk}/change/" in page
    assert "Learn registers" in page and f"/admin/plans/plan/{plan.pk}/change/" in page
    assert theirs.title not in page
    listing = superuser_client.get(f"/admin/knowledge/material/?owner__id__exact={user.pk}")
    assert listing.status_code == 200 and "PC Assembly" in listing.content.decode() and theirs.title not in listing.content.decode()
    assert Plan.objects.unscoped().filter(owner=user).count() == 1  # test inspection


def test_content_managers_command_updates_the_group_and_adds_staff(user):
    from django.core.management import call_command

    _migrate_content_managers().permissions.clear()
    call_command("content_managers", "--add", user.email)
    user.refresh_from_db()
    assert user.is_staff and user.groups.filter(name=GROUP_NAME).exists()
    assert Group.objects.get(name=GROUP_NAME).permissions.count() == sum(len(codenames) for codenames in PERMISSIONS.values())


@pytest.mark.slow
def test_the_materials_list_and_a_users_page_fit_a_1366_px_screen(live_server, user, ingest):
    import os
    import shutil
    from pathlib import Path

    chromium = os.environ.get("BAEUM_CHROMIUM", "/usr/bin/chromium")
    if not shutil.which(chromium) and not Path(chromium).exists():
        pytest.fail(f"{chromium} is missing: `make test` installs Debian's chromium with apt (make test-deps).")
    from playwright.sync_api import sync_playwright

    UserFactory(email="manager@example.com", is_staff=True, is_superuser=True)
    long_title = "Computer Organization and Assembly Language Programming, Third Edition, with Exercises and Solutions"
    ingest(user, b"plain words, not a PDF at all", "a-rather-long-file-name-for-the-lecture-slides-of-week-three.pdf", title=long_title)
    ingest(user, make_pdf(PAGES), "registers.pdf", title="레지스터와 인터럽트: PC 어셈블리어 입문")
    folder = Path(__file__).resolve().parents[2] / "test-artifacts" / "e2e" / "admin"
    folder.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.goto(f"{live_server.url}/admin/login/")
        page.fill("#id_username", "manager@example.com")
        page.fill("#id_password", "correct horse battery")
        page.click("input[type=submit]")
        for name, path in [("materials", "/admin/knowledge/material/"), ("user", f"/admin/accounts/user/{user.pk}/change/")]:
            for language in ("en", "ko"):
                page.set_extra_http_headers({"Accept-Language": language})
                page.goto(f"{live_server.url}{path}")
                page.screenshot(path=str(folder / f"{name}-{language}-1366.png"), full_page=True)
                assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), f"{path} ({language}) scrolls sideways"
                # The list's own box scrolls sideways when its columns do not fit (Django's .results overflow).
                table_fits = "[...document.querySelectorAll('.results')].every(box => box.scrollWidth <= box.clientWidth)"
                assert page.evaluate(table_fits), f"{path} ({language}): the table scrolls sideways"
        assert "content_mismatch" in page.goto(f"{live_server.url}/admin/knowledge/material/").text()
        browser.close()
