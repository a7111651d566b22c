"""What an offline answer may quote, and when a question names something the materials never mention.

The cases come from walking through the sample books: a Korean listing line and a C listing quoted as
answers, an instruction table read as a sentence, "big endian vs little endian" answered without either
definition, and "an if statement in Rust" answered from an assembly book.
"""

import dataclasses
from collections import Counter

from baeum import rules
from baeum.answering.answers import Passage
from baeum.answering.evidence import judge_evidence
from baeum.answering.extractive import extractive_answer
from baeum.answering.forms import compared_terms
from baeum.answering.sentences import is_code, is_readable_sentence
from baeum.language.analysis import named_terms


def _passage(text: str, *, n: int = 1, vector_score: float = 0.9) -> Passage:
    return Passage(
        n=n, chunk_id=n, ref_id="r", title="t", chunk_index=n, page_number=n, text=text, vector_score=vector_score, vector_threshold=0.25
    )


def test_listing_lines_are_code_in_korean_and_english():
    assert is_code("44 ; 만일 target 을 찾았다면 edx 에 그 주소가 들어간다")
    assert is_code("unsigned char ∗ p = (unsigned char ∗) &word; if ( p[0] == 0x12 ) printf (”Big Endian Machine\\n”);")
    # A truth table's rows of 0 and 1 count up like listing line numbers, but the sentence is prose.
    assert not is_code("The exclusive OR of 2 bits is 0 if and only if both bits are equal 0 0 0 0 1 1 1 0 1 1 1 0 as the table shows.")


def test_a_run_of_table_cells_is_not_a_sentence_but_prose_with_names_is():
    table = "reg/mem8 AX = AL*source1 reg/mem16 DX:AX = AX*source1 reg/mem32 EDX:EAX = EAX*source1 reg16 reg/mem16 dest *= source1."
    assert not is_readable_sentence(table)
    assert is_readable_sentence("The CBW (Convert Byte to Word) instruction sign extends the AL register into AX.")


def test_figure_labels_read_with_their_caption_are_not_a_sentence():
    assert not is_readable_sentence("EBP + 8 형식 문자열의 주소 EBP + 4 주소를 리턴 EBP EBP 를 저장 그림 4.12: printf 내부의 스택 모습")
    assert not is_readable_sentence("The program prints its result on the screen as shown here Figure 3.4: How to Determine Endianness")
    assert is_readable_sentence("그림 3.3 는 ADC 명령을 사용해 캐리 플래그에 직접 더하는 방법을 보여주고 있다.")


def test_comparison_sides_are_found_in_both_languages():
    assert compared_terms("What is the difference between big endian and little endian?") == ("big endian", "little endian")
    assert compared_terms("리틀 엔디안과 빅 엔디안의 차이는?") == ("리틀 엔디안", "빅 엔디안")
    assert compared_terms("stdcall vs cdecl") == ("stdcall", "cdecl")
    assert compared_terms("What's the difference between external and internal interrupts?") == (
        "external interrupts",
        "internal interrupts",
    )
    assert compared_terms("How does SAR differ from SHR?") == ("SAR", "SHR")
    assert compared_terms("SAR 명령은 SHR 과 어떻게 다른가요?") == ("SAR 명령", "SHR")
    assert compared_terms("클래스와 객체는 뭐가 달라?") == ("클래스", "객체")
    assert compared_terms("How is double precision different?") == ()
    assert compared_terms("What are the two main ideas and results of the paper?") == ()


def test_a_comparison_answer_opens_with_a_definition_of_one_side():
    text = (
        "Chapter 1 introduced the concept of big and little endian representations of multibyte data. "
        "The author has found that this subject confuses many people about big and little endian. "
        "Big endian is the most straightforward method of storing the bytes of a number."
    )
    answer = extractive_answer("What is the difference between big endian and little endian?", [_passage(text)])
    assert answer.text.splitlines()[0].startswith("Big endian is the most straightforward method")


def test_names_are_the_capitalised_words_and_korean_proper_nouns_of_a_question():
    assert named_terms("How do I write an if statement in Rust?") == ["rust"]
    assert named_terms("What does NumPy do?") == ["numpy"]
    assert named_terms("What is the FY2018 capital expenditure amount for 3M?") == []  # codes and periods are not names
    assert named_terms("NumPy 배열을 스택처럼 쓰는 방법 알려줘") == ["numpy"]
    assert named_terms("1987년 한국의 대통령 선거에서 당선된 인물은?") == []  # "한국" where the text says "대한민국"


def _judge(question: str, passages: list[Passage], library: set[str]):
    return judge_evidence(
        question, passages, min_coverage=0.3, min_vector=None, strong_coverage=0.45, known=lambda terms: set(terms) & library
    )


def test_a_question_naming_only_what_the_materials_never_mention_is_refused():
    passages = [_passage("In high level languages you write an if statement and a while statement to control the flow.")]
    library = {"write", "statement", "language", "control"}
    assert not _judge("How do I write an if statement in Rust?", passages, library).sufficient
    assert _judge("How do I write an if statement in Rust?", passages, library | {"rust"}).sufficient  # the book mentions Rust elsewhere


def test_one_name_found_is_enough():
    passages = [_passage("Square, Inc. generated net cash provided by operating activities of 1,000 in 2020 operating activities.")]
    question = "How much did Block (formerly known as Square) generate in cash flow from operating activities?"
    assert _judge(question, passages, {"square", "operating", "activity", "cash"}).sufficient


def test_an_english_question_over_a_korean_book_naming_what_it_never_mentions_is_refused():
    passages = [
        _passage("가비지 컬렉션은 더 이상 쓰이지 않는 메모리를 자동으로 회수하는 기법이다. 메모리 관리의 한 방법이다.", vector_score=0.95)
    ]
    question = "How does garbage collection work in Java?"
    assert not _judge(question, passages, set()).sufficient
    assert _judge(question, passages, {"java"}).sufficient  # the book names Java elsewhere


def test_a_sentence_quoted_word_for_word_is_not_a_contradiction_of_its_source():
    from baeum.answering.groundcheck import ground_check

    text = "ESP + 4 Parameter\nESP Return address\n\nNow the parameter is at ESP + 8 not ESP + 4. The stack grows down in memory here."
    grounded, citations, problems = ground_check("Now the parameter is at ESP + 8 not ESP + 4. [1]", [_passage(text)])
    assert grounded and not problems and citations[0].quote.startswith("Now the parameter")
    grounded, _, problems = ground_check("Now the parameter is at ESP + 8, just as at ESP + 4. [1]", [_passage(text)])
    assert not grounded and "negation" in problems[0]  # a changed sentence is still checked


def test_a_footnote_is_not_added_to_the_bodys_answer_and_a_glued_footnote_marker_goes():
    # pcasm-book-english.pdf p.69: the body's marker "transformation.5" and the footnote moved to the page's end.
    text = (
        "TCP/IP libraries provide C functions for dealing with endianness issues in a portable way. The ntohl () function "
        "performs the opposite transformation.5 For a big endian system, the two functions just return their input unchanged.\n\n"
        "5 Actually, reversing the endianness of an integer simply reverses the bytes; thus, converting from big to little "
        "or little to big is the same operation."
    )
    note_start = text.index("5 Actually")
    passage = Passage(
        n=1,
        chunk_id=1,
        ref_id="r",
        title="t",
        chunk_index=1,
        page_number=69,
        text=text,
        vector_score=0.9,
        vector_threshold=0.25,
        note_spans=((note_start, len(text)),),
    )
    answer = extractive_answer("How do C functions deal with the endianness of an integer?", [passage])
    assert answer.text.startswith("TCP/IP libraries provide C functions") and "Actually" not in answer.text  # no aside added
    answer = extractive_answer("What does reversing the endianness of an integer do?", [passage])
    assert answer.text.startswith("Actually, reversing the endianness")  # only the footnote says it: quoted, without its number
    answer = extractive_answer("What does the ntohl function do?", [passage])
    assert "performs the opposite transformation. [1]" in answer.text  # not "transformation.5 For a big …"


def test_a_worked_formula_glued_before_a_sentence_and_the_texts_own_question_are_not_quoted():
    # pcasm-book-english.pdf p.127 and p.82: a formula line lost its line break; the book asks its reader a question.
    passage = _passage(
        "110.0112 = 4 + 2 + 0.25 + 0.125 = 6.375 Converting from decimal to binary is not very difficult either. "
        "Why do all C functions not use the stack convention for converting decimal numbers, then? "
        "The C convention lets a function convert decimal numbers with a variable number of arguments."
    )
    answer = extractive_answer("How do I convert decimal numbers to binary?", [passage])
    assert answer.text.startswith("Converting from decimal to binary is not very difficult either. [1]"), answer.text
    assert "?" not in answer.text


def test_numbered_listing_lines_of_c_are_code():
    # pcasm-book-*.pdf listings read as "sentences" by the splitter, quoted across languages before.
    for line in ["10 return ret status ;", "26 printf (”Found it : %s\\n”, st );", "27 else 28 printf (”Not found\\n”);", "9 data = i ;"]:
        assert is_code(line), line
    assert is_code("if ( condition ) then_block;")
    assert not is_code("3 registers are used for this purpose.")


def test_a_title_page_is_quoted_only_when_nothing_else_answers():
    title_page = Passage(
        n=1,
        chunk_id=1,
        ref_id="r",
        title="t",
        chunk_index=0,
        page_number=1,
        vector_score=0.9,
        vector_threshold=0.25,
        matter="front",
        text="PC Assembly Language by Paul A. Carter, translated into Korean and published on the author's assembly language site.",
    )
    body = _passage("Assembly language programs are translated into machine code by an assembler such as NASM.", n=2)
    answer = extractive_answer("How are assembly language programs translated?", [title_page, body])
    assert answer.text.startswith("Assembly language programs are translated") and "Carter" not in answer.text
    answer = extractive_answer("Who translated PC Assembly Language by Paul A. Carter?", [title_page])
    assert "Carter" in answer.text


def test_the_tail_of_a_parenthesis_cut_from_its_start_is_not_quoted():
    # A walkthrough's "어셈블리어에서 스택이란 무엇인가요?" opened with this: the chunk began inside "(… 4 에서 다룰 것이다)".
    assert not is_readable_sentence(
        "4 에서 다룰 것이다) 스택은 더블워드로 구성되어 있으며 이 매크로를 통해 스택에 들어 있는 값들을 출력할 수 있다."
    )
    assert is_readable_sentence("1) 첫 번째 방법은 가장 단순한 방법이며 부호 비트를 쓴다.")  # a list marker
    assert is_readable_sentence("The stack (a LIFO list) holds the return address of every call.")


def test_a_what_is_question_that_names_a_place_is_about_the_term():
    from baeum.answering.forms import defined_term, without_place

    question = "어셈블리어에서 스택이란 무엇인가요?"
    assert defined_term(question) == "스택"
    assert without_place(question) == "스택이란 무엇인가요?"  # searched too: "어셈블리어" is on every page of the book
    assert without_place("스택이란 무엇인가요?") == "" and without_place("스택에서 POP 은 어떻게 동작해?") == ""
    passages = [
        _passage("사실상, 어셈블리어를 사용하는 일은 드물다. 오늘날 스택을 직접 다루는 프로그램은 적다.", n=1),
        _passage("스택은 후입 선출 (LIFO) 리스트 이다. 스택은 이와 같은 규칙으로 구성된 메모리의 일부분 이다.", n=2),
    ]
    answer = extractive_answer(question, passages)
    assert answer.text.startswith("스택은 후입 선출 (LIFO) 리스트 이다."), answer.text


def test_a_numbered_item_is_quoted_from_its_ordinal_when_a_run_in_heading_is_glued_before_it():
    import re

    from baeum.answering.followups import from_the_ordinal

    def cut(sentence, ordinal):
        return from_the_ordinal(sentence, re.search(ordinal, sentence))

    assert (
        cut("One's complement The second method is known as one's complement.", "second")
        == "The second method is known as one's complement."
    )
    assert cut("1 의 보수 표현법두 번째 방법은 1의 보수 표현법이다.", "두 번째") == "두 번째 방법은 1의 보수 표현법이다."
    kept = "Modern computers use a third method called two's complement representation."
    assert cut(kept, "third") == kept  # "use": what comes before is a clause, not a heading
    kept = "현대의 컴퓨터는 이 세 번째 방법을 사용한다."
    assert cut(kept, "세 번째") == kept


def test_a_listing_or_a_figures_numbers_glued_before_a_sentence_are_not_quoted_with_it():
    """A walkthrough: the RCL/RCR sentence was never a candidate (the rotate listing ran into it), and "What is
    a nibble?" opened with the figure's digits. A year or a line number before a sentence stays."""
    from baeum.answering.groundcheck import ground_check
    from baeum.answering.quoting import quotable

    listing = (
        "5 ror ax, 2 ; ax = 8247H, CF = 1 6 ror ax, 1 ; ax = C123H, CF = 1 There are two additional rotate instructions named RCL and RCR."
    )
    answer = extractive_answer("Which rotate instructions go through the carry flag?", [_passage(listing)])
    assert answer.text == "There are two additional rotate instructions named RCL and RCR. [1]", answer.text
    _, citations, _ = ground_check(answer.text, [_passage(listing)])
    assert citations[0].quote == "There are two additional rotate instructions named RCL and RCR."  # what the viewer highlights
    assert (
        quotable("110 0000 0101 1010 0111 11102 6 0 5 A 7 E16 A 4-bit number is called a nibble .") == "A 4-bit number is called a nibble ."
    )
    for kept in ("2003 Korean users have grown.", "In 1990 The Company was founded.", "x86 Assembly is what this book teaches."):
        assert quotable(kept) == kept


def test_a_comparison_is_answered_with_sentences_that_name_one_of_its_sides():
    """A walkthrough: "How does SAR differ from SHR?" quoted "The calling conventions can differ from compiler to
    compiler" between the two instructions' sentences."""
    page = (
        "SAR Shift Arithmetic Right - This is a new instruction that does not shift the sign bit of its operand. "
        "The calling conventions can differ from compiler to compiler. "
        "The SHL and SHR instructions are used to perform logical left and right shifts respectively."
    )
    answer = extractive_answer("How does SAR differ from SHR?", [_passage(page)])
    assert "calling conventions" not in answer.text, answer.text
    assert "SAR Shift Arithmetic Right" in answer.text and "SHL and SHR" in answer.text


def test_a_question_asking_for_a_name_is_answered_with_the_sentence_that_gives_it():
    """A walkthrough: "그 4비트짜리 묶음은 뭐라고 불러?" quoted three hex-conversion sentences and never said 니블."""
    from baeum.answering.forms import asks_for_a_name

    assert asks_for_a_name("그 4비트짜리 묶음은 뭐라고 불러?") and asks_for_a_name("What is a 4-bit number called?")
    assert not asks_for_a_name("Why is hexadecimal useful?") and not asks_for_a_name("이 함수는 무엇을 하나요?")
    page = (
        "16 진수를 2 진수로 바꾸려면 각 자리수를 4 비트의 이진수로 바꾼다. "
        "이진수를 16 진수로 바꿀 때는 오른쪽 끝에서 부터 4 비트씩 끊어 간다. "
        "4 비트의 이진수를 니블 (nibble) 이라 하고, 16 진수의 각 자리수는 1 개의 니블에 대응된다."
    )
    answer = extractive_answer("4비트짜리 묶음은 뭐라고 불러?", [_passage(page)], max_sentences=1)
    assert "니블 (nibble) 이라 하고" in answer.text, answer.text


def test_a_line_set_as_code_is_never_quoted_even_when_it_reads_as_prose():
    """An interpreter's output ("I sleep all night and I work all day.") reads as a sentence; the font said code."""
    code = 'print("I sleep all night and I work all day.")\nI sleep all night and I work all day.'
    text = f"{code}\n\nThe print function shows its argument on the screen, a line at a time."
    passage = Passage(
        n=1, chunk_id=1, ref_id="r", title="t", chunk_index=1, page_number=40, text=text,
        vector_score=0.9, vector_threshold=0.25, code_spans=((0, len(code)),),
    )  # fmt: skip
    question = "What does the print function show when I sleep all night and work all day?"
    answer = extractive_answer(question, [passage])
    assert answer.text == "The print function shows its argument on the screen, a line at a time. [1]"
    answer = extractive_answer(question, [dataclasses.replace(passage, code_spans=())])
    assert answer.text.startswith("I sleep all night and I work all day. [1]")  # what the font's signal prevents


def test_a_sentence_that_answers_in_its_own_words_counts_its_sections_title():
    """Under "Lesson 2.2: 다른 삭제 명령", "d$ 라고 치면 그 줄 끝까지 지워집니다." answers "삭제 명령에는 어떤 것들이
    있어?" without its words: a term only the title holds counts ``SECTION_WEIGHT`` of one the sentence holds."""
    from baeum.answering import extractive

    text = "Lesson 2.2: 다른 삭제 명령\n\nd$ 라고 치면 그 줄 끝까지 지워집니다.\n\nClosing words of the tutorial here."
    passage = dataclasses.replace(
        _passage(text), section_title="Lesson 2.1: 삭제(DELETION) 명령", heading_spans=((0, len("Lesson 2.2: 다른 삭제 명령"), 2),)
    )
    assert extractive.SECTION_WEIGHT == 0.5
    candidate, closing = extractive._passage_candidates(Counter(["삭제", "명령"]), (), 0, passage)
    assert closing.section == candidate.section and closing.score < candidate.score  # later in its section
    assert candidate.sentence == "d$ 라고 치면 그 줄 끝까지 지워집니다." and candidate.section == {"삭제", "명령"}
    assert candidate.features["overlap"] == 0 and candidate.features["section_overlap"] == 1.0
    # Before the first heading inside, a sentence stands under the section in force where the passage begins.
    opening = dataclasses.replace(_passage("A deletion command removes text.\n\n" + text), section_title="Lesson 2.1: 삭제 명령")
    first = extractive._passage_candidates(Counter(["삭제", "명령"]), (), 0, opening)[0]
    assert first.sentence == "A deletion command removes text." and first.section == {"삭제", "명령"}


def test_a_sentence_quoted_from_the_other_language_is_said_to_be_even_where_most_passages_are_not():
    """The walkthrough: "What does the pager option do?" over a Korean man page and an English book quoted the man
    page without the note the other direction gave ("※ 영어로 된 자료에서 …"): most passages were English."""
    korean = dataclasses.replace(
        _passage("MANPAGER, PAGER: 이 값을 설명서 페이지를 표시할 pager 프로그램 이름으로 사용합니다.", n=1), korean=True
    )
    english = [
        dataclasses.replace(_passage(f"The stream emits events when data arrives, chapter {n}.", n=n, vector_score=0.3), korean=False)
        for n in (2, 3)
    ]
    answer = extractive_answer("What does the pager option do?", [korean, *english])
    assert not answer.refused and "pager 프로그램" in answer.text
    assert answer.text.startswith("※ Quoted as written in your Korean material.")
    same = extractive_answer("What does the stream emit when data arrives?", english)
    assert not same.refused and "※" not in same.text  # nothing quoted across: no note


def test_a_sentence_of_a_reference_entry_is_quoted_under_the_entrys_name():
    """The walkthrough: "How do I remove a listener?" was answered "Removes all listeners, or those of the specified
    eventName." and never named removeAllListeners. A sentence that leaves its entry unnamed shows the entry's heading,
    once for consecutive lines; one that names it, or stands under a plain title, is quoted as it is."""
    from baeum import rules

    text = (
        "emitter.removeAllListeners([eventName])\n\nRemoves all listeners, or those of the specified eventName. "
        "It is bad practice to remove listeners added elsewhere in the code.\n\n"
        "emitter.removeListener(eventName, listener)\n\nRemoves the specified listener from the listener array. "
        "removeListener() will remove, at most, one instance of a listener from the listener array."
    )
    first, second = text.index("emitter.removeAllListeners"), text.index("emitter.removeListener(")
    heading_spans = (
        (first, first + len("emitter.removeAllListeners([eventName])"), 4),
        (second, second + len("emitter.removeListener(eventName, listener)"), 4),
    )
    passage = dataclasses.replace(_passage(text), heading_spans=heading_spans, section_title="Class: EventEmitter")
    with rules.counting() as fired:
        answer = extractive_answer("How do I remove a listener from the listener array?", [passage], max_sentences=4)
    lines = answer.text.split("\n")
    assert "emitter.removeListener(eventName, listener): Removes the specified listener from the listener array. [1]" in lines
    assert "removeListener() will remove, at most, one instance of a listener from the listener array. [1]" in lines
    assert fired["answer:entry-heading"] >= 1
    with rules.switched_off(["answer:entry-heading"]):
        plain = extractive_answer("How do I remove a listener from the listener array?", [passage], max_sentences=4)
    assert "Removes the specified listener from the listener array. [1]" in plain.text.split("\n")
    titled = dataclasses.replace(
        _passage("Error events\n\nWhen an error occurs, an 'error' event is emitted."), heading_spans=((0, 12, 3),)
    )
    assert extractive_answer("What happens when an error occurs?", [titled]).text.startswith("When an error occurs")


def test_what_a_function_or_an_option_does_is_its_definition():
    # Node's readline: "What does rl.question do?" had put "The rl.question() method displays the query …" third.
    from baeum.answering.forms import defined_term, is_definition

    assert defined_term("What does rl.question do?") == "rl.question"
    assert defined_term("What does the -k option do?") == "-k"
    assert is_definition("The rl.question() method displays the query by writing it to the output.", "rl.question")
    assert is_definition("-k, --keep 입력 파일을 삭제하지 않습니다.", "-k")
    assert not is_definition("The callback function passed to rl.question() does not follow the pattern.", "rl.question")
    assert not is_definition("The kernel manages memory.", "kernel")  # a word, not code: "X is …" defines it
    text = (
        "The callback function passed to rl.question() does not follow the typical pattern. "
        "The rl.question() method displays the query by writing it to the output, then waits for input."
    )
    answer = extractive_answer("What does rl.question do?", [_passage(text)])
    assert answer.text.startswith("The rl.question() method displays the query"), answer.text


def test_a_figure_computed_from_two_statements_is_covered_by_both_together():
    # Rule evidence:formula-across-passages: revenue stands in the income statement, PP&E in the balance sheet.
    income = _passage("Consolidated Statements of Income. Total revenues 194,579 in 2018 and 184,786 in 2017 for CVS Health.")
    balance = _passage("Consolidated Balance Sheets. Property and equipment, net 11,349 in 2018 and 10,292 in 2017; average balances.")
    other = _passage("Risk factors: pharmacy services compete on price and service in 2018 and 2017.")
    library = {"cvs", "health", "revenue", "average", "pp&e"}
    question = "What is the FY2018 for CVS Health? FY2018 revenue / (average PP&E between FY2017 and FY2018)."
    with rules.counting() as fired:
        together = _judge(question, [income, balance, other], library)
    assert fired["evidence:formula-across-passages"] == 1
    with rules.switched_off(["evidence:formula-across-passages"]):
        apart = _judge(question, [income, balance, other], library)
    assert together.coverage > apart.coverage
    # Without an operator, the best single passage decides as before.
    plain = "What is the FY2018 revenue and average PP&E for CVS Health between FY2017 and FY2018?"
    with rules.counting() as fired:
        _judge(plain, [income, balance, other], library)
    assert not fired["evidence:formula-across-passages"]


def test_a_term_defined_after_its_long_form_is_a_definition_and_its_pattern_finds_it():
    import re

    from baeum.answering.forms import definition_patterns, is_definition

    sentence = "Cyclic Redundancy Check (CRC) is a well-known technique that allows the recipient to detect errors."
    assert is_definition(sentence, "CRC") and is_definition("순환 중복 검사(CRC)는 오류를 찾는 기법이다.", "CRC")
    assert not is_definition("The CRC is then stored after the message.", "CRC")
    like, pattern = definition_patterns("CRC")
    assert like == "%CRC%"
    # The database reads the pattern as a POSIX regular expression; these openings read the same in Python's.
    python = re.compile(pattern.replace(r"\M", r"\b"), re.IGNORECASE)
    assert python.search(sentence) and python.search("Some text.\nA CRC is a checksum.")
    assert not python.search("The CRC is then stored after the message.")
