"""LLM providers behind one interface: Gemini (google-genai) and any OpenAI-compatible endpoint
(a local llama.cpp, vLLM or Ollama server). Both accept an injected HTTP client so tests run against a
faked transport. An LLM only makes answers fluent: grounding is checked elsewhere, always.
No Django imports.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Protocol

from baeum.language.text import estimate_tokens


class LLMError(Exception):
    """The provider failed or timed out; callers fall back to the offline path."""


@dataclass(frozen=True)
class Completion:
    text: str
    input_tokens: int
    output_tokens: int
    model: str


class LLM(Protocol):
    model: str

    def complete(self, *, system: str, prompt: str, max_tokens: int = 800) -> Completion: ...

    def stream(self, *, system: str, prompt: str, max_tokens: int = 800) -> Iterator[str]: ...


class GeminiLLM:
    def __init__(self, *, api_key: str, model: str = "gemini-2.5-flash", timeout_seconds: float = 30, http_client=None) -> None:
        from google import genai
        from google.genai import types

        self.model = model
        self._types = types
        options = {"timeout": int(timeout_seconds * 1000)}
        if http_client is not None:
            options["httpx_client"] = http_client
        self._client = genai.Client(api_key=api_key, http_options=types.HttpOptions(**options))

    def _config(self, system: str, max_tokens: int):
        return self._types.GenerateContentConfig(system_instruction=system, max_output_tokens=max_tokens, temperature=0.1)

    def complete(self, *, system: str, prompt: str, max_tokens: int = 800) -> Completion:
        try:
            response = self._client.models.generate_content(model=self.model, contents=prompt, config=self._config(system, max_tokens))
        except Exception as error:  # noqa: BLE001 - any provider failure falls back offline
            raise LLMError(f"Gemini failed: {error}") from error
        text = response.text or ""
        usage = response.usage_metadata
        return Completion(
            text=text,
            input_tokens=(usage.prompt_token_count if usage and usage.prompt_token_count else estimate_tokens(system + prompt)),
            output_tokens=(usage.candidates_token_count if usage and usage.candidates_token_count else estimate_tokens(text)),
            model=self.model,
        )

    def stream(self, *, system: str, prompt: str, max_tokens: int = 800) -> Iterator[str]:
        try:
            for chunk in self._client.models.generate_content_stream(
                model=self.model, contents=prompt, config=self._config(system, max_tokens)
            ):
                if chunk.text:
                    yield chunk.text
        except Exception as error:  # noqa: BLE001
            raise LLMError(f"Gemini failed: {error}") from error


class OpenAICompatibleLLM:
    """POST {base_url}/chat/completions, as served by OpenAI, llama.cpp, vLLM and Ollama."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "", timeout_seconds: float = 30, http_client=None) -> None:
        import httpx2

        self.model = model
        self._url = base_url.rstrip("/") + "/chat/completions"
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = http_client or httpx2.Client(timeout=timeout_seconds)

    def _body(self, system: str, prompt: str, max_tokens: int, stream: bool) -> dict:
        return {
            "model": self.model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}],
            "max_tokens": max_tokens,
            "temperature": 0.1,
            "stream": stream,
        }

    def complete(self, *, system: str, prompt: str, max_tokens: int = 800) -> Completion:
        try:
            response = self._client.post(self._url, json=self._body(system, prompt, max_tokens, False), headers=self._headers)
            response.raise_for_status()
            data = response.json()
            text = data["choices"][0]["message"]["content"] or ""
        except Exception as error:  # noqa: BLE001
            raise LLMError(f"LLM endpoint failed: {error}") from error
        usage = data.get("usage") or {}
        return Completion(
            text=text,
            input_tokens=int(usage.get("prompt_tokens") or estimate_tokens(system + prompt)),
            output_tokens=int(usage.get("completion_tokens") or estimate_tokens(text)),
            model=self.model,
        )

    def stream(self, *, system: str, prompt: str, max_tokens: int = 800) -> Iterator[str]:
        try:
            with self._client.stream(
                "POST", self._url, json=self._body(system, prompt, max_tokens, True), headers=self._headers
            ) as response:
                response.raise_for_status()
                for line in response.iter_lines():
                    if not line.startswith("data:"):
                        continue
                    payload = line[5:].strip()
                    if payload == "[DONE]":
                        break
                    delta = json.loads(payload)["choices"][0].get("delta", {}).get("content")
                    if delta:
                        yield delta
        except LLMError:
            raise
        except Exception as error:  # noqa: BLE001
            raise LLMError(f"LLM endpoint failed: {error}") from error


def build_llm(*, provider: str, api_key: str = "", model: str = "", base_url: str = "", timeout_seconds: float = 30) -> LLM | None:
    """Return the configured LLM, or None for the offline (extractive) path."""
    if provider == "gemini" and api_key:
        return GeminiLLM(api_key=api_key, model=model or "gemini-2.5-flash", timeout_seconds=timeout_seconds)
    if provider == "openai" and base_url:
        return OpenAICompatibleLLM(base_url=base_url, model=model or "default", api_key=api_key, timeout_seconds=timeout_seconds)
    return None
