from baeum.study.definitions import find_definitions


def terms(text: str) -> dict[str, tuple[str, ...]]:
    return {definition.term: definition.aliases for definition in find_definitions(text)}


def test_english_naming_sentences_give_the_named_term_and_its_abbreviation():
    found = terms(
        "A 4-bit number is called a nibble. The leftmost digit is called the most significant bit (msb). "
        "The clock pulses at a fixed frequency (known as the clock speed). These rules are called calling conventions."
    )
    assert found == {"nibble": (), "most significant bit": ("msb",), "clock speed": (), "calling conventions": ()}


def test_english_subject_definitions_and_glossary_lines():
    text = "A stack is a Last-In First-Out list. Recursion refers to a function calling itself.\nvariable: A name that refers to a value.\n"
    assert set(terms(text)) == {"stack", "Recursion", "variable"}


def test_what_is_not_a_definition():
    text = (
        "What is a program? This is a hard problem. Sometimes there is a reason. When the function is called, it runs. "
        "The function is called with two arguments. It would be named first.exe on Windows. "
        "This should only ever be called once. "  # Node's events page: the glossary's "once" and "What is once?"
        "The listener function is called without passing any arguments."  # readline's: "What is without passing …?"
    )
    assert terms(text) == {}


def test_korean_naming_topic_and_subject_definitions():
    found = terms(
        "이진수에서 각 자리 숫자를 비트 (bit)라고 부른다. 가장 왼쪽의 비트는 최상위 비트 (most significant bit, msb) 라고 부른다. "
        "룩업 테이블이란 미리 계산한 결과를 담은 표이다. 재진입 서브프로그램은 어디서 호출되어도 잘 작동하는 서브프로그램을 말한다."
    )
    assert found == {
        "비트": ("bit",),
        "최상위 비트": ("most significant bit", "msb"),
        "룩업 테이블": (),
        "재진입 서브프로그램": (),
    }


def test_korean_clauses_and_verbs_are_not_terms():
    assert terms("컴파일 만을 하란 뜻이다. 이 함수들을 오버로드 되었다 라고 한다. 예를 들어, R, R 라 한다면 두 레지스터이다.") == {}


def test_offsets_point_at_the_defining_sentence():
    text = "Intro sentence here. A 4-bit number is called a nibble. Next."
    (definition,) = find_definitions(text)
    assert text[definition.start : definition.end] == "A 4-bit number is called a nibble."


def test_a_place_or_a_list_items_pattern_is_not_a_korean_term():
    """Walkthrough 19, the Korean login page: "시간 지정에서 설명하기" and "o @localhost 문자열 설명하기" were objectives."""
    assert not find_definitions("시간 지정에서는 단지, a-b 식으로 정의되면 a시부터 b시까지를 의미한다.")
    assert not find_definitions("• @localhost 문자열은 로칼 호스트에서 telnet으로 접속하는 것을 말한다.")
    assert [d.term for d in find_definitions("레지스터는 CPU 안에 있는 저장 장소를 말한다.")] == ["레지스터"]


def test_a_manual_name_line_defines_its_command_only_as_a_paragraph_of_its_own():
    assert [d.term for d in find_definitions("이름\n\nlogin - 시스템 접속\n")] == ["login"]
    assert not find_definitions("so the\ncount - offset gives the rest of the buffer\n")  # a wrapped line
    assert not find_definitions("\nx - y = 3 holds here\n\nvalue - 3 is negative\n")


def test_a_wrapped_table_cell_that_reads_like_a_name_line_names_no_term():
    """Walkthrough 20, fontconfig's property table: "none - subpixel geometry" had offered "What is none?"."""
    assert terms("rgba Int unknown, rgb, bgr, vrgb, vbgr,\n\nnone - subpixel geometry\n") == {}
    assert terms("\nchsh - change login shell\n") == {"chsh": ()}


def test_a_listings_comment_defines_nothing_where_the_pdf_did_not_set_it_as_code():
    """Rust by Example in Korean (walkthrough 21): its study guide listed "`mutabook`" from a code comment."""
    from baeum.study.definitions import find_definitions

    comment = "// `immutabook`의 가변 복사본을 생성하고 `mutabook`이라고 부릅니다 let mut mutabook = immutabook;"
    assert find_definitions(comment) == []
    assert [d.term for d in find_definitions("# A mutabook is a mutable reference to a book.")] == []
    assert [d.term for d in find_definitions("A URL such as http://example.com is called a link.")] == ["link"]


def test_the_starters_both_particles_form_asks_what_the_name_is():
    """The app's own starter asks "xz(이)란 무엇인가요?" of a Latin name (walkthrough 24): the term is "xz"."""
    from baeum.answering.forms import defined_term

    assert defined_term("xz(이)란 무엇인가요?") == "xz"
    assert defined_term("killall(이)란 무엇인가요?") == "killall"
    assert defined_term("스택이란 무엇인가요?") == "스택"
