"""The providers this deployment is configured with: the LLM (or None: the offline paths) and the embedders.

Factories only (no models, no database): shared by knowledge, plans and chat, and by the process warm-up
in ``config``."""

from functools import lru_cache

from django.conf import settings

from baeum.answering.llm import build_llm
from baeum.retrieval.embeddings import Embedder, get_embedder


def configured_llm():
    """Return the configured LLM client, built once per configuration (a turn asks for it twice)."""
    config = settings.BAEUM["CHAT"]
    return _client(config["LLM_PROVIDER"], config["LLM_API_KEY"], config["LLM_MODEL"], config["LLM_BASE_URL"], config["LLM_TIMEOUT"])


@lru_cache(maxsize=4)
def _client(provider: str, api_key: str, model: str, base_url: str, timeout_seconds: float):
    return build_llm(provider=provider, api_key=api_key, model=model, base_url=base_url, timeout_seconds=timeout_seconds)


def active_embedder() -> Embedder:
    """Return the embedder new materials are embedded with (``BAEUM_EMBEDDER``)."""
    config = settings.BAEUM
    return get_embedder(config["EMBEDDER"], gemini_api_key=config["GEMINI_API_KEY"], gemini_model=config["GEMINI_EMBED_MODEL"])


def quality_embedder() -> Embedder | None:
    """Return the embedder READY materials are upgraded to in the background (``BAEUM_QUALITY_EMBEDDER``), if any."""
    name = settings.BAEUM["QUALITY_EMBEDDER"]
    return embedder_for_model(name) if name and name != "none" else None


def embedder_for_model(model: str) -> Embedder:
    """Return the embedder that produced vectors of ``model`` (to embed a query the same way)."""
    config = settings.BAEUM
    return get_embedder(model, gemini_api_key=config["GEMINI_API_KEY"], gemini_model=config["GEMINI_EMBED_MODEL"])
