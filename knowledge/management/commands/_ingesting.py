"""Shared by the ingest and benchmark commands: run one material to the end, showing progress."""

from __future__ import annotations

import threading
import time

from tqdm import tqdm

from knowledge.models import Material
from knowledge.services.ingest import material_ingest_in_process

FINAL = {Material.Status.READY, Material.Status.FAILED}


def run_to_end(material: Material, *, in_process: bool, stream, label: str, show_progress: bool = True, upgrade: bool = True) -> Material:
    """Wait for ``material`` to be READY or FAILED (running the pipeline here when ``in_process``;
    ``upgrade`` queues the background quality re-embedding afterwards, as the worker does)."""
    errors: list[BaseException] = []
    worker = None
    if in_process:

        def target() -> None:
            from django.db import connection

            try:
                material_ingest_in_process(material_id=material.pk, upgrade=upgrade)
            except BaseException as error:  # noqa: BLE001 - reported below, in the main thread
                errors.append(error)
            finally:
                connection.close()

        worker = threading.Thread(target=target, daemon=True)
        worker.start()
    bar = tqdm(total=0, desc=label, file=stream, disable=not show_progress, unit="", leave=False, dynamic_ncols=True)
    try:
        while True:
            material.refresh_from_db()
            bar.set_description(f"{label} {material.status}")
            if bar.total != material.progress_total:
                bar.reset(total=material.progress_total or 0)
            bar.n = material.progress_done
            bar.refresh()
            if material.status in FINAL and (worker is None or not worker.is_alive()):
                break
            if worker is not None and not worker.is_alive():
                if errors:
                    raise errors[0]
                break
            time.sleep(0.2)
    finally:
        bar.close()
    material.refresh_from_db()
    return material


def final_line(material: Material) -> str:
    if material.status == Material.Status.READY:
        return f"{material.ref_id} READY pages={material.page_count} chunks={material.chunk_count}"
    return f"{material.ref_id} {material.status} {material.error_message}".rstrip()
