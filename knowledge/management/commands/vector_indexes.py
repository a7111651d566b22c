from django.core.management.base import BaseCommand

from knowledge.services.vector_indexes import vector_indexes_sync


class Command(BaseCommand):
    help = (
        "Give every library with LARGE_LIBRARY_VECTORS vectors of one model an HNSW index of its own and drop those of "
        "libraries that shrank below half of it (the background worker does this as libraries change; make run at start)."
    )

    def handle(self, *args, **options):
        done = vector_indexes_sync()
        for name in done["made"]:
            self.stdout.write(f"made {name}")
        for name in done["dropped"]:
            self.stdout.write(f"dropped {name}")
