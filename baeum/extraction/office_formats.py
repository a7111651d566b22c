"""The text of a .pptx, .docx or .hwpx file, as pages (no Django imports), in the reader child.

A slide is a page; a document is cut into virtual pages of about ``TEXT_PAGE_CHARS`` at paragraph
boundaries, and an explicit page break starts a new one. Headings become Markdown ``#`` lines, list items
``- `` lines (two spaces per level), table rows ``cell | cell`` lines, header row first. python-docx and
python-pptx parse with lxml without resolving entities; HWPX is parsed here with ElementTree.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass

from baeum.extraction.office_archive import Refused, _hwpx_is_encrypted, local, parse_xml
from baeum.extraction.readers import split_text_pages

BULLET_INDENT = "  "  # per list level, so nesting survives as Markdown
ROW_BAND_EMU = 914400 // 4  # shapes whose tops differ by less than a quarter inch read as one row, left to right


def paginate(sections: list[list[str]]) -> list[str]:
    """Cut blocks into virtual pages near ``TEXT_PAGE_CHARS``; each section (between page breaks) starts a page."""
    pages: list[str] = []
    for blocks in sections:
        text = "\n\n".join(block for block in blocks if block.strip())
        if text:
            pages.extend(page.text for page in split_text_pages(text))
    return pages


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _table_block(rows: list[list[str]]) -> str:
    """Render rows in order (a header row is the first one) as ``a | b`` lines, dropping empty rows."""
    return "\n".join(" | ".join(cells) for cells in rows if any(cells))


def _list_line(text: str, level: int) -> str:
    return f"{BULLET_INDENT * level}- {_one_line(text)}"


def _heading_line(text: str, level: int) -> str:
    return f"{'#' * max(1, min(level, 6))} {_one_line(text)}"


def pptx_pages(path: str) -> list[str]:
    """Return one text per slide, in order: title heading, body in reading order, tables, then notes."""
    from pptx import Presentation

    return [_slide_text(slide) for slide in Presentation(path).slides]


def _slide_text(slide) -> str:
    blocks: list[str] = []
    title = slide.shapes.title
    title_id = title.shape_id if title is not None else None
    if title is not None and _one_line(title.text_frame.text):
        blocks.append(_heading_line(title.text_frame.text, 1))
    for shape in _reading_order(slide.shapes):
        if shape.shape_id != title_id:
            blocks.extend(_shape_blocks(shape))
    if slide.has_notes_slide:
        notes = slide.notes_slide.notes_text_frame
        if notes is not None and notes.text.strip():
            blocks.append("Notes:\n" + notes.text.strip().replace("\v", "\n"))
    return "\n\n".join(block for block in blocks if block)


def _reading_order(shapes) -> list:
    """Sort shapes top to bottom, then left to right within a band (a row of side-by-side boxes)."""
    return sorted(shapes, key=lambda shape: ((shape.top or 0) // ROW_BAND_EMU, shape.left or 0))


def _shape_blocks(shape) -> list[str]:
    from pptx.shapes.group import GroupShape

    if isinstance(shape, GroupShape):
        return [block for child in _reading_order(shape.shapes) for block in _shape_blocks(child)]
    if getattr(shape, "has_table", False):
        rows = [[_one_line(cell.text) for cell in row.cells if not cell.is_spanned] for row in shape.table.rows]
        return [_table_block(rows)]
    if shape.has_text_frame and not _is_running_placeholder(shape):
        return [_text_frame_block(shape)]
    return []


def _placeholder_type(shape):
    return shape.placeholder_format.type if shape.is_placeholder else None


def _is_running_placeholder(shape) -> bool:
    """Date, footer and slide-number placeholders repeat on every slide; they are not content."""
    from pptx.enum.shapes import PP_PLACEHOLDER

    return _placeholder_type(shape) in (PP_PLACEHOLDER.DATE, PP_PLACEHOLDER.FOOTER, PP_PLACEHOLDER.SLIDE_NUMBER)


def _text_frame_block(shape) -> str:
    lines = []
    for paragraph in shape.text_frame.paragraphs:
        text = paragraph.text.strip()
        if not text:
            continue
        if _is_bulleted(shape, paragraph):
            lines.append(_list_line(text, paragraph.level))
        else:
            lines.append(text.replace("\v", "\n"))
    return "\n".join(lines)


def _is_bulleted(shape, paragraph) -> bool:
    """A paragraph's own bullet setting wins; otherwise body placeholders are bulleted and text boxes are not.

    (What a placeholder inherits from its layout and master is not resolved; body placeholders are bulleted
    in every built-in layout.) python-pptx has no public bullet API, hence ``_p``.
    """
    from pptx.enum.shapes import PP_PLACEHOLDER
    from pptx.oxml.ns import qn

    properties = paragraph._p.pPr
    if properties is not None:
        if properties.find(qn("a:buNone")) is not None:
            return False
        if properties.find(qn("a:buChar")) is not None or properties.find(qn("a:buAutoNum")) is not None:
            return True
    return _placeholder_type(shape) in (PP_PLACEHOLDER.BODY, PP_PLACEHOLDER.OBJECT)


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"  # a copy of the Choice beside it
_WRAPPERS = {_W + "sdt", _W + "sdtContent", _W + "customXml", _W + "smartTag"}  # content controls around blocks
_HEADING_STYLE = re.compile(r"^(?:heading|제목)\s*([1-9])$", re.IGNORECASE)
_TITLE_STYLES = {"title", "제목"}
_LIST_STYLE = re.compile(r"^list (?:bullet|number)(?:\s+([2-9]))?$", re.IGNORECASE)
_BODY_OUTLINE_LEVEL = 9  # w:outlineLvl 9 means "body text"; 0-8 are outline (heading) levels


@dataclass(frozen=True)
class _StyleInfo:
    heading_level: int = 0
    list_level: int | None = None
    page_break_before: bool = False


def docx_sections(path: str) -> list[list[str]]:
    """Return the document's blocks in body order, split into sections at explicit page breaks."""
    import docx

    document = docx.Document(path)
    styles = _docx_styles(document)
    sections: list[list[str]] = [[]]
    for element in _children(document.element.body):
        if element.tag == _W + "tbl":
            sections[-1].append(_docx_table(element))
        elif element.tag == _W + "p":
            _add_docx_paragraph(element, styles, sections)
    return sections


def _children(element):
    """Yield block children (paragraphs, tables, rows, cells), looking through content-control wrappers."""
    for child in element:
        if child.tag in _WRAPPERS:
            yield from _children(child)
        else:
            yield child


def _docx_styles(document) -> dict[str, _StyleInfo]:
    """Map each paragraph style id to its heading level, list level and page-break-before, inherited along basedOn."""
    from docx.enum.style import WD_STYLE_TYPE

    styles: dict[str, _StyleInfo] = {}
    for style in document.styles:
        if style.type != WD_STYLE_TYPE.PARAGRAPH:
            continue
        chain = [style]
        while chain[-1].base_style is not None and len(chain) < 10:  # basedOn loops exist in damaged files
            chain.append(chain[-1].base_style)
        styles[style.style_id] = _style_info(chain)
    default = document.styles.default(WD_STYLE_TYPE.PARAGRAPH)
    styles[""] = styles.get(default.style_id, _StyleInfo()) if default is not None else _StyleInfo()
    return styles


def _style_info(chain) -> _StyleInfo:
    """Resolve one style from itself and its ancestors (nearest first)."""
    heading = 0
    for style in chain:
        heading = _heading_from_name(style.name or "") or _outline_level(style.element.find(_W + "pPr"))
        if heading:
            break
    list_level = None
    for style in chain:
        list_level = _style_list_level(style)
        if list_level is not None:
            break
    page_break = any(_flag(style.element.find(_W + "pPr"), "pageBreakBefore") for style in chain)
    return _StyleInfo(heading, list_level if list_level is not None and list_level >= 0 else None, page_break)


def _style_list_level(style) -> int | None:
    """Return the list level a style gives its paragraphs (-1: numbering switched off), or None.

    Word's "List Bullet 2" points at a one-level list indented like level 2, so its level is in its name.
    """
    numbered = _numbering_level(style.element.find(_W + "pPr"), default_level=None)
    match = _LIST_STYLE.match(style.name or "")
    named = int(match.group(1) or 1) - 1 if match else None
    if numbered is None or (numbered == 0 and named):
        return named
    return numbered


def _heading_from_name(name: str) -> int:
    match = _HEADING_STYLE.match(name.strip())
    if match:
        return int(match.group(1))
    return 1 if name.strip().lower() in _TITLE_STYLES else 0


def _outline_level(properties) -> int:
    outline = properties.find(_W + "outlineLvl") if properties is not None else None
    if outline is None:
        return 0
    value = int(outline.get(_W + "val", _BODY_OUTLINE_LEVEL))
    return value + 1 if value < _BODY_OUTLINE_LEVEL else 0


def _numbering_level(properties, *, default_level: int | None) -> int | None:
    """Return the list level of ``w:numPr`` (-1 when numbering is switched off with numId 0), else ``default_level``."""
    numbering = properties.find(_W + "numPr") if properties is not None else None
    if numbering is None:
        return default_level
    number_id = numbering.find(_W + "numId")
    if number_id is not None and number_id.get(_W + "val") == "0":
        return -1
    level = numbering.find(_W + "ilvl")
    return int(level.get(_W + "val", "0")) if level is not None else 0


def _flag(properties, name: str) -> bool:
    element = properties.find(_W + name) if properties is not None else None
    return element is not None and element.get(_W + "val", "true") not in ("0", "false", "off")


def _add_docx_paragraph(paragraph, styles: dict[str, _StyleInfo], sections: list[list[str]]) -> None:
    """Append the paragraph's text (as heading, list item or plain), starting new sections at its page breaks."""
    properties = paragraph.find(_W + "pPr")
    style_id = ""
    if properties is not None and properties.find(_W + "pStyle") is not None:
        style_id = properties.find(_W + "pStyle").get(_W + "val", "")
    style = styles.get(style_id, styles.get("", _StyleInfo()))
    if (_flag(properties, "pageBreakBefore") or style.page_break_before) and sections[-1]:
        sections.append([])
    pieces, nested = _docx_text(paragraph)
    heading = _outline_level(properties) or style.heading_level
    list_level = _numbering_level(properties, default_level=style.list_level)
    for position, piece in enumerate(pieces):
        if position:
            sections.append([])
        if not piece.strip():
            continue
        if position == 0 and heading:
            sections[-1].append(_heading_line(piece, heading))
        elif position == 0 and list_level is not None and list_level >= 0:
            sections[-1].append(_list_line(piece, list_level))
        else:
            sections[-1].append(piece.strip())
    for element in nested:  # text boxes anchored in the paragraph
        if element.tag == _W + "tbl":
            sections[-1].append(_docx_table(element))
        else:
            _add_docx_paragraph(element, styles, sections)


def _docx_text(paragraph) -> tuple[list[str], list]:
    """Return the paragraph's own text cut at page breaks, and the paragraphs and tables nested in it (text boxes)."""
    pieces: list[list[str]] = [[]]
    nested: list = []

    def walk(element) -> None:
        for child in element:
            tag = child.tag
            if tag == _W + "t":
                pieces[-1].append(child.text or "")
            elif tag == _W + "tab":
                pieces[-1].append("\t")
            elif tag in (_W + "cr", _W + "br"):
                if child.get(_W + "type") == "page":
                    pieces.append([])
                else:
                    pieces[-1].append("\n")
            elif tag == _W + "noBreakHyphen":
                pieces[-1].append("-")
            elif tag in (_W + "p", _W + "tbl"):
                nested.append(child)
            elif tag != _FALLBACK:
                walk(child)

    walk(paragraph)
    return ["".join(piece) for piece in pieces], nested


def _docx_table(table) -> str:
    rows = []
    for row in _children(table):
        if row.tag == _W + "tr":
            rows.append([_docx_cell_text(cell) for cell in _children(row) if cell.tag == _W + "tc"])
    return _table_block(rows)


def _docx_cell_text(cell) -> str:
    return _one_line(" ".join(" ".join(_docx_text(paragraph)[0]) for paragraph in cell.iter(_W + "p")))


_SECTION_NAME = re.compile(r"^Contents/section(\d+)\.xml$")
_HWPX_INLINE = {"tab": "\t", "lineBreak": "\n", "nbSpace": " ", "fwSpace": " ", "hyphen": "-"}
_HWPX_SKIPPED = {"ctrl", "secPr", "linesegarray"}  # headers, footers, footnotes and layout data, not body text


@dataclass(frozen=True)
class _HwpxHeading:
    kind: str  # OUTLINE (a heading), NUMBER or BULLET (a list item)
    level: int  # 0-based, as OWPML stores it


def hwpx_sections(archive: zipfile.ZipFile) -> list[list[str]]:
    """Return the blocks of every Contents/section*.xml in section order, split at page breaks."""
    if _hwpx_is_encrypted(archive):
        raise Refused("encrypted")
    names = sorted((int(match.group(1)), name) for name in archive.namelist() if (match := _SECTION_NAME.match(name)))
    if not names:
        raise Refused("malformed", "no Contents/section0.xml")
    headings = _hwpx_headings(archive)
    sections: list[list[str]] = [[]]
    for _, name in names:
        for paragraph in parse_xml(archive.read(name)):
            if local(paragraph) == "p":
                _add_hwpx_paragraph(paragraph, headings, sections)
    return sections


def _hwpx_headings(archive: zipfile.ZipFile) -> dict[str, _HwpxHeading]:
    """Map paragraph-shape ids (paraPrIDRef) to their outline or list setting, from Contents/header.xml."""
    if "Contents/header.xml" not in archive.namelist():
        return {}
    headings = {}
    for shape in parse_xml(archive.read("Contents/header.xml")).iter():
        if local(shape) != "paraPr":
            continue
        for child in shape:
            if local(child) == "heading" and child.get("type", "NONE") != "NONE":
                headings[shape.get("id", "")] = _HwpxHeading(child.get("type", ""), int(child.get("level", "0")))
    return headings


def _add_hwpx_paragraph(paragraph, headings: dict[str, _HwpxHeading], sections: list[list[str]]) -> None:
    if paragraph.get("pageBreak") == "1" and sections[-1]:
        sections.append([])
    text, nested = _hwpx_text(paragraph)
    heading = headings.get(paragraph.get("paraPrIDRef", ""))
    if text.strip():
        if heading is not None and heading.kind == "OUTLINE":
            sections[-1].append(_heading_line(text, heading.level + 1))
        elif heading is not None:
            sections[-1].append(_list_line(text, heading.level))
        else:
            sections[-1].append(text.strip())
    for element in nested:
        if local(element) == "tbl":
            sections[-1].append(_hwpx_table(element))
        else:
            _add_hwpx_paragraph(element, headings, sections)


def _hwpx_text(paragraph) -> tuple[str, list]:
    """Return the text of the paragraph's runs, and the tables and text-box paragraphs nested in them."""
    parts: list[str] = []
    nested: list = []
    for run in paragraph:
        if local(run) != "run":
            continue
        for child in run:
            name = local(child)
            if name == "t":
                parts.append(_hwpx_t(child))
            elif name == "tbl":
                nested.append(child)
            elif name not in _HWPX_SKIPPED:
                nested.extend(_inner_paragraphs(child))
    return "".join(parts), nested


def _hwpx_t(element) -> str:
    parts = [element.text or ""]
    for child in element:
        parts.append(_HWPX_INLINE.get(local(child), ""))
        parts.append(child.tail or "")
    return "".join(parts)


def _inner_paragraphs(element) -> list:
    """Paragraphs inside a drawing object (text boxes), skipping a switch's default copy of its case."""
    found = []
    for child in element:
        name = local(child)
        if name == "p":
            found.append(child)
        elif name not in _HWPX_SKIPPED and not (name == "default" and local(element) == "switch"):
            found.extend(_inner_paragraphs(child))
    return found


def _hwpx_table(table) -> str:
    rows = []
    for row in table:
        if local(row) == "tr":
            rows.append([_hwpx_cell_text(cell) for cell in row if local(cell) == "tc"])
    return _table_block(rows)


def _hwpx_cell_text(cell) -> str:
    return _one_line(" ".join(_hwpx_text(paragraph)[0] for paragraph in cell.iter() if local(paragraph) == "p"))
