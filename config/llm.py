"""The LLM configured for this deployment (or None: the offline paths). Shared by plans and chat."""

from django.conf import settings

from baeum.llm import build_llm


def configured_llm():
    config = settings.BAEUM["CHAT"]
    return build_llm(
        provider=config["LLM_PROVIDER"],
        api_key=config["LLM_API_KEY"],
        model=config["LLM_MODEL"],
        base_url=config["LLM_BASE_URL"],
        timeout_seconds=config["LLM_TIMEOUT"],
    )
