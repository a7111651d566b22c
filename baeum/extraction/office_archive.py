"""An Office or Hancom archive checked before any part of it is parsed (no Django imports), in the reader child.

These formats are zip archives of XML: too many entries, too much uncompressed data or an entry compressed
like a bomb is refused, and so is any XML part that declares a DTD (the door to entity expansion and
external entities; Office and Hancom never write one). ``classify`` says what the archive really is.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from xml.etree import ElementTree

DOCX = "docx"
PPTX = "pptx"
HWPX = "hwpx"


@dataclass(frozen=True)
class ArchiveLimits:
    """What a zip may hold before it is refused unread (zip bombs, and files too big to parse in memory)."""

    # The largest real decks (500 slides with notes and media) have ~3,000 parts; a bomb made of millions of
    # tiny entries costs memory for its directory alone.
    max_entries: int = 10_000
    # 5x the 50 MiB upload cap: media is stored about 1:1 and XML inflates ~10-30x, so real files stay well
    # below, and python-docx/python-pptx hold every part in memory.
    max_uncompressed_bytes: int = 256 * 1024 * 1024
    # Parsed XML costs 6x its size (prose: a 7 MB document.xml of 40,000 paragraphs, +41 MB RSS) to 17x (many
    # tiny runs: 17 MB, 300 MB peak); 64 MiB of XML fits the child's 1.5 GiB budget and is ~9x that prose book.
    max_xml_bytes: int = 64 * 1024 * 1024
    # Generated, very repetitive Word XML measured 28x; deflate tops out near 1,030x, which is what a
    # bomb entry (megabytes of one repeated byte) shows.
    max_compression_ratio: int = 200
    # Entries smaller than this are not ratio-checked: they cannot hurt alone and the total is capped.
    ratio_grace_bytes: int = 1024 * 1024


SCAN_CHUNK_BYTES = 1024 * 1024  # read parts in pieces while checking them, never whole
_DOCTYPE_MARKERS = tuple("<!DOCTYPE".encode(encoding) for encoding in ("utf-8", "utf-16-le", "utf-16-be"))
_MARKER_OVERLAP = max(len(marker) for marker in _DOCTYPE_MARKERS)  # a marker may straddle two pieces
_ZIP_ENCRYPTED_FLAG = 0x1  # general purpose bit 0: the entry is encrypted (a password-protected zip)


class Refused(Exception):
    """The file is refused for a reason the parent turns into a learner-facing message."""

    def __init__(self, code: str, detail: str = ""):
        super().__init__(detail)
        self.code = code
        self.detail = detail


def check_archive(archive: zipfile.ZipFile, limits: ArchiveLimits = ArchiveLimits()) -> None:
    """Refuse a zip that is encrypted, a bomb, or carries XML with a DTD, before any part is parsed.

    Declared sizes can be trusted as bounds: zipfile never inflates an entry past its declared size, and a
    lie about it fails the CRC check (``BadZipFile``), which reads as malformed.
    """
    entries = archive.infolist()
    if len(entries) > limits.max_entries:
        raise Refused("too_complex", f"{len(entries):,} parts; the limit is {limits.max_entries:,}")
    if any(entry.flag_bits & _ZIP_ENCRYPTED_FLAG for entry in entries):
        raise Refused("encrypted")
    total = sum(entry.file_size for entry in entries)
    if total > limits.max_uncompressed_bytes:
        raise Refused("too_complex", f"{total // 2**20:,} MiB uncompressed; the limit is {limits.max_uncompressed_bytes // 2**20} MiB")
    for entry in entries:
        ratio = entry.file_size / max(entry.compress_size, 1)
        if entry.file_size > limits.ratio_grace_bytes and ratio > limits.max_compression_ratio:
            raise Refused("too_complex", f"a part compressed {ratio:,.0f} to 1")
    xml_bytes = 0
    for entry in entries:
        if _scan_part(archive, entry):
            xml_bytes += entry.file_size
            if xml_bytes > limits.max_xml_bytes:
                raise Refused("too_complex", f"over {limits.max_xml_bytes // 2**20} MiB of XML")


def _looks_like_xml(head: bytes) -> bool:
    return head.lstrip(b" \t\r\n\x00\xef\xbb\xbf\xff\xfe").startswith(b"<")


def _scan_part(archive: zipfile.ZipFile, entry: zipfile.ZipInfo) -> bool:
    """Return whether the part is XML, refusing one that declares a DTD; inflate it piece by piece."""
    with archive.open(entry) as stream:
        chunk = stream.read(SCAN_CHUNK_BYTES)
        if not _looks_like_xml(chunk):
            return False
        tail = b""
        while chunk:
            window = tail + chunk
            if any(marker in window for marker in _DOCTYPE_MARKERS):
                raise Refused("malformed", f"{entry.filename} declares a DTD, which Office and Hangul files never do")
            tail = window[-_MARKER_OVERLAP:]
            chunk = stream.read(SCAN_CHUNK_BYTES)
    return True


class _NoDoctype(ElementTree.TreeBuilder):
    """A tree builder that stops at ``<!DOCTYPE``, before expat reads any entity declaration (as defusedxml does)."""

    def doctype(self, name, pubid, system):
        raise Refused("malformed", "XML with a DTD")


def parse_xml(data: bytes) -> ElementTree.Element:
    """Parse XML that may come from a hostile file: no DTD, hence no entity expansion and no external entities."""
    parser = ElementTree.XMLParser(target=_NoDoctype())  # noqa: S314 - this is the defusedxml guard, done by hand
    parser.feed(data)
    return parser.close()


def local(element) -> str:
    """Return an element's tag without its namespace (OWPML has 2011 and 2024 namespaces for the same tags)."""
    tag = element.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


_OOXML_FAMILIES = (
    ("wordprocessingml.document.main+xml", DOCX),
    ("wordprocessingml", "word-variant"),
    ("ms-word", "word-variant"),
    ("presentationml.presentation.main+xml", PPTX),
    ("ms-powerpoint.presentation.macroenabled.main+xml", PPTX),  # .pptm: python-pptx reads it, macros are never run
    ("presentationml", "powerpoint-variant"),
    ("ms-powerpoint", "powerpoint-variant"),
    ("spreadsheetml", "xlsx"),
    ("ms-excel", "xlsx"),
)
_OFFICE_DOCUMENT = "/officeDocument"  # the package relationship that points at the main part
_HWPX_MIMETYPE = b"application/hwp+zip"
_MIMETYPE_BYTES = 100  # a mimetype entry is one short line


def classify(archive: zipfile.ZipFile) -> str:
    """Return what the zip is: docx, pptx, hwpx, word-variant, powerpoint-variant, xlsx, odf or zip."""
    names = set(archive.namelist())
    if "mimetype" in names:
        with archive.open("mimetype") as stream:
            mimetype = stream.read(_MIMETYPE_BYTES).strip()
        if mimetype == _HWPX_MIMETYPE:
            return HWPX
        if mimetype.startswith(b"application/vnd.oasis.opendocument"):
            return "odf"
    if "[Content_Types].xml" in names and "_rels/.rels" in names:
        return _ooxml_kind(archive, _main_content_type(archive).lower())
    if "Contents/header.xml" in names and "Contents/section0.xml" in names:
        return HWPX  # written without its mimetype entry
    return "zip"


def _ooxml_kind(archive: zipfile.ZipFile, content_type: str) -> str:
    for marker, kind in _OOXML_FAMILIES:
        if marker in content_type:
            return kind
    return "zip"


def _main_content_type(archive: zipfile.ZipFile) -> str:
    """Return the content type of the part the package relationship calls the office document."""
    relationships = parse_xml(archive.read("_rels/.rels"))
    targets = [rel.get("Target", "") for rel in relationships if rel.get("Type", "").endswith(_OFFICE_DOCUMENT)]
    if not targets:
        raise Refused("malformed", "no main document part")
    part_name = "/" + targets[0].lstrip("/")
    types = parse_xml(archive.read("[Content_Types].xml"))
    for item in types:
        if local(item) == "Override" and item.get("PartName", "").lower() == part_name.lower():
            return item.get("ContentType", "")
    extension = part_name.rpartition(".")[2].lower()
    for item in types:
        if local(item) == "Default" and item.get("Extension", "").lower() == extension:
            return item.get("ContentType", "")
    return ""


def _hwpx_is_encrypted(archive: zipfile.ZipFile) -> bool:
    """A password-protected HWPX keeps its parts AES-encrypted and lists them in META-INF/manifest.xml."""
    for name in archive.namelist():
        if name.lower() == "meta-inf/manifest.xml":
            manifest = parse_xml(archive.read(name))
            return any(local(element) == "encryption-data" for element in manifest.iter())
    return False
