"""Tenant isolation proved by machinery: every URL of the URL conf (found by introspection, so a new
endpoint is covered without anyone remembering), every method, as anonymous, owner and second user."""

import io
import json
import zipfile

import pytest
from django.apps import apps
from django.urls import URLPattern, URLResolver, get_resolver

from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

SKIP_PREFIXES = (
    "admin/",
    "api/v1/schema/",
    "api/v1/docs/",
    "i18n/",
    "static/",
    "media/",
    "healthz",
    "api/v1/auth/",
    "login/",
    "logout/",
    "signup/",
    "password-reset/",  # public: asks for a reset link (tests/accounts)
    "reset/",  # public: a reset link's own page (tests/accounts)
    "verify/",  # public: an email confirmation link's page and the resend form (tests/accounts/test_email_verification.py)
    "courses/join/",  # a capability: whoever holds a usable code may join (tests/courses/test_course_pages.py)
)
FALLBACK_ROUTES = {"api/"}  # any other /api/ path: the other slash form of a route below, or a JSON 404
METHODS = ("get", "post", "put", "patch", "delete")
OWNED_MODELS = [
    ("knowledge", "Material"),
    ("knowledge", "MaterialPage"),
    ("knowledge", "Chunk"),
    ("knowledge", "ChunkEmbedding"),
    ("knowledge", "ChunkTerm"),
    ("plans", "Plan"),
    ("plans", "StudySession"),
    ("plans", "Note"),
    ("plans", "Card"),
    ("plans", "Review"),
    ("chat", "Conversation"),
    ("chat", "Message"),
    ("courses", "Course"),
    ("courses", "Membership"),
    ("courses", "Invitation"),
]


def _routes(patterns=None, prefix=""):
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and route.lstrip("^").rstrip("$") not in FALLBACK_ROUTES:
            yield route.lstrip("^").rstrip("$")


def _fill(route: str, values: dict) -> str | None:
    path = route
    for name, value in values.items():
        path = path.replace(f"<str:{name}>", str(value)).replace(f"<int:{name}>", str(value))
    return None if "<" in path else "/" + path


def _snapshot():
    state = {}
    for app_label, name in OWNED_MODELS:
        model = apps.get_model(app_label, name)
        rows = model.objects.unscoped().order_by("pk").values()  # test inspection across tenants
        state[name] = json.dumps(list(rows), default=str, sort_keys=True)
    return state


@pytest.fixture
def owner_data(user, ingest, django_capture_on_commit_callbacks):
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply
    from plans.services.notes import note_create
    from plans.services.plans import plan_create
    from plans.services.review import cards_from_key_points
    from plans.services.session_content import session_content

    material = ingest(user, make_pdf(["Chapter 1 Registers\nA register is a fast storage location inside the CPU. " * 5] * 2), "regs.pdf")
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Regs", ref_ids=[material.ref_id], minutes_per_session=5)
    conversation = conversation_create(owner=user, ref_ids=[material.ref_id])
    reply = chat_reply(conversation=conversation, content="What is a register?")
    note = note_create(owner=user, kind="own", text="A register note", plan_id=plan.pk)
    session = plan.sessions.get(number=1)
    cards = cards_from_key_points(user=user, plan=plan, session=session)
    questions = session_content(user=user, plan=plan, session=session).questions
    # The owner teaches a course with the material in it, an invitation and a learner who joined.
    from django.contrib.auth.models import Permission

    from courses.services import course_create, course_join, invitation_create
    from knowledge.services.materials import material_publish
    from tests.factories import UserFactory

    user.user_permissions.add(Permission.objects.get(codename="add_course"))
    teacher = type(user).objects.get(pk=user.pk)
    course = course_create(user=teacher, title="Registers 101")
    material_publish(user=teacher, material=material, course_id=course.pk)
    from plans.services.course_plans import course_plan_create

    with django_capture_on_commit_callbacks(execute=True):
        course_plan_create(user=teacher, course_id=course.pk)
    invitation = invitation_create(user=teacher, course_id=course.pk)
    learner = UserFactory()
    course_join(user=learner, code=invitation.code)
    return {
        "ref_id": material.ref_id,
        "plan_id": plan.pk,
        "number": 1,
        "conversation_id": conversation.pk,
        "note_id": note.pk,
        "message_id": reply.pk,
        "card_id": cards[0].pk,
        "question_id": questions[0]["id"],
        "course_id": course.pk,
        "code": invitation.code,
        "user_id": learner.pk,
    }


def test_every_route_is_covered_by_the_matrix(owner_data):
    routes = [route for route in _routes() if not route.startswith(SKIP_PREFIXES)]
    assert len(routes) >= 25
    unfilled = [route for route in routes if _fill(route, owner_data) is None]
    assert unfilled == [], "a new URL kwarg needs a value in owner_data"


def test_second_user_gets_404_and_changes_nothing_on_every_object_route(client, user, other_user, owner_data):
    object_routes = [route for route in _routes() if "<" in route and not route.startswith(SKIP_PREFIXES)]
    assert object_routes
    client.force_login(other_user)
    before = _snapshot()
    for route in object_routes:
        filled = _fill(route, owner_data)
        # Under /api/ both slash forms answer (the API's convention), so both are checked.
        paths = [filled, filled[:-1] if filled.endswith("/") else filled + "/"] if filled.startswith("/api/") else [filled]
        for path, method in [(path, method) for path in paths for method in METHODS]:
            if method in ("get", "delete"):
                response = getattr(client, method)(path)
            else:
                response = getattr(client, method)(
                    path, data=json.dumps({"status": "completed", "content": "x", "title": "x"}), content_type="application/json"
                )
            assert response.status_code in (404, 405), f"{method.upper()} {path} → {response.status_code}"
            if response.status_code == 404 and path.startswith("/api/"):
                assert response.json()["error"]["code"] == "not_found"
    assert _snapshot() == before


def test_second_user_lists_and_searches_see_nothing(client, other_user, owner_data):
    client.force_login(other_user)
    for path in ["/api/v1/materials/", "/api/v1/plans/", "/api/v1/conversations/", "/api/v1/notes/", "/api/v1/courses/"]:
        assert client.get(path).json()["count"] == 0
    assert "A register note" not in client.get("/api/v1/notes/export.md").content.decode()
    assert "A register note" not in client.get("/notes/").content.decode()
    assert client.post("/api/v1/search", {"query": "register"}, content_type="application/json").json() == []
    assert client.get(f"/api/v1/materials/stats?refIds={owner_data['ref_id']}").json() == {"stats": {}}
    assert client.post("/api/v1/conversations/", {"planId": owner_data["plan_id"]}, content_type="application/json").status_code == 404
    assert client.post("/api/v1/conversations/", {"refIds": [owner_data["ref_id"]]}, content_type="application/json").status_code == 404
    assert client.post("/api/v1/plans/", {"refIds": [owner_data["ref_id"]]}, content_type="application/json").status_code == 404
    assert client.post("/chat/new", {"plan_id": owner_data["plan_id"]}).status_code == 404
    review = client.get("/api/v1/review/").json()
    assert review["cards"] == [] and review["stats"]["cards"] == 0
    page = client.get("/library/").content.decode()
    assert owner_data["ref_id"] not in page
    assert client.get("/api/v1/me").json()["email"] == other_user.email
    export = zipfile.ZipFile(io.BytesIO(b"".join(client.get("/api/v1/me/export").streaming_content)))
    assert not [name for name in export.namelist() if name.startswith("files/")]
    assert all(json.loads(export.read(name)) == [] for name in export.namelist() if name.startswith("data/"))


def test_anonymous_gets_nothing_anywhere(client, owner_data):
    before = _snapshot()
    for route in _routes():
        if route.startswith(SKIP_PREFIXES):
            continue
        path = _fill(route, owner_data)
        for method in METHODS:
            response = getattr(client, method)(path)
            if path.startswith("/api/"):
                assert response.status_code in (401, 405), f"{method.upper()} {path} → {response.status_code}"
            else:
                assert response.status_code in (302, 405), f"{method.upper()} {path} → {response.status_code}"
                if response.status_code == 302:
                    assert "/login/" in response["Location"]
    assert _snapshot() == before


def test_owner_can_read_every_object_route(client, user, owner_data):
    client.force_login(user)
    for route in _routes():
        if "<" not in route or route.startswith(SKIP_PREFIXES):
            continue
        path = _fill(route, owner_data)
        response = client.get(path)
        assert response.status_code in (200, 405), f"GET {path} → {response.status_code}"


def test_near_duplicate_chunks_of_another_user_never_reach_plans_sessions_or_chat(
    user, other_user, ingest, django_capture_on_commit_callbacks
):
    from chat.services.conversations import conversation_create
    from chat.services.reply import chat_reply
    from plans.services.plans import plan_create
    from plans.services.session_content import session_content

    text = "Chapter 1 Registers\\nA register is a very fast storage location inside the CPU. The EAX register is the accumulator."
    mine = ingest(user, make_pdf([text]), "mine.pdf")
    theirs = ingest(other_user, make_pdf([text + " The EAX register is the accumulator of the CPU."]), "theirs.pdf")
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Regs", ref_ids=[mine.ref_id], minutes_per_session=5)
    session = plan.sessions.get(number=1)
    content = session_content(user=user, plan=plan, session=session)
    assert {part["refId"] for part in content.parts} == {mine.ref_id}
    for conversation in (
        conversation_create(owner=user, ref_ids=[]),
        conversation_create(owner=user, ref_ids=[], plan_id=plan.pk),
        conversation_create(owner=user, ref_ids=[], plan_id=plan.pk, session_number=1),
    ):
        assert theirs.ref_id not in conversation.ref_ids
        for mode in ("standard", "agentic"):
            message = chat_reply(conversation=conversation, content="Which register is the accumulator?", mode=mode)
            assert not message.refused
            assert {citation["refId"] for citation in message.citations} == {mine.ref_id}
