"""A material's study guide: its headings with their pages, the key points of the plan that reads it,
and a glossary of the terms it defines, each on the page of its defining sentence (English and Korean)."""

import pytest

from knowledge.models import MaterialPage
from plans.selectors_guide import material_chapters, study_guide
from plans.services.session_content import session_content
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

ENGLISH = [
    "Chapter 1 Variables\nA program works with values of many kinds. A variable is a name that refers to a value. "
    + "Assignment statements create variables and give them values. " * 6,
    "1.1 Names\n"
    + "Variable names can be as long as you like. " * 4
    + "A keyword is a reserved word that the language uses to parse a program.",
    "Chapter 2 Functions\nPrograms are built from small parts. A function is a named sequence of statements that performs a computation. "
    + "Calling a function runs its body with the given arguments. " * 6,
    "Chapter 3 Recursion\nSome problems contain smaller copies of themselves. "
    + "A recursive function calls itself. " * 4
    + "The case that stops the recursion is called the base case.",
]
KOREAN = [
    "제1장 레지스터\n컴퓨터는 값을 빠르게 다루어야 한다. CPU 내부에 있는 아주 빠른 저장 공간을 레지스터라고 부른다. "
    + "범용 레지스터는 데이터를 임시로 보관한다. " * 5,
    "제2장 인터럽트\n프로그램은 외부 사건에 반응해야 한다. 인터럽트란 프로그램의 흐름을 잠시 멈추고 사건을 처리하게 하는 신호이다. "
    + "인터럽트 핸들러가 사건을 처리한다. " * 5,
]


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(ENGLISH), "python.pdf", title="Think Python excerpt")


def _page(material, number: int) -> str:
    return " ".join(MaterialPage.objects.for_user(material.owner).get(material=material, number=number).text.split())


def test_glossary_lists_each_defined_term_on_the_page_of_its_definition(user, book):
    guide = study_guide(user=user, ref_id=book.ref_id)
    terms = {entry["term"].casefold(): entry for entry in guide.glossary}
    assert {"variable", "keyword", "function", "base case"} <= set(terms)
    assert terms["variable"]["pageNumber"] == 1 and terms["keyword"]["pageNumber"] == 2
    assert terms["function"]["pageNumber"] == 3 and terms["base case"]["pageNumber"] == 4
    for entry in guide.glossary:
        assert " ".join(entry["definition"].split()) in _page(book, entry["pageNumber"])  # the sentence is on that page
        assert not entry["definition"].startswith("Chapter")  # the heading is not part of the sentence
    assert [entry["term"].casefold() for entry in guide.glossary] == sorted(terms)  # alphabetical


def test_overview_lists_the_headings_with_their_pages_and_the_plans_key_points(user, book, django_capture_on_commit_callbacks):
    from plans.services.plans import plan_create

    guide = study_guide(user=user, ref_id=book.ref_id)
    assert [(section["title"], section["pageNumber"]) for section in guide.sections] == [
        ("Chapter 1 Variables", 1),
        ("1.1 Names", 2),
        ("Chapter 2 Functions", 3),
        ("Chapter 3 Recursion", 4),
    ]
    assert guide.plan_id is None and not any(section["keyPoints"] for section in guide.sections)  # no plan reads it yet

    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="Learn", ref_ids=[book.ref_id], minutes_per_session=5)
    plan.refresh_from_db()
    guide = study_guide(user=user, ref_id=book.ref_id)
    assert guide.plan_id == plan.pk
    expected = [
        point["text"] for session in plan.sessions.all() for point in session_content(user=user, plan=plan, session=session).key_points
    ]
    placed = [point for section in guide.sections for point in section["keyPoints"]]
    assert {point["text"] for point in placed} == set(expected) and placed
    assert len({point["text"] for point in placed}) == len(placed)  # a sentence the book repeats is listed once
    for section in guide.sections:
        for point in section["keyPoints"]:
            assert point["chunkIndex"] >= section["chunkIndex"]  # under the heading it follows
            assert " ".join(point["text"].split()) in _page(book, point["pageNumber"])


def test_chapters_to_choose_from_cover_the_body_with_their_pages(user, book):
    assert material_chapters(user=user, ref_id=book.ref_id) == [
        {"title": "Chapter 1 Variables", "pages": [1, 2], "labels": ["1", "2"]},  # no printed numbers: the positions
        {"title": "Chapter 2 Functions", "pages": [3, 3], "labels": ["3", "3"]},
        {"title": "Chapter 3 Recursion", "pages": [4, 4], "labels": ["4", "4"]},
    ]


def test_korean_glossary(user, ingest):
    material = ingest(user, make_pdf(KOREAN), "korean.pdf", title="어셈블리 입문")
    terms = {entry["term"]: entry for entry in study_guide(user=user, ref_id=material.ref_id).glossary}
    assert terms["레지스터"]["pageNumber"] == 1 and terms["인터럽트"]["pageNumber"] == 2
    assert terms["레지스터"]["definition"].startswith("CPU 내부에")


def test_guide_page_and_api(client, api_client, user, book):
    response = api_client.get(f"/api/v1/materials/{book.ref_id}/guide")
    assert response.status_code == 200
    body = response.json()
    assert body["refId"] == book.ref_id and body["planId"] is None
    assert body["sections"][0] == {"title": "Chapter 1 Variables", "level": 1, "pageNumber": 1, "keyPoints": []}
    entry = next(entry for entry in body["glossary"] if entry["term"] == "variable")
    assert entry == {
        "term": "variable",
        "aliases": [],
        "definition": "A variable is a name that refers to a value.",
        "pageNumber": 1,
        "pageEnd": 1,
    }
    client.force_login(user)
    page = client.get(f"/library/{book.ref_id}/guide/").content.decode()
    assert "A variable is a name that refers to a value." in page
    assert f"/library/{book.ref_id}/?page=3" in page  # Chapter 2 opens on its page


def test_a_second_user_gets_no_guide(client, other_api_client, other_user, book):
    response = other_api_client.get(f"/api/v1/materials/{book.ref_id}/guide")
    assert response.status_code == 404 and response.json()["error"]["code"] == "not_found"
    client.force_login(other_user)
    assert client.get(f"/library/{book.ref_id}/guide/").status_code == 404


def test_a_listings_comment_is_no_glossary_entry(user, ingest):
    """Walkthrough 21: Rust by Example's Korean study guide listed "`mutabook`", from a comment in its code."""
    text = (
        "# Borrowing\n\nA borrow is a reference to data that another variable owns.\n\n"
        "```rust\n// A mutabook is a mutable reference to a book.\nlet mutabook = &mut book;\n```\n\n"
        "The borrow checker makes sure that references are always valid.\n"
    )
    material = ingest(user, text.encode(), "borrowing.md", title="Borrowing")
    guide = study_guide(user=user, ref_id=material.ref_id)
    assert {entry["term"].casefold() for entry in guide.glossary} == {"borrow"}
    assert [section["title"] for section in guide.sections] == ["Borrowing"]
