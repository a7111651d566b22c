"""Tiny PDF writer for test fixtures: real PDFs with a text layer in any script, made in memory.

Text is written with a Type0 font (Identity-H) whose character codes are the Unicode code points, and
a ToUnicode map, so PDFium (and pypdf) extract exactly the text given (Korean included). Glyphs are not
embedded: these files are for extraction, not for looking at.
"""

from __future__ import annotations

import io
import zlib

# With ``word_gaps``, words are set apart by moving the pen (a TJ offset in thousandths of an em), as TeX and
# most typesetters do, not by space glyphs; -201 is what pcasm-book-korean.pdf uses. The space glyph is made
# wider than that gap, as in real fonts, so a reader that measures gaps against it glues the words (pypdf
# 7.1 does, PDFium does not): the fixture for word spacing.
WORD_GAP = -201
GAPPED_SPACE_WIDTH = b" /W [32 [500]]"


def _escape_hex(text: str) -> str:
    return "".join(f"{ord(char):04X}" for char in text if ord(char) <= 0xFFFF)


def _to_unicode_cmap() -> bytes:
    ranges = "\n".join(f"<{high:02X}00> <{high:02X}FF> <{high:02X}00>" for high in range(0x100) if not 0xD8 <= high <= 0xDF)
    return (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Baeum-UCS def /CMapType 2 def\n"
        "1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
        f"{0x100 - 8} beginbfrange\n{ranges}\nendbfrange\n"
        "endcmap CMapName currentdict /CMap defineresource pop end end\n"
    ).encode()


def make_pdf(pages: list[str], *, blank_pages: int = 0, word_gaps: bool = False, raw_contents: dict[int, bytes] | None = None) -> bytes:
    """Return a PDF whose pages hold ``pages`` (lines split on newlines), then ``blank_pages`` empty ones.

    ``word_gaps`` sets words apart by pen moves instead of space glyphs (see ``WORD_GAP``).
    ``raw_contents`` maps a 0-based page index to an already Flate-compressed content stream that replaces
    the page's own, for hostile pages (a decompression bomb on one page of a good book).
    """
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    cmap = _to_unicode_cmap()
    cmap_id = add(b"<< /Length %d >>\nstream\n" % len(cmap) + cmap + b"\nendstream")
    widths = GAPPED_SPACE_WIDTH if word_gaps else b""
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /BaeumSans /CIDToGIDMap /Identity "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600%s >>" % widths
    )
    font_id = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /BaeumSans /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (descendant, cmap_id)
    )
    # /F2: the same glyphs under a typewriter font's name, for code in ``raw_contents`` pages.
    mono_descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /BaeumMono /CIDToGIDMap /Identity "
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 600 >>"
    )
    mono_id = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /BaeumMono /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (mono_descendant, cmap_id)
    )
    pages_id_placeholder = len(objects) + 1
    objects.append(b"")  # the Pages object, filled in below
    page_ids: list[int] = []
    for index, text in enumerate([*pages, *[""] * blank_pages]):
        lines = text.split("\n")
        commands = ["BT", "/F1 11 Tf", "14 TL", "56 790 Td"]
        for line in lines:
            if word_gaps:
                commands.append("[" + f" {WORD_GAP} ".join(f"<{_escape_hex(word)}>" for word in line.split(" ")) + "] TJ T*")
            else:
                commands.append(f"<{_escape_hex(line)}> Tj T*")
        commands.append("ET")
        if not text:
            commands = ["0.9 g 56 56 480 700 re f"]  # something drawn, no text: like a scan
        stream = (raw_contents or {}).get(index) or zlib.compress("\n".join(commands).encode())
        content_id = add(b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream")
        page_ids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> >> "
                b"/Contents %d 0 R >>" % (pages_id_placeholder, font_id, mono_id, content_id)
            )
        )
    kids = b" ".join(b"%d 0 R" % page_id for page_id in page_ids)
    objects[pages_id_placeholder - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, len(page_ids))
    catalog = add(b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id_placeholder)

    out = io.BytesIO()
    out.write(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n" % number + body + b"\nendobj\n")
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, catalog, xref))
    return out.getvalue()


def encrypt_pdf(data: bytes, *, user_password: str, owner_password: str = "owner") -> bytes:
    """Return ``data`` encrypted with AES-256 (an empty ``user_password`` opens without asking)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.encrypt(user_password=user_password, owner_password=owner_password, algorithm="AES-256")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_title(data: bytes, title: str) -> bytes:
    """Return ``data`` with ``title`` in its document information (the metadata a PDF's /Title carries)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.add_metadata({"/Title": title})
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_page_labels(data: bytes, front_pages: int) -> bytes:
    """Return ``data`` numbered as a book is: its first ``front_pages`` pages i, ii, …, the rest 1, 2, …"""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    writer.set_page_label(0, front_pages - 1, style="/r", start=1)
    writer.set_page_label(front_pages, len(writer.pages) - 1, style="/D", start=1)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def with_outline(data: bytes, entries: list[tuple[int, str, int]]) -> bytes:
    """Return ``data`` with bookmarks: ``(level, title, page)`` in order, 1-based pages, level 0 outermost
    (an entry nests under the last one listed a level up)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(data)))
    parents: dict[int, object] = {}
    for level, title, page in entries:
        parents[level] = writer.add_outline_item(title, page - 1, parent=parents.get(level - 1))
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()
