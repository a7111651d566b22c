from django.core.management.base import BaseCommand
from tqdm import tqdm

from knowledge.models import Chunk, Material
from knowledge.services.lexical import chunk_terms_write


class Command(BaseCommand):
    help = (
        "Rebuild BM25 postings, glosses and vocabularies of every READY material (after an analyser change or an "
        "upgrade; materials stored before vocabularies get theirs)."
    )

    def handle(self, *args, **options):
        # Maintenance across all tenants: rewrites derived index rows only.
        materials = Material.objects.unscoped().filter(status=Material.Status.READY)
        postings = 0
        for material in tqdm(list(materials), desc="Reindexing", file=self.stderr._out, unit="material"):
            postings += chunk_terms_write(chunks=Chunk.objects.unscoped().filter(material=material))
        self.stdout.write(f"Reindexed {materials.count()} materials, {postings} postings.")
