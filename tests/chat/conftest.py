import pytest

from tests.pdfgen import make_pdf

BOOK = [
    "Chapter 1 Registers\nA register is a very fast storage location inside the CPU. General purpose registers hold data "
    "while it is being computed. The EAX register is the accumulator.",
    "Chapter 2 Interrupts\nAn interrupt stops the normal flow of a program so that an event can be handled. An interrupt "
    "handler is the routine that processes the interrupt. Hardware interrupts come from devices such as the keyboard.",
    "Chapter 3 The Stack\nThe stack is a last-in first-out structure. When a function is called, the return address is "
    "pushed on the stack. The ESP register points to the top of the stack.",
]
KOREAN_BOOK = [
    "제1장 레지스터\n레지스터는 CPU 내부에 있는 아주 빠른 저장 공간이다. 범용 레지스터는 계산 중인 데이터를 보관한다.",
    "제2장 인터럽트\n인터럽트는 프로그램의 흐름을 멈추고 이벤트를 처리하게 하는 메커니즘이다. 인터럽트 핸들러가 이벤트를 처리한다.",
]


@pytest.fixture
def book(user, ingest):
    return ingest(user, make_pdf(BOOK), "asm.pdf", title="PC Assembly")


@pytest.fixture
def korean_book(user, ingest):
    return ingest(user, make_pdf(KOREAN_BOOK), "어셈블리.pdf", title="PC 어셈블리어")
