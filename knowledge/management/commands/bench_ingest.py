import secrets
import time
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.files import File
from django.core.management.base import BaseCommand, CommandError

from baeum.language.text import run_together_stats
from knowledge.evaluation import quality_model
from knowledge.models import Material
from knowledge.services.materials import material_create, material_delete
from knowledge.services.reembed import material_reembed

from ._ingesting import run_to_end


class Command(BaseCommand):
    help = "Ingest one file in-process for a throwaway user and print its speed. Cleans up after itself."

    def add_arguments(self, parser):
        parser.add_argument("file")
        parser.add_argument("--json", action="store_true")
        parser.add_argument("--keep-cache", action="store_true", help="Keep cached vectors (default: measure a cold embed).")
        parser.add_argument("--no-upgrade", action="store_true", help="Skip timing the background quality re-embedding.")

    def handle(self, *args, file, json: bool, keep_cache: bool, no_upgrade: bool, **options):
        import json as json_module

        from core.providers import active_embedder
        from knowledge.models import EmbeddingCache
        from knowledge.services.embedding import cache_key

        path = Path(file)
        if not path.is_file():
            raise CommandError(f"No such file: {file}")
        embedder = active_embedder()  # load the model before the clock starts, as a running worker has
        quality = quality_model(None)
        owner = get_user_model().objects.create_user(email=f"bench-{secrets.token_hex(4)}@baeum.invalid", password=None)
        try:
            started = time.perf_counter()
            with path.open("rb") as handle:
                material = material_create(owner=owner, upload=File(handle, name=path.name), enqueue=False)
            material = run_to_end(
                material, in_process=True, stream=self.stderr._out, label=path.name, show_progress=not json, upgrade=False
            )
            seconds = time.perf_counter() - started
            if material.status != Material.Status.READY:
                raise CommandError(f"{material.ref_id} {material.status} {material.error_message}")
            hashes = [cache_key(content, owner.pk) for content in material.chunks.values_list("content", flat=True)]  # the owner's cache
            spacing = _run_together(material)
            searchable_model = material.embedding_model
            upgrade_seconds = None
            if quality and not no_upgrade:
                # What the background worker does next: re-embed with the quality model (cold cache).
                EmbeddingCache.objects.filter(model=quality, content_hash__in=hashes).delete()
                Material.objects.filter(pk=material.pk).update(pending_embedding_model=quality)
                began = time.perf_counter()
                material, _ = material_reembed(material_id=material.pk, model=quality)
                upgrade_seconds = time.perf_counter() - began
            result = {
                "file": path.name,
                "pages": material.page_count,
                "chunks": material.chunk_count,
                "seconds": round(seconds, 2),
                "pages_per_s": round(material.page_count / seconds, 2),
                "chunks_per_s": round(material.chunk_count / seconds, 2),
                "embed_model": searchable_model,
                **spacing,
            }
            if upgrade_seconds is not None:
                result |= {
                    "upgrade_model": quality,
                    "upgrade_seconds": round(upgrade_seconds, 2),
                    "upgrade_chunks_per_s": round(material.chunk_count / upgrade_seconds, 2),
                }
            material_delete(material=material)
            if not keep_cache:
                EmbeddingCache.objects.filter(model__in=[embedder.model, quality], content_hash__in=hashes).delete()
        finally:
            owner.delete()
        self.stdout.write(json_module.dumps(result) if json else "  ".join(f"{key}={value}" for key, value in result.items()))


def _run_together(material) -> dict:
    """Measure lost word spacing in the stored page texts: what the PDF reader and normalisation gave search."""
    stats = run_together_stats("\n".join(material.pages.values_list("text", flat=True)))
    return stats | {"hangul_share_in_long_runs": round(stats["hangul_share_in_long_runs"], 4)}
