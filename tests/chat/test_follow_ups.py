"""Follow-ups keep the thread: ordinal ("the second one", "그 중 두 번째") and anaphoric ("an example of
one") references are resolved against the previous answer's content, which a follow-up may read again."""

import re

import pytest

from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from tests.pdfgen import make_pdf

PAGES = [
    "Chapter 1 Volcanoes\nA stratovolcano is a tall, conical volcano built up by many layers of hardened lava and ash. "
    "Mount Fuji is a famous stratovolcano in Japan. Shield volcanoes are broad and gently sloping.",
    "Chapter 2 Protected mode\nThe 386 protected mode differs from the 286 protected mode in two major ways. "
    "First, the 386 uses 32-bit offsets, so a segment can be up to 4 gigabytes long. "
    "Second, the 386 divides segments into pages of 4 kilobytes, which is called paging.",
    "Chapter 3 Weather\nClouds form when water vapour condenses around tiny particles in the air.",
]


def _conversation_over(user, ingest, pages: list[str], name: str):
    """A conversation over one PDF made of ``pages``, ingested through the real pipeline."""
    book = ingest(user, make_pdf(pages), name)
    return conversation_create(owner=user, ref_ids=[book.ref_id])


@pytest.mark.django_db
def test_follow_ups_over_a_real_pipeline(user, ingest):
    conversation = _conversation_over(user, ingest, PAGES, "science.pdf")

    first = chat_reply(conversation=conversation, content="What is a stratovolcano?")
    assert not first.refused and "stratovolcano" in first.content
    example = chat_reply(conversation=conversation, content="Give me a famous example of one.")
    assert not example.refused, example.content
    assert "Mount Fuji" in example.content

    differences = chat_reply(conversation=conversation, content="What are the two major differences between 386 and 286 protected mode?")
    assert not differences.refused, differences.content
    second = chat_reply(conversation=conversation, content="Tell me more about the second one.")
    assert not second.refused, (second.search_query, second.content)
    assert "pag" in second.content.lower()  # paging, the second difference
    assert chat_reply(conversation=conversation, content="What is the capital of France?").refused


@pytest.mark.django_db
def test_a_follow_up_keeps_the_thread_but_not_into_what_the_materials_never_mention(user, ingest):
    conversation = _conversation_over(user, ingest, PAGES, "science.pdf")
    assert not chat_reply(conversation=conversation, content="What is a stratovolcano?").refused

    # No sentence shares the follow-up's own word ("country"): its sentences are chosen for the question
    # made to stand alone (the volcano page), not refused for want of the word.
    where = chat_reply(conversation=conversation, content="Which country has one?")
    assert not where.refused, where.content
    assert {citation["pageNumber"] for citation in where.citations} == {1}

    # "this" makes these look like follow-ups; the words carried over must not make them answerable.
    assert chat_reply(conversation=conversation, content="What's the best gaming laptop to buy this year?").refused
    assert chat_reply(conversation=conversation, content="How does the Java virtual machine build one?").refused


SIGNED = [
    "Chapter 2 Signed integers\nThere are three general techniques used to represent signed integers in computer memory. "
    "All of these methods treat the most significant bit of the integer as a sign bit.",
    "The first method is the simplest and is called signed magnitude. It represents the integer as a sign bit and a magnitude.",
    "The second method is known as one's complement representation. The one's complement of a number is found by reversing each bit.",
    "Modern computers use a third method called two's complement representation. It is found by adding one to the one's complement.",
]


@pytest.mark.django_db
def test_the_nth_item_is_found_where_the_materials_name_it(user, ingest):
    """The answer said "three techniques" without naming them; the book names each ("The second method is
    known as …"): "the third one" is the item the book calls third, on its page."""
    conversation = _conversation_over(user, ingest, SIGNED, "signed.pdf")
    first = chat_reply(conversation=conversation, content="How many techniques are there to represent signed integers?")
    assert not first.refused and "three general techniques" in first.content

    third = chat_reply(conversation=conversation, content="Explain the third one.")
    assert not third.refused, third.content
    assert "two's complement" in third.content
    assert "complement" in third.search_query  # searched by the item's name
    assert _cites_page(third, 4), third.citations
    # The next ordinal counts in the same list, not in the answer about the third item.
    second = chat_reply(conversation=conversation, content="And the second one?")
    assert not second.refused and "one's complement" in second.content.split("\n")[0], second.content


@pytest.mark.django_db
def test_a_what_are_the_ways_question_names_each_way_the_materials_number(user, ingest):
    """A walkthrough's "What are the ways to represent signed integers in memory?" stopped at "three general
    techniques": the answer now lists what the book calls the first, second and third method, each cited."""
    conversation = _conversation_over(user, ingest, SIGNED, "signed.pdf")
    answer = chat_reply(conversation=conversation, content="What are the ways to represent signed integers in computer memory?")
    assert not answer.refused, answer.content
    lines = answer.content.split("\n")
    assert any(line.startswith("- The first method is the simplest and is called signed magnitude.") for line in lines), answer.content
    assert any(line.startswith("- The second method is known as one's complement representation.") for line in lines)
    assert any(line.startswith("- Modern computers use a third method called two's complement representation.") for line in lines), (
        answer.content
    )
    assert all(re.search(r"\[\d\]$", line) for line in lines if line.startswith("- "))  # each cited (the ground check read them)


SHIFTS = [
    "3.1 Shift operations\nOne common bit operation is called a shift. A shift operation moves the position of the bits of some data.\n"
    "3.1.1 Logical shifts\nA logical shift is the simplest type of shift. The new bits that come in are always zero.",
    "3.1.2 Use of shifts\nFast multiplication and division are the most common uses of a shift operation.\n"
    "3.1.3 Arithmetic shifts\nThese shifts are designed to allow signed numbers to be quickly multiplied and divided by powers of two.",
    "3.1.4 Rotate shifts\nThe rotate shift instructions put the bits lost off one end of the data back in on the other side.\n"
    "3.2 Boolean operations\nThe AND operation of two bits is 1 only if both bits are 1.",
]


@pytest.mark.django_db
def test_the_nth_kind_is_the_nth_subsection_that_names_that_kind(user, ingest):
    """The pcasm book's "What kinds of shift operations does the book cover?" answer names no kinds, and the
    book never says "the second kind": its subsections do (3.1.1 Logical shifts, 3.1.3 Arithmetic shifts, 3.1.4
    Rotate shifts). "Use of shifts" between them is no kind of shift, so "the second kind" is the arithmetic one."""
    from baeum.answering.followups import heading_head

    assert [heading_head(title) for title in ("Arithmetic shifts", "Use of shifts", "Method two", "산술 쉬프트", "쉬프트의 이용")] == [
        "shift",
        "use",
        "method",
        "쉬프트",
        "이용",
    ]
    conversation = _conversation_over(user, ingest, SHIFTS, "shifts.pdf")
    kinds = chat_reply(conversation=conversation, content="What kinds of shift operations are there?")
    assert not kinds.refused, kinds.content
    # The answer lists the kinds, each by its heading and first sentence, cited.
    listed = [line for line in kinds.content.split("\n") if line.startswith("- ")]
    assert [line.split(":")[0] for line in listed] == ["- Logical shifts", "- Arithmetic shifts", "- Rotate shifts"], kinds.content
    assert all(re.search(r"\[\d\]$", line) for line in listed)
    second = chat_reply(conversation=conversation, content="Explain the second kind.")
    assert not second.refused, (second.search_query, second.content)
    assert second.search_query.startswith("arithmetic shift"), second.search_query
    # Shown under its heading: "These shifts" alone names nothing (a walkthrough).
    assert second.content.startswith("Arithmetic shifts: These shifts are designed to allow signed numbers"), second.content
    third = chat_reply(conversation=conversation, content="And the third kind?")
    assert "rotate shift instructions" in third.content.split("\n")[0], third.content
    assert {citation["pageNumber"] for citation in third.citations} == {3}


INTERRUPTS = [
    "Interrupts\nThe hardware of a computer provides a mechanism called interrupts to handle events that need a prompt response. "
    "Interrupts cause control to be passed to an interrupt handler.",
    "External interrupts are raised from outside the CPU. (The mouse is an example of this type.) Many devices raise them. "
    "Internal interrupts are raised from within the CPU, either from an error or the interrupt instruction.",
    "Labels\nThe global directive gives a label external scope, so that other modules can use it.",
]


@pytest.mark.django_db
def test_the_first_kind_after_a_comparison_is_its_first_side_and_its_example_follows_it(user, ingest):
    """A walkthrough: "What's the difference between external and internal interrupts?" → "Give me an example
    of the first kind." quoted the global directive's "external scope": the first side is "external
    interrupts" (the shared noun), and the sentence after the one naming it gives the example."""
    conversation = _conversation_over(user, ingest, INTERRUPTS, "interrupts.pdf")
    difference = chat_reply(conversation=conversation, content="What's the difference between external and internal interrupts?")
    assert difference.content.startswith("External interrupts are raised from outside the CPU."), difference.content
    example = chat_reply(conversation=conversation, content="Give me an example of the first kind.")
    lines = example.content.split("\n")
    assert lines[0].startswith("External interrupts are raised from outside the CPU."), example.content
    assert "The mouse is an example of this type." in example.content
    assert "global directive" not in example.content


SIGNED_KO = [
    "제 2 장 부호 있는 정수\n컴퓨터 메모리에서 부호 있는 정수를 표현하는 방법에는 3 가지가 있다. 이 방법들은 모두 최상위 비트를 부호 비트로 사용한다.",
    "부호 있는 크기\n첫 번째 방법은 가장 단순한 방법으로 부호 있는 크기 (signed magnitude) 표현법이라 부른다.",
    "1 의 보수 표현법두 번째 방법은 1의 보수 (one's complement) 표현법이다. 어떤 수의 1 의 보수는 각 비트를 반전시켜 구한다.",
    "2의 보수 표현법\n세 번째 방법은 2의 보수 표현법이다. 1 의 보수에 1 을 더해 구한다.",
]


@pytest.mark.django_db
def test_the_sentence_naming_the_nth_item_is_shown_without_the_heading_glued_before_it(user, ingest):
    """A walkthrough: "두 번째 방법에 대해 설명해줘" opened with "1 의 보수 표현법두 번째 방법은 …", the run-in heading
    glued to the sentence by the PDF."""
    conversation = _conversation_over(user, ingest, SIGNED_KO, "signed-ko.pdf")
    assert not chat_reply(conversation=conversation, content="부호 있는 정수를 표현하는 방법에는 어떤 것들이 있어?").refused
    second = chat_reply(conversation=conversation, content="두 번째 방법에 대해 설명해줘")
    assert not second.refused, second.content
    assert second.content.startswith("두 번째 방법은 1의 보수 (one's complement) 표현법이다."), second.content
    assert "표현법두" not in second.content


RANGES = [
    SIGNED[0],
    SIGNED[1] + " The largest byte value would be 01111111 or +127 and the smallest byte value would be 11111111 or -127.",
    SIGNED[2],
    SIGNED[3] + " Using two's complement notation, a single signed byte can hold values in the range -128 to +127.",
]


@pytest.mark.django_db
def test_it_after_an_ordinal_is_the_item_that_turn_named(user, ingest):
    """A walkthrough: "What range of values can it hold in a single byte?" after "Explain the third one." quoted
    signed magnitude's -127 … +127, a wrong fact about two's complement."""
    conversation = _conversation_over(user, ingest, RANGES, "ranges.pdf")
    assert not chat_reply(conversation=conversation, content="How many techniques are there to represent signed integers?").refused
    third = chat_reply(conversation=conversation, content="Explain the third one.")
    assert "two's complement" in third.content, third.content
    answer = chat_reply(conversation=conversation, content="What range of values can it hold in a single byte?")
    assert not answer.refused, answer.content
    assert "-128 to +127" in answer.content.split("\n")[0], answer.content


def _cites_page(message, page: int) -> bool:
    """Whether a citation of ``message`` covers ``page`` (a citation spans the pages its passage is quoted from)."""
    return any(citation["pageNumber"] <= page <= (citation.get("pageEnd") or citation["pageNumber"]) for citation in message.citations)


COPIES = [
    "Chapter 1 Copying objects\nA shallow copy duplicates an object but shares the objects embedded in it with the original. "
    "Changing an embedded object through a shallow copy changes the original as well.",
    "Chapter 2 Deep copies\nA deep copy duplicates an object together with every object embedded in it, at any depth. "
    "After a deep copy, the two objects share nothing, so changing one never changes the other.",
    "Chapter 3 Byte order\nThere are two methods of storing integers in memory. "
    "The first method is called big endian: it stores the most significant byte first. "
    "The second method is called little endian: it stores the least significant byte first.",
]


@pytest.mark.django_db
def test_the_other_one_is_the_sibling_the_book_names_beside_the_subject(user, ingest):
    """A walkthrough: "다른 하나는?" after "빅 엔디안이 뭐야?", and "and the other one?" after "What is a shallow copy?",
    were answered from sentences holding the words "other" and "one"."""
    conversation = _conversation_over(user, ingest, COPIES, "copies.pdf")
    assert not chat_reply(conversation=conversation, content="What is a shallow copy?").refused
    other = chat_reply(conversation=conversation, content="and the other one?")
    assert not other.refused and "deep copy duplicates" in other.content, other.content
    assert other.citations[0]["pageNumber"] == 2  # the deep copy's own page first

    listing = conversation_create(owner=user, ref_ids=conversation.ref_ids)
    assert not chat_reply(conversation=listing, content="What are the methods of storing integers in memory?").refused
    first = chat_reply(conversation=listing, content="Explain the first one.")
    assert not first.refused and "big endian" in first.content.lower(), first.content
    second = chat_reply(conversation=listing, content="And the other one?")  # the second of a list of two
    assert not second.refused and "little endian" in second.content.lower(), second.content


@pytest.mark.django_db
def test_the_other_one_without_a_pair_is_not_a_search_for_other(user, ingest):
    conversation = _conversation_over(user, ingest, COPIES, "copies.pdf")
    assert not chat_reply(conversation=conversation, content="What is a deep copy?").refused
    with_depth = chat_reply(conversation=conversation, content="What is depth-first search?")  # "first" is no ordinal
    assert with_depth.refused
    chat_reply(conversation=conversation, content="and the other one?")  # answered or refused, never a crash


@pytest.mark.django_db
def test_a_follow_up_reads_the_pages_around_the_previous_answer_first(user, ingest):
    """``retrieval:near-previous``: "and how large can it grow?" after a question on the call stack reads the stack's
    pages, though six pages far off on the heap say "grow" and "large" more often."""
    from baeum import rules
    from chat.services.retrieval import conversation_scope, retrieve_standard

    heap = "Chapter {n} The heap, part {n}\n" + "The heap can grow large: a large heap grows as large as memory allows. " * 20
    weather = "Chapter {n} Weather\n" + "This chapter is about the weather of a region, its clouds and its rain. " * 20
    pages = [  # a page long enough to be a passage of its own
        "Chapter 1 The call stack\n" + "The call stack holds a frame for every function call that has not returned yet. " * 20,
        weather.format(n=2),
        "Stack limits\nA stack that is too deep overflows: the operating system lets it grow to about eight megabytes. "
        + "Each thread has a stack of its own, set when the thread starts. " * 20,
        *[weather.format(n=n) for n in range(3, 13)],
        *[heap.format(n=n) for n in range(13, 19)],  # pages 14 to 19: more than NEAR_PREVIOUS_PAGES from page 3
    ]
    book = ingest(user, make_pdf(pages), "memory.pdf")
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    first = chat_reply(conversation=conversation, content="What does the call stack hold?")
    assert 1 in {citation["pageNumber"] for citation in first.citations}, first.content

    def pages_read() -> set[int]:
        query = "call stack hold frame and how large can it grow"
        found = retrieve_standard(conversation, query, scope=conversation_scope(conversation, [book.ref_id]), follow_up=True)
        return {passage.page_number for passage in found.passages}

    with rules.counting() as fired:
        near = pages_read()
    with rules.switched_off(["retrieval:near-previous"]):
        far = pages_read()
    assert fired["retrieval:near-previous"] >= 1
    assert max(near) <= 9 and max(far) >= 14, (near, far)  # the pages near the stack's; without the rule the heap's


@pytest.mark.django_db
def test_a_request_for_an_example_is_answered_for_the_topic_of_the_turn_before(user, ingest):
    """``followup:form-only``: "예를 들어줘" names nothing of its own. Switched off, it stood alone and was answered from the
    page that says "예를 들어" most (the lazy follow-up set's tuning part: "예를 들어줘" after real-mode addressing was
    answered from a page about something else)."""
    from baeum import rules

    weather = "제 {n} 장 날씨\n" + "예를 들어 구름은 작은 입자 주위에 수증기가 모일 때 생긴다. 예를 들어 비는 구름에서 떨어진다. " * 15
    endian = (
        "제 5 장 바이트 순서\n리틀 엔디안은 가장 낮은 바이트를 가장 낮은 주소에 먼저 저장하는 방식이다. "
        "예를 들어 0x12345678 은 메모리에 78 56 34 12 순서로 저장된다. " + "빅 엔디안은 가장 높은 바이트를 먼저 저장한다. " * 10
    )
    pages = [*(weather.format(n=n) for n in range(1, 5)), endian]
    book = ingest(user, make_pdf(pages), "bytes.pdf")

    def example_pages(switched_off: list[str]) -> set[int]:
        conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
        with rules.switched_off(switched_off):
            first = chat_reply(conversation=conversation, content="리틀 엔디안이 뭐야?")
            assert not first.refused and 5 in {citation["pageNumber"] for citation in first.citations}, first.content
            example = chat_reply(conversation=conversation, content="예를 들어줘")
        assert not example.refused, example.content
        return {citation["pageNumber"] for citation in example.citations}

    assert 5 in example_pages([])  # with its example, "예를 들어 0x12345678 은 …"
    assert 5 not in example_pages(["followup:form-only"])
