"""The document's own outline: chapters found at the right level, broken bookmarks left out, and each chunk
titled by the section it starts in."""

from baeum.extraction.chunking import Chunk
from baeum.extraction.outline import apply_outline, chapter_level, chapter_pages, outline_entries


def _chunk(index: int, first: int, last: int, title: str = "", level: int = 0) -> Chunk:
    return Chunk(index=index, content="x", page_start=first, page_end=last, token_count=100, section_title=title, section_level=level)


def test_the_chapter_level_is_the_one_whose_entries_are_chapters_apart():
    # A book in parts: parts (level 0) 100 pages apart, chapters (level 1) about 15.
    raw = [{"level": 0, "title": "Part I", "page": 1}]
    raw += [{"level": 1, "title": f"Chapter {n}", "page": 1 + 15 * n} for n in range(7)]
    raw += [{"level": 0, "title": "Part II", "page": 106}] + [
        {"level": 1, "title": f"Chapter {n}", "page": 106 + 15 * n} for n in range(7, 13)
    ]
    entries = outline_entries(raw, 200)
    assert chapter_level(entries) == 1
    assert 16 in chapter_pages(entries) and 106 in chapter_pages(entries)


def test_parts_bookmarked_after_a_few_front_pages_are_not_taken_for_chapters():
    # The Valgrind manual's top level: a title, contents and a quick-start guide on pages 1-3, then a user
    # manual of 182 pages, an FAQ, technical notes, distribution documents and licences. Median gap 9 pages,
    # average 54: its parts, each with chapters about 10 pages apart one level down.
    tops = [1, 2, 3, 8, 190, 199, 217, 381]
    raw = []
    for top, following in zip(tops, [*tops[1:], 397], strict=True):
        raw.append({"level": 0, "title": f"Part on page {top}", "page": top})
        raw += [{"level": 1, "title": f"Chapter on page {page}", "page": page} for page in range(top + 1, following, 10)]
    assert chapter_level(outline_entries(raw, 397)) == 1


def test_bookmarks_pointing_back_or_off_the_document_are_left_out():
    raw = [
        {"level": 0, "title": "  Variables,\nexpressions and   statements ", "page": 3},
        {"level": 1, "title": "Assignment", "page": 4},
        {"level": 0, "title": "Index", "page": 2},  # listed last, pointing inside the book: a broken link
        {"level": 0, "title": "Beyond", "page": 99},
        {"level": 0, "title": "", "page": 5},
    ]
    assert [(entry.title, entry.page) for entry in outline_entries(raw, 10)] == [
        ("Variables, expressions and statements", 3),
        ("Assignment", 4),
    ]
    assert outline_entries(raw[:1], 10) == []  # one entry is no outline


def test_chunks_take_the_outlines_titles_and_levels():
    entries = outline_entries(
        [
            {"level": 0, "title": "The way of the program", "page": 1},
            {"level": 1, "title": "What is a program?", "page": 1},
            {"level": 1, "title": "Running Python", "page": 2},
            {"level": 0, "title": "Variables, expressions and statements", "page": 4},
            {"level": 0, "title": "Functions", "page": 7},
        ],
        8,
    )
    chunks = [
        _chunk(0, 1, 1, "Chapter 1", 1),
        _chunk(1, 1, 2),
        _chunk(2, 2, 3, "Running", 2),
        _chunk(3, 3, 3),
        _chunk(4, 4, 5, "Chapter 2 Variables, expressions and", 1),
    ]
    titled = [(chunk.section_title, chunk.section_level) for chunk in apply_outline(chunks, entries)]
    assert titled == [
        ("The way of the program", 1),  # the chapter and its first section open one chunk: the chapter
        ("What is a program?", 0),
        ("Running Python", 2),
        ("Running Python", 0),
        ("Variables, expressions and statements", 1),  # whole, where the page showed it cut
    ]
    assert apply_outline(chunks, []) == chunks
