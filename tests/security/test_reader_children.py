"""PDF reader children: a CPU-time limit (not only a wall clock), a per-page operator budget independent
of the page count, the file handed over open, and no privileges when Baeum runs as root."""

import os
import sys
import time
import zlib
from pathlib import Path

import pytest

from baeum.extraction import children
from baeum.extraction.children import spawn_reader
from baeum.extraction.readers import Budget, ExtractionError, extract_pdf_pages, probe_pdf
from tests.pdfgen import make_pdf

# One content stream of this many text-showing operators takes PDFium ~3 s of CPU here (1 M: 1.6 s; the
# penetration test's 89 KB file held 8.5 M operators per page); compressed it is ~50 KB.
HOSTILE_OPERATORS = 2_000_000
TEXT = "Registers are small, fast storage locations inside the processor. " * 4


def _hostile_stream() -> bytes:
    return zlib.compress(b"BT /F1 11 Tf 56 790 Td\n" + b"<0041> Tj\n" * HOSTILE_OPERATORS + b"ET\n", 9)


def _limits_of(pid: int) -> dict[str, str]:
    rows = Path(f"/proc/{pid}/limits").read_text().splitlines()[1:]
    return {row[:26].strip(): row[26:].split()[0] for row in rows}


def test_reader_children_get_a_cpu_time_limit_and_no_core_files():
    child = spawn_reader("timeit", ["-n", "1", "import time; time.sleep(3)"], memory_bytes=1 << 30, cpu_seconds=7)
    try:
        time.sleep(0.5)
        limits = _limits_of(child.pid)
        assert limits["Max cpu time"] == "7" and limits["Max core file size"] == "0"
        assert limits["Max address space"] == str(1 << 30)
    finally:
        child.kill()
        child.communicate()


def test_a_page_whose_content_stream_runs_past_its_cpu_budget_costs_seconds_not_the_deadline(tmp_path):
    hostile = {index: _hostile_stream() for index in range(1, 9)}
    path = tmp_path / "operators.pdf"
    path.write_bytes(make_pdf([f"Chapter 1 Fine\n{TEXT}"] + [TEXT] * 8, raw_contents=hostile))
    budget = Budget(page_cpu_seconds=0.5, min_seconds=600)
    started = time.monotonic()
    with pytest.raises(ExtractionError) as failure:
        extract_pdf_pages(path, filename="operators.pdf", page_count=9, workers=1, budget=budget)
    elapsed = time.monotonic() - started
    assert failure.value.code == "too_complex" and "too much work" in failure.value.message
    # MAX_CPU_LIMIT_PAGES pages at ~1-2 CPU-seconds each (the soft limit's granularity), far from 600 s.
    assert elapsed < 30, elapsed


def test_one_costly_page_is_left_empty_and_the_rest_is_read(tmp_path):
    path = tmp_path / "one-bad-page.pdf"
    path.write_bytes(
        make_pdf([f"Chapter 1 Start\nFirst page. {TEXT}", TEXT, f"Last page text. {TEXT}"], raw_contents={1: _hostile_stream()})
    )
    pages = extract_pdf_pages(path, filename="one-bad-page.pdf", page_count=3, workers=1, budget=Budget(page_cpu_seconds=0.5))
    assert [page.number for page in pages] == [1, 2, 3]
    assert "First page" in pages[0].text and pages[1].text == "" and "Last page" in pages[2].text


def test_the_child_reads_a_file_it_is_handed_open(tmp_path):
    path = tmp_path / "private.pdf"
    path.write_bytes(make_pdf(["Chapter 1 Private\nOnly the parent may open this file."]))
    path.chmod(0o000)  # even root's child reads it through the descriptor it was given
    try:
        assert probe_pdf(path, filename="private.pdf") == 1
        pages = extract_pdf_pages(path, filename="private.pdf", page_count=1, workers=1)
        assert "Only the parent" in pages[0].text
    finally:
        path.chmod(0o600)


def test_children_drop_to_an_unprivileged_user_when_root_and_python_is_reachable():
    if os.geteuid() != 0:
        assert children.unprivileged_account() is None
        return
    reachable = all(directory.stat().st_mode & 0o001 for directory in Path(sys.executable).resolve().parents)
    account = children.unprivileged_account()
    if not reachable:
        # This machine's Python lives under a 0700 directory (/root/.pyenv): an unprivileged child could not
        # start, so children keep root but still get their memory and CPU limits.
        assert account is None
        return
    import pwd

    assert account == (pwd.getpwnam(children.CHILD_USER).pw_uid, pwd.getpwnam(children.CHILD_USER).pw_gid)
