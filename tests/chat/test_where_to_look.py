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
    "제 1 장 GNU General Public License\nGNU General Public License는 프로그램을 배포하는 사람이 소스코드도 제공하도록 요구한다. "
    "수정한 코드를 자기 server에서 실행하는 회사는 그 코드를 공개하지 않아도 된다. 이 라이선스는 public 도메인과 다르다.",
    "제 2 장 허용적 라이선스\nMIT License는 저작권 공지를 모든 사본에 유지하는 한 독점 소프트웨어에서의 재사용을 허용한다.",
]


def test_a_name_of_several_words_a_korean_guide_never_writes_together_is_refused_naming_it(user, other_user, ingest):
    """ "Server Side Public License" over a Korean guide that writes "server", "public" and "License" in Latin only
    apart is not answered from the GPL page (rule ``evidence:name-phrases``); the refusal says what the materials
    never mention. Another learner's guide that writes it changes nothing."""
    from chat.services.reply import chat_reply
    from tests.pdfgen import make_pdf

    ingest(
        other_user, make_pdf(["Chapter 1 SSPL\nThe Server Side Public License requires cloud providers to publish their stack."]), "s.pdf"
    )
    guide = ingest(user, make_pdf(LICENCES), "licences.pdf", title="Licences")
    conversation = conversation_create(owner=user, ref_ids=[guide.ref_id])
    refused = chat_reply(conversation=conversation, content="What does the Server Side Public License require from cloud providers?")
    assert refused.refused and "never mention “Server Side Public License”" in refused.content, refused.content
    assert "I searched “Licences”" in refused.content  # and what was searched
    python = chat_reply(conversation=conversation, content="What is Python's subprocess.run?")
    assert python.refused and "never mention “Python”" in python.content, python.content  # not “Python's”
    answered = chat_reply(conversation=conversation, content="What does the GNU General Public License require?")
    assert not answered.refused and answered.citations[0]["pageNumber"] == 1, answered.content
    assert "GNU General Public License는 프로그램을 배포하는 사람이 소스코드도 제공하도록 요구한다." in answered.content


READLINE = (
    "Keybindings\n\nCtrl+K Delete from the current position to the end of line.\n\n"
    "Ctrl+Y Yank (Recall) the previously deleted text. Only works with text deleted by Ctrl+U or Ctrl+K.\n\n"
    "Ctrl+U Delete from the current position to the line start."
)
XZ = "\n\n".join(
    [
        "옵션",
        "동작 모드",
        "-z, --compress\n    압축합니다. 다른 동작 모드를 지정하지 않으면 이 모드가 기본 동작 모드입니다.",
        "-d, --decompress, --uncompress\n    압축을 해제합니다. 압축 해제한 데이터는 원래 파일 이름으로 기록합니다.",
        "-t, --test\n    압축 파일의 무결성을 시험합니다. 어떤 파일도 만들거나 제거하지 않습니다.",
        "-l, --list\n    압축 파일 정보를 출력합니다. 압축 해제 출력은 만들지 않으며 어떤 파일도 만들거나 제거하지 않습니다.",
        "동작 수정자",
        "-k, --keep\n    입력 파일을 삭제하지 않습니다. 압축하거나 압축을 해제한 뒤에도 원본 파일이 그대로 남습니다.",
        "-f, --force\n    출력 파일이 이미 있으면 덮어씁니다. 입력 파일이 심볼릭 링크여도 압축 또는 압축 해제를 진행합니다.",
        "-c, --stdout, --to-stdout\n    압축 또는 압축 해제한 데이터를 파일 대신 표준 출력에 기록합니다. 입력 파일은 삭제하지 않습니다.",
        "--no-sparse\n    희소 파일을 만들지 않습니다. 기본적으로 압축 해제한 파일에 0 바이트가 길게 이어지면 희소 파일로 만듭니다.",
        "-S .suf, --suffix=.suf\n    압축할 때 대상 파일의 접미사를 .xz 나 .lzma 대신 .suf 로 씁니다.",
        "메모리 사용량",
        "--memlimit-compress=제한용량\n    압축할 때 메모리 사용량 제한을 설정합니다. 단위는 KiB, MiB, GiB 를 받아들입니다.",
        "--memlimit-decompress=제한용량\n    압축을 해제할 때 메모리 사용량 제한을 설정합니다. 제한을 넘으면 오류를 보여줍니다.",
        "-T 스레드수, --threads=스레드수\n    사용할 작업 스레드 수를 지정합니다. 0 을 지정하면 프로세서 코어 수만큼 스레드를 씁니다.",
    ]
)


@pytest.mark.parametrize("question", ["What does the -k option do?", "-k 옵션은 뭐야?"])
def test_an_option_the_question_names_is_found_as_written_not_as_its_letter(user, ingest, question):
    """The walkthrough's "What does the -k option do?" had been answered with Ctrl+K keybindings from another
    book; the Korean manual's "-k, --keep 입력 파일을 삭제하지 않습니다." is the answer, in either language."""
    from chat.services.reply import chat_reply

    ingest(user, READLINE.encode(), "readline.md", title="node-readline")
    manual = ingest(user, XZ.encode(), "xz-ko.txt", title="xz-ko")
    message = chat_reply(conversation=conversation_create(owner=user, ref_ids=[]), content=question)
    assert not message.refused, message.content
    assert [citation["refId"] for citation in message.citations][:1] == [manual.ref_id], message.content
    assert "입력 파일을 삭제하지 않습니다" in message.content
