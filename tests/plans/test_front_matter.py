"""Front and back matter never open or fill a study session: title, contents and preface before the
first chapter, bibliography and index after the last, are optional reading (marked on the pages)."""

import pytest

from baeum.extraction.structure import BACK, FRONT, page_matter
from knowledge.models import MaterialPage
from plans.models import Plan
from plans.services.plans import plan_create, plan_generate
from tests.pdfgen import make_pdf

BODY = "A register is a very fast storage location inside the CPU, and the stack holds return addresses. " * 12
BOOK = [
    "PC Assembly Language\nPaul A. Carter\nNovember 2026",
    "Copyright 2026 by the author. This book may be reproduced as long as this notice is kept.",
    "Contents\n1 Introduction 1\n1.1 Number Systems 1\n1.2 Computer Organization 5\n2 Basic Assembly 10\n2.1 Working with Integers 12\nIndex 20",
    "Preface\nThis book is written for students who want to learn how computers work at the lowest level. " * 3,
    f"Chapter 1\nIntroduction\n{BODY}",
    f"Chapter 2\nBasic Assembly Language\n{BODY}",
    "Index\nregister, 5, 6\nstack, 6\nstack frame, 7, 9\nCALL instruction, 8\nRET instruction, 8\ninterrupt, 9\n"
    "two's complement, 5\nlittle endian, 6\nbig endian, 6\nmemory, 5–7",
]


def test_pages_before_the_first_chapter_and_the_index_are_front_and_back_matter():
    assert page_matter(BOOK) == {1: FRONT, 2: FRONT, 3: FRONT, 4: FRONT, 7: BACK}
    assert page_matter(["# Notes\nSome text about registers."] * 3, markdown=True) == {}  # notes without a book's frame


def test_a_first_chapter_opening_below_the_end_of_the_contents_starts_the_body_on_that_page():
    """A paper's contents ran onto page 2, and "1 Definition of CRC" opened halfway down it: page 2 was front matter, so
    the definition the paper stands on was never a session and the tutor read it last ("What is a CRC?" refused)."""
    entries = "\n".join(f"4.{n} Computing a CRC word by word . . . . . . . {n + 8}" for n in range(1, 9))
    definition = "Cyclic Redundancy Check (CRC) is a well-known technique to detect corrupted messages.\n" * 4
    paper = [
        "Everything we know about CRC\nAbstract\nThis paper describes CRC algorithms.\nContents\n1 Definition of CRC 2\n2 Related work 3",
        f"{entries}\n5 Experimental results 22\n1 Definition of CRC\n{definition}",
        f"2 Related work\n{BODY}",
        f"3 CRC tricks and tips\n{BODY}",
    ]
    assert page_matter(paper) == {1: FRONT}
    assert page_matter([paper[0], entries, *paper[2:]]) == {}  # contents alone: no chapter opens on it (and none at the top)


def test_a_parts_own_contents_inside_the_book_is_matter_but_a_table_of_figures_is_not():
    """The Valgrind manual opens each of its parts with contents whose lines end in a leader and a page;
    a filing prints "Table of Contents" on every page over tables whose lines end in numbers."""
    contents = "Valgrind User Manual\nTable of Contents\n" + "\n".join(f"{n}. Section {n} … {10 * n}" for n in range(1, 9))
    statement = "Table of Contents\nNet sales 5,363 4,869\nCost of sales 3,100 2,950\nGross margin 2,263 1,919\nTaxes 400 380\nNet income 1,863 1,539"
    chapters = [f"Chapter {n}\nMore\n{BODY}" for n in range(3, 9)]
    kinds = page_matter([*BOOK[:6], contents, statement, *chapters, BOOK[6]])
    assert kinds[7] == FRONT and 8 not in kinds and kinds[15] == BACK


def test_an_index_link_printed_on_every_page_opens_no_back_matter():
    """Corning's 10-K opens each of its 138 pages with "Index", a link back to its contents: its notes to the
    financial statements are not an index, and the tutor must not read them last."""
    filing = [f"Index\nItem {n}. Financial statements\nNet sales rose 12 % to 5,363 million in fiscal 2020.\n{BODY}" for n in range(1, 11)]
    assert page_matter(filing) == {}
    assert page_matter([*BOOK[:6], BOOK[6]])[7] == BACK  # the book's own index still is


def test_a_manuals_licence_appendix_is_back_matter():
    """libtasn1's "Appendix A Copying Information" (the GNU FDL, eight pages) had become study sessions."""
    licence = "24\nAppendix A Copying Information\nA.1 GNU Free Documentation License\nVersion 1.3, 3 November 2008\n" + BODY
    chapters = [f"Chapter {n}\nMore\n{BODY}" for n in range(3, 9)]
    kinds = page_matter([*BOOK[:6], *chapters, licence, BODY])
    assert kinds[13] == BACK and kinds[14] == BACK and 12 not in kinds


@pytest.mark.django_db
def test_no_session_starts_in_front_matter_and_it_is_listed_as_optional_reading(user, ingest):
    book = ingest(user, make_pdf(BOOK), "book.pdf")
    assert list(MaterialPage.objects.for_user(user).filter(material=book).exclude(matter="").order_by("number").values_list("number", "matter")) == [
        (1, FRONT), (2, FRONT), (3, FRONT), (4, FRONT), (7, BACK)
    ]  # fmt: skip

    plan = plan_create(owner=user, title="Book", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)

    sessions = list(plan.sessions.order_by("number"))
    assert sessions and all(item["pages"][0] >= 5 for session in sessions for item in session.ranges)  # chapter 1 is p.5
    optional = [(module.page_first, module.page_last) for module in plan.modules.filter(optional=True).order_by("position")]
    assert optional == [(1, 4), (7, 7)]
