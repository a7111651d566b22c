"""The LLM configured for this deployment (or None: the offline paths). Shared by plans and chat."""

from functools import lru_cache

from django.conf import settings

from baeum.llm import build_llm


def configured_llm():
    """Return the configured LLM client, built once per configuration (a turn asks for it twice)."""
    config = settings.BAEUM["CHAT"]
    return _client(config["LLM_PROVIDER"], config["LLM_API_KEY"], config["LLM_MODEL"], config["LLM_BASE_URL"], config["LLM_TIMEOUT"])


@lru_cache(maxsize=4)
def _client(provider: str, api_key: str, model: str, base_url: str, timeout_seconds: float):
    return build_llm(provider=provider, api_key=api_key, model=model, base_url=base_url, timeout_seconds=timeout_seconds)
