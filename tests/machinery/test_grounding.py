"""The sufficiency judgement reads each passage's cosine against its own embedding model's threshold."""

from dataclasses import replace

from baeum.answering.answers import CITATION, Passage
from baeum.answering.budgets import fit_passages, fit_text
from baeum.answering.evidence import judge_evidence
from baeum.answering.extractive import extractive_answer
from baeum.answering.groundcheck import complete_claims_end, contradicts, ground_check, numbers_in
from baeum.answering.sentences import is_fragment

QUESTION = "How does a hash table handle collisions?"
TEXT = "A hash table maps keys to values; collisions share a bucket and are resolved by chaining."


def _passage(vector_score: float, threshold: float | None) -> Passage:
    return Passage(
        n=1,
        chunk_id=1,
        ref_id="r",
        title="t",
        chunk_index=0,
        page_number=1,
        text=TEXT,
        vector_score=vector_score,
        vector_threshold=threshold,
    )


def _judge(passages, min_vector=None):
    return judge_evidence(QUESTION, passages, min_coverage=0.3, min_vector=min_vector, strong_coverage=1.01)


def test_a_cosine_is_judged_on_its_models_scale():
    assert _judge([_passage(0.5, 0.25)]).sufficient  # USE: 0.5 is a clear match
    assert not _judge([_passage(0.5, 0.80)]).sufficient  # e5: 0.5 is below anything related
    assert _judge([_passage(0.5, 0.80), _passage(0.85, 0.80)]).sufficient


def test_a_configured_threshold_overrides_every_model():
    assert not _judge([_passage(0.5, 0.25)], min_vector=0.6).sufficient
    assert _judge([_passage(0.7, 0.80)], min_vector=0.6).sufficient


def test_high_coverage_alone_is_sufficient_and_no_vector_is_not():
    strong = judge_evidence(QUESTION, [_passage(0.0, 0.80)], min_coverage=0.3, min_vector=None, strong_coverage=0.45)
    assert strong.sufficient and strong.coverage >= 0.45
    assert not _judge([Passage(n=1, chunk_id=1, ref_id="r", title="t", chunk_index=0, page_number=1, text=TEXT)]).sufficient


def test_words_that_frame_a_question_or_repeat_a_term_with_its_particle_do_not_count_against_it():
    stack = "스택은 후입 선출 (Last-In First-Out) 리스트이다. 스택은 이와 같은 규칙으로 구성된 메모리의 일부분이다."
    interrupt = "컴퓨터 하드웨어는 인터럽트 (interrupt) 라는 메커니즘을 통해 이러한 이벤트를 처리한다."
    others = ["레지스터는 CPU 안의 빠른 저장 공간이다.", "16 진수는 2진수를 짧게 쓰는 방법이다."]

    def judged(question: str, text: str):
        passages = [Passage(n=n, chunk_id=n, ref_id="r", title="t", chunk_index=n, page_number=n, text=body, vector_score=0.88,
                            vector_threshold=0.8) for n, body in enumerate([text, *others], start=1)]  # fmt: skip
        return judge_evidence(question, passages, min_coverage=0.3, min_vector=None, strong_coverage=0.45)

    assert judged("스택은 어떻게 동작해?", stack).sufficient  # "동작" frames the question; the page never says it
    assert judged("인터럽트가 뭐야?", interrupt).sufficient  # Kiwi reads "인터럽트가" as one more noun beside "인터럽트"
    assert not judged("윈도우 11 설치하는 방법 알려줘", others[1]).sufficient  # "방법" alone is not the topic


# --- The extractive (offline) answer reads as an explanation ---------------------------------

SPACED = (
    "3. Spaced Repetition\n\n3.1 Why Spacing Beats Cramming\n\n"
    "Spaced repetition is a study method in which material is reviewed several times with gaps between the reviews. "
    "It combines two ideas: the spacing effect and retrieval practice. "
    "Cramming is the opposite approach: studying spaced material in one long session."
)
TITLE = (
    "How We Learn: Memory, Retrieval Practice and Spaced Repetition\n\n"
    "This short guide explains which study techniques research supports: retrieval practice and spaced repetition."
)


def _text_passage(text: str, n: int = 1) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id=f"r{n}", title="guide", chunk_index=n - 1, page_number=1, text=text)


def _lines(answer) -> list[str]:
    return [CITATION.sub("", line).strip() for line in answer.text.split("\n")]


def test_what_is_opens_with_the_definition_and_never_quotes_a_heading():
    passages = [_text_passage(TITLE, 1), _text_passage(SPACED, 2)]
    answer = extractive_answer("What is spaced repetition?", passages)
    lines = _lines(answer)
    assert lines[0].startswith("Spaced repetition is a study method")
    assert not {"Spaced Repetition", "3.1 Why Spacing Beats Cramming", TITLE.split("\n")[0]} & set(lines)
    assert ground_check(answer.text, passages)[0]


def test_a_korean_definition_comes_first():
    text = (
        "3.1 간격 두기가 벼락치기보다 나은 이유\n\n간격 반복은 두 가지 원리를 결합한다. "
        "벼락치기보다 간격 반복이 더 오래 남는다는 연구가 많다. "
        "간격 반복은 같은 내용을 시간 간격을 두고 여러 번 복습하는 학습 방법이다."
    )
    answer = extractive_answer("간격 반복이란 무엇인가?", [_text_passage(text)])
    assert _lines(answer)[0] == "간격 반복은 같은 내용을 시간 간격을 두고 여러 번 복습하는 학습 방법이다."
    assert "3.1 간격 두기가 벼락치기보다 나은 이유" not in answer.text


def test_code_contacts_references_and_fragments_are_not_answers():
    text = (
        "4.4 The CALL and RET Instructions\n\nmov eax, 1\n\n>>> call(stack, ret)\n\n"
        "Paul A. Carter pacman128@gmail.com\n\n[3] R. Hyde. The Art of Assembly Language. No Starch Press.\n\n"
        "the stack instructions.\n\n"
        "The CALL instruction pushes the return address on the stack and jumps to the subroutine."
    )
    answer = extractive_answer("What do the CALL and RET instructions do with the stack?", [_text_passage(text)])
    assert _lines(answer) == ["The CALL instruction pushes the return address on the stack and jumps to the subroutine."]
    assert is_fragment("예를 들어서 각각의 비트를 a, b, c, .")  # a list the page cut before its end
    assert not is_fragment("Big endian stores the bytes 12, 34, 56 and 78 in that order.")


def test_a_list_lead_in_brings_its_items_and_a_dangling_one_is_skipped():
    listed = (
        "Retrieval practice does not require formal exams. Useful forms of retrieval practice include the following:\n\n"
        "- Flashcards answered before turning the card over.\n\n- Writing down everything you remember on a blank page."
    )
    answer = extractive_answer("Which forms of retrieval practice are useful?", [_text_passage(listed)])
    lines = _lines(answer)
    lead_in = lines.index("Useful forms of retrieval practice include the following:")
    assert lines[lead_in + 1 : lead_in + 3] == [
        "- Flashcards answered before turning the card over.",
        "- Writing down everything you remember on a blank page.",
    ]
    assert ground_check(answer.text, [_text_passage(listed)])[0]
    dangling = "The physical address is found by the following two steps: 1. The segment selector value is looked up."
    answer = extractive_answer("How is the physical address found?", [_text_passage(dangling)])
    assert "steps: 1." not in answer.text
    # A lead-in to a code listing (never quoted) would dangle too: "아래는 예제 코드 이다." alone says nothing.
    korean = "반복문의 예제를 살펴보자. 아래는 예제 코드 이다.\nmov ecx, 10 ; 반복 횟수\nloop_start: dec ecx\n반복문은 ECX 레지스터를 센다."
    assert "아래는 예제 코드" not in extractive_answer("반복문 예제를 보여줘", [_text_passage(korean)]).text


def test_sentences_of_one_passage_keep_their_order():
    text = (
        "The forgetting curve is a graph of recall over time. Forgetting is fastest shortly after learning. "
        "The curve was first described by Hermann Ebbinghaus in 1885."
    )
    answer = extractive_answer("Who first described the forgetting curve and what does the curve show?", [_text_passage(text)])
    lines = _lines(answer)
    best = "The curve was first described by Hermann Ebbinghaus in 1885."
    assert best in lines
    rest = [line for line in lines if line != best]
    assert rest == sorted(rest, key=text.index)  # after the best sentence, the order of the text


def test_every_extractive_answer_passes_the_ground_check():
    passages = [_text_passage(TITLE, 1), _text_passage(SPACED, 2)]
    for question in ["What is spaced repetition?", "Why does spacing beat cramming?", "What does the guide explain?"]:
        answer = extractive_answer(question, passages)
        grounded, citations, problems = ground_check(answer.text, passages)
        assert grounded and not problems, question
        assert all(citation.quote in passages[citation.n - 1].text for citation in citations)


def test_a_line_break_inside_a_sentence_does_not_break_the_ground_check():
    text = "Chapter 3 The Stack\nThe stack is a last-in first-out structure that\nholds return addresses and local variables."
    passages = [_text_passage(text)]
    answer = extractive_answer("What does the stack hold?", passages)
    assert answer.text == "The stack is a last-in first-out structure that holds return addresses and local variables. [1]"
    grounded, citations, _ = ground_check(answer.text, passages)
    assert grounded and citations[0].quote in text


# --- The ground check, claim by claim (no database: passages are plain values) -------------------------

STACK = (
    "The stack is a last-in first-out structure. When a function is called, the return address is pushed on the stack.\n\n"
    "The ESP register points to the top of the stack."
)


def _stack_passage(n: int = 1, page_starts: tuple = ()) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id="asm", title="PC Assembly", chunk_index=4, page_number=30, text=STACK, page_starts=page_starts)


def test_a_claim_citing_its_passage_is_grounded_with_a_verbatim_quote_on_the_quotes_own_page():
    second_page = STACK.index("The ESP register")
    passage = _stack_passage(page_starts=((0, 30), (second_page, 31)))
    grounded, citations, problems = ground_check("The ESP register points to the top of the stack [1].", [passage])
    assert grounded and problems == []
    assert [(citation.n, citation.quote, citation.pageNumber, citation.pageEnd) for citation in citations] == [
        (1, "The ESP register points to the top of the stack.", 31, 31)
    ]
    assert citations[0].quote in passage.text


def test_sentences_of_one_passage_on_two_pages_are_cited_over_both_pages():
    """A walkthrough's "그 4비트짜리 묶음은 뭐라고 불러?" quoted the nibble sentence from p.14 under a citation of
    p.13, because the passage's first quoted sentence stood there."""
    second_page = STACK.index("The ESP register")
    passage = _stack_passage(page_starts=((0, 30), (second_page, 31)))
    grounded, citations, _ = ground_check(
        "The stack is a last-in first-out structure [1]. The ESP register points to its top [1].", [passage]
    )
    assert grounded
    assert [(citation.quote, citation.pageNumber, citation.pageEnd) for citation in citations] == [
        ("The stack is a last-in first-out structure.", 30, 31)
    ]
    answer = extractive_answer("What is the stack?", [replace(passage, vector_score=0.9)])
    assert "ESP register" in answer.text and "last-in first-out" in answer.text, answer.text
    assert [(citation.pageNumber, citation.pageEnd) for citation in answer.citations] == [(30, 31)]


def test_a_claim_without_a_citation_or_citing_a_passage_that_does_not_exist_is_not_grounded():
    passages = [_stack_passage()]
    uncited, _, problems = ground_check("The ESP register points to the top of the stack.", passages)
    assert not uncited and problems
    missing, citations, problems = ground_check("The ESP register points to the top of the stack [2].", passages)
    assert not missing and not citations and problems


def test_a_claim_that_changes_a_number_a_negation_or_an_opposite_is_caught():
    passages = [_stack_passage()]
    assert "number 16" in contradicts("The return address takes 16 bytes on the stack.", passages)
    assert "negation" in contradicts("The return address is not pushed on the stack when a function is called.", passages)
    assert "first-in" in contradicts("The stack is a first-in first-out structure.", passages)
    assert contradicts("The stack is a last-in first-out structure.", passages) == ""


def test_numbers_are_read_as_digits_and_as_english_words():
    assert numbers_in("1,577 items in two parts of 4-bit words") == {"1577", "2", "4"}
    assert numbers_in("one register") == set()  # "one" is no claim of a number


def test_passages_fit_the_budget_whole_best_first_skipping_one_too_long_for_what_is_left():
    short, long_one, other = (_words_passage(n, words) for n, words in ((1, 40), (2, 400), (3, 40)))
    kept = fit_passages([short, long_one, other], budget=140)
    assert [passage.n for passage in kept] == [1, 3]  # the long one is skipped, not cut; a later short one still fits
    assert [passage.n for passage in fit_passages([long_one, short], budget=10)] == [2]  # the best passage always goes in


def test_lines_fit_the_budget_in_order_and_stop_at_the_first_that_does_not():
    lines = ["one two three four", "five six seven eight " * 20, "nine ten"]
    assert fit_text(lines, budget=10) == ["one two three four"]
    assert fit_text(lines, budget=0) == []


def test_a_streaming_answer_is_checked_up_to_its_last_complete_claim():
    text = "The stack grows down [1]. The ESP register points"
    end = complete_claims_end(text)
    assert text[:end] == "The stack grows down [1]. "
    assert complete_claims_end(text, end) == end  # nothing new is complete yet


def _words_passage(n: int, words: int) -> Passage:
    return Passage(n=n, chunk_id=n, ref_id="r", title="t", chunk_index=n, page_number=1, text=" ".join(["word"] * words))


def test_a_follow_up_answer_quotes_what_the_previous_answer_did_not():
    text = (
        "Hexadecimal numbers use base 16. "
        "To convert from hex to binary, each hex digit is replaced by its four-bit binary number. "
        "Hexadecimal can be used as a shorthand for binary numbers."
    )
    question = "How do I go from hex back to binary?"
    first = extractive_answer(question, [_text_passage(text)], max_sentences=1)
    said = frozenset(_lines(first))
    again = extractive_answer(question, [_text_passage(text)], max_sentences=1, said=said)
    assert _lines(again) != _lines(first) and not again.refused
    # Nothing new in the passages: the previous answer's sentence rather than a refusal.
    only = _text_passage("To convert from hex to binary, each hex digit is replaced by its four-bit binary number.")
    assert not extractive_answer(question, [only], said=frozenset(_lines(extractive_answer(question, [only])))).refused


def test_an_extracts_citations_are_numbered_in_reading_order():
    from baeum.answering.answers import Answer, Citation
    from baeum.answering.groundcheck import in_reading_order

    def cite(n: int) -> Citation:
        return Citation(n=n, refId="r", materialTitle="t", chunkIndex=n, pageNumber=n, quote=f"q{n}")

    answer = in_reading_order(Answer(text="First. [3]\nSecond. [1]\nThird. [3]", citations=[cite(1), cite(3)]))
    assert answer.text == "First. [1]\nSecond. [2]\nThird. [1]"
    assert [(citation.n, citation.chunkIndex) for citation in answer.citations] == [(1, 3), (2, 1)]


def test_an_index_in_a_quoted_sentence_is_not_a_citation():
    text = "Thus, dword[0] is one of the bytes in data, and a[3][2] is an element of a two-dimensional array."
    answer = extractive_answer("What is dword[0]?", [_text_passage(text)])
    assert not answer.refused
    grounded, citations, problems = ground_check(answer.text, [_text_passage(text)])
    assert grounded and not problems and [citation.n for citation in citations] == [1]


def test_a_korean_table_read_as_one_sentence_is_not_an_answer():
    from baeum.answering.sentences import is_table_run

    table = (
        "비-부동 소수점 명령들 149 플래그 이름 설명 형식 O S Z A P C JNA 초과 아니면 분기 I JNAE 미만이면 분기 I JNB 미만 아니면 분기 I "
        "JNBE 초과면 분기 I JNC 캐리 없으면 분기 I LEAVE 스택 프레임을 떠남."
    )
    assert is_table_run(table)
    assert not is_table_run(
        "PUSH 와 POP 명령은 ESP 와 EBP 레지스터를 이용해 스택에 값을 넣고 뺀다. 이는 C 와 같은 언어에서 함수 호출에 쓰인다."
    )
    assert not is_table_run("먼저, C 는 서브루틴이 다음의 레지스터의 값을 보관하다고 생각한다: EBX, ESI, EDI, EBP, CS, DS, SS, ES.")
