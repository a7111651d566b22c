"""One way in to the user's chunks: a ``Scope`` says which materials (and which chunks of them) are read,
and three siblings read them — ``retrieve`` (search: hybrid, semantic or lexical), ``retrieve_chunks``
(the chunks of the scope's ranges, in order) and ``retrieve_stats`` (chunk counts and status).

Chat, plan generation, study sessions and the search API all call these with a ``Scope``; none of
them filters hits afterwards. Chunk ranges are a condition of the SQL statements themselves
(``search._Scope.with_ranges``), and every read is the owner's only: no user is ``ScopeError``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import NamedTuple

from django.db.models import Q

from accounts.scoping import owner_id_of

from ..models import Chunk
from .materials import material_stats, materials_in_scope
from .search import TOP_K, SearchHit, chunk_search

# A study session's conversation reads a short range: three passages of it, not five (the tutor's
# answers there stay on the session's pages; chosen with the study-session tests, not measured wider).
SESSION_TOP_K = 3


class ChunkRange(NamedTuple):
    """Consecutive chunks of one material: chunk indexes ``start`` to ``end``, both included."""

    ref_id: str
    start: int
    end: int

    @classmethod
    def from_dict(cls, item: dict) -> ChunkRange:
        """Read ``{"refId", "start", "end"}`` (how a conversation keeps its session's ranges)."""
        return cls(str(item["refId"]), int(item["start"]), int(item["end"]))

    def as_dict(self) -> dict:
        return {"refId": self.ref_id, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class Scope:
    """Which of a user's materials a retrieval reads.

    ``ref_ids`` None is "every material of the user", as the library is when the retrieval runs (one
    uploaded later included); a tuple is those materials (each must be the user's: someone else's
    refId is "not found"); an empty tuple reads nothing. ``ranges`` narrow a material they name to
    those chunks; a material without ranges is read whole.
    """

    ref_ids: tuple[str, ...] | None = None
    type: str | None = None
    ranges: tuple[ChunkRange, ...] = ()

    @classmethod
    def library(cls, *, type: str | None = None) -> Scope:
        """Every material of the user (optionally of one ``type``)."""
        return cls(ref_ids=None, type=type or None)

    @classmethod
    def materials(cls, ref_ids: Iterable[str], *, type: str | None = None) -> Scope:
        """These materials, whole."""
        return cls(ref_ids=tuple(dict.fromkeys(ref_ids)), type=type or None)

    @classmethod
    def within(cls, ranges: Iterable[ChunkRange | tuple[str, int, int]]) -> Scope:
        """Only the chunks inside ``ranges`` (of their materials, and nothing else)."""
        ordered = tuple(ChunkRange(str(ref_id), *sorted((int(start), int(end)))) for ref_id, start, end in ranges)
        return cls(ref_ids=tuple(dict.fromkeys(item.ref_id for item in ordered)), ranges=ordered)

    @property
    def is_everything(self) -> bool:
        return self.ref_ids is None

    @property
    def is_empty(self) -> bool:
        return self.ref_ids is not None and not self.ref_ids

    def narrowed_to(self, ref_ids: Iterable[str]) -> Scope:
        """This scope limited to ``ref_ids`` (the materials still in the library, or those a question names)."""
        kept = list(dict.fromkeys(ref_ids))
        chosen = tuple(kept) if self.ref_ids is None else tuple(ref_id for ref_id in self.ref_ids if ref_id in kept)
        return replace(self, ref_ids=chosen, ranges=tuple(item for item in self.ranges if item.ref_id in chosen))


# With one hit per page, this many times k chunks are read to find k pages (a page holds 1-4 chunks);
# when they hold fewer pages, once more as many times that (a long page of one topic).
PAGE_HITS_FETCH = 3


def retrieve(*, user, scope: Scope, query: str, k: int = TOP_K, mode: str = "hybrid", per_page: bool = False, **options) -> list[SearchHit]:
    """Return the user's best ``k`` chunks for ``query`` within ``scope``, best first.

    ``mode`` is hybrid (the default everywhere), semantic or lexical; ``options`` are the mode's own
    (hybrid: ``candidates``, ``reranker``, ``llm``, ``alpha``; semantic: ``min_similarity``).
    ``per_page``: the best chunk of each page only, ``k`` hits on different pages (a results list a learner
    reads: three chunks of one page are one place to look, not three). The tutor reads chunks, neighbours included.
    """
    owner_id_of(user)  # no user: ScopeError before anything is read
    if scope.is_empty:
        return []

    def search(fetch: int) -> list[SearchHit]:
        return chunk_search(
            user=user, query=query, mode=mode, k=fetch, ref_ids=scope.ref_ids, type=scope.type, ranges=scope.ranges, **options
        )

    if not per_page:
        return search(k)
    fetch = k * PAGE_HITS_FETCH
    hits = search(fetch)
    pages = _best_of_each_page(hits)
    if len(pages) < k and len(hits) == fetch:  # more chunks exist: read further for more pages
        pages = _best_of_each_page(search(fetch * PAGE_HITS_FETCH))
    return pages[:k]


def _best_of_each_page(hits: list[SearchHit]) -> list[SearchHit]:
    """The hits, best first, without any whose pages better hits of the same material already show all
    of (a passage on pages 159–160, then one on page 160: one place to look; one on 160–161 still adds 161)."""
    kept: list[SearchHit] = []
    shown: dict[str, set[int]] = {}
    for hit in hits:
        first, last = hit.chunk.own_pages
        pages = set(range(first, last + 1))
        if pages <= shown.get(hit.ref_id, set()):
            continue
        kept.append(hit)
        shown.setdefault(hit.ref_id, set()).update(pages)
    return kept


def retrieve_chunks(*, user, scope: Scope) -> list[Chunk]:
    """Return the chunks inside the scope's ranges, range by range in chunk order (one query).

    A refId that is not the user's (or no longer exists) is ``MaterialNotFound``, as for a single range.
    """
    owner_id_of(user)
    if not scope.ranges:
        raise ValueError("retrieve_chunks reads chunk ranges; this scope has none.")
    materials = dict(materials_in_scope(user=user, ref_ids=scope.ref_ids, ready_only=False).values_list("ref_id", "id"))
    inside = Q()
    for item in scope.ranges:
        inside |= Q(material_id=materials[item.ref_id], chunk_index__gte=max(0, item.start), chunk_index__lte=item.end)
    chunks = list(Chunk.objects.for_reader(user).filter(inside).select_related("material"))
    position = {item: number for number, item in reversed(list(enumerate(scope.ranges)))}

    def order(chunk: Chunk) -> tuple[int, int]:
        first = min(
            position[item] for item in scope.ranges if item.ref_id == chunk.material.ref_id and item.start <= chunk.chunk_index <= item.end
        )
        return first, chunk.chunk_index

    return sorted(chunks, key=order)


def retrieve_stats(*, user, scope: Scope) -> dict[str, dict]:
    """Return ``{refId: {chunkCount, status, pageCount}}`` of the scope's materials the user owns."""
    owner_id_of(user)
    if scope.is_everything:
        return material_stats(
            user=user, ref_ids=materials_in_scope(user=user, type=scope.type, ready_only=False).values_list("ref_id", flat=True)
        )
    return material_stats(user=user, ref_ids=scope.ref_ids or ())
