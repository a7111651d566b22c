"""Plans: structure, coverage, snapshot isolation, sessions, progress, scoping."""

import pytest

from baeum.study.curriculum import ChunkInfo, build_modules, build_sessions
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply
from plans.models import Plan, StudySession
from tests.pdfgen import make_pdf

pytestmark = pytest.mark.django_db

TOPIC_WORDS = {
    "Variables": "A variable is a name that refers to a value. Assignment statements create variables and give them values.",
    "Functions": "A function is a named sequence of statements. Calling a function runs its body with the given arguments.",
    "Recursion": "A recursive function calls itself. Every recursion needs a base case that stops it from running forever.",
    "Dictionaries": "A dictionary maps keys to values. Looking up a key in a dictionary is fast because it uses a hash table.",
}


def _book_pages():
    pages = []
    for number, (title, text) in enumerate(TOPIC_WORDS.items(), start=1):
        pages.append(f"Chapter {number} {title}\n" + (text + " ") * 6)
        pages.append(f"{number}.1 More about {title.lower()}\n" + (text + " ") * 6)
    return pages


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(_book_pages()), "python.pdf", title="Think Python excerpt")


@pytest.fixture
def plan(user, book, django_capture_on_commit_callbacks):
    from plans.services.plans import plan_create

    with django_capture_on_commit_callbacks(execute=True):
        # Two minutes (400 tokens): a session per chapter of this small book (each ~330 tokens).
        created = plan_create(owner=user, title="Learn Python", ref_ids=[book.ref_id], minutes_per_session=2)
    created.refresh_from_db()
    return created


def _covered(plan, material):
    covered = []
    for module in plan.modules.order_by("position"):
        covered += list(range(module.chunk_start, module.chunk_end + 1))
    return covered


def test_modules_cover_every_chunk_exactly_once_in_order(plan, book):
    assert plan.status == Plan.Status.READY, plan.error_message
    assert _covered(plan, book) == list(range(book.chunk_count))
    session_chunks = []
    for session in plan.sessions.order_by("number"):
        for item in session.ranges:
            session_chunks += list(range(item["chunkRange"][0], item["chunkRange"][1] + 1))
    assert session_chunks == list(range(book.chunk_count))


def test_modules_follow_chapters_and_sessions_have_titles_objectives_and_durations(plan):
    titles = [module.title for module in plan.modules.order_by("position")]
    assert titles == ["Chapter 1 Variables", "Chapter 2 Functions", "Chapter 3 Recursion", "Chapter 4 Dictionaries"]
    sessions = list(plan.sessions.order_by("number"))
    assert all(session.estimated_minutes >= 1 and session.objectives for session in sessions)
    assert sessions[0].title.startswith("Chapter 1 Variables")
    assert plan.assumptions["tokensPerMinute"] == 200


def test_session_content_reads_once_with_pages_key_points_and_cited_questions(api_client, plan, book):
    body = api_client.get(f"/api/v1/plans/{plan.pk}/sessions/1/").json()
    text = " ".join(part["text"] for part in body["parts"])
    assert text.count("A variable is a name that refers to a value.") == 12  # six per page, overlap removed
    first_page, last_page = body["ranges"][0]["pages"][0], body["ranges"][-1]["pages"][1]
    assert {part["pageNumber"] for part in body["parts"]} <= set(range(first_page, last_page + 1))
    assert 1 <= len(body["keyPoints"]) <= 5
    assert 1 <= len(body["questions"]) <= 6
    assert {"definition", "short_answer"} & {question["kind"] for question in body["questions"]}  # "A variable is a name …"
    from knowledge.models import Chunk

    for question in body["questions"]:
        assert question["id"] and question["question"] and question["answer"]
        citation = question["citation"]
        chunk = Chunk.objects.get(material=book, chunk_index=citation["chunkIndex"])
        assert citation["quote"] in chunk.content and citation["pageNumber"] == chunk.page_number
        start, end = body["ranges"][0]["chunkRange"]
        assert start <= citation["chunkIndex"] <= end


def test_progress_is_recorded_and_reported(api_client, plan):
    total = plan.sessions.count()
    response = api_client.post(
        f"/api/v1/plans/{plan.pk}/sessions/1/progress", {"status": "completed", "answers": {"1": "variable"}}, format="json"
    )
    assert response.status_code == 200
    assert response.json() == {
        "percentComplete": round(100 / total),
        "completed": 1,
        "total": total,
        "nextSession": 2,
        "removedSessions": 0,
    }
    detail = api_client.get(f"/api/v1/plans/{plan.pk}/").json()
    assert detail["progress"]["completed"] == 1
    assert detail["sessions"][0]["status"] == "completed"


def test_regenerating_keeps_completed_sessions_with_unchanged_ranges(plan, django_capture_on_commit_callbacks):
    from plans.services.plans import plan_regenerate

    first = plan.sessions.get(number=1)
    first.status = StudySession.Status.COMPLETED
    first.save()
    with django_capture_on_commit_callbacks(execute=True):
        plan_regenerate(plan=plan)
    assert plan.sessions.get(number=1).status == StudySession.Status.COMPLETED


def test_plan_requires_ready_materials_of_the_owner(api_client, user, other_user, ingest):
    failed = ingest(user, b"", "empty.txt")
    response = api_client.post("/api/v1/plans/", {"title": "x", "refIds": [failed.ref_id]}, format="json")
    assert response.status_code == 400
    assert failed.ref_id in response.json()["error"]["message"] and "could not be read" in response.json()["error"]["message"]
    theirs = ingest(other_user, make_pdf(["Chapter 1 Secret\nTheir notes."]))
    response = api_client.post("/api/v1/plans/", {"title": "x", "refIds": [theirs.ref_id]}, format="json")
    assert response.status_code == 404
    assert Plan.objects.count() == 0


def test_plan_retrieval_is_limited_to_its_snapshot(user, ingest, plan, book):
    added_later = ingest(user, make_pdf(["Chapter 1 Sets\nA set holds unique values. Sets support union and intersection."]), "sets.pdf")
    conversation = conversation_create(owner=user, ref_ids=[], plan_id=plan.pk)
    assert conversation.ref_ids == [book.ref_id]
    message = chat_reply(conversation=conversation, content="What does a set hold?")
    assert all(citation["refId"] == book.ref_id for citation in message.citations)
    from knowledge.services.materials import material_delete

    material_delete(material=added_later)
    again = chat_reply(conversation=conversation_create(owner=user, ref_ids=[], plan_id=plan.pk), content="What is a recursive function?")
    assert not again.refused and {citation["refId"] for citation in again.citations} == {book.ref_id}
    # Each conversation of a plan is titled by its first question, not all by the plan's name (a walkthrough).
    assert again.conversation.title == "What is a recursive function?"


def test_ask_about_this_session_retrieves_only_its_ranges(user, plan, book):
    session = plan.sessions.get(number=1)
    conversation = conversation_create(owner=user, ref_ids=[], plan_id=plan.pk, session_number=1)
    assert conversation.top_k == 3 and conversation.scope_ranges
    inside = chat_reply(conversation=conversation, content="What is a variable?")
    assert not inside.refused
    start, end = session.ranges[0]["chunkRange"]
    assert all(start <= citation["chunkIndex"] <= end for citation in inside.citations)
    outside = chat_reply(conversation=conversation, content="What does a dictionary map?")
    assert outside.refused  # the answer exists in the book, but not in this session


def test_second_user_sees_none_of_it(other_api_client, plan):
    assert other_api_client.get("/api/v1/plans/").json()["count"] == 0
    for method, url in [
        ("get", f"/api/v1/plans/{plan.pk}/"),
        ("delete", f"/api/v1/plans/{plan.pk}/"),
        ("get", f"/api/v1/plans/{plan.pk}/sessions/1/"),
        ("post", f"/api/v1/plans/{plan.pk}/sessions/1/progress"),
        ("post", f"/api/v1/plans/{plan.pk}/regenerate"),
    ]:
        response = (
            getattr(other_api_client, method)(url, {"status": "completed"}, format="json")
            if method == "post"
            else getattr(other_api_client, method)(url)
        )
        assert response.status_code == 404, url
    assert other_api_client.post("/api/v1/conversations/", {"planId": plan.pk}, format="json").status_code == 404
    plan.refresh_from_db()
    assert plan.sessions.filter(status="completed").count() == 0


def test_curriculum_without_headings_uses_topic_shifts_and_still_covers_everything():
    import numpy as np

    chunks = [ChunkInfo(index=i, tokens=500, page_start=i + 1, page_end=i + 1, section_level=0, section_title="") for i in range(12)]
    vectors = np.array([[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 6)
    modules = build_modules("mat_x", "Notes", chunks, vectors=vectors, session_tokens=1000)
    assert [module.start for module in modules][:2] == [0, 6]
    assert [i for module in modules for i in range(module.start, module.end + 1)] == list(range(12))
    sessions = build_sessions(modules, {"mat_x": chunks}, session_tokens=1000)
    assert [i for session in sessions for item in session.ranges for i in range(item["chunkRange"][0], item["chunkRange"][1] + 1)] == list(
        range(12)
    )
    # A module named by its pages names each of its sessions by the session's own pages (the walkthrough's
    # "xz-ko · p.1–15 (1/3)" covered p.1–5).
    for session in sessions:
        first, last = session.ranges[0]["pages"][0], session.ranges[-1]["pages"][1]
        assert session.title == f"Notes · p.{first}–{last}", session.title


class ScriptedLLM:
    """A faked LLM: returns the replies given, in order (the transport is tested in tests/chat)."""

    model = "scripted"

    def __init__(self, *replies):
        self.replies = list(replies)
        self.prompts = []

    def complete(self, *, system, prompt, max_tokens=800):
        from baeum.answering.llm import Completion

        self.prompts.append(prompt)
        text = self.replies.pop(0) if self.replies else "not json"
        return Completion(text=text, input_tokens=10, output_tokens=10, model=self.model)


def test_with_an_llm_titles_and_objectives_come_from_the_passages(plan):
    from plans.services.plans import plan_generate

    grounded = '{"title": "Variables and values", "objectives": ["Explain what a variable refers to", "Describe assignment statements"]}'
    invented = '{"title": "Quantum entanglement", "objectives": ["Derive Bell inequalities"]}'
    llm = ScriptedLLM(grounded, *[invented] * 10)
    plan_generate(plan_id=plan.pk, llm=llm)
    sessions = list(plan.sessions.order_by("number"))
    assert sessions[0].title == "Variables and values"
    assert sessions[0].objectives == ["Explain what a variable refers to", "Describe assignment statements"]
    assert all("Quantum" not in session.title for session in sessions)  # invented headings are discarded
    assert "Passages:" in llm.prompts[0]


def test_with_an_llm_questions_are_short_answer_and_checked(user, plan):
    from plans.services.session_content import session_content

    session = plan.sessions.get(number=1)
    good = '[{"question": "What does a variable refer to?", "answer": "a value", "source": 1}, {"question": "Who invented Python?", "answer": "Guido van Rossum", "source": 1}]'
    content = session_content(user=user, plan=plan, session=session, llm=ScriptedLLM(good))
    assert [question["question"] for question in content.questions] == ["What does a variable refer to?"]
    assert content.questions[0]["citation"]["quote"]
    assert "section" in content.questions[0]  # shown with it where it gives nothing away, as offline questions are
    from django.core.cache import cache

    cache.clear()  # the content is cached per session and question writer
    fallback = session_content(user=user, plan=plan, session=session, llm=ScriptedLLM("I cannot help"))
    assert fallback.questions
    assert "What does a variable refer to?" not in [question["question"] for question in fallback.questions]  # back to offline questions


def test_session_content_is_prepared_at_generation_and_never_served_for_a_deleted_material(user, plan, book):
    from django.core.cache import cache

    from knowledge.services.materials import material_delete
    from plans.services.session_content import SESSION_CONTENT_VERSION, session_content

    session = plan.sessions.get(number=1)  # read back from the database, as a page view does
    before = set(cache.keys(f"learner:{user.pk}:plans:session:*"))
    assert any(f"plans:session:{SESSION_CONTENT_VERSION}:{session.pk}:" in key for key in before)
    first = session_content(user=user, plan=plan, session=session)
    assert set(cache.keys(f"learner:{user.pk}:plans:session:*")) == before  # served from what generation prepared
    assert session_content(user=user, plan=plan, session=session) == first
    material_delete(material=book)
    removed = session_content(user=user, plan=plan, session=session)
    assert removed.removed_materials and not removed.parts and not removed.key_points  # never the cached text


def test_an_objective_from_a_heading_reads_as_a_teacher_would_write_it():
    from plans.services.plans import _objective

    assert _objective("Lists are mutable", korean=False, heading=True) == "Explain why lists are mutable"
    assert _objective("Traversing a list", korean=False, heading=True) == "Explain traversing a list"
    assert _objective("Warning Messages You Might See", korean=False, heading=True) == "Explain Warning Messages You Might See"
    assert _objective("The CALL and RET Instructions", korean=False, heading=True) == "Explain the CALL and RET Instructions"
    assert _objective("Dijkstra's algorithm", korean=False, heading=True) == "Explain Dijkstra's algorithm"  # a name keeps its case
    assert _objective("파일로부터 배열을 읽기", korean=True, heading=True) == "파일로부터 배열을 읽기"
    assert _objective("스택 프레임", korean=True, heading=True) == "스택 프레임 설명하기"


def test_objectives_name_what_the_session_teaches():
    from types import SimpleNamespace

    from plans.services.plans import objectives_taught

    content = SimpleNamespace(
        key_points=[{"text": "A formal language is designed by people for a specific application."}],
        questions=[{"kind": "definition", "term": "token", "question": "What is a token?", "answer": "A token is a basic element."}],
    )
    objectives = ["Explain formal languages", "Explain the first program", "Explain arithmetic operators"]
    assert objectives_taught(objectives, content, korean=False) == ["Explain formal languages", "Define token"]
    korean = SimpleNamespace(
        key_points=[{"text": "레지스터는 CPU 안의 빠른 저장 장소이다."}],
        questions=[{"kind": "short_answer", "term": "니블", "question": "4 비트 수를 무엇이라고 부르나요?", "answer": "니블"}],
    )
    assert objectives_taught(["레지스터 설명하기", "이진법 설명하기"], korean, korean=True) == ["레지스터 설명하기", "니블의 뜻 말하기"]
    assert objectives_taught(["이진법 설명하기"], SimpleNamespace(key_points=[], questions=[]), korean=True) == ["이진법 설명하기"]
    # The walkthrough's readline session: three events promised, the 'resume' event taught.
    events = SimpleNamespace(key_points=[{"text": "The 'resume' event is emitted whenever the input stream is resumed."}], questions=[])
    objectives = ["Explain Event: 'close'", "Explain Event: 'line'", "Explain Event: 'resume'"]
    assert objectives_taught(objectives, events, korean=False) == ["Explain Event: 'resume'"]
    many = [f"Explain Event: '{name}'" for name in ("close", "line", "pause", "history", "resume", "SIGINT", "SIGTSTP")]
    taught = SimpleNamespace(
        key_points=[{"text": f"The '{name}' event is emitted."} for name in ("history", "SIGINT", "SIGTSTP", "resume")], questions=[]
    )
    assert objectives_taught(many, taught, korean=False) == [f"Explain Event: '{name}'" for name in ("history", "resume", "SIGINT")]


def test_an_objective_names_a_term_as_the_text_writes_it_not_its_stem():
    """A walkthrough read "Explain delet" and "Explain modifi": characteristic terms are stems of the index."""
    from plans.services.session_content import _written_form

    text = "To delete an element, call the delete function. Deleted nodes are freed. The list is modified in place."
    assert _written_form("delet", text) == "delete" and _written_form("modifi", text) == "modified"
    assert _written_form("레지스터", "레지스터는 빠르다.") == "레지스터"  # a Korean morpheme is written as it is


def test_a_word_attached_to_a_dot_a_dash_or_a_slash_is_no_characteristic_term():
    """The xz manual's session read "suf 설명하기" (from "-S .suf, --suffix=.suf")."""
    from plans.services.session_content import _ATTACHED_WORD

    text = "-S .suf, --suffix=.suf 압축할 때 접미사로 .suf 를 씁니다. /usr/bin 에 설치합니다."
    assert "suf" not in _ATTACHED_WORD.sub(" ", text) and "usr" not in _ATTACHED_WORD.sub(" ", text)
    assert "접미사" in _ATTACHED_WORD.sub(" ", text)


def test_a_plan_with_no_title_is_named_for_all_its_materials_and_never_twice_alike(user, other_user, ingest):
    """Walkthrough 18: a plan over two Korean manuals was named "killall-ko", and two plans of one name apiece
    could not be told apart on the plans page."""
    from plans.services.plans import plan_create

    killall = ingest(user, "killall은 지정한 이름의 프로세스를 강제로 끝냅니다.\n".encode(), "killall-ko.txt")
    fuser = ingest(user, "fuser는 파일을 사용하는 프로세스를 식별합니다.\n".encode(), "fuser-ko.txt")
    both = plan_create(owner=user, title="", ref_ids=[killall.ref_id, fuser.ref_id], enqueue=False)
    again = plan_create(owner=user, title="  ", ref_ids=[killall.ref_id, fuser.ref_id], enqueue=False)
    named = plan_create(owner=user, title="Signals", ref_ids=[killall.ref_id], enqueue=False)
    assert (both.title, again.title, named.title) == ("killall-ko · fuser-ko", "killall-ko · fuser-ko (2)", "Signals")
    theirs = ingest(other_user, "killall은 프로세스를 끝냅니다.\n".encode(), "killall-ko.txt")
    alone = plan_create(owner=other_user, title="", ref_ids=[theirs.ref_id], enqueue=False)
    assert alone.title == "killall-ko"  # another learner's plans take no number from this one's
    third = ingest(user, b"The third material.\n", "third.txt")
    assert plan_create(owner=user, title="", ref_ids=[killall.ref_id, fuser.ref_id, third.ref_id], enqueue=False).title == (
        "killall-ko · fuser-ko + 1 more"
    )


def test_objectives_read_a_heading_set_in_capitals_and_skip_a_manuals_formal_parts():
    # Walkthrough 20's bzip2 manual: "Explain RECOVERING DATA FROM DAMAGED · Explain AUTHOR".
    from plans.services.plans import _NOT_A_TOPIC, _objective

    assert _objective("RECOVERING DATA FROM DAMAGED FILES", korean=False, heading=True) == "Explain recovering data from damaged files"
    assert _objective("TCP/IP", korean=False, heading=True) == "Explain TCP/IP"  # one acronym stays as written
    assert all(_NOT_A_TOPIC.match(heading) for heading in ("AUTHOR", "See also", "SYNOPSIS", "저자"))
    assert not _NOT_A_TOPIC.match("Stacks")


def test_a_listings_names_and_comments_are_no_objective():
    """Walkthrough 21's Rust by Example: "`mutabook` 설명하기", "doubleerror 설명하기" came from its code."""
    from types import SimpleNamespace

    from plans.services.session_content import prose_of

    listing = "let mutabook = &mut book; // A mutabook is a mutable reference to a book."
    content = f"Borrowing lets code use data without owning it.\n{listing}\nA borrow is a reference."
    chunk = SimpleNamespace(content=content, code_spans=[(content.index(listing), content.index(listing) + len(listing))])
    prose = prose_of(chunk)
    assert "mutabook" not in prose
    assert prose.startswith("Borrowing lets code use data") and prose.endswith("A borrow is a reference.")


def test_a_title_made_of_pages_reads_the_numbers_the_book_prints():
    """Walkthrough 21: "rust-by-example-ko · p.47–68" beside "44–65쪽" in the same session row."""
    import numpy as np

    chunks = [
        ChunkInfo(
            index=i,
            tokens=500,
            page_start=i + 4,
            page_end=i + 4,
            section_level=0,
            section_title="",
            label_start=str(i + 1),
            label_end=str(i + 1),
        )
        for i in range(12)
    ]
    modules = build_modules("mat_x", "Notes", chunks, vectors=np.array([[1.0, 0.0]] * 6 + [[0.0, 1.0]] * 6), session_tokens=1000)
    assert modules[0].title == "Notes · p.1–6"  # printed 1–6 on the PDF's pages 4–9
    sessions = build_sessions(modules, {"mat_x": chunks}, session_tokens=1000)
    assert sessions[0].title == "Notes · p.1–2" and sessions[0].ranges[0]["pages"] == [4, 5]  # ranges stay positions


def _chapter(index: int, *, dated: bool = False, title: str = "", level: int = 0) -> ChunkInfo:
    return ChunkInfo(
        index=index, tokens=500, page_start=index + 1, page_end=index + 1, section_level=level, section_title=title, release_entry=dated
    )


def test_a_release_history_is_optional_reading_and_no_session_studies_it():
    """Walkthrough 22: the Kiwipiepy guide's "역사" (each version, its date, the bugs it fixed) was a 32-minute session
    whose questions were about bug fixes. The history closing a material (dated chunks, a long entry's undated ones
    between them, its last entry's list after them) is optional reading."""
    from baeum import rules

    body = [
        _chapter(0, title="Getting started", level=1),
        *(_chapter(index) for index in range(1, 6)),
        _chapter(6, title="History", level=1),
    ]
    history = [_chapter(7, dated=True), _chapter(8), _chapter(9), _chapter(10, dated=True), _chapter(11, dated=True), _chapter(12)]
    chunks = body + history
    with rules.counting() as fired:
        modules = build_modules("mat_x", "Kiwi", chunks, vectors=None, session_tokens=1000)
    assert fired["plan:release-history"] == 1
    optional = [module for module in modules if module.optional]
    assert [(module.start, module.end, module.title) for module in optional] == [(7, 12, "Kiwi · p.8–13")]
    sessions = build_sessions(modules, {"mat_x": chunks}, session_tokens=1000)
    studied = {
        index for session in sessions for item in session.ranges for index in range(item["chunkRange"][0], item["chunkRange"][1] + 1)
    }
    assert studied == set(range(7))
    with rules.switched_off(["plan:release-history"]):
        modules = build_modules("mat_x", "Kiwi", chunks, vectors=None, session_tokens=1000)
    assert not any(module.optional for module in modules)


def test_a_dated_version_or_two_in_a_chapter_is_no_release_history():
    from baeum import rules

    # Two dated mentions: no history. A material that is nothing but its history (a NEWS file) is still studied.
    mentions = [_chapter(0, title="Install", level=1), _chapter(1, dated=True), _chapter(2), _chapter(3, dated=True), _chapter(4)]
    news = [_chapter(index, dated=index % 2 == 0) for index in range(8)]
    for chunks in (mentions, news):
        with rules.counting() as fired:
            modules = build_modules("mat_x", "Notes", chunks, vectors=None, session_tokens=1000)
        assert not any(module.optional for module in modules) and not fired["plan:release-history"]
    # A heading that names a version and its date marks its chunks, whatever they hold ("## v2.14.4 (2026-11-19)").
    headed = [_chapter(0, title="Usage", level=1), _chapter(1), _chapter(2)] + [
        _chapter(index, title=f"v2.{index}.0 (2026-0{index}-01)", level=2) for index in range(3, 7)
    ]
    modules = build_modules("mat_x", "Notes", headed, vectors=None, session_tokens=1000)
    assert [(module.start, module.end) for module in modules if module.optional] == [(3, 6)]


def test_a_markdown_readme_with_its_changelog_is_planned_without_the_changelog(user, ingest):
    from plans.models import Module
    from plans.services.plans import plan_create, plan_generate

    usage = "\n\n".join(
        f"## Topic {number}\n\nThe cache keeps the result of property number {number} until it is deleted. " * 6 for number in range(1, 5)
    )
    history = "\n\n".join(
        f"## {major}.{minor}.0 ({2020 + major}-0{minor + 1}-15)\n\n- Fixed a bug where the cache leaked memory on reload.\n"
        "- Added support for asyncio coroutines in the decorator." * 3
        for major in range(1, 4)
        for minor in range(3)
    )
    text = f"# cached\n\n{usage}\n\n# History\n\n{history}\n"
    book = ingest(user, text.encode(), "readme.md", title="Readme")
    plan = plan_create(owner=user, title="Readme", ref_ids=[book.ref_id], minutes_per_session=2, enqueue=False)
    plan_generate(plan_id=plan.pk)
    plan.refresh_from_db()
    assert plan.status == Plan.Status.READY
    optional = list(Module.objects.filter(plan=plan, optional=True))
    assert len(optional) == 1 and optional[0].title.startswith("Readme · p.")
    sessions = list(StudySession.objects.filter(plan=plan))
    assert sessions and all("2021-" not in " ".join([session.title, *session.objectives]) for session in sessions)
    last_studied = max(item["chunkRange"][1] for session in sessions for item in session.ranges)
    from knowledge.selectors.materials import chunk_outline

    outline = chunk_outline(user=user, ref_id=book.ref_id)  # the text itself is read for dated versions, in SQL
    assert [row["release_entry"] for row in outline] == [row["chunk_index"] >= optional[0].chunk_start for row in outline]
    assert last_studied < optional[0].chunk_start  # the history closes the material, and no session reads it


def test_each_sessions_objectives_are_written_in_its_own_books_language():
    """A plan over a Korean and an English book (walkthrough 22: the Kiwipiepy guide beside the Expat reference)
    writes each session's objectives in the language of the book it reads; a plan's chosen language wins."""
    from types import SimpleNamespace

    from plans.services.plans import _session_in_korean

    korean_by_ref = {"mat_ko": True, "mat_en": False, "mat_new": None}
    session = SimpleNamespace(ranges=[{"refId": "mat_ko"}])
    assert _session_in_korean(session, korean_by_ref, default=False) is True
    assert _session_in_korean(SimpleNamespace(ranges=[{"refId": "mat_en"}]), korean_by_ref, default=True) is False
    assert _session_in_korean(SimpleNamespace(ranges=[{"refId": "mat_new"}]), korean_by_ref, default=True) is True  # not known yet
