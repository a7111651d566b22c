from django.core.management.base import BaseCommand

from core.providers import quality_embedder
from knowledge.models import Material
from knowledge.services.reembed import material_upgrade_start


class Command(BaseCommand):
    help = (
        "Queue the background quality re-embedding (BAEUM_QUALITY_EMBEDDER) for READY materials still on "
        "another model, e.g. materials ingested before it was configured. Safe to run again."
    )

    def add_arguments(self, parser):
        parser.add_argument("--requeue", action="store_true", help="Also queue materials already marked as being upgraded.")

    def handle(self, *args, requeue: bool, **options):
        quality = quality_embedder()
        if quality is None:
            self.stdout.write("No quality embedder is configured (BAEUM_QUALITY_EMBEDDER is empty or 'none'); nothing to do.")
            return
        # Maintenance across all tenants: queues work on each material by id, reads nothing out.
        materials = Material.objects.unscoped().filter(status=Material.Status.READY).exclude(embedding_model=quality.model)
        if not requeue:
            materials = materials.filter(pending_embedding_model="")
        queued = sum(material_upgrade_start(material=material) for material in materials)
        self.stdout.write(f"Queued {queued} materials for {quality.model}.")
