"""The tutor page: steps in words kept after reload, internals for staff only, titles, sources, the answer fragment."""

import re

import pytest

from chat.models import Conversation
from chat.services.reply import TITLE_CHARS, title_from_question
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

PAGES = [
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU. The EAX register is the accumulator.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program so that an event can be handled. "
    "An interrupt handler is the routine that processes the interrupt.",
    "Chapter 3 Stacks\nThe stack is a region of memory that grows downwards. PUSH stores a value on the stack.",
]


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(PAGES), "assembly.pdf")


def _ask(api_client, conversation_id: int, content: str, mode: str = "standard") -> dict:
    response = api_client.post(f"/api/v1/conversations/{conversation_id}/messages", {"content": content, "mode": mode}, format="json")
    assert response.status_code == 201
    return response.json()


def test_agentic_steps_are_sentences_kept_with_the_answer_and_internals_are_hidden(client, user, api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    reply = _ask(api_client, conversation_id, "What is an interrupt handler?", mode="agentic")
    assert reply["steps"] and reply["steps"][0]["tool"] in ("search_all", "search_by_metadata")

    client.force_login(user)
    page = client.get(f"/chat/{conversation_id}/").content.decode()  # a reload: the steps come from the stored message
    assert "Searched your materials for “what is an interrupt handler”: 3 passages found. Enough to answer." in page
    assert "How the tutor looked" in page
    visible = re.sub(r"<[^>]+>", " ", re.sub(r"<script.*?</script>", " ", page, flags=re.DOTALL))  # what a learner reads
    for internal in ("search_all", "get_section", "chunkIndex", "refId", book.ref_id, "confidence", " ms ", "totalMs", "chunk"):
        assert internal not in visible, internal
    if any(step["tool"] == "get_section" for step in reply["steps"]):
        assert "Read pages 1–3 of “assembly” around the best passage." in page

    korean = client.get(f"/chat/{conversation_id}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "자료에서 “what is an interrupt handler” 검색: 구절 3개를 찾았습니다." in korean and "튜터가 찾아본 과정" in korean
    assert 'pageNumber: "%(number)s쪽"' in korean and 'pages: "%(first)s–%(last)s쪽"' in korean  # the source panel's label


def test_staff_see_confidence_timings_and_raw_steps_behind_a_toggle(client, user, api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    _ask(api_client, conversation_id, "What is an interrupt handler?", mode="agentic")
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    client.force_login(user)
    page = client.get(f"/chat/{conversation_id}/").content.decode()
    assert 'id="show-debug"' in page and 'class="debug"' in page
    assert "confidence" in page and " ms · " in page and "search_all" in page


def test_the_title_comes_from_the_first_question_cut_between_words(client, user, api_client, book):
    question = "Could you explain in detail how an interrupt handler processes an interrupt raised by the keyboard device?"
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    message_id = _ask(api_client, conversation_id, question)["id"]
    title = Conversation.objects.for_user(user).get(pk=conversation_id).title
    assert title == title_from_question(question) and title.endswith("…") and len(title) <= TITLE_CHARS + 1
    assert question.startswith(title[:-1]) and question[len(title) - 1] == " "  # cut at a space, never inside a word

    client.force_login(user)
    fragment = client.get(f"/chat/{conversation_id}/messages/{message_id}/")  # what the page fetches when an answer is done
    assert fragment.status_code == 200
    body = fragment.json()
    assert body["title"] == title
    assert body["html"].lstrip().startswith('<div class="msg assistant') and f'data-id="{message_id}"' in body["html"]
    assert title in client.get("/chat/").content.decode()  # in the conversation list


def test_titles_short_and_korean_questions():
    assert title_from_question("  What is   a register? ") == "What is a register?"
    korean = "인터럽트 핸들러가 키보드에서 들어온 인터럽트를 어떻게 처리하는지 자세히 설명해 주시겠어요 그리고 예시도 함께 보여 주세요"
    title = title_from_question(korean)
    assert title.endswith("…") and korean.startswith(title[:-1]) and korean[len(title) - 1] == " "
    unbroken = "a" * 100
    assert title_from_question(unbroken) == "a" * TITLE_CHARS + "…"


def test_sources_are_listed_beside_the_conversation_and_can_be_changed(client, user, api_client, book, ingest):
    notes = ingest(user, b"# Notes\n\nThe accumulator EAX holds arithmetic results.", "notes.md")
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    client.force_login(user)
    page = client.get(f"/chat/{conversation_id}/").content.decode()
    listed = page.split('id="sources"')[1].split("</ul>")[0]
    assert f'href="/library/{book.ref_id}/"' in listed and notes.ref_id not in listed
    assert f'value="{notes.ref_id}"' in page  # offered in the "Change sources" form

    response = api_client.patch(f"/api/v1/conversations/{conversation_id}/", {"refIds": [notes.ref_id]}, format="json")  # what Save does
    assert response.status_code == 200
    listed = client.get(f"/chat/{conversation_id}/").content.decode().split('id="sources"')[1].split("</ul>")[0]
    assert notes.ref_id in listed and book.ref_id not in listed

    api_client.patch(f"/api/v1/conversations/{conversation_id}/", {"allMaterials": True}, format="json")
    page = client.get(f"/chat/{conversation_id}/").content.decode()
    assert "All your ready materials, also those you upload later." in page
    # Narrowing an all-materials conversation starts from no box ticked, not from unticking every one (a walkthrough).
    form = page.split('id="sources-form"')[1].split("</form>")[0]
    assert 'name="ref_ids"' in form and "checked>" not in form.split('value="some"')[1]


def test_another_users_conversation_and_messages_are_404(client, other_user, api_client, book):
    conversation_id = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    message_id = _ask(api_client, conversation_id, "What is a register?")["id"]
    client.force_login(other_user)
    assert client.get(f"/chat/{conversation_id}/").status_code == 404
    assert client.get(f"/chat/{conversation_id}/messages/{message_id}/").status_code == 404


def test_an_empty_conversation_offers_questions_its_plan_asks_or_terms_its_materials_define(client, user, api_client, book, ingest):
    from plans.services.plans import plan_create, plan_generate
    from plans.services.session_content import session_content

    plan = plan_create(owner=user, title="Assembly", ref_ids=[book.ref_id], minutes_per_session=2, enqueue=False)
    plan_generate(plan_id=plan.pk)
    asked = [q["question"] for s in plan.sessions.all() for q in session_content(user=user, plan=plan, session=s).questions]
    client.force_login(user)
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id]}, format="json").json()["id"]
    starters = re.findall(r'data-starter="([^"]*)"', client.get(f"/chat/{conversation}/").content.decode())
    assert starters and set(starters) <= set(asked)  # the plan's own standalone questions
    answer = _ask(api_client, conversation, starters[0])
    assert not answer["refused"] and answer["citations"]  # a starter is a question the materials answer
    assert 'data-starter="' not in client.get(f"/chat/{conversation}/").content.decode()  # only while it is empty

    pages = [
        "제 1 장 레지스터\n레지스터란 CPU 안에 있는 매우 빠른 저장 장소를 말한다. 여러분은 이제 레지스터를 배운다.",
        "제 2 장 쓰임\n레지스터는 계산할 값을 잠시 담는다. 레지스터의 크기는 32 비트이다.",
        "제 3 장 종류\n범용 레지스터와 세그먼트 레지스터가 있다. 레지스터마다 이름이 있다.",
    ]
    korean = ingest(user, make_pdf(pages), "레지스터.pdf")
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [korean.ref_id]}, format="json").json()["id"]
    starters = re.findall(r'data-starter="([^"]*)"', client.get(f"/chat/{conversation}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode())
    assert starters == ["레지스터는 무엇인가요?"], starters  # no plan reads it: a term it defines and uses throughout
    # Over both books, a Korean screen asks about the Korean book first, an English one about the English book first.
    both = api_client.post("/api/v1/conversations/", {"refIds": [book.ref_id, korean.ref_id]}, format="json").json()["id"]
    on_korean = re.findall(r'data-starter="([^"]*)"', client.get(f"/chat/{both}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode())
    on_english = re.findall(r'data-starter="([^"]*)"', client.get(f"/chat/{both}/", HTTP_ACCEPT_LANGUAGE="en").content.decode())
    assert on_korean and on_korean[0] == "레지스터는 무엇인가요?", on_korean
    assert on_english and on_english[0] != "레지스터는 무엇인가요?", on_english


def test_a_manual_that_defines_no_term_is_asked_about_by_its_name(client, user, api_client, ingest):
    """Walkthrough 18: a Korean phone over two Korean manual pages was offered only "What is kill?", from an English
    page beside them; a manual's NAME line names what it is about."""
    chsh = "이름\n       chsh - 로그인 쉘을 바꿉니다\n\n설명\n       chsh 명령은 사용자의 로그인 쉘을 바꿉니다.\n"
    manual = ingest(user, chsh.encode(), "chsh-ko.txt")
    page = ingest(user, b"# Dispatcher\n\nA dispatcher sends requests and calls the handler's hooks.\n", "dispatcher.md")
    conversation = api_client.post("/api/v1/conversations/", {"refIds": [manual.ref_id, page.ref_id]}, format="json").json()["id"]
    client.force_login(user)
    on_korean = re.findall(r'data-starter="([^"]*)"', client.get(f"/chat/{conversation}/", HTTP_ACCEPT_LANGUAGE="ko").content.decode())
    assert on_korean[:2] == ["chsh은(는) 무엇인가요?", "What is Dispatcher?"], on_korean
    answer = _ask(api_client, conversation, on_korean[0])
    assert not answer["refused"] and "로그인 쉘" in answer["content"], answer["content"]


def test_a_starter_question_is_never_about_a_word_that_names_no_term():
    """A walkthrough over Node's stream documentation: the empty conversation suggested "What is the value?"."""
    from chat.selectors import startable

    value = {"kind": "definition", "question": "What is the value?", "answer": "The value is the chunk a stream passes on.", "choices": []}
    stream = {
        "kind": "definition",
        "question": "What is a stream?",
        "answer": "A stream is an interface for streaming data.",
        "choices": [],
    }
    blank = {"kind": "cloze", "question": "A _____ is an interface for streaming data.", "answer": "stream", "choices": []}
    assert not startable(value) and startable(stream) and not startable(blank)  # a blank is no question to open with
