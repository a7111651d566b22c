"""A question in one language over a material in the other: answered from the passages, quoted in their
language with a note in the question's, and refused only when the material does not cover it (the
demo guides through the real pipeline; the judgement unit-tested on made-up passages)."""

from dataclasses import replace

import pytest

from baeum.answering.answers import Passage
from baeum.answering.crosslingual import NOTE_PREFIX, crosses_languages, shared_script_terms
from baeum.answering.evidence import judge_evidence
from baeum.answering.groundcheck import ground_check
from chat.services.conversations import conversation_create
from chat.services.reply import chat_reply

ENGLISH_PAGE = "The stack pointer ESP points to the top of the stack. PUSH decrements ESP and stores a value there."


def _passage(text: str, vector: float) -> Passage:
    return Passage(n=1, chunk_id=1, ref_id="mat_x", title="Book", chunk_index=0, page_number=3, text=text, vector_score=vector,
                   vector_threshold=0.25, crosslingual_threshold=0.2)  # fmt: skip


def test_the_judgement_across_languages_reads_meaning_and_shared_identifiers():
    question = "스택 포인터 ESP는 무엇을 가리키나요?"
    assert crosses_languages(question, [_passage(ENGLISH_PAGE, 0.3)])
    assert shared_script_terms(question) == ["esp"]

    assert judge_evidence(question, [_passage(ENGLISH_PAGE, 0.3)], min_coverage=0.3, min_vector=None, strong_coverage=0.45).sufficient
    unrelated = judge_evidence(question, [_passage(ENGLISH_PAGE, 0.1)], min_coverage=0.3, min_vector=None, strong_coverage=0.45)
    assert not unrelated.sufficient  # no word in common, and not close in meaning either
    other_identifier = "RAX 레지스터는 무엇을 가리키나요?"  # an identifier the page does not contain
    assert not judge_evidence(
        other_identifier, [_passage(ENGLISH_PAGE, 0.3)], min_coverage=0.3, min_vector=None, strong_coverage=0.45
    ).sufficient


def test_a_korean_question_over_another_language_meets_the_models_own_bar_for_it():
    """e5's cosines for a Korean question over English passages run higher than the other way: "딥러닝에서 경사하강법이
    어떻게 동작하는지 설명해 주세요" over Think Python reached 0.83, its in-scope questions 0.85 (the tuning part);
    ``crosslingual_similarity_from_korean`` is that direction's bar, and an English question keeps the other."""
    from baeum.answering.evidence import crosslingual_bar

    page = replace(_passage("Lists can appear as values in a dictionary, but a list cannot be a key.", 0.82), crosslingual_threshold=0.8)
    korean = "딥러닝에서 경사하강법이 어떻게 동작해?"
    assert judge_evidence(korean, [page], min_coverage=0.3, min_vector=None, strong_coverage=0.45).sufficient  # one bar, 0.8
    barred = replace(page, crosslingual_threshold_from_korean=0.84)
    assert crosslingual_bar(barred, from_korean=True) == 0.84 and crosslingual_bar(barred, from_korean=False) == 0.8
    assert crosslingual_bar(page, from_korean=True) == 0.8  # a model without its own bar for it: the one bar
    assert not judge_evidence(korean, [barred], min_coverage=0.3, min_vector=None, strong_coverage=0.45).sufficient
    korean_page = replace(barred, text="리스트는 딕셔너리의 값이 될 수 있지만 키는 될 수 없다.")
    assert judge_evidence(
        "Can a list be a dictionary key?", [korean_page], min_coverage=0.3, min_vector=None, strong_coverage=0.45
    ).sufficient


def test_a_question_is_judged_across_languages_only_when_most_passages_are_in_the_other_one():
    korean_page = "KorQuAD 2.0은 위키백과 문서 전체를 지문으로 쓰는 질의응답 데이터셋이다. 1988년 서울 올림픽 무렵의 문서도 있다."
    references = "[1] Rajpurkar, P., Zhang, J., Lopyrev, K., and Liang, P. SQuAD: 100,000+ questions for machine comprehension of text."
    question = "오늘 서울 날씨 어때?"  # a Korean paper's English reference list ranked first for it
    passages = [_passage(references, 0.3), _passage(korean_page, 0.3), _passage(korean_page, 0.3)]
    assert not crosses_languages(question, passages)
    korean_paper = [replace(passage, korean=True) for passage in passages]  # its material's language decides
    assert not crosses_languages(question, [korean_paper[0], _passage(references, 0.3), _passage(references, 0.3)])
    assert not crosses_languages(
        "인터럽트 핸들러는 무엇을 하나요?", [_passage(korean_page, 0.3), _passage(ENGLISH_PAGE, 0.3), _passage(ENGLISH_PAGE, 0.3)]
    )
    assert crosses_languages(
        "스택 포인터 ESP는 무엇을 가리키나요?", [_passage(ENGLISH_PAGE, 0.3), _passage(korean_page, 0.3), _passage(ENGLISH_PAGE, 0.3)]
    )
    # Judged as Korean over Korean passages: the weather is nowhere in them (across languages, a question
    # with no identifiers rested on the cosine alone and was answered).
    assert not judge_evidence(
        question, passages, min_coverage=0.3, min_vector=None, strong_coverage=0.45, known=lambda terms: {"서울"}
    ).sufficient


def test_a_note_about_the_answer_is_not_a_claim_for_the_ground_check():
    text = f"{NOTE_PREFIX}영어로 된 자료에서 찾은 내용을 원문 그대로 인용합니다.\nThe stack pointer ESP points to the top of the stack. [1]"

    grounded, citations, problems = ground_check(text, [_passage(ENGLISH_PAGE, 0.3)])

    assert grounded and not problems and citations[0].quote.startswith("The stack pointer ESP")


ENGLISH_BOOK = [
    "Chapter 1 The Stack\nThe stack pointer ESP points to the top of the stack. The PUSH instruction decrements ESP by four "
    "and stores a double word at the new top. The POP instruction reads the double word at the top and adds four to ESP.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program so that an event can be handled. An interrupt handler "
    "is the routine that processes the interrupt. Hardware interrupts come from devices such as the keyboard.",
]
KOREAN_BOOK = [
    "제1장 스택\n스택 포인터 ESP는 스택의 맨 위를 가리킨다. PUSH 명령은 ESP를 4만큼 줄이고 새 맨 위에 더블워드를 저장한다. "
    "POP 명령은 맨 위의 더블워드를 읽고 ESP에 4를 더한다.",
    "제2장 인터럽트\n인터럽트는 이벤트를 처리하기 위해 프로그램의 정상적인 흐름을 멈추게 한다. 인터럽트 핸들러는 인터럽트를 처리하는 루틴이다.",
]


@pytest.mark.django_db
def test_korean_questions_over_an_english_book_and_english_over_a_korean_one(user, ingest):
    from tests.pdfgen import make_pdf

    english = ingest(user, make_pdf(ENGLISH_BOOK), "assembly-en.pdf")
    korean = ingest(user, make_pdf(KOREAN_BOOK), "assembly-ko.pdf")

    def ask(material, question):
        return chat_reply(conversation=conversation_create(owner=user, ref_ids=[material.ref_id]), content=question)

    reply = ask(english, "스택 포인터 ESP는 무엇을 가리키나요?")
    assert not reply.refused, reply.content
    assert reply.content.startswith(NOTE_PREFIX) and "영어" in reply.content.splitlines()[0]
    assert "ESP points to the top of the stack" in reply.content and reply.citations[0]["refId"] == english.ref_id

    reply = ask(korean, "What does the stack pointer ESP point to?")
    assert not reply.refused, (reply.content, reply.usage["vector"], reply.usage["coverage"])
    assert "맨 위를 가리킨다" in reply.content and reply.citations

    assert ask(english, "광합성은 어떻게 일어나나요?").refused
    assert ask(korean, "What is photosynthesis?").refused
    assert ask(english, "RAX 레지스터는 64비트 모드에서 무엇을 하나요?").refused  # an identifier the book does not have


def test_passage_sentences_are_embedded_once_per_process(monkeypatch):
    from chat.services.generation import sentence_vectors
    from core.providers import embedder_for_model

    embedder = embedder_for_model("use-multilingual-v3")
    embedded = []
    original = type(embedder).embed_documents
    monkeypatch.setattr(type(embedder), "embed_documents", lambda self, texts: embedded.append(list(texts)) or original(self, texts))
    sentences = ["A register is a small fast storage location (kept once).", "The stack grows downward (kept once)."]
    first = sentence_vectors(embedder, sentences)
    again = sentence_vectors(embedder, [sentences[1], "Interrupts suspend the program (new)."])
    assert embedded == [sentences, ["Interrupts suspend the program (new)."]]  # only the new sentence the second time
    assert (again[0] == first[1]).all()


def test_the_english_names_of_a_korean_questions_terms_choose_the_sentence_that_answers():
    from baeum.answering.extractive import extractive_answer

    page = (
        "Now the parameter is at ESP + 8 not ESP + 4. "
        "The stack pointer ESP contains the address of the data that would be removed from the stack. "
        "Data can only be added in double word units."
    )
    question = "스택 포인터 ESP 는 무엇을 가리키나요?"
    answer = extractive_answer(question, [_passage(page, 0.3)], max_sentences=1, names=("stack pointer",))
    assert "contains the address" in answer.text


def test_a_latin_word_of_a_korean_question_found_on_the_page_anchors_the_meaning_match():
    page = "A NaN (not a number) results from an invalid operation, such as the square root of a negative number."
    question = "부동 소수점에서 NaN 은 어떤 경우에 생기나요?"  # "NaN" is no all-capitals identifier
    kwargs = {"min_coverage": 0.3, "min_vector": None, "strong_coverage": 0.45}
    assert judge_evidence(question, [_passage(page, 0.15)], **kwargs).sufficient  # under 0.2, over 0.2 × 0.6
    assert not judge_evidence("부동 소수점에서 Inf 는 어떤 경우에 생기나요?", [_passage(page, 0.15)], **kwargs).sufficient


def test_a_code_the_question_names_chooses_the_sentence_across_languages():
    from baeum.answering.extractive import extractive_answer

    page = "Most hardware of this kind is little in size. So, 00000004 is stored in memory as 04 00 00 00."
    question = "리틀 엔디안에서는 dword 00000004 가 메모리에 어떤 순서로 저장되나요?"
    answer = extractive_answer(question, [_passage(page, 0.3)], max_sentences=1, names=("little endian",))
    assert "04 00 00 00" in answer.text


def test_a_name_the_korean_question_asks_about_keeps_the_answer_on_the_pages_that_use_it():
    """ "htonl 함수는 무엇을 하나요?" over the English book: the inline-function pages rank first (they say
    "function" often), the htonl page fourth. The answer comes from the page that uses the name, and only
    from pages that do."""
    from baeum.answering.extractive import extractive_answer

    pages = [
        "First, the inline function is faster. Secondly, the inline function call uses less code!",
        "Inline functions are meant to replace the error-prone, preprocessor-based macros that take parameters.",
        "A function call involves several steps. For a simple function, the call itself costs more than its work.",
        "For example, the htonl () function converts a double word from host to network format. "
        "The ntohl () function performs the opposite conversion.",
    ]
    passages = [replace(_passage(text, 0.3), n=number, chunk_id=number, page_number=number) for number, text in enumerate(pages, 1)]
    answer = extractive_answer("htonl 함수는 무엇을 하나요?", passages, similarity=lambda question, sentences: [0.5] * len(sentences))
    assert "htonl () function converts" in answer.text
    assert {citation.pageNumber for citation in answer.citations} == {4}, answer.text


def test_a_sentence_is_about_the_numbered_section_it_stands_in():
    """ "XOR 연산의 진리표를 알려주세요." over the English book: the XOR sentence says "exclusive OR", never "XOR";
    its heading does. The OR sentence before it, nearer in meaning to the embedder, is not the answer."""
    from baeum.answering.extractive import extractive_answer
    from baeum.answering.sentences import section_headings

    page = (
        "3.2.2 The OR operation\n\nThe inclusive OR of 2 bits is 0 only if both bits are 0, else the result is 1 as the truth "
        "table in Table 3.2 shows.\n\n3.2. BOOLEAN BITWISE OPERATIONS 51\n\n3.2.3 The XOR operation\n\nThe exclusive OR of 2 bits "
        "is 0 if and only if both bits are equal, else the result is 1 as the truth table in Table 3.3 shows."
    )
    assert [sorted(terms) for _, terms in section_headings(page)] == [
        ["2", "3", "3.2.2", "operation"],
        ["2", "3", "3.2.3", "operation", "xor"],
    ]

    def nearer_to_or(question, sentences):
        return [0.85 if "inclusive" in sentence else 0.80 for sentence in sentences]

    answer = extractive_answer("XOR 연산의 진리표를 알려주세요.", [_passage(page, 0.3)], similarity=nearer_to_or)
    assert "The exclusive OR of 2 bits" in answer.text and "inclusive" not in answer.text, answer.text


def test_a_korean_what_is_question_opens_with_the_english_definition_its_gloss_names():
    from baeum.answering.extractive import extractive_answer

    page = (
        "Many CPUs have built-in support for a stack. A stack is a Last-In First-Out (LIFO) list. "
        "The stack is an area of memory that is organized in this fashion."
    )

    def support_nearest(question, sentences):
        return [0.86 if "built-in" in sentence else 0.82 for sentence in sentences]

    answer = extractive_answer("스택이란 무엇인가요?", [_passage(page, 0.3)], similarity=support_nearest, names=("stack",))
    assert answer.text.split("\n")[1].startswith("A stack is a Last-In First-Out (LIFO) list."), answer.text


def test_identifiers_are_the_names_every_language_writes_alike():
    from baeum.answering.crosslingual import identifiers

    assert identifiers("What is ifrOSS?") == ["ifrOSS"]  # a capital inside: a name, whatever its first letter
    assert identifiers("What do the tokens '4yourself' and '2others' mean?") == ["4yourself", "2others"]
    assert identifiers("Is x86 or the 80386 ESP register used?") == ["x86", "80386", "ESP"]
    assert identifiers("What is the 2nd rule of the 3rd chapter?") == []  # ordinals are not names


def test_a_camel_case_name_in_a_korean_question_is_one_shared_term_not_its_parts():
    # "npm의 EventEmitter3 …" over Node's events docs: with "event" and "emitter" counted, half its Latin words
    # were found and an out-of-scope question was answered.
    assert shared_script_terms("npm의 EventEmitter3 패키지가 내장 EventEmitter보다 더 빠른가요?") == [
        "npm",
        "eventemitter3",
        "eventemitter",
    ]
