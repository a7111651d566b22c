"""A PDF's bookmarks title its chapters everywhere a learner reads them: the chunks, the chapter picker and
the plan's modules say "Variables, expressions and statements", where the page shows a title cut in two."""

import pytest

from knowledge.models import Chunk, Material
from plans.choices import material_choice
from tests.factories import UserFactory
from tests.pdfgen import make_pdf, with_outline, with_page_labels

pytestmark = pytest.mark.django_db(transaction=True)

BODY = " ".join(["A sentence of the chapter's own prose, long enough to fill the page with words to read."] * 12)
PAGES = [
    f"Chapter 1\nThe way of\nA program is a sequence of instructions that says how to compute. {BODY}",
    f"The first program is traditionally called Hello, World. {BODY}",
    f"Chapter 2\nVariables, expressions and\nAn assignment statement creates a new variable and gives it a value. {BODY}",
    f"A variable name may contain letters and numbers. {BODY}",
    f"Chapter 3\nFunctions\nA function is a named sequence of statements that performs a computation. {BODY}",
    f"Functions can take arguments and return values. {BODY}",
]
OUTLINE = [
    (0, "The way of the program", 1),
    (1, "The first program", 2),
    (0, "Variables, expressions and statements", 3),
    (0, "Functions", 5),
]


def test_the_outline_titles_chunks_chapters_and_modules(ingest, django_capture_on_commit_callbacks):
    user = UserFactory()
    book = ingest(user, with_outline(make_pdf(PAGES), OUTLINE), "think.pdf")
    assert [entry["title"] for entry in Material.objects.unscoped().get(pk=book.pk).outline] == [title for _, title, _ in OUTLINE]
    openers = list(
        Chunk.objects.unscoped().filter(material=book, section_level=1).order_by("chunk_index").values_list("section_title", "page_number")
    )
    assert openers == [("The way of the program", 1), ("Variables, expressions and statements", 3), ("Functions", 5)]
    chapters = [chapter["title"] for chapter in material_choice(user, book.ref_id, book.title, book.page_count)["chapters"]]
    assert "Variables, expressions and statements" in chapters and not any(title.startswith("Chapter 2") for title in chapters)

    from plans.services.plans import plan_create

    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_create(owner=user, title="", ref_ids=[book.ref_id], minutes_per_session=5)
    plan.refresh_from_db()
    modules = [module.title for module in plan.modules.order_by("position") if not module.optional]
    assert modules == ["The way of the program", "Variables, expressions and statements", "Functions"]


def test_a_pdf_without_bookmarks_keeps_the_headings_its_text_shows(ingest):
    book = ingest(UserFactory(), make_pdf(PAGES), "plain.pdf")
    assert Material.objects.unscoped().get(pk=book.pk).outline == []
    titles = set(Chunk.objects.unscoped().filter(material=book, section_level=1).values_list("section_title", flat=True))
    assert "Variables, expressions and statements" not in titles


def test_the_chapter_picker_shows_the_pages_the_book_prints(ingest, client):
    user = UserFactory()
    book = ingest(user, with_page_labels(with_outline(make_pdf(PAGES), OUTLINE), front_pages=2), "labelled.pdf")
    chapters = {chapter["title"]: chapter for chapter in material_choice(user, book.ref_id, book.title, book.page_count)["chapters"]}
    second = chapters["Variables, expressions and statements"]
    assert second["pages"] == [3, 4] and second["labels"] == ["1", "2"]  # positions to build from, printed pages to read
    client.force_login(user)
    page = client.get("/plans/").content.decode()
    assert 'value="3-4"' in page and "p.1–2" in page


def test_pages_typed_in_the_picker_are_the_pages_the_book_prints(ingest, client):
    """A learner types the page numbers they read on the page and in citations: "1-2" is the 3rd and 4th
    pages of a book whose first two are numbered i and ii; a material without printed numbers keeps positions."""
    from django.http import QueryDict

    from plans.choices import chosen_ranges

    user = UserFactory()
    book = ingest(user, with_page_labels(make_pdf(PAGES), front_pages=2), "labelled.pdf")
    plain = ingest(user, make_pdf(PAGES), "plain.pdf")
    post = QueryDict(mutable=True)
    post.update({f"pages_{book.ref_id}": "1-2, 4", f"pages_{plain.ref_id}": "1-2", f"chapters_{book.ref_id}": "5-6"})
    ranges = chosen_ranges(post, [book.ref_id, plain.ref_id], user=user)
    assert ranges == [
        {"refId": book.ref_id, "pages": [5, 6]},  # a chapter ticked: positions, as the picker sends them
        {"refId": book.ref_id, "pages": [3, 4]},
        {"refId": book.ref_id, "pages": [6, 6]},
        {"refId": plain.ref_id, "pages": [1, 2]},
    ]
    # Shown back in the box as typed: printed numbers. A second user's labels never answer for the first's pages.
    shown = material_choice(user, book.ref_id, book.title, book.page_count, ranges[1:3])
    assert shown["pages"] == "4" and [chapter["checked"] for chapter in shown["chapters"]] == [False, True, False]  # 1-2 is Chapter 2
    assert chosen_ranges(post, [book.ref_id], user=UserFactory())[1] == {"refId": book.ref_id, "pages": [1, 2]}


def test_a_pdf_without_page_labels_takes_the_numbers_its_pages_print(ingest):
    from knowledge.models import MaterialPage

    pages = [f"Front matter page {index}. {BODY}" for index in range(2)]
    pages += [f"Page {printed} of the body. {BODY}\n- {printed} -" for printed in range(1, 9)]
    book = ingest(UserFactory(), make_pdf(pages), "guide.pdf")
    labels = dict(MaterialPage.objects.unscoped().filter(material=book).values_list("number", "label"))
    assert labels[3] == "1" and labels[10] == "8" and labels[1] == labels[2] == ""
