"""Turn a material's chunk sequence into modules and study sessions. No Django imports.

Modules follow the material's own structure: chapter headings (or, without chapters, section
headings), else topic shifts between consecutive chunks (embedding distance), else even cuts.
Module ranges are contiguous, in order, and cover every chunk exactly once. Sessions cut long modules
at sub-headings nearest to even splits, and merge short neighbouring modules, so each session fits
the learner's minutes at the stated pace.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from baeum import rules

TOKENS_PER_MINUTE = 200  # study pace: about 150 English words or 300 Korean syllables a minute

# Modules: chosen by reading the sample books' plans; measured with `eval_study` (docs/evaluation.md, eval_study).
MODULE_SESSIONS = 3  # without headings, a module is cut at topic shifts to about three sessions' reading
TOPIC_CUT_WINDOW = 0.35  # a topic cut may move this share of a module's length from the even cut, to a larger shift
MIN_CHUNKS_FOR_TOPIC_CUTS = 4  # fewer chunks than this stay one module: there is no shift worth finding
SLIVER_SHARE = 0.2  # a module shorter than this share of a session (a lone heading, a stray page) joins a neighbour
TITLE_MODULES = 3  # a session spanning more modules is titled with the first three and "…"


@dataclass(frozen=True)
class ChunkInfo:
    index: int
    tokens: int
    page_start: int
    page_end: int
    section_level: int
    section_title: str
    matter: str = ""  # "front" / "back": title pages, contents, preface, index… (baeum.extraction.structure)
    # The numbers the book prints on its first and last page, where they differ from their positions ("7" on the
    # 17th page): titles made of pages read them, as the viewer and citations do.
    label_start: str = ""
    label_end: str = ""
    release_entry: bool = False  # the chunk holds an entry of a release history: a version and its date ("0.24.1 (2026-10-20)")


def pages_text(first: ChunkInfo, last: ChunkInfo) -> str:
    """ "p.7–19": the pages from ``first``'s to ``last``'s, as the book prints them where it does."""
    return f"p.{first.label_start or first.page_start}–{last.label_end or last.page_end}"


@dataclass
class ModuleSpec:
    ref_id: str
    title: str
    start: int  # first chunk index
    end: int  # last chunk index (inclusive)
    page_first: int
    page_last: int
    tokens: int
    optional: bool = False  # front or back matter, or a release history: listed as optional reading, never a study session
    named_by_pages: str = ""  # the material's title, when no heading names the module ("xz-ko · p.1–15")


@dataclass
class SessionSpec:
    title: str
    ranges: list[dict] = field(default_factory=list)  # [{"refId", "chunkRange": [s, e], "pages": [a, b]}]
    tokens: int = 0
    module_titles: list[str] = field(default_factory=list)

    @property
    def minutes(self) -> int:
        return max(1, math.ceil(self.tokens / TOKENS_PER_MINUTE))


def _boundaries_from_headings(chunks: list[ChunkInfo]) -> list[int] | None:
    for level in (1, 2):
        starts = [chunk.index for chunk in chunks if chunk.section_level == level]
        if len(starts) >= 2:
            return sorted({chunks[0].index, *starts})
    return None


def _boundaries_from_topics(chunks: list[ChunkInfo], vectors: np.ndarray | None, target_tokens: int) -> list[int]:
    total = sum(chunk.tokens for chunk in chunks)
    wanted = max(1, round(total / target_tokens))
    if wanted <= 1 or len(chunks) < MIN_CHUNKS_FOR_TOPIC_CUTS:
        return [chunks[0].index]
    if vectors is not None and len(vectors) == len(chunks):
        normed = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        distance = 1 - np.sum(normed[1:] * normed[:-1], axis=1)  # distance[i]: between chunk i and i+1
        cumulative = np.cumsum([chunk.tokens for chunk in chunks])
        cuts: list[int] = []
        for part in range(1, wanted):
            ideal = part * total / wanted
            # Among chunks near the ideal cut, take the largest topic shift.
            window = [i for i in range(1, len(chunks)) if abs(cumulative[i - 1] - ideal) <= TOPIC_CUT_WINDOW * total / wanted]
            if window:
                cuts.append(max(window, key=lambda i: distance[i - 1]))
        return sorted({chunks[0].index, *(chunks[i].index for i in cuts)})
    cumulative = 0
    starts = [chunks[0].index]
    for chunk in chunks:
        if cumulative >= target_tokens * len(starts):
            starts.append(chunk.index)
        cumulative += chunk.tokens
    return starts


def build_modules(
    ref_id: str, material_title: str, chunks: list[ChunkInfo], *, vectors: np.ndarray | None, session_tokens: int
) -> list[ModuleSpec]:
    """Cut one material's chunks into modules (contiguous, ordered, covering every chunk once); front and
    back matter (leading and trailing chunks outside the chapters) become optional modules of their own."""
    if not chunks:
        return []
    lead = next((position for position, chunk in enumerate(chunks) if chunk.matter != "front"), len(chunks))
    tail = next((position for position in range(len(chunks), lead, -1) if chunks[position - 1].matter != "back"), lead)
    modules = _optional_module(ref_id, material_title, chunks[:lead])
    start = lead
    for first, last in _release_histories(chunks, lead, tail):
        modules += _chapter_modules(
            ref_id, material_title, chunks[start:first], vectors=_rows(vectors, start, first), session_tokens=session_tokens
        )
        modules += _optional_module(ref_id, material_title, chunks[first : last + 1])
        start = last + 1
    modules += _chapter_modules(
        ref_id, material_title, chunks[start:tail], vectors=_rows(vectors, start, tail), session_tokens=session_tokens
    )
    return modules + _optional_module(ref_id, material_title, chunks[tail:])


# A release history ("역사", "History", "Changelog": each version with its date, what it added and fixed) is read
# for reference, not studied: walkthrough 22's Kiwipiepy guide spent a 32-minute session and its questions on one
# ("공백이 없는 긴 문자열을 분석할 때 _____가 발생하거나…" → 크래시). It is a run of chunks that hold a version and its
# date ("0.24.1 (2026-10-20)", or stand under a heading that does: "## v2.14.4 (2026-11-19)"), at most
# ``RELEASE_GAP`` undated chunks apart (a long entry), with at least ``RELEASE_MIN_CHUNKS`` dated ones (one dated
# version in a chapter is no history). A material that is nothing but its history (a NEWS file) is still studied.
RELEASE_MIN_CHUNKS = 3
RELEASE_GAP = 2
RELEASE_TAIL_SHARE = 0.2  # a history with this share of its chunks dated from its start to the material's end closes it
# A version ("0.24.1", "v2.14.4"), never a DOI ("10.1145/1315803.1315831 … reference download: 2011-12-29"), then a date
# on its line. Written so PostgreSQL reads it the same: the chunks' text is searched with it there
# (``knowledge.selectors.materials.chunk_outline``), their headings here.
DATED_VERSION = re.compile(r"(?<![\w.])v?\d{1,4}\.\d{1,4}(?:\.\d{1,4})*(?![\w/.])[^\n]{0,80}?\d{4}-\d{2}-\d{2}")

RELEASE_HISTORY = rules.register(
    rules.Rule(
        "plan:release-history",
        lambda dated, span, body: dated >= RELEASE_MIN_CHUNKS and span < body,
        (7, 10, 51),  # dated chunks, the history's chunks, the body's chunks: the Kiwipiepy guide's "역사"
        "a release history (versions, their dates, what they fixed) is optional reading, not a study session",
    )
)[0]


def _release_histories(chunks: list[ChunkInfo], lead: int, tail: int) -> list[tuple[int, int]]:
    """The positions (first, last) of each release history among ``chunks[lead:tail]`` (``plan:release-history``)."""
    dated = [
        position for position in range(lead, tail) if chunks[position].release_entry or DATED_VERSION.search(chunks[position].section_title)
    ]
    runs: list[list[int]] = []
    for position in dated:
        if runs and position - runs[-1][-1] <= RELEASE_GAP + 1:
            runs[-1].append(position)
        else:
            runs.append([position])
    runs = [run for run in runs if len(run) >= RELEASE_MIN_CHUNKS]
    is_dated = set(dated)
    # A history that closes the material runs to its end, its entries' long lists ("#### Fixes") included.
    for number, run in enumerate(runs):
        rest = [position for position in dated if position >= run[0]]
        if len(rest) >= RELEASE_TAIL_SHARE * (tail - run[0]):
            runs = [*runs[:number], [*rest, tail - 1]]
            break
    return [
        (run[0], run[-1])
        for run in runs
        if rules.applies(RELEASE_HISTORY, len(is_dated.intersection(run)), run[-1] - run[0] + 1, tail - lead)
    ]


def _rows(vectors: np.ndarray | None, start: int, end: int) -> np.ndarray | None:
    return None if vectors is None or len(vectors) == 0 else vectors[start:end]


def _optional_module(ref_id: str, material_title: str, chunks: list[ChunkInfo]) -> list[ModuleSpec]:
    if not chunks:
        return []
    return [
        ModuleSpec(
            ref_id=ref_id,
            title=f"{material_title} · {pages_text(chunks[0], chunks[-1])}",
            start=chunks[0].index,
            end=chunks[-1].index,
            page_first=chunks[0].page_start,
            page_last=chunks[-1].page_end,
            tokens=sum(chunk.tokens for chunk in chunks),
            optional=True,
        )
    ]


def _chapter_modules(
    ref_id: str, material_title: str, chunks: list[ChunkInfo], *, vectors: np.ndarray | None, session_tokens: int
) -> list[ModuleSpec]:
    if not chunks:
        return []
    starts = _boundaries_from_headings(chunks) or _boundaries_from_topics(chunks, vectors, MODULE_SESSIONS * session_tokens)
    by_index = {chunk.index: chunk for chunk in chunks}
    last_index = chunks[-1].index
    modules: list[ModuleSpec] = []
    for position, start in enumerate(starts):
        end = starts[position + 1] - 1 if position + 1 < len(starts) else last_index
        members = [by_index[i] for i in range(start, end + 1)]
        first = members[0]
        title = first.section_title if first.section_level else ""
        modules.append(
            ModuleSpec(
                ref_id=ref_id,
                title=title or f"{material_title} · {pages_text(first, members[-1])}",
                named_by_pages="" if title else material_title,
                start=start,
                end=end,
                page_first=first.page_start,
                page_last=members[-1].page_end,
                tokens=sum(member.tokens for member in members),
            )
        )
    # Fold slivers (a few front-matter chunks, a lone heading) into a neighbour.
    folded: list[ModuleSpec] = []
    for module in modules:
        if folded and module.tokens < SLIVER_SHARE * session_tokens:
            previous = folded[-1]
            previous.end, previous.page_last, previous.tokens = module.end, module.page_last, previous.tokens + module.tokens
        elif folded and folded[-1].tokens < SLIVER_SHARE * session_tokens and folded[-1].start == chunks[0].index:
            previous = folded.pop()  # a sliver at the very start joins the first real module
            module.start, module.page_first, module.tokens = previous.start, previous.page_first, module.tokens + previous.tokens
            folded.append(module)
        else:
            folded.append(module)
    return folded


# Session sizing: a session within ±30 % of the learner's minutes costs little; outside it costs more than
# any cut. Where a session may end: a chapter (module) start is free, a section start cheap, a page mid-section dear.
LENGTH_TOLERANCE = 0.3
_INSIDE_COST = 4.0  # inside the tolerance a deviation costs quadratically: 4 · 0.3² = 0.36, less than a section cut (0.5)
_OUT_OF_RANGE_COST = 100.0
_CUT_COST = {"module": 0.0, "section": 0.5, "subsection": 1.5, "text": 4.0}
# A session never runs longer than this many times the budget (unless one chunk alone does).
_MAX_SESSION_FACTOR = 2.5


@dataclass(frozen=True)
class _Unit:
    chunk: ChunkInfo
    module: ModuleSpec
    cut: str  # what starts here: "material", "module", "section", "subsection", "text"


def _cut_kind(position: int, chunk: ChunkInfo) -> str:
    """What a session ending before this chunk would cut at (``_CUT_COST``): a module, a section, a subsection or text."""
    if position == 0:
        return "module"
    if chunk.section_level == 2:
        return "section"
    return "subsection" if chunk.section_level >= 3 else "text"


def _units(modules: list[ModuleSpec], chunks_by_ref: dict[str, list[ChunkInfo]]) -> list[list[_Unit]]:
    """The study chunks in order, as runs a session cannot cross (one material, no optional reading between)."""
    runs: list[list[_Unit]] = []
    previous: ModuleSpec | None = None
    for module in modules:
        if module.optional:
            previous = None  # front and back matter are optional reading, not a session
            continue
        members = [chunk for chunk in chunks_by_ref[module.ref_id] if module.start <= chunk.index <= module.end]
        if previous is None or previous.ref_id != module.ref_id or previous.end + 1 != module.start:
            runs.append([])
        for position, chunk in enumerate(members):
            runs[-1].append(_Unit(chunk, module, _cut_kind(position, chunk)))
        previous = module
    return [run for run in runs if run]


def _segment_cost(tokens: int, budget: int) -> float:
    deviation = abs(tokens - budget) / budget
    inside = _INSIDE_COST * min(deviation, LENGTH_TOLERANCE) ** 2
    return inside + _OUT_OF_RANGE_COST * max(0.0, deviation - LENGTH_TOLERANCE)


def _segment(run: list[_Unit], budget: int) -> list[tuple[int, int]]:
    """Cut a run into sessions (start, end-exclusive) minimising length deviation plus the cost of each cut."""
    count = len(run)
    prefix = [0]
    for unit in run:
        prefix.append(prefix[-1] + unit.chunk.tokens)
    best = [0.0] + [math.inf] * count
    back = [0] * (count + 1)
    for end in range(1, count + 1):
        for start in range(end - 1, -1, -1):
            tokens = prefix[end] - prefix[start]
            if tokens > _MAX_SESSION_FACTOR * budget and end - start > 1:
                break
            cost = best[start] + _segment_cost(tokens, budget) + (_CUT_COST.get(run[start].cut, 0.0) if start else 0.0)
            if cost < best[end]:
                best[end], back[end] = cost, start
    cuts, end = [], count
    while end > 0:
        cuts.append((back[end], end))
        end = back[end]
    return cuts[::-1]


def _session_of(units: list[_Unit], parts_of: dict[int, int], part: dict[int, int]) -> SessionSpec:
    session = SessionSpec(title="", tokens=sum(unit.chunk.tokens for unit in units))
    for unit in units:
        if session.ranges and session.ranges[-1]["_module"] is unit.module:
            session.ranges[-1]["chunkRange"][1] = unit.chunk.index
            session.ranges[-1]["pages"][1] = unit.chunk.page_end
            continue
        session.ranges.append(
            {
                "refId": unit.module.ref_id,
                "chunkRange": [unit.chunk.index, unit.chunk.index],
                "pages": [unit.chunk.page_start, unit.chunk.page_end],
                "_module": unit.module,
            }
        )
        session.module_titles.append(unit.module.title)
    first = units[0]
    module = first.module
    if len(session.module_titles) > 1:
        shown = session.module_titles[:TITLE_MODULES]
        session.title = " · ".join(shown) + (" …" if len(session.module_titles) > TITLE_MODULES else "")
    elif parts_of[id(module)] == 1:
        session.title = module.title
    else:
        heading = first.chunk.section_title if first.chunk.section_level >= 2 and first.cut != "module" else ""
        number = part[id(module)]
        if module.named_by_pages and not heading:  # each part by its own pages ("xz-ko · p.1–5", not "p.1–15 (1/3)")
            session.title = f"{module.named_by_pages} · {pages_text(units[0].chunk, units[-1].chunk)}"
        else:
            session.title = (
                f"{module.title} — {heading}"
                if heading and heading != module.title
                else f"{module.title} ({number}/{parts_of[id(module)]})"
            )
    for item in session.ranges:
        del item["_module"]
    return session


def build_sessions(modules: list[ModuleSpec], chunks_by_ref: dict[str, list[ChunkInfo]], *, session_tokens: int) -> list[SessionSpec]:
    """Cut the study modules into sessions of ``session_tokens`` ± 30 % wherever the material allows,
    ending sessions at chapter starts first, then at section starts, mid-section only when they must.
    A session never crosses from one material into another; front and back matter get no session."""
    sessions: list[SessionSpec] = []
    for run in _units(modules, chunks_by_ref):
        pieces = [run[start:end] for start, end in _segment(run, session_tokens)]
        parts_of: dict[int, int] = {}
        for piece in pieces:
            for module in {id(unit.module): unit.module for unit in piece}.values():
                parts_of[id(module)] = parts_of.get(id(module), 0) + 1
        part: dict[int, int] = {}
        for piece in pieces:
            module = piece[0].module
            part[id(module)] = part.get(id(module), 0) + 1
            sessions.append(_session_of(piece, parts_of, part))
    return sessions
