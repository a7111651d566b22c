from django.core.management.base import BaseCommand
from django.db.models import Count

from knowledge.models import Material
from knowledge.services.ingest import EXTRACTOR, EXTRACTOR_FIXES
from knowledge.services.materials import material_reingest


class Command(BaseCommand):
    help = (
        "Re-read materials made by an older extractor (pypdf; PDFium before tables were kept whole) from their kept original files, "
        "through the worker (or the admin's Re-run ingestion action). Each one is out of search while it is read again (seconds)."
    )

    def add_arguments(self, parser):
        parser.add_argument("--check", action="store_true", help="only say how many materials an older extractor made")
        parser.add_argument("--all", action="store_true", help="re-read every material, whatever made it")

    def handle(self, *args, check: bool, all: bool, **options):  # noqa: A002 - the option's name
        # Maintenance across all tenants: queues each material by id, reads nothing out.
        materials = Material.objects.unscoped().filter(status__in=[Material.Status.READY, Material.Status.FAILED])
        if not all:
            materials = materials.exclude(extractor=EXTRACTOR)
        count = materials.count()
        if check:
            by_extractor = materials.values_list("extractor").annotate(count=Count("pk")).order_by("extractor")
            for extractor, number in by_extractor:
                fixes = EXTRACTOR_FIXES.get(extractor, "it was read by a different extractor")
                self.stdout.write(f"{number} material(s) read by an older extractor ({extractor or 'pypdf'}): {fixes}.")
            if count:
                self.stdout.write("Re-read them with: .venv/bin/python manage.py reextract")
            return
        for material in materials.iterator():
            material_reingest(material=material)
        self.stdout.write(f"Queued {count} material(s) to be read again with {EXTRACTOR}.")
