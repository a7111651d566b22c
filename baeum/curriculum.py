"""Turn a material's chunk sequence into modules and study sessions. No Django imports.

Modules follow the material's own structure: chapter headings (or, without chapters, section
headings), else topic shifts between consecutive chunks (embedding distance), else even cuts.
Module ranges are contiguous, in order, and cover every chunk exactly once. Sessions cut long modules
at sub-headings nearest to even splits, and merge short neighbouring modules, so each session fits
the learner's minutes at the stated pace.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

TOKENS_PER_MINUTE = 200  # study pace: about 150 English words or 300 Korean syllables a minute


@dataclass(frozen=True)
class ChunkInfo:
    index: int
    tokens: int
    page_start: int
    page_end: int
    section_level: int
    section_title: str
    matter: str = ""  # "front" / "back": title pages, contents, preface, index… (baeum.structure)


@dataclass
class ModuleSpec:
    ref_id: str
    title: str
    start: int  # first chunk index
    end: int  # last chunk index (inclusive)
    page_first: int
    page_last: int
    tokens: int
    optional: bool = False  # front or back matter: listed as optional reading, never a study session


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
    if wanted <= 1 or len(chunks) < 4:
        return [chunks[0].index]
    if vectors is not None and len(vectors) == len(chunks):
        normed = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        distance = 1 - np.sum(normed[1:] * normed[:-1], axis=1)  # distance[i]: between chunk i and i+1
        cumulative = np.cumsum([chunk.tokens for chunk in chunks])
        cuts: list[int] = []
        for part in range(1, wanted):
            ideal = part * total / wanted
            # Among chunks near the ideal cut, take the largest topic shift.
            window = [i for i in range(1, len(chunks)) if abs(cumulative[i - 1] - ideal) <= 0.35 * total / wanted]
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
    front, body, back = chunks[:lead], chunks[lead:tail], chunks[tail:]
    return (
        _optional_module(ref_id, material_title, front)
        + _chapter_modules(ref_id, material_title, body, vectors=_rows(vectors, lead, tail), session_tokens=session_tokens)
        + _optional_module(ref_id, material_title, back)
    )


def _rows(vectors: np.ndarray | None, start: int, end: int) -> np.ndarray | None:
    return None if vectors is None or len(vectors) == 0 else vectors[start:end]


def _optional_module(ref_id: str, material_title: str, chunks: list[ChunkInfo]) -> list[ModuleSpec]:
    if not chunks:
        return []
    return [
        ModuleSpec(
            ref_id=ref_id,
            title=f"{material_title} · p.{chunks[0].page_start}–{chunks[-1].page_end}",
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
    starts = _boundaries_from_headings(chunks) or _boundaries_from_topics(chunks, vectors, 3 * session_tokens)
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
                title=title or f"{material_title} · p.{first.page_start}–{members[-1].page_end}",
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
        if folded and module.tokens < 0.2 * session_tokens:
            previous = folded[-1]
            previous.end, previous.page_last, previous.tokens = module.end, module.page_last, previous.tokens + module.tokens
        elif folded and folded[-1].tokens < 0.2 * session_tokens and folded[-1].start == chunks[0].index:
            previous = folded.pop()  # a sliver at the very start joins the first real module
            module.start, module.page_first, module.tokens = previous.start, previous.page_first, module.tokens + previous.tokens
            folded.append(module)
        else:
            folded.append(module)
    return folded


def build_sessions(modules: list[ModuleSpec], chunks_by_ref: dict[str, list[ChunkInfo]], *, session_tokens: int) -> list[SessionSpec]:
    """Cut long modules and merge short neighbours into sessions of about ``session_tokens``."""
    sessions: list[SessionSpec] = []
    pending: SessionSpec | None = None

    def flush() -> None:
        nonlocal pending
        if pending is not None:
            sessions.append(pending)
            pending = None

    for module in modules:
        if module.optional:
            continue  # front and back matter are optional reading, not a session
        members = [chunk for chunk in chunks_by_ref[module.ref_id] if module.start <= chunk.index <= module.end]
        if module.tokens <= 1.4 * session_tokens:
            if pending is not None and (pending.tokens + module.tokens > session_tokens or pending.ranges[-1]["refId"] != module.ref_id):
                flush()
            if pending is None:
                pending = SessionSpec(title=module.title)
            pending.ranges.append(
                {"refId": module.ref_id, "chunkRange": [module.start, module.end], "pages": [module.page_first, module.page_last]}
            )
            pending.tokens += module.tokens
            pending.module_titles.append(module.title)
            if pending.tokens >= 0.6 * session_tokens:
                flush()
            continue
        flush()
        parts = max(2, round(module.tokens / session_tokens))
        cumulative = np.cumsum([chunk.tokens for chunk in members])
        cuts: list[int] = []
        for part in range(1, parts):
            ideal = part * module.tokens / parts
            candidates = [i for i in range(1, len(members)) if abs(cumulative[i - 1] - ideal) <= 0.3 * module.tokens / parts]
            if not candidates:
                continue
            preferred = [i for i in candidates if members[i].section_level >= 2] or candidates
            cuts.append(min(preferred, key=lambda i: abs(cumulative[i - 1] - ideal)))
        bounds = [0, *sorted(set(cuts)), len(members)]
        count = len(bounds) - 1
        for number in range(count):
            piece = members[bounds[number] : bounds[number + 1]]
            if not piece:
                continue
            heading = piece[0].section_title if piece[0].section_level >= 2 else ""
            title = f"{module.title} — {heading}" if heading and heading != module.title else f"{module.title} ({number + 1}/{count})"
            sessions.append(
                SessionSpec(
                    title=title,
                    ranges=[
                        {
                            "refId": module.ref_id,
                            "chunkRange": [piece[0].index, piece[-1].index],
                            "pages": [piece[0].page_start, piece[-1].page_end],
                        }
                    ],
                    tokens=sum(chunk.tokens for chunk in piece),
                    module_titles=[module.title],
                )
            )
    flush()
    for session in sessions:
        if len(session.module_titles) > 1:
            session.title = " · ".join(session.module_titles[:3]) + (" …" if len(session.module_titles) > 3 else "")
    return sessions
