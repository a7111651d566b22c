"""Words that only say where to look ("in this book", "PC 어셈블리어 책에서", a material's title) are not
what is asked: they never turn an answer into a refusal, and a title named narrows the search to it."""

import pytest

from chat.models import Message
from chat.services.conversations import conversation_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "question",
    [
        "What does an interrupt handler do in this book?",
        "According to the textbook, what does an interrupt handler do?",
        "What does PC Assembly say an interrupt handler does?",
    ],
)
def test_saying_where_to_look_does_not_turn_an_answer_into_a_refusal(user, book, korean_book, question):
    from chat.services.reply import chat_reply

    conversation = conversation_create(owner=user, ref_ids=[])  # all materials
    message = chat_reply(conversation=conversation, content=question)
    assert not message.refused, message.content
    assert {citation["refId"] for citation in message.citations} == {book.ref_id}
    assert Message.objects.filter(conversation=conversation, role="user").get().content == question  # saved as asked


def test_a_korean_question_naming_its_book_is_answered_from_it(user, book, korean_book):
    from chat.services.reply import chat_reply

    conversation = conversation_create(owner=user, ref_ids=[])
    message = chat_reply(conversation=conversation, content="PC 어셈블리어 책에서 인터럽트 핸들러는 무엇을 하나요?")
    assert not message.refused, message.content
    assert {citation["refId"] for citation in message.citations} == {korean_book.ref_id}


def test_a_title_that_is_also_the_topic_names_every_material_of_that_title_and_stays_asked(user, ingest):
    """Two articles titled "Pharmacy": naming the title searches both and keeps "pharmacy" in what is asked
    (the first of them alone, and the question without its topic word, refused this)."""
    from chat.services.reply import chat_reply

    ingest(user, b"Pharmacy\n\nA pharmacist checks prescriptions before dispensing drugs.", "0.txt", title="Pharmacy")
    museum = ingest(
        user,
        b"Pharmacy\n\nThe medieval Esteve Pharmacy in Llivia is now a museum that displays albarellos, old prescription books and antique drugs.",
        "b.txt",
        title="Pharmacy",
    )
    for name in ("a.txt", "c.txt"):  # made before and after it: whichever order the library lists them in
        ingest(user, b"Pharmacy\n\nPharmacy is the science of preparing and dispensing drugs and medicines.", name, title="Pharmacy")
    conversation = conversation_create(owner=user, ref_ids=[])
    message = chat_reply(conversation=conversation, content="What is displayed in the Esteve Pharmacy museum?")
    assert not message.refused, message.content
    assert {citation["refId"] for citation in message.citations} == {museum.ref_id}


HEAPS = [
    "Chapter 1 Fibonacci numbers\nThe Fibonacci numbers are defined by a recurrence: each number is the sum of the two "
    "before it. Computing them recursively takes exponential time.",
    "Chapter 2 Heaps\nA binary heap is a complete binary tree stored in an array. A heap supports inserting an element "
    "and removing the minimum in logarithmic time.",
]


def test_asking_whether_the_book_covers_what_it_never_mentions_is_answered_no_naming_it(user, other_user, ingest):
    """ "Does it cover Fibonacci heaps?" over a book with Fibonacci numbers and heaps is not answered from those
    pages; "does it cover heaps?" is, from the heap chapter; another learner's library is never read."""
    from chat.services.reply import chat_reply
    from tests.pdfgen import make_pdf

    book = ingest(user, make_pdf(HEAPS), "algo.pdf", title="Algorithms")
    conversation = conversation_create(owner=user, ref_ids=[book.ref_id])
    refused = chat_reply(conversation=conversation, content="does it also cover Fibonacci heaps?")
    assert refused.refused and "never mention “Fibonacci heaps”" in refused.content, refused.content
    answered = chat_reply(conversation=conversation, content="does it cover heaps?")
    assert not answered.refused and {citation["pageNumber"] for citation in answered.citations} == {2}, answered.content
    assert "binary heap" in answered.content
    korean = chat_reply(conversation=conversation, content="WireGuard 설정도 나와?")
    assert korean.refused and "WireGuard" in korean.content, korean.content

    ingest(other_user, make_pdf(["Chapter 1 Fibonacci heaps\nA Fibonacci heap is a collection of heap-ordered trees."]), "f.pdf")
    again = chat_reply(conversation=conversation_create(owner=user, ref_ids=[book.ref_id]), content="does it also cover Fibonacci heaps?")
    assert again.refused, "another learner's book made the phrase look mentioned"


LICENCES = [
    "Chapter 1 The GNU General Public License\nThe GNU General Public License requires that whoever distributes the "
    "program also offers its source code. A company that runs modified code on its own server need not publish it.",
    "Chapter 2 Permissive licenses\nThe MIT License allows reuse in proprietary software, provided the copyright "
    "notice is kept with every copy.",
]


def test_a_name_of_several_words_the_materials_never_write_together_is_refused_naming_it(user, other_user, ingest):
    """ "Server Side Public License" over a guide that writes "server", "public" and "license" only apart is not
    answered from the GPL page (rule ``evidence:name-phrases``); the refusal says what the materials never
    mention. Another learner's guide that writes it changes nothing."""
    from chat.services.reply import chat_reply
    from tests.pdfgen import make_pdf

    ingest(
        other_user, make_pdf(["Chapter 1 SSPL\nThe Server Side Public License requires cloud providers to publish their stack."]), "s.pdf"
    )
    guide = ingest(user, make_pdf(LICENCES), "licences.pdf", title="Licences")
    conversation = conversation_create(owner=user, ref_ids=[guide.ref_id])
    refused = chat_reply(conversation=conversation, content="What does the Server Side Public License require from cloud providers?")
    assert refused.refused and "never mention “Server Side Public License”" in refused.content, refused.content
    answered = chat_reply(conversation=conversation, content="What does the General Public License require?")
    assert not answered.refused and {citation["pageNumber"] for citation in answered.citations} == {1}, answered.content
