from django.core.management.base import BaseCommand
from django.db.models import Exists, OuterRef
from tqdm import tqdm

from knowledge.models import Chunk, Material, VocabularyWord
from knowledge.services.lexical import chunk_terms_write, vocabulary_write


class Command(BaseCommand):
    help = (
        "Rebuild BM25 postings, glosses and vocabularies of every READY material (after an analyser change or an "
        "upgrade). --missing-vocabularies writes only the vocabularies of materials stored before they were."
    )

    def add_arguments(self, parser):
        parser.add_argument(
            "--missing-vocabularies",
            action="store_true",
            help="only the vocabularies (words with vectors, for questions across languages) of READY materials that "
            "have none; make run does this at start",
        )

    def handle(self, *args, **options):
        # Maintenance across all tenants: rewrites derived index rows only.
        materials = Material.objects.unscoped().filter(status=Material.Status.READY)
        if options["missing_vocabularies"]:
            missing = list(materials.filter(~Exists(VocabularyWord.objects.unscoped().filter(material=OuterRef("pk")))))
            words = sum(
                vocabulary_write(material_id=material.pk)
                for material in tqdm(missing, desc="Vocabularies", file=self.stderr._out, unit="material", disable=not missing)
            )
            if missing:
                self.stdout.write(f"Wrote the vocabularies of {len(missing)} materials, {words} words.")
            return
        postings = 0
        for material in tqdm(list(materials), desc="Reindexing", file=self.stderr._out, unit="material"):
            postings += chunk_terms_write(chunks=Chunk.objects.unscoped().filter(material=material))
            vocabulary_write(material_id=material.pk)
        self.stdout.write(f"Reindexed {materials.count()} materials, {postings} postings.")
