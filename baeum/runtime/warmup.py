"""Load the offline models before the first request instead of during it (USE ~3 s, Kiwi ~3 s)."""

import logging

logger = logging.getLogger(__name__)


def warm_up(*embedders) -> None:
    """Load each given embedder (None entries are skipped) and Kiwi."""
    from baeum.language.analysis import analyze

    try:
        for embedder in embedders:
            if embedder is not None:
                embedder.embed_query("warm up 준비")
        analyze("모델을 미리 불러옵니다. Warm up the analyser.")
    except Exception:  # noqa: BLE001 - warming is best effort; the first request would load them anyway
        logger.exception("warm-up failed")
