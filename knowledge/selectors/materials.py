"""Materials, pages, chunk ranges and stats of the requesting user."""

from __future__ import annotations

import re
from collections.abc import Iterable

from django.db.models import BooleanField, Case, Value, When
from django.utils.translation import gettext as _

from accounts.scoping import owner_id_of
from baeum.errors import NotFound
from baeum.extraction.pages import line_kinds
from baeum.extraction.readers import HASH_HEADING_EXTENSIONS, without_heading_marks
from baeum.language.analysis import with_broken_words_joined, word_prefix
from baeum.study.curriculum import DATED_VERSION
from courses.selectors import course_get

from ..models import Chunk, Material, MaterialPage

MAX_RANGE = 500


class MaterialNotFound(NotFound):
    """No such material for this user: it does not exist or it is someone else's (never said which)."""

    def __init__(self, ref_id: str):
        super().__init__(_("No material %(refId)s in your library.") % {"refId": repr(ref_id)})
        self.ref_id = ref_id


class MaterialFileMissing(NotFound):
    """The stored original of a material is gone from storage: the learner can only upload it again."""

    code = "file_missing"

    def __init__(self, material: Material):
        super().__init__(_("The stored file of “%(name)s” is missing. Upload it again.") % {"name": material.original_filename})


def material_list(*, user, status: str | None = None, with_courses: bool = False):
    """Return the user's materials, newest first; ``with_courses``: and those of the courses they belong to
    (to read and search, never to change)."""
    materials = Material.objects.for_reader(user) if with_courses else Material.objects.for_user(user)
    return materials.filter(status=status) if status else materials


def course_materials(*, user, course_id: int, status: str | None = None):
    """The materials of a course the user teaches or belongs to, newest first (``CourseNotFound`` otherwise)."""
    course = course_get(user=user, course_id=course_id)
    materials = Material.objects.for_reader(user).filter(course=course)
    return materials.filter(status=status) if status else materials


def member_material_list(*, user):
    """The READY materials of the courses ``user`` belongs to (not their own), by course then title: what
    the Library lists under "From your courses", to read, never to change."""
    return (
        Material.objects.for_reader(user)
        .filter(course__isnull=False, status="READY")
        .exclude(owner_id=owner_id_of(user))
        .select_related("course")
        .order_by("course__title", "title")
    )


def member_materials(*, user, ref_ids: Iterable[str] | None = None) -> dict[str, int]:
    """refId → course id of the course materials ``user`` reads as a member (not their own), among
    ``ref_ids`` (all when None): what a question or a flag of theirs can tell a teacher about."""
    materials = Material.objects.for_reader(user).filter(course__isnull=False).exclude(owner_id=owner_id_of(user))
    if ref_ids is not None:
        materials = materials.filter(ref_id__in=list(ref_ids))
    return dict(materials.values_list("ref_id", "course_id"))


def access_material(*, user, ref_id: str) -> Material:
    """Return the user's material ``ref_id`` or raise ``MaterialNotFound`` (same error if not theirs): what
    they may change (rename, delete, read again)."""
    material = Material.objects.for_user(user).filter(ref_id=ref_id).first()
    if material is None:
        raise MaterialNotFound(ref_id)
    return material


def read_material(*, user, ref_id: str) -> Material:
    """Return material ``ref_id`` if the user may read it (theirs, or published in a course they belong to),
    or raise ``MaterialNotFound``: the same error whether it does not exist or is out of their reach."""
    material = Material.objects.for_reader(user).filter(ref_id=ref_id).first()
    if material is None:
        raise MaterialNotFound(ref_id)
    return material


def not_ready_message(material: Material) -> str:
    """Why ``material`` cannot be read yet, and what to do: a FAILED one will not become ready by waiting."""
    if material.status == Material.Status.FAILED:
        return _("Material %(title)s (%(refId)s) could not be read, so it cannot be used: leave it out, or upload a readable copy.") % {
            "title": material.title,
            "refId": material.ref_id,
        }
    return _("Material %(title)s (%(refId)s) is still being read (%(status)s); wait for it or leave it out.") % {
        "title": material.title,
        "refId": material.ref_id,
        "status": material.status,
    }


def materials_in_scope(*, user, ref_ids: Iterable[str] | None = None, type: str | None = None, ready_only: bool = True):
    """Return the materials the user may read (theirs and their courses') limited to ``ref_ids`` (each must
    be among them) and ``type``."""
    materials = Material.objects.for_reader(user)
    if ref_ids is not None:
        wanted = list(dict.fromkeys(ref_ids))
        found = set(materials.filter(ref_id__in=wanted).values_list("ref_id", flat=True))
        for ref_id in wanted:
            if ref_id not in found:
                raise MaterialNotFound(ref_id)
        materials = materials.filter(ref_id__in=wanted)
    if type:
        materials = materials.filter(type=type)
    if ready_only:
        materials = materials.filter(status=Material.Status.READY)
    return materials


def written_in_korean(*, user, ref_ids: Iterable[str]) -> bool | None:
    """Whether most of these materials of ``user`` are written in Korean; None when none is known."""
    flags = list(Material.objects.for_reader(user).filter(ref_id__in=list(ref_ids), korean__isnull=False).values_list("korean", flat=True))
    return sum(flags) * 2 > len(flags) if flags else None


def upgrading_materials(*, user, ref_ids: Iterable[str]) -> list[tuple[str, int | None]]:
    """The title and per cent done of each of these materials whose quality embedding is still being made in the
    background (``reembed``; None while it waits for a worker): until it switches, search matches questions across
    languages less well."""
    rows = (
        Material.objects.for_reader(user)
        .filter(ref_id__in=list(ref_ids))
        .exclude(pending_embedding_model="")
        .order_by("id")
        .values_list("title", "reembed_done", "reembed_total")
    )
    return [(title, done * 100 // total if total else None) for title, done, total in rows]


def korean_flags(*, user, ref_ids: Iterable[str]) -> set[bool | None]:
    """Whether each of these materials is written in Korean (None: not known), as a set."""
    return set(Material.objects.for_reader(user).filter(ref_id__in=list(ref_ids)).values_list("korean", flat=True))


def material_file_open(*, material: Material):
    """Open the stored original of a material (already accessed in the owner's scope) for reading in binary."""
    try:
        return material.file.open("rb")
    except (FileNotFoundError, ValueError) as error:  # ValueError: no file is attached to the row
        raise MaterialFileMissing(material) from error


def page_labels(*, user, pages: Iterable[tuple[str, int]]) -> dict[tuple[str, int], str]:
    """The number the book prints on each of ``pages`` ((refId, position) pairs) where it differs from the
    position ("vii", "7" on the 17th page); pages without one are left out. One query."""
    wanted = {(str(ref_id), int(number)) for ref_id, number in pages if number}
    if not wanted:
        return {}
    rows = (
        MaterialPage.objects.for_reader(user)
        .filter(material__ref_id__in={ref_id for ref_id, _ in wanted}, number__in={number for _, number in wanted})
        .exclude(label="")
        .values_list("material__ref_id", "number", "label")
    )
    return {(ref_id, number): label for ref_id, number, label in rows if (ref_id, number) in wanted}


def printed_pages(*, user, ref_ids: Iterable[str]) -> dict[str, dict[str, int]]:
    """For each material of ``ref_ids`` whose PDF prints page numbers of its own: {printed number: position}
    ("7" → 17), the first page that prints it. Materials without labels are left out. One query."""
    rows = (
        MaterialPage.objects.for_reader(user)
        .filter(material__ref_id__in=list(ref_ids))
        .exclude(label="")
        .order_by("number")
        .values_list("material__ref_id", "number", "label")
    )
    printed: dict[str, dict[str, int]] = {}
    for ref_id, number, label in rows:
        printed.setdefault(ref_id, {}).setdefault(label, number)
    return printed


def with_page_labels(*, user, citations: list[dict]) -> list[dict]:
    """``citations`` (dicts with refId, pageNumber, pageEnd) with ``pageLabel`` / ``pageEndLabel``: the numbers
    the book prints on those pages, where the PDF gives them (a reader finds "p. 7" in the book, not "p. 17")."""
    wanted = [(item.get("refId", ""), item.get(key) or 0) for item in citations for key in ("pageNumber", "pageEnd")]
    labels = page_labels(user=user, pages=wanted)
    labelled = []
    for item in citations:
        extra = {}
        first, last = (item.get("refId", ""), item.get("pageNumber") or 0), (item.get("refId", ""), item.get("pageEnd") or 0)
        if first in labels:
            extra["pageLabel"] = labels[first]
        if last in labels and last != first:
            extra["pageEndLabel"] = labels[last]
        labelled.append({**item, **extra})
    return labelled


def material_pages(*, user, ref_id: str, first: int = 1, last: int | None = None) -> list[MaterialPage]:
    """Return pages of one of the user's materials, for the page viewer and the tutor's source panel, their text
    as a reader sees it: a Markdown or Office heading without its "#" marks ("### Object mode" is "Object mode"),
    a Korean word broken over two of the PDF's lines one word again ("특" / "허를"). Each page carries
    ``line_kinds``, what each line of its text is (a heading, code, a list item, text), read from the passages
    that stand on it, so a viewer shows code as a block and headings as headings."""
    material = read_material(user=user, ref_id=ref_id)
    pages = MaterialPage.objects.for_reader(user).filter(material=material, number__gte=first)
    if last is not None:
        pages = pages.filter(number__lte=last)
    pages = list(pages.order_by("number"))
    if not pages:
        return pages
    chunks = (
        Chunk.objects.for_reader(user)
        .filter(material=material, page_number__lte=pages[-1].number, page_end__gte=pages[0].number)
        .values_list("content", "code_spans", "heading_spans")
    )
    headings, code = set(), set()
    for content, code_spans, heading_spans in chunks:
        headings.update(" ".join(content[span[0] : span[1]].split()) for span in heading_spans)
        code.update(" ".join(line.split()) for start, end in code_spans for line in content[start:end].split("\n"))
    for page in pages:  # read, never saved
        if material.extension in HASH_HEADING_EXTENSIONS:
            page.text = without_heading_marks(page.text)
        if material.extension == ".pdf":  # a text file breaks its lines at spaces ("파일" / "무결성을" are two words)
            page.text = with_broken_words_joined(page.text)
        page.line_kinds = line_kinds(page.text, headings=headings, code=code - {""})
    return pages


def page_lines(*, user, ref_id: str, first: int, last: int) -> list[str]:
    """The lines of pages ``first``..``last`` of one of the user's materials, as stored (a code line keeps its
    indentation there, where a chunk collapses its spaces): for a session's text and an answer's example to lay out
    a listing as written (``baeum.extraction.pages.laid_out``)."""
    material = read_material(user=user, ref_id=ref_id)
    pages = MaterialPage.objects.for_reader(user).filter(material=material, number__gte=first, number__lte=last).order_by("number")
    return [line for text in pages.values_list("text", flat=True) for line in text.split("\n")]


def chunk_range(*, user, ref_id: str, start: int, end: int) -> list[Chunk]:
    """Return the chunks of one material between two indexes (inclusive), in order."""
    material = read_material(user=user, ref_id=ref_id)
    if end < start:
        start, end = end, start
    end = min(end, start + MAX_RANGE - 1)
    return list(
        Chunk.objects.for_reader(user)
        .filter(material=material, chunk_index__gte=max(0, start), chunk_index__lte=end)
        .select_related("material")
        .order_by("chunk_index")
    )


def material_stats(*, user, ref_ids: Iterable[str]) -> dict[str, dict]:
    """Return ``{refId: {chunkCount, status, pageCount}}`` for those of ``ref_ids`` the user owns."""
    rows = Material.objects.for_reader(user).filter(ref_id__in=list(ref_ids)).values_list("ref_id", "chunk_count", "status", "page_count")
    return {ref_id: {"chunkCount": chunks, "status": status, "pageCount": pages} for ref_id, chunks, status, pages in rows}


def chunk_outline(*, user, ref_id: str) -> list[dict]:
    """Return the chunk metadata of one material in order (no text): index, tokens, pages, section."""
    from django.db.models.functions import Length

    material = read_material(user=user, ref_id=ref_id)
    return list(
        Chunk.objects.for_reader(user)
        .filter(material=material)
        .order_by("chunk_index")
        .annotate(
            content_length=Length("content"),
            release_entry=Case(
                When(content__regex=DATED_VERSION.pattern, then=Value(True)), default=Value(False), output_field=BooleanField()
            ),
        )
        .values(
            "chunk_index",
            "token_count",
            "overlap_chars",
            "content_length",
            "page_number",
            "page_end",
            "section_level",
            "section_title",
            "matter",
            "release_entry",
        )
    )


def chunk_vectors(*, user, ref_id: str):
    """Return the material's chunk vectors (its current model) in chunk order, as a numpy array."""
    import numpy as np

    from ..models import ChunkEmbedding

    material = read_material(user=user, ref_id=ref_id)
    rows = (
        ChunkEmbedding.objects.for_reader(user)
        .filter(material=material, model=material.embedding_model)
        .order_by("chunk__chunk_index")
        .values_list("embedding", flat=True)
    )
    vectors = [np.asarray(vector, dtype=np.float32) for vector in rows]
    return np.vstack(vectors) if vectors else None


def term_document_frequencies(*, user, ref_ids: Iterable[str], terms: Iterable[str]) -> tuple[dict[str, int], int]:
    """Return ``({term: number of chunks containing it}, number of chunks)`` over the user's materials."""
    from django.db.models import Count

    from ..models import ChunkTerm

    materials = Material.objects.for_reader(user).filter(ref_id__in=list(ref_ids))
    total = Chunk.objects.for_reader(user).filter(material__in=materials).count()
    rows = (
        ChunkTerm.objects.for_reader(user)
        .filter(material__in=materials, term__in=list(set(terms)))
        .values("term")
        .annotate(df=Count("id"))
        .values_list("term", "df")
    )
    return dict(rows), total


def pairs_found(*, user, ref_ids: Iterable[str], pairs: Iterable[tuple[str, str]]) -> set[tuple[str, str]]:
    """The pairs of words (as a question writes them) that stand side by side in the user's materials, in
    any case and number: ("Fibonacci", "heap") is found in "… Fibonacci heaps …", not in "Fibonacci numbers
    … a heap"."""
    materials = Material.objects.for_reader(user).filter(ref_id__in=list(ref_ids))
    found = set()
    for first, second in pairs:
        parts = [re.escape(word_prefix(word)).replace("\\-", "-") for word in (first, second)]
        pattern = rf"\m{parts[0]}\w*[\s-]+{parts[1]}"
        if Chunk.objects.for_reader(user).filter(material__in=materials, content__iregex=pattern).exists():
            found.add((first, second))
    return found
