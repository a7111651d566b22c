"""Key points of a study session are read one by one, out of their paragraph."""

import pytest

from plans.models import Plan
from plans.services.plans import plan_create, plan_generate
from plans.services.session_content import session_content
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db


def _first_session_key_points(user, ingest, pages: list[str]) -> list[str]:
    """The key points of the first session of a 5-minute plan over a book of ``pages``."""
    book = ingest(user, make_pdf(pages), "book.pdf")
    plan = plan_create(owner=user, title="Book", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)
    return [point["text"] for point in session_content(user=user, plan=plan, session=plan.sessions.first()).key_points]


def test_a_key_point_stands_on_its_own(user, ingest):
    """A walkthrough: a Korean session's key point opened with a dangling "따라서" (therefore)."""
    pages = [
        "Chapter 1 Numbers\n"
        + "Hexadecimal numbers use base 16 and each hex digit stands for four bits of binary. "
        + "Therefore hexadecimal numbers are a compact way to write binary numbers for programmers. "
        + "A nibble is a group of four bits that one hex digit represents exactly. "
        + "Binary numbers use base 2 and only the digits 0 and 1 appear in them. "
        + "A byte holds eight bits, so two hex digits describe any byte value. "
        + "Thus each byte can be written as exactly two hexadecimal digits in a listing. "
        + "A bit is the smallest unit of data that a computer stores in its memory. "
    ]
    points = _first_session_key_points(user, ingest, pages)
    assert len(points) >= 3
    assert not [text for text in points if text.startswith(("Therefore", "Thus"))]


def test_a_key_point_from_a_list_item_is_shown_without_the_items_own_bullet(user, ingest):
    """A walkthrough: a session's key points read "• • insert a character" (the list's bullet and the book's)."""
    pages = [
        "Chapter 7 Edit distance\n"
        + "The edit distance between two strings is the minimum number of editing operations needed.\n"
        + "• Insert a character into the string at any position you choose.\n"
        + "• Remove a character from the string at any position you choose.\n"
        + "• Modify a character in the string so that it becomes another one.\n"
        + "The edit distance can be calculated using dynamic programming over the prefixes of both strings. "
    ]
    texts = _first_session_key_points(user, ingest, pages)
    assert any("a character" in text for text in texts), texts  # a list item is a key point here…
    assert not [text for text in texts if text.lstrip().startswith("•")]  # …without its bullet


def test_a_session_asks_and_points_at_sentences_that_stand_alone(user, ingest):
    """A walkthrough over a library manual: key points were function blurbs ("Decode the class and TAG from DER
    code.") and exercise instructions; prose that stands alone is preferred, and none of those is asked about."""
    pages = [
        "Chapter 2 Decoding\n"
        + "Decode the class and TAG from the DER code of the structure element. "
        + "Write a function called decoder that takes the DER code of a structure element. "
        + "Fill the structure element with values of a DER encoding string from the decoder. "
        + "A DER encoding is a binary format that gives every ASN.1 value exactly one encoding. "
        + "The decoder refuses a BER encoding when the strict flag is set by the caller. "
        + "An ASN.1 structure is a tree of typed elements that the library builds from a definitions file. "
        + "A tag is a number that tells the decoder which type the next encoded element has. "
        + "The library keeps every decoded value in the element of the structure that names it. "
        + "A definitions file is a text file that declares the ASN.1 types of a protocol. "
    ]
    book = ingest(user, make_pdf(pages), "manual.pdf")
    plan = plan_create(owner=user, title="Manual", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)
    content = session_content(user=user, plan=plan, session=plan.sessions.first())
    points = [point["text"] for point in content.key_points]
    assert len(points) >= 3 and not [text for text in points if text.startswith(("Decode", "Write", "Fill"))], points
    quoted = [question["citation"]["quote"] for question in content.questions]
    assert not [quote for quote in quoted if quote.startswith(("Decode", "Write", "Fill"))], quoted


def test_two_sentences_that_say_one_thing_are_one_key_point():
    """Think Python's factorial trace gave "Since 2 is not 0, we take the second branch …" and "Since 1 is not 0,
    …" as two key points of one session; the licence guide gave one sentence five times, its footnotes apart."""
    import re

    from plans.services.session_content import _same_point

    def words(text):
        return set(re.findall(r"\w+", text.casefold()))

    first = words("Since 2 is not 0, we take the second branch and calculate the factorial of n-1.")
    assert _same_point(first, words("Since 1 is not 0, we take the second branch and calculate the factorial of n-1."))
    assert not _same_point(first, words("A recursive function needs a base case that stops the recursion."))


def _first_session_questions(user, ingest, text: str, name: str) -> list[dict]:
    """The practice questions of the first session of a 5-minute plan over ``text`` uploaded as ``name``."""
    book = ingest(user, text.encode(), name)
    plan = plan_create(owner=user, title=name, ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)
    return session_content(user=user, plan=plan, session=plan.sessions.first()).questions


def test_a_text_with_no_heading_and_no_definition_still_has_practice_questions(user, ingest):
    """A walkthrough: the Vim tutor uploaded as text defines no term and has no heading Baeum recognises; its
    26 sessions had no practice question at all. Its most characteristic terms are asked instead."""
    text = (
        "Press the undo key to take back the last change you made to the buffer. "
        "The undo history keeps every change, so several undo presses walk back through it. "
        "A register stores deleted text until you put it back somewhere else in the buffer. "
        "Each register has a one-letter name, and the put command pastes the register you choose. "
        "The buffer holds the text of a file while you edit it, and writing saves the buffer. "
        "Without writing, every change to the buffer is lost when you quit the editor. "
    )
    questions = _first_session_questions(user, ingest, text, "tutor.txt")
    assert questions, "a session with readable sentences has something to practise"
    assert {question["answer"].casefold() for question in questions} & {"undo", "register", "buffer", "change"}
    assert not [question for question in questions if question["kind"] == "true_false" and question["answer"] == "false"]


def test_a_korean_text_file_named_in_latin_letters_gets_korean_objectives(user, ingest):
    """A walkthrough: "vimtutor-ko.txt" titled its modules in Latin letters, and its objectives read "Explain 텍스트"."""
    text = (
        "커서를 움직이려면 h, j, k, l 키를 누릅니다. 커서는 화면 위의 현재 위치를 가리킵니다. "
        "텍스트를 지우려면 커서를 문자 위에 두고 x 를 누릅니다. 삭제된 텍스트는 레지스터에 보관됩니다. "
        "레지스터에 보관된 텍스트는 p 명령으로 다시 붙일 수 있습니다. 버퍼는 편집 중인 파일의 내용을 담습니다. "
    ) * 3
    book = ingest(user, text.encode(), "vimtutor-ko.txt")
    plan = plan_create(owner=user, title="빔", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    objectives = [objective for session in Plan.objects.for_user(user).get(pk=plan.pk).sessions.all() for objective in session.objectives]
    assert objectives and not [objective for objective in objectives if objective.startswith(("Explain", "Define"))], objectives


def test_a_tutorial_saved_as_text_is_studied_by_its_lessons(user, ingest):
    """A walkthrough: the Vim tutor as text had sessions titled "vimtutor-en · p.1–9" and no heading-based questions;
    its "Lesson 1.2:  DELETING TEXT" lines are headings."""
    lesson = (
        "The cursor moves one character with each press of the h, j, k and l keys on the keyboard. "
        "A count before a motion repeats the motion that many times across the buffer text. "
    )
    deleting = (
        "The x key deletes the character under the cursor without leaving the normal editing mode. "
        "The dw command deletes from the cursor to the start of the next word in the line. "
    )
    text = f"Lesson 1.1:  MOVING THE CURSOR\n\n{lesson * 3}\n\nLesson 1.2:  DELETING TEXT\n\n{deleting * 3}\n"
    book = ingest(user, text.encode(), "tutor.txt")
    plan = plan_create(owner=user, title="Tutor", ref_ids=[book.ref_id], minutes_per_session=10, enqueue=False)
    plan_generate(plan_id=plan.pk)
    session = Plan.objects.for_user(user).get(pk=plan.pk).sessions.first()
    said = f"{session.title} {' '.join(session.objectives)}".casefold()
    assert "moving the cursor" in said and "deleting text" in said, (session.title, session.objectives)


def test_a_korean_text_asks_about_its_short_characteristic_terms_too(user, ingest):
    """The xz manual in Korean had one or two blanks a session: a characteristic term needed four letters, and
    "압축", "스레드", "접미사" have two or three syllables."""
    text = (
        "압축 수준이 높을수록 압축 프로그램은 메모리를 더 많이 씁니다. 스레드 수를 늘리면 압축 속도가 빨라집니다. "
        "접미사는 압축 파일의 이름 끝에 붙습니다. 기본 접미사는 .xz 입니다. 메모리 제한을 넘으면 압축 프로그램은 스레드 수를 줄입니다. "
        "압축을 해제할 때도 메모리 제한을 지정할 수 있습니다. 사전 크기는 메모리 사용량을 결정합니다. "
    )
    questions = _first_session_questions(user, ingest, text, "xz-ko.txt")
    assert len(questions) >= 2, questions
    assert [question for question in questions if question["kind"] != "true_false"], questions


def test_a_manual_pages_name_line_is_its_first_key_point_and_asked_in_its_language(user, ingest):
    """Walkthrough 18: no key point of the Korean fuser and killall pages said what either command does; their NAME
    line ("killall - 지정한 이름의 프로세스를 강제로 끝냅니다") is a definition with no full stop."""
    from baeum.study.definitions import find_definitions

    manual = (
        "KILLALL(1)\n\n이름\n       killall - 지정한 이름의 프로세스를 강제로 끝냅니다\n\n설명\n"
        "       killall은 지정 명령에 일치하는 모든 실행 프로세스에 시그널을 보냅니다.\n"
        "       지정한 시그널 이름이 없다면 SIGTERM을 보냅니다.\n"
        "       프로세스가 이름을 바꾸었다면, killall에서 해당 프로세스를 정확하게 찾아낼 수 없습니다.\n"
    )
    assert [(d.term, d.aliases) for d in find_definitions("xz, unxz, xzcat - .xz 파일을 압축합니다\nNote - this is prose")] == [
        ("xz", ("unxz", "xzcat"))
    ]
    questions = _first_session_questions(user, ingest, manual, "killall-ko.txt")
    assert any(q["kind"] == "definition" and q["question"] == "killall(이)란 무엇인가요?" for q in questions), questions
    book = ingest(user, manual.encode(), "killall-again.txt")
    plan = plan_create(owner=user, title="", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)
    points = [point["text"] for point in session_content(user=user, plan=plan, session=plan.sessions.first()).key_points]
    assert points[0] == "killall - 지정한 이름의 프로세스를 강제로 끝냅니다", points


def test_a_korean_verb_stem_is_no_term_to_blank():
    """Walkthrough 19: "명령행에서 쉘을 _____지 않으면" wanted "지정하", which Kiwi alone reads as an unknown noun."""
    from plans.services.session_content import _names_a_thing

    assert not _names_a_thing("지정하") and not _names_a_thing("마운트한") and not _names_a_thing("영역에")
    assert _names_a_thing("컨텍스트") and _names_a_thing("파일 시스템") and _names_a_thing("비밀번호")


def test_a_key_point_comes_with_its_section_on_the_page_the_api_cards_and_exports(user, ingest, client, api_client):
    """A reference's key points describe the entry they stand under ("When true, the socket is kept open …" under
    process.send): blind readers passed 37 of 88 of Node's alone and 63 with their section, so every place a key point
    is read away from its page shows its section."""
    from plans.services.review import cards_from_key_points

    entries = {
        "process.send(message)": "When the flag is true, the socket stays open for the child process until it exits normally.",
        "process.title": "Assigning a new value to it changes the name that the operating system shows for the process.",
        "Exit codes": "A program that ends normally returns zero to the shell that started the program.",
        "Signal events": "Pressing the interrupt keys makes the terminal deliver an interrupt to every program in the foreground.",
        "Warnings": "Each emitted warning carries a name, a message and a stack trace that shows where the program emitted it.",
    }
    text = "# Process\n\n" + "\n\n".join(f"## {heading}\n\n{sentence} " * 1 for heading, sentence in entries.items()) + "\n"
    book = ingest(user, text.encode(), "process.md", title="Process")
    plan = plan_create(owner=user, title="Process", ref_ids=[book.ref_id], minutes_per_session=5, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan = Plan.objects.for_user(user).get(pk=plan.pk)
    session = plan.sessions.order_by("number").first()
    points = session_content(user=user, plan=plan, session=session).key_points
    sections = {point["text"]: point["section"] for point in points}
    assert sections and all(sections[sentence] == heading for heading, sentence in entries.items() if sentence in sections), sections
    api = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{session.number}/").json()
    assert {point["section"] for point in api["keyPoints"]} <= set(entries)
    client.force_login(user)
    page = client.get(f"/plans/{plan.pk}/sessions/{session.number}/").content.decode()
    shown = next(iter(sections.items()))
    assert f'<span class="key-point-section">{shown[1]}</span> {shown[0]}' in page
    prompts = [card.prompt for card in cards_from_key_points(user=user, plan=plan, session=session)]
    assert any(prompt.startswith(f"{heading} — ") for prompt in prompts for heading in entries), prompts
    # A practice question under its section too, on the page and on the card its answer makes.
    from plans.services.review import answer_question

    content = session_content(user=user, plan=plan, session=session)
    placed = [question for question in content.questions if question["section"]]
    assert placed, content.questions
    assert f'<span class="key-point-section">{placed[0]["section"]}</span><p>' in page
    _, card, _ = answer_question(user=user, plan=plan, session=session, question_id=placed[0]["id"], response="x")
    assert card.prompt == f"{placed[0]['section']} — {placed[0]['question']}"
    exported = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/{session.number}/export.md")
    assert f"- **{shown[1]}**: {shown[0]}" in exported.content.decode()


def test_a_question_shows_its_section_unless_the_section_gives_the_answer_away():
    """Walkthrough 22: "Resumes parsing after it has been suspended with _____." named no function. Under its section
    it does; "_____을 위해서는 오타 정의자가 필요합니다." under "오타 교정" would show its own answer, so it stays alone."""
    from plans.services.session_content import question_section

    resumes = {"kind": "cloze", "question": "Resumes parsing after it has been suspended with _____ .", "answer": "XML_StopParser"}
    assert question_section(resumes, "XML_ResumeParser") == "XML_ResumeParser"
    typo = {"kind": "cloze", "question": "_____을 위해서는 오타 정의자가 필요합니다.", "answer": "오타 교정", "term": "오타 교정"}
    assert question_section(typo, "오타 교정") == ""
    defined = {"kind": "definition", "question": "What is a stack?", "answer": "A stack is a LIFO list.", "term": "stack"}
    assert question_section(defined, "The Stack") == ""
    statement = {"kind": "true_false", "question": "True or false: a heap is a LIFO list.", "answer": "false", "term": "stack"}
    assert question_section(statement, "The Stack") == "" and question_section(statement, "Memory") == "Memory"
    assert question_section(resumes, "") == ""
