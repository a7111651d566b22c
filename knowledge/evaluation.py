"""The evaluation harness shared by the eval_* commands (knowledge, plans, chat): load a JSON Lines corpus or
PDFs for a throwaway user, then clean up."""

from __future__ import annotations

import hashlib
import json
import secrets
from contextlib import contextmanager
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import CommandError
from django.db import connection
from django.utils.text import slugify
from tqdm import tqdm

from baeum import rules
from core.providers import active_embedder, embedder_for_model, quality_embedder
from knowledge.models import Material, VocabularyWord
from knowledge.services.ingest import EXTRACTOR, material_ingest_in_process
from knowledge.services.lexical import vocabulary_write
from knowledge.services.materials import material_create, material_delete
from knowledge.services.reembed import material_reembed


def read_jsonl(path: str, required: tuple[str, ...]) -> list[dict]:
    file = Path(path)
    if not file.is_file():
        raise CommandError(f"No such file: {path}")
    rows = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise CommandError(f"{path}:{number}: not valid JSON ({error.msg}).") from error
        missing = [key for key in required if key not in row]
        if missing:
            raise CommandError(f"{path}:{number}: missing {', '.join(missing)}.")
        rows.append(row)
    return rows


def quality_option(parser) -> None:
    parser.add_argument(
        "--quality",
        default=None,
        help="Quality embedder to re-embed with after ingestion, as the background worker would "
        "(default: BAEUM_QUALITY_EMBEDDER; 'none' measures the fast embedder alone).",
    )


LOCKBOX = Path(__file__).resolve().parent.parent / "evaluation" / "lockbox.json"


def split_option(parser) -> None:
    parser.add_argument(
        "--split",
        choices=["tune", "check"],
        help="only the documents of this part of the lock box (evaluation/lockbox.json, scripts/lockbox.py): tune on "
        "'tune', report both, never tune on 'check'",
    )


def lockbox_parts() -> dict[str, str]:
    """Every document of the lock box (a filing, a book's file name, an article title) → "tune" or "check"."""
    if not LOCKBOX.is_file():
        raise CommandError(f"No lock box at {LOCKBOX}: make it with scripts/lockbox.py.")
    parts: dict[str, str] = {}
    for set_name, box in json.loads(LOCKBOX.read_text(encoding="utf-8")).items():
        for part in ("tune", "check"):
            for document in box[part]:
                if parts.setdefault(document, part) != part:
                    raise CommandError(f"{document} is in both parts of the lock box ({set_name}): fix evaluation/lockbox.json.")
    return parts


def in_split(split: str | None, documents: list[str]) -> set[str]:
    """Those of ``documents`` in ``split`` (all of them without one); a document with no part is an error."""
    if not split:
        return set(documents)
    parts = lockbox_parts()
    unknown = sorted({document for document in documents if document not in parts})
    if unknown:
        raise CommandError(
            f"{len(unknown)} document(s) have no part in the lock box ({', '.join(unknown[:3])}…): "
            "add them with scripts/lockbox.py (it keeps every existing assignment)."
        )
    return {document for document in documents if parts[document] == split}


def rules_option(parser) -> None:
    parser.add_argument(
        "--without",
        action="append",
        default=[],
        metavar="RULE",
        help="switch a named rule off for the whole run (repeatable), to measure what it is worth; the report's "
        "rules_fired lists the rules and how often each fired",
    )


@contextmanager
def rules_run(without: list[str]):
    """Count the rules that fire during the run, with ``without`` switched off; yield the counter."""
    import baeum.answering.followups  # noqa: F401 - registers its rules
    import baeum.answering.quoting  # noqa: F401 - registers its rules
    import baeum.answering.sentences  # noqa: F401 - registers its rules

    unknown = sorted(set(without) - set(rules.REGISTRY))
    if unknown:
        raise CommandError(f"No rule named {', '.join(unknown)}. The rules are: {', '.join(sorted(rules.REGISTRY))}")
    with rules.switched_off(without), rules.counting() as fired:
        yield fired


def evaluation_options(parser, *, rules: bool = True) -> None:
    """The options every eval_* command shares: --quality, --library, --split and (where the tutor answers)
    --without."""
    quality_option(parser)
    library_option(parser)
    split_option(parser)
    if rules:
        rules_option(parser)


def in_split_by_title(split: str | None, passages: list[dict], rows: list[dict]) -> list[dict]:
    """Those of ``rows`` (questions with a ``doc_id``, or a ``title`` of their own) about an article of the
    lock-box part ``split``; every row without one. The lock box splits paragraph corpora by article title."""
    if not split:
        return rows
    title_of = {str(row["doc_id"]): row.get("title", str(row["doc_id"])) for row in passages}

    def title(row: dict) -> str:
        return row.get("title") or title_of.get(str(row.get("doc_id")), "")

    if any(not title(row) for row in rows):
        raise CommandError("--split needs each question's article title: make the split again with scripts/eval_split.py.")
    kept = in_split(split, [title(row) for row in rows])
    return [row for row in rows if title(row) in kept]


def library_option(parser) -> None:
    parser.add_argument(
        "--library",
        metavar="NAME",
        help="keep what is ingested in a library named NAME and use it again on the next run with the same NAME "
        "(a file is ingested again when its bytes, the extractor or the embedding model changed); "
        "without it everything is made for this run and deleted afterwards",
    )


def quality_model(option: str | None) -> str:
    if option is None:
        quality = quality_embedder()
        return quality.model if quality else ""
    return "" if option in ("", "none") else embedder_for_model(option).model


@contextmanager
def throwaway_user(library: str | None = None):
    """A new user for an evaluation run; everything it owns is deleted afterwards, files included.

    With ``library``, the user of that name (made on first use, no password) is kept with what it owns.
    """
    if library:
        email = f"eval-library-{slugify(library)}@baeum.invalid"
        user = get_user_model().objects.filter(email=email).first() or get_user_model().objects.create_user(email=email, password=None)
        yield user
        return
    user = get_user_model().objects.create_user(email=f"eval-{secrets.token_hex(4)}@baeum.invalid", password=None)
    try:
        yield user
    finally:
        for material in Material.objects.for_user(user):
            material_delete(material=material)
        user.delete()


def _kept(user, *, name: str, data: bytes, quality: str) -> Material | None:
    """A READY material of a kept library made from these bytes, by this extractor, with the model asked for."""
    model = quality or active_embedder().model
    candidates = Material.objects.for_user(user).filter(original_filename=name).order_by("-id")
    wanted = hashlib.sha256(data).hexdigest()
    for material in candidates:
        if (material.status, material.sha256, material.extractor, material.embedding_model) == (
            Material.Status.READY,
            wanted,
            EXTRACTOR,
            model,
        ):
            _with_vocabulary(user, material)  # kept from before vocabularies were stored
            return material
        material_delete(material=material)  # stale: read or embedded another way, or another file of the same name
    return None


def _with_vocabulary(user, material: Material) -> None:
    """What the background queue does after ingestion (``write_vocabulary``), done here: no worker runs it."""
    if not VocabularyWord.objects.for_user(user).filter(material=material).exists():
        vocabulary_write(material_id=material.pk)


def _ingest(user, *, name: str, data: bytes, title: str) -> Material:
    """One upload through the real pipeline (the OCR stage of a scan included), READY or an error."""
    material = material_create(owner=user, upload=SimpleUploadedFile(name, data), title=title, enqueue=False)
    material_ingest_in_process(material_id=material.pk, upgrade=False)
    material.refresh_from_db()
    if material.status != Material.Status.READY:
        raise CommandError(f"{name} failed to ingest: {material.error_message}")
    _with_vocabulary(user, material)
    return material


def _settle(user, materials: list[Material], *, stream, show_progress: bool, quality: str) -> None:
    """What the background does for a library that stays: the quality re-embedding (in place) and ANALYZE."""
    if quality:
        materials = [material for material in materials if material.embedding_model != quality]
        Material.objects.for_user(user).filter(pk__in=[material.pk for material in materials]).update(pending_embedding_model=quality)
        for material in tqdm(materials, desc=f"Re-embedding ({quality})", file=stream, disable=not show_progress, unit="doc"):
            material_reembed(material_id=material.pk, model=quality)
    with connection.cursor() as cursor:  # what autovacuum does for a long-lived library
        cursor.execute("ANALYZE knowledge_chunk, knowledge_chunkterm, knowledge_chunkembedding")


@contextmanager
def throwaway_corpus(corpus: list[dict], *, stream, show_progress: bool = True, quality: str = "", library: str | None = None):
    """Ingest each passage as one material (title on its first line) for a new user; yield
    ``(user, {material_id: doc_id})``; delete the user and everything made afterwards (kept with ``library``)."""
    with throwaway_user(library) as user:
        doc_of: dict[int, str] = {}
        materials = []
        for row in tqdm(corpus, desc="Loading corpus", file=stream, disable=not show_progress, unit="doc"):
            text = f"{row.get('title', '').strip()}\n\n{row['text']}".strip()
            name, data = f"{row['doc_id']}.txt", text.encode("utf-8")
            material = (library and _kept(user, name=name, data=data, quality=quality)) or _ingest(
                user, name=name, data=data, title=row.get("title") or row["doc_id"]
            )
            doc_of[material.pk] = str(row["doc_id"])
            materials.append(material)
        _settle(user, materials, stream=stream, show_progress=show_progress, quality=quality)
        yield user, doc_of


@contextmanager
def throwaway_documents(paths: list[Path], *, stream, show_progress: bool = True, quality: str = "", library: str | None = None):
    """Ingest each file as one material for a new user; yield ``(user, {file stem: material})``; delete
    everything after (kept with ``library``)."""
    with throwaway_user(library) as user:
        materials: dict[str, Material] = {}
        for path in tqdm(paths, desc="Ingesting documents", file=stream, disable=not show_progress, unit="doc"):
            data = path.read_bytes()
            kept = library and _kept(user, name=path.name, data=data, quality=quality)
            materials[path.stem] = kept or _ingest(user, name=path.name, data=data, title=path.stem)
        _settle(user, list(materials.values()), stream=stream, show_progress=show_progress, quality=quality)
        for material in materials.values():
            material.refresh_from_db()
        yield user, materials
