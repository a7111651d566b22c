import pytest

from baeum.extraction.chunking import PageText, chunk_pages
from baeum.extraction.lines import heading_level, printed_page_numbers, strip_running_lines
from baeum.extraction.pages import page_at, page_span, quote_pages
from baeum.language.text import estimate_tokens

SENTENCE = "Recursion solves a problem by solving smaller instances of the same problem first. "


def _book(pages: int = 12) -> list[PageText]:
    result = []
    for number in range(1, pages + 1):
        lines = [f"Think Python {number}"]  # running head with the page number
        if number % 4 == 1:
            lines.append(f"Chapter {number // 4 + 1}")
        lines += [SENTENCE * 3, f"Paragraph on page {number} ends here."] * 3
        lines.append(str(number))  # page-number footer
        result.append(PageText(number, "\n".join(lines)))
    return result


def test_chunks_are_contiguous_non_empty_and_within_budget():
    chunks = chunk_pages(_book(), target_tokens=200)
    assert [chunk.index for chunk in chunks] == list(range(len(chunks)))
    assert all(chunk.content.strip() for chunk in chunks)
    assert max(chunk.token_count for chunk in chunks) <= 200 * 1.1
    assert all(1 <= chunk.page_start <= chunk.page_end <= 12 for chunk in chunks)
    assert [chunk.page_start for chunk in chunks] == sorted(chunk.page_start for chunk in chunks)


def test_overlap_repeats_the_tail_of_the_previous_chunk_at_about_ten_to_fifteen_percent():
    chunks = chunk_pages(_book(), target_tokens=200, overlap=0.12)
    overlapping = [(previous, chunk) for previous, chunk in zip(chunks, chunks[1:], strict=False) if chunk.overlap_chars]
    assert len(overlapping) >= len(chunks) // 2
    for previous, chunk in overlapping:
        repeated = chunk.content[: chunk.overlap_chars].strip()
        assert previous.content.endswith(repeated)
        assert 0.05 <= estimate_tokens(repeated) / 200 <= 0.15


def test_running_heads_and_page_numbers_are_removed():
    chunks = chunk_pages(_book(), target_tokens=200)
    text = "\n".join(chunk.content for chunk in chunks)
    assert "Think Python" not in text
    assert "\n7\n" not in text


def test_a_line_of_code_at_many_page_edges_is_never_a_running_head():
    """undici's Dispatcher page (walkthrough 19) opens many listings with "const client = new Client(…)": where a
    virtual page began inside one, the line had been cut out of the listing as a running head."""
    opening = "const client = new Client(`http://localhost:${server.address().port}`)"
    pages = [
        PageText(number, f"{opening}\nconst data = await client.request({{ path: '/{number}' }})\n\n{SENTENCE * 2}", code=(opening,))
        for number in range(1, 9)
    ]
    chunks = chunk_pages(pages, target_tokens=200, blank_lines_end_paragraphs=True)
    assert "\n".join(chunk.content[chunk.overlap_chars :] for chunk in chunks).count(opening) == 8  # overlap read once
    bodies = [[opening, f"A sentence of its own, about {word}."] for word in "ants bees cats dogs eels fish goats hens".split()]
    assert strip_running_lines(bodies)[0] == ["A sentence of its own, about ants."]  # unknown as code, it is one
    assert strip_running_lines(bodies, code=frozenset([opening]))[0] == bodies[0]


def test_a_running_head_with_its_page_number_goes_even_when_its_words_never_repeat():
    """thinkpython2: even pages open "20 Chapter 3. Functions", odd pages the section's own head ("3.5.
    Definitions and uses 21"), which a one-page section shows once; the printed number gives it away."""
    pages = []
    for position in range(12):
        printed = position + 19
        head = f"{printed} Chapter 3. Functions" if position % 2 == 0 else f"3.{position}. Section number {position} {printed}"
        body = [f"Body text of page {printed}, said once.", f"More of what page {printed} says, also once.", "The end."]
        pages.append([head, "Chapter 1" if position == 0 else body[0], *body[1:]])
    cleaned = strip_running_lines(pages)
    assert all(not line[:1].isdigit() for lines in cleaned for line in lines)
    assert cleaned[0][0] == "Chapter 1"  # a heading is no running head
    # A body line ending with the page's number is not at the page's edge: it stays.
    # A line ending with the page's number inside the page, off its edges, stays.
    assert "It costs 20" in strip_running_lines([[*lines[:2], "It costs 20", *lines[2:]] for lines in pages])[1]


def test_a_footer_repeated_digits_and_all_goes():
    """The conversation set's slide deck tops every slide with "CNPP/2008.11. © O. Bonaventure 2008": its
    numbers never move with the page, and answers opened with it."""
    topics = "tunnels routers labels tables routes sites policies filters peers links".split()
    pages = [["CNPP/2008.11. © O. Bonaventure 2008", f"About {topic}", f"What {topic} do.", f"Enough about {topic}."] for topic in topics]
    pages[3].insert(1, "Version 2 of the protocol")  # a line with a number said once stays
    cleaned = strip_running_lines(pages)
    assert all("Bonaventure" not in line for lines in cleaned for line in lines)
    assert cleaned[3][0] == "Version 2 of the protocol" and cleaned[0] == ["About tunnels", "What tunnels do.", "Enough about tunnels."]


def test_a_chapters_own_running_head_goes_but_a_heading_opening_far_apart_pages_stays():
    """The Valgrind manual tops every page of a chapter with its title and no page number ("Massif: a heap
    profiler", 20 of 397 pages), the licence guide with its chapter's number and title ("2 오픈소스: 동일한
    관념, 다양한 라이선스"); "Exercises" opens a page at the end of several chapters, far apart."""
    pages = [[f"Body line {position} of the book, said once.", f"Another line of page {position}."] for position in range(60)]
    for position in range(20, 26):
        pages[position].insert(0, "Massif: a heap profiler")
        pages[position + 10].insert(0, "2 오픈소스: 동일한 관념, 다양한 라이선스")
    for position in (10, 30, 50):
        pages[position].insert(0, "Exercises")
    for position in (40, 41, 42, 43):
        pages[position].append("Every task of the case must be done.")  # the text's own sentence at the foot of pages
    cleaned = strip_running_lines(pages)
    assert not any("Massif" in line or "오픈소스" in line for lines in cleaned for line in lines)
    assert [lines[0] for lines in cleaned[10:51:20]] == ["Exercises"] * 3
    assert all(lines[-1] == "Every task of the case must be done." for lines in cleaned[40:44])


def test_a_chapter_heading_opens_a_new_chunk_without_overlap():
    chunks = chunk_pages(_book(), target_tokens=200)
    openers = [chunk for chunk in chunks if chunk.section_level == 1]
    assert [chunk.content.split("\n")[0] for chunk in openers] == ["Chapter 1", "Chapter 2", "Chapter 3"]
    assert all(chunk.overlap_chars == 0 for chunk in openers)
    assert [chunk.page_start for chunk in openers] == [1, 5, 9]


def test_heading_detection_accepts_real_headings_and_rejects_lists_and_toc_lines():
    assert heading_level("Chapter 3") == 1
    assert heading_level("Chapter3") == 1
    assert heading_level("제2장 인터럽트") == 1
    assert heading_level("1.2.3 피연산자") == 3
    assert heading_level("3.1 Loops") == 2
    assert heading_level("3.1 Loops … 41") == 0  # table of contents entry
    assert heading_level("1. 오프셋이 32비트로 확장되었다.") == 0
    assert heading_level("# comment in code") == 0
    assert heading_level("Chapter 4 에서 다룰 것이다) 스택은") == 0
    assert heading_level("## Setup", markdown=True) == 2
    assert heading_level("Lesson 1.1:  MOVING THE CURSOR") == 2  # the Vim tutor, as text
    assert heading_level("Lesson 1.2: 빔을 시작하고 끝내기") == 2
    assert heading_level("Lesson 1 SUMMARY") == 2 and heading_level("LESSON 1 요약") == 2  # closes lesson 1, holds no lesson 2
    assert heading_level("Unit 3 Loops") == 1
    assert heading_level("Lesson 1.2 로 가십시오.") == 0  # a sentence that mentions a lesson
    assert heading_level("Lessons learned from the outage") == 0


def test_long_korean_text_without_spaces_is_cut_by_characters():
    page = PageText(1, "가" * 3000)
    chunks = chunk_pages([page], target_tokens=300)
    assert len(chunks) >= 6
    assert all(chunk.token_count <= 330 for chunk in chunks)


def test_whitespace_only_pages_make_no_chunks():
    assert chunk_pages([PageText(1, "   \n\n  "), PageText(2, "\t")]) == []


def test_strip_running_lines_keeps_body_text():
    bodies = [[f"Lists are mutable ({number * 3}).", "Strings are not.", f"Tuples: {number * 7}."] for number in range(6)]
    pages = [["Think Python", *bodies[number], f"Chapter {number // 2 + 1}", f"{number + 3}"] for number in range(6)]
    assert strip_running_lines(pages) == [[*bodies[number], f"Chapter {number // 2 + 1}"] for number in range(6)]


# --- Page offsets and table rows (no database) ------------------------------------------------------------


def test_each_page_of_a_chunk_begins_at_its_recorded_offset_and_a_quote_carries_its_own_page():
    pages = [PageText(number, f"Page {number} opens with its own sentence. " + SENTENCE * 2) for number in range(1, 5)]
    chunks = chunk_pages(pages, target_tokens=300, overlap=0.0)
    spanning = [chunk for chunk in chunks if chunk.page_end > chunk.page_start]
    assert spanning, "pages this short share a chunk"
    for chunk in spanning:
        assert [number for _, number in chunk.page_starts] == list(range(chunk.page_start, chunk.page_end + 1))
        for offset, number in chunk.page_starts:
            assert chunk.content[offset:].startswith(f"Page {number} opens")
        quote = f"Page {chunk.page_end} opens with its own sentence."
        assert quote_pages(chunk.content, chunk.page_starts, quote, chunk.page_start) == (chunk.page_end, chunk.page_end)


def test_page_at_and_page_span_read_offsets_and_fall_back_for_chunks_stored_without_them():
    starts = [(0, 7), (120, 8), (300, 9)]
    assert [page_at(starts, offset, 1) for offset in (0, 119, 120, 299, 300, 10_000)] == [7, 7, 8, 8, 9, 9]
    assert page_span(starts, 100, 130, 1) == (7, 8)  # a quote running over a page break
    assert page_span(starts, 120, 121, 1) == (8, 8)
    assert page_at([], 50, 4) == 4 and quote_pages("text", [], "missing", 4) == (4, 4)


ROWS = [f"Operating segment {index} revenue {1_000 + index:,} {2_000 + index:,} {3_000 + index:,}" for index in range(30)]
STATEMENT = "\n".join(["Segment results", "(In millions)", "2016 2017 2018", *ROWS])
LEAD = "The segments reported these results over three years, as the following statement shows in detail for each."


@pytest.mark.parametrize("budget", [80, 120, 200, 400])
def test_no_chunk_boundary_falls_inside_a_table_row_whatever_the_budget(budget):
    chunks = chunk_pages([PageText(1, "\n".join([LEAD, "", STATEMENT, "", LEAD]))], target_tokens=budget)
    seen = []
    for chunk in chunks:
        own = chunk.content[chunk.overlap_chars :]
        lines = own.split("\n")
        assert not any(row.startswith(line) and row != line for line in lines[-1:] for row in ROWS), "a chunk ends mid-row"
        assert not any(row.endswith(line) and row != line for line in lines[:1] for row in ROWS), "a chunk starts mid-row"
        seen += [line for line in lines if line in ROWS]
    assert seen == ROWS  # every row whole, once, in order


def test_a_korean_word_broken_over_two_lines_is_joined_and_a_break_between_words_keeps_its_space():
    # Korean typesetting breaks a line at any syllable (pcasm-book-korean.pdf p.16: "가리키" / "는데").
    lines = [
        "두 레지스터는 기계어 스택에 들어 있는 데이터의 위치를 가리키",
        "는데 쓰인다. 이 레지스터는 스택을 사",
        "용하므로 매우 중요하다. 모든 프로그램은 메모리를",
        "사용한다. The stack",
        "grows down.",
    ]
    (chunk,) = chunk_pages([PageText(1, "\n".join(lines))], target_tokens=400)
    assert "위치를 가리키는데 쓰인다." in chunk.content
    assert "스택을 사용하므로" in chunk.content
    assert "메모리를 사용한다." in chunk.content  # two words: the space stays
    assert "The stack grows down." in chunk.content


def test_a_text_wrapped_at_its_spaces_keeps_them_where_the_words_around_the_break_say_so():
    # The Korean man page as a text file (walkthrough, sixteenth session): alone, "후" + "장치" reads as one
    # word, and the answer quoted "압축을 해제한 후장치 독립"; with the words around the break it is two.
    lines = ["이 명령은 소스 설명서 페이지의 압축을 해제한 후", "장치 독립(dvi) 파일로 서식에 따라 내용을 갖춥니다."]
    (chunk,) = chunk_pages([PageText(1, "\n".join(lines))], target_tokens=400)
    assert "해제한 후 장치 독립(dvi)" in chunk.content


def test_the_numbers_a_book_prints_are_read_from_its_pages_edges():
    """The licence guide's PDF gives no page labels, but its 51st page shows "- 39 -" at its foot: two
    unnumbered front pages, then pages printing 1, 2, …; a chapter's first page shows none."""
    pages = [["Title page", "A guide"], ["Contents", "1 Introduction"]]
    for printed in range(1, 13):
        foot = [] if printed == 5 else [f"- {printed} -"]
        pages.append([f"Text of the page printed {printed}, read once.", "More of it, also once.", *foot])
    numbers = printed_page_numbers(pages)
    assert numbers[2] == "1" and numbers[6] == "5" and numbers[13] == "12"  # page 5 shows none: between 4 and 6
    assert 0 not in numbers and 1 not in numbers  # the front matter prints nothing
    assert printed_page_numbers([["Text", "more"]] * 12) == {}


def test_each_item_of_a_list_is_a_paragraph_of_its_own():
    """The Vim tutor's steps had run into one paragraph, so a lesson's sentence ended with the next step's number
    ("… d 횟수 대상 1.") and a Markdown list read "* HTTP responses, on the client * HTTP requests …"."""
    text = (
        "Lesson 2.1: 삭제(DELETION) 명령\n\n"
        "한 단어를 끝까지 지우려면 dw 라고 치면 됩니다.\n"
        "  1. <ESC> 키를 눌러서 확실하게 명령 모드로 빠져 나옵니다.\n"
        "  2. 지워야할 단어의 처음으로 커서를 옮기고\n     dw 라고 칩니다.\n\n"
        "Examples of readable streams include:\n* HTTP responses, on the client\n* fs read streams\n"
        "• a bullet from a PDF\n(3) a numbered item\nThe list ends here and a sentence\nwraps over two lines."
    )
    [chunk] = chunk_pages([PageText(1, text)], markdown=True)
    paragraphs = chunk.content.split("\n\n")
    assert paragraphs[1:] == [
        "한 단어를 끝까지 지우려면 dw 라고 치면 됩니다.",
        "1. <ESC> 키를 눌러서 확실하게 명령 모드로 빠져 나옵니다.",
        "2. 지워야할 단어의 처음으로 커서를 옮기고 dw 라고 칩니다.",  # an item's wrapped line stays with it
        "Examples of readable streams include:",
        "* HTTP responses, on the client",
        "* fs read streams",
        "• a bullet from a PDF",
        "(3) a numbered item The list ends here and a sentence wraps over two lines.",
    ]
    assert chunk.heading_spans == [(0, len("Lesson 2.1: 삭제(DELETION) 명령"), 2)]


def test_a_text_files_blank_lines_end_its_paragraphs_on_every_page():
    """Node's events page: with more pages than the running-head pass reads, the blank lines went, and "Stability: 2 -
    Stable" and "• listener {Function} The event handler function" ran into the paragraphs after them."""
    pages = [
        PageText(
            number,
            f"Section {number}\n\nStability: 2 - Stable\n\n• listener {{Function}} The event handler function\n\n"
            f"The instance emits its own event number {number} before a listener is added.",
        )
        for number in range(1, 6)
    ]
    chunks = chunk_pages(pages, target_tokens=400, blank_lines_end_paragraphs=True)
    text = "\n\n".join(chunk.content for chunk in chunks)
    assert "Stable The instance" not in text and "Stable • listener" not in text
    assert "The event handler function The instance" not in text
    assert "• listener {Function} The event handler function\n\nThe instance emits" in text


def test_a_text_file_never_joins_two_lines_into_one_word():
    """The Korean xz manual as text: Kiwi read "다른 방식으로 파일" / "무결성을 검증해야" as one word "파일무결성을"; a text
    file breaks its lines at spaces, so only a PDF's breaks are read as inside a word."""
    lines = ["다른 방식으로 파일", "무결성을 검증해야 하는 목적이 아니라면 이 옵션을 사용하지 마십시오."]
    (text,) = chunk_pages([PageText(1, "\n".join(lines))], target_tokens=400, blank_lines_end_paragraphs=True)
    assert "방식으로 파일 무결성을 검증해야" in text.content


def test_a_listing_is_laid_out_as_its_page_runs_not_line_by_line():
    """Walkthrough 19: every closing brace of a class had one depth, and "try {" eight spaces where the book has
    none: a chunk's collapsed lines had been looked up one by one on the page."""
    from baeum.extraction.pages import laid_out

    page = ["class A {", "  m() {", "    try {", "      x()", "    }", "  }", "}", "", "try {", "", "  y()", "}"]
    assert laid_out(["try {", "y()", "}"], page) == ["try {", "", "  y()", "}"]  # its blank line too
    assert laid_out(["m() {", "try {", "x()", "}", "}"], page) == ["  m() {", "    try {", "      x()", "    }", "  }"]
    assert laid_out(["m() {", "not on the page"], page) == ["  m() {", "not on the page"]  # cut over pages
    assert laid_out(["elsewhere()"], page) == ["elsewhere()"]


def test_a_line_that_ends_with_a_short_note_after_a_full_stop_ends_its_item():
    # Walkthrough 22 (the Kiwipiepy documentation): PDF lines are joined into one paragraph, so each item's version
    # opened the next item's sentence ("(v0.19.0부터 지원) kiwipiepy.basic_typos_with_continual …").
    page = PageText(
        1,
        "kiwipiepy.continual_typos ('continual'): 형태소 간의 연철 오타를 교정하는\n오타 정의자입니다. (v0.17.1부터 지원)\n"
        "kiwipiepy.lengthening_typos ('lengthening'): 늘려 적은 오타를 교정하는\n오타 정의자입니다. (v0.19.0부터 지원)\n"
        "위의 기본 오타 정의자를 사용하거나 직접 정의하여 사용할 수 있습니다.\n",
    )
    (chunk,) = chunk_pages([page], target_tokens=300)
    paragraphs = chunk.content.split("\n\n")
    assert [paragraph[-14:] for paragraph in paragraphs[:2]] == ["(v0.17.1부터 지원)", "(v0.19.0부터 지원)"], chunk.content
    assert paragraphs[2].startswith("위의 기본 오타 정의자를")
    # After a question mark the note is a label of the question's row (the KorQuAD paper's "(Short, 평문)").
    (chunk,) = chunk_pages([PageText(1, "질문 서울의 GDP는 세계 몇 위야? (Short, 평문)\n답 1위\n")], target_tokens=300)
    assert "\n\n" not in chunk.content
