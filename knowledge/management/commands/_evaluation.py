"""Shared by the evaluation commands: load a JSON Lines corpus for a throwaway user, then clean up."""

from __future__ import annotations

import json
import secrets
from contextlib import contextmanager
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management.base import CommandError
from django.db import connection
from tqdm import tqdm

from knowledge.models import Material
from knowledge.services.embedding import embedder_for_model, quality_embedder
from knowledge.services.ingest import material_ingest_in_process
from knowledge.services.materials import material_create, material_delete, material_reembed


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


def quality_model(option: str | None) -> str:
    if option is None:
        quality = quality_embedder()
        return quality.model if quality else ""
    return "" if option in ("", "none") else embedder_for_model(option).model


@contextmanager
def throwaway_corpus(corpus: list[dict], *, stream, show_progress: bool = True, quality: str = ""):
    """Ingest each passage as one material (title on its first line) through the real pipeline for a
    new user, then (with ``quality``) do the background re-embedding in place; yield
    ``(user, {material_id: doc_id})``; delete the user and everything made afterwards."""
    user = get_user_model().objects.create_user(email=f"eval-{secrets.token_hex(4)}@baeum.invalid", password=None)
    doc_of: dict[int, str] = {}
    try:
        for row in tqdm(corpus, desc="Loading corpus", file=stream, disable=not show_progress, unit="doc"):
            text = f"{row.get('title', '').strip()}\n\n{row['text']}".strip()
            material = material_create(
                owner=user,
                upload=SimpleUploadedFile(f"{row['doc_id']}.txt", text.encode("utf-8")),
                title=row.get("title") or row["doc_id"],
                enqueue=False,
            )
            material_ingest_in_process(material_id=material.pk, upgrade=False)
            material.refresh_from_db()
            if material.status != Material.Status.READY:
                raise CommandError(f"Passage {row['doc_id']} failed to ingest: {material.error_message}")
            doc_of[material.pk] = str(row["doc_id"])
        if quality:
            Material.objects.for_user(user).update(pending_embedding_model=quality)
            for material_id in tqdm(doc_of, desc=f"Re-embedding ({quality})", file=stream, disable=not show_progress, unit="doc"):
                material_reembed(material_id=material_id, model=quality)
        with connection.cursor() as cursor:  # what autovacuum does for a long-lived library
            cursor.execute("ANALYZE knowledge_chunk, knowledge_chunkterm, knowledge_chunkembedding")
        yield user, doc_of
    finally:
        for material in Material.objects.for_user(user):
            material_delete(material=material)
        user.delete()


@contextmanager
def throwaway_documents(paths: list[Path], *, stream, show_progress: bool = True, quality: str = ""):
    """Ingest each file as one material through the real pipeline for a new user (then, with
    ``quality``, re-embed in place); yield ``(user, {file stem: material})``; delete everything after."""
    user = get_user_model().objects.create_user(email=f"eval-{secrets.token_hex(4)}@baeum.invalid", password=None)
    materials: dict[str, Material] = {}
    try:
        for path in tqdm(paths, desc="Ingesting documents", file=stream, disable=not show_progress, unit="doc"):
            material = material_create(owner=user, upload=SimpleUploadedFile(path.name, path.read_bytes()), title=path.stem, enqueue=False)
            material_ingest_in_process(material_id=material.pk, upgrade=False)
            material.refresh_from_db()
            if material.status != Material.Status.READY:
                raise CommandError(f"{path.name} failed to ingest: {material.error_message}")
            materials[path.stem] = material
        if quality:
            Material.objects.for_user(user).update(pending_embedding_model=quality)
            for material in tqdm(materials.values(), desc=f"Re-embedding ({quality})", file=stream, disable=not show_progress, unit="doc"):
                material_reembed(material_id=material.pk, model=quality)
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE knowledge_chunk, knowledge_chunkterm, knowledge_chunkembedding")
        yield user, materials
    finally:
        for material in Material.objects.for_user(user):
            material_delete(material=material)
        user.delete()
