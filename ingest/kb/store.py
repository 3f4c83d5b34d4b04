"""Vector stores behind one small protocol.

`EdgeStore` (default) runs Qdrant's engine in-process (qdrant-edge): HNSW, a
keyword index on `business`, BM25 sparse vectors with IDF. Measured
here it answers filtered searches ~500× faster than qdrant-client's local mode,
which scans every point in Python (docs/architecture.md). `QdrantServerStore` speaks to a Qdrant server (SITEKB_QDRANT_URL)
with qdrant-client; tests run it in qdrant-client's local mode. `PgVectorStore`
(kb/pgstore.py) keeps them in PostgreSQL with pgvector (SITEKB_DATABASE_URL). A store gives one
ranking at a time (dense or lexical); retrieval.search fuses them.

One collection per embedder identity, so vectors of different models never mix.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import qdrant_edge as qe

from ingest.kb.lexical import document_terms, query_terms
from ingest.kb.points import DENSE, SPARSE, Hit, Ranking, SearchMode, StoredPoint, StoreError  # noqa: F401
from ingest.settings import Settings


def _terms(point: StoredPoint) -> tuple[list[int], list[float]]:
    return document_terms(point.text, point.payload.get("lang", ""))


def collection_name(embedder_id: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", embedder_id.lower()).strip("-")[:40]
    return f"sitekb-{slug}-{hashlib.sha1(embedder_id.encode()).hexdigest()[:8]}"


class VectorStore(Protocol):
    def upsert(self, points: list[StoredPoint]) -> None: ...

    def delete(self, ids: list[str]) -> None: ...

    def count(self, business: str) -> int: ...

    def point_ids(self, business: str) -> set[str]: ...

    def payloads(self, business: str) -> dict[str, dict[str, Any]]: ...

    def search(
        self,
        business: str,
        vector: list[float] | None,
        text: str,
        limit: int,
        mode: Ranking,
        langs: tuple[str, ...] = (),
        vectors: bool = False,
    ) -> list[Hit]:
        """One ranking: the nearest points to `vector` (dense) or the best BM25 matches
        for `text` (lexical; `langs`: the languages the business's chunks were analysed
        in, ingest.kb.lexical). `vectors`: dense hits carry their own vectors. Fusing
        them is retrieval.search's."""
        ...

    def points(self, business: str) -> list[StoredPoint]:
        """Every point of `business` with its dense vector and payload."""
        ...

    def page_chunks(self, business: str, url: str) -> list[dict[str, Any]]: ...

    def close(self) -> None: ...


STORE_IN_USE = (
    "the vector store at {path} is in use by another sitekb process (embedded stores admit one process per data folder)"
)


def _hold_folder_lock(path: Path, wait_s: float):
    """An exclusive OS lock on `<folder>.lock` beside the store's folder, waited for up to
    `wait_s` seconds; the open file holds it (a crashed holder releases it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = open(path.with_name(path.name + ".lock"), "a+")  # noqa: SIM115 (held until close)
    deadline = time.monotonic() + wait_s
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            if time.monotonic() >= deadline:
                handle.close()
                raise StoreError(STORE_IN_USE.format(path=path) + f"; waited {wait_s:g} s") from None
            time.sleep(0.05)


def _business_filter(business: str, url: str | None = None) -> qe.Filter:
    must = [qe.FieldCondition(key="business", match=qe.MatchValue(business))]
    if url is not None:
        must.append(qe.FieldCondition(key="url", match=qe.MatchValue(url)))
    return qe.Filter(must=must)


class _ScrollReads:
    """The reads both stores build on their own `_scroll(business, with_payload, url,
    with_vector)`, which pages through a business's points."""

    def point_ids(self, business: str) -> set[str]:
        return {p.id for p in self._scroll(business, with_payload=False)}

    def payloads(self, business: str) -> dict[str, dict[str, Any]]:
        return {p.id: p.payload for p in self._scroll(business, with_payload=True)}

    def points(self, business: str) -> list[StoredPoint]:
        return self._scroll(business, with_payload=True, with_vector=True)

    def page_chunks(self, business: str, url: str) -> list[dict[str, Any]]:
        return sorted((p.payload for p in self._scroll(business, True, url)), key=lambda p: p.get("position", 0))


# Points per scroll page: with vectors, fewer (384-1536 floats each).
SCROLL_PAGE = 1000
# The engine's search pool. Its default (one thread per CPU and more: eight on two cores)
# parallelises reads across segments, but a query holds the GIL until it returns, so
# the threads only took turns, and their waking and spinning cost more CPU than the
# search itself: a dense and a lexical query over 100k chunks took 3.0 ms of CPU with
# the default pool and 1.6 ms with one thread, 2.5 vs 1.9 ms of wall time.
SEARCH_THREADS = 1
SCROLL_PAGE_WITH_VECTORS = 500


class EdgeStore(_ScrollReads):
    def __init__(self, path: Path, dimensions: int | None, wait_s: float = 0.0) -> None:
        """`dimensions=None` opens an existing shard as it is. The folder's lock is taken
        before the engine touches a file (it writes its journal before finding its own
        lock taken, which broke the holder's store); another process holding it is
        waited for up to `wait_s` seconds."""
        self.path = path
        self._lock = _hold_folder_lock(path, wait_s)
        try:
            self._shard = self._open(path, dimensions)
        except BaseException:
            self._lock.close()
            raise

    @staticmethod
    def _open(path: Path, dimensions: int | None):
        # Without dimensions the dense vectors' configuration is the shard's own.
        config = qe.EdgeConfig(
            vectors=None
            if dimensions is None
            else {DENSE: qe.EdgeVectorParams(size=dimensions, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=qe.Modifier.Idf)},
            max_search_threads=SEARCH_THREADS,
        )
        try:
            if (path / "segments").exists() or any(path.glob("*")):
                return qe.EdgeShard.load(str(path), config)
            path.mkdir(parents=True, exist_ok=True)
            shard = qe.EdgeShard.create(str(path), config)
            shard.update(qe.UpdateOperation.create_field_index("business", qe.PayloadSchemaType.Keyword))
            shard.update(qe.UpdateOperation.create_field_index("url", qe.PayloadSchemaType.Keyword))
            return shard
        except Exception as exc:  # the engine reports lock and format errors as plain exceptions
            if "WouldBlock" in str(exc) or "lock" in str(exc).lower():
                raise StoreError(STORE_IN_USE.format(path=path)) from None
            raise StoreError(f"cannot open the vector store at {path}: {exc}") from None

    def upsert(self, points: list[StoredPoint]) -> None:
        if not points:
            return
        batch = []
        for p in points:
            indices, values = _terms(p)
            batch.append(qe.Point(p.id, {DENSE: p.vector, SPARSE: qe.SparseVector(indices, values)}, p.payload))
        self._shard.update(qe.UpdateOperation.upsert_points(batch))
        self._shard.flush()

    def delete(self, ids: list[str]) -> None:
        if ids:
            self._shard.update(qe.UpdateOperation.delete_points(list(ids)))
            self._shard.flush()

    def count(self, business: str) -> int:
        return self._shard.count(qe.CountRequest(exact=True, filter=_business_filter(business)))

    def _scroll(
        self, business: str, with_payload: bool, url: str | None = None, with_vector: bool = False
    ) -> list[StoredPoint]:
        found: list[StoredPoint] = []
        offset = None
        while True:
            records, offset = self._shard.scroll(
                qe.ScrollRequest(
                    offset=offset,
                    limit=SCROLL_PAGE_WITH_VECTORS if with_vector else SCROLL_PAGE,
                    filter=_business_filter(business, url),
                    with_payload=with_payload,
                    with_vector=[DENSE] if with_vector else None,
                )
            )
            found.extend(
                StoredPoint(str(r.id), list((r.vector or {})[DENSE]) if with_vector else [], dict(r.payload or {}))
                for r in records
            )
            if offset is None:
                return found

    def search(
        self,
        business: str,
        vector: list[float] | None,
        text: str,
        limit: int,
        mode: Ranking,
        langs: tuple[str, ...] = (),
        vectors: bool = False,
    ) -> list[Hit]:
        flt = _business_filter(business)
        if mode == "dense":
            if vector is None:
                return []
            query = qe.Query.Nearest(vector, using=DENSE)
        else:
            indices, values = query_terms(text, langs)
            if not indices:
                return []
            query = qe.Query.Nearest(qe.SparseVector(indices, values), using=SPARSE)
        vectors = vectors and mode == "dense"
        request = qe.QueryRequest(
            limit=limit, query=query, filter=flt, with_payload=True, with_vector=[DENSE] if vectors else None
        )
        return [
            Hit(
                id=str(r.id),
                score=float(r.score),
                payload=dict(r.payload or {}),
                vector=list((r.vector or {})[DENSE]) if vectors else None,
            )
            for r in self._shard.query(request)
        ]

    def close(self) -> None:
        try:
            self._shard.close()
        finally:
            self._lock.close()  # closing the file releases the lock


class QdrantServerStore(_ScrollReads):
    """The same store on a Qdrant server (or qdrant-client's local mode, for tests)."""

    def __init__(self, client: Any, collection: str, dimensions: int | None) -> None:
        """`dimensions=None` uses the collection as it is (or none, if it does not exist)."""
        from qdrant_client import models

        self._m = models
        self._client = client
        self.collection = collection
        if dimensions is not None and not client.collection_exists(collection):
            client.create_collection(
                collection,
                vectors_config={DENSE: models.VectorParams(size=dimensions, distance=models.Distance.COSINE)},
                sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)},
            )
            # The business is the tenant: Qdrant keeps each tenant's points together and
            # searches within one without the global graph (its multitenancy advice).
            tenant = models.KeywordIndexParams(type=models.KeywordIndexType.KEYWORD, is_tenant=True)
            client.create_payload_index(collection, "business", tenant)
            client.create_payload_index(collection, "url", models.PayloadSchemaType.KEYWORD)

    def _filter(self, business: str, url: str | None = None):
        m = self._m
        must = [m.FieldCondition(key="business", match=m.MatchValue(value=business))]
        if url is not None:
            must.append(m.FieldCondition(key="url", match=m.MatchValue(value=url)))
        return m.Filter(must=must)

    def upsert(self, points: list[StoredPoint]) -> None:
        if not points:
            return
        m = self._m
        batch = []
        for p in points:
            indices, values = _terms(p)
            batch.append(
                m.PointStruct(
                    id=p.id,
                    payload=p.payload,
                    vector={DENSE: p.vector, SPARSE: m.SparseVector(indices=indices, values=values)},
                )
            )
        self._client.upsert(self.collection, batch, wait=True)

    def delete(self, ids: list[str]) -> None:
        if ids:
            self._client.delete(self.collection, self._m.PointIdsList(points=list(ids)), wait=True)

    def count(self, business: str) -> int:
        return self._client.count(self.collection, count_filter=self._filter(business), exact=True).count

    def _scroll(
        self, business: str, with_payload: bool, url: str | None = None, with_vector: bool = False
    ) -> list[StoredPoint]:
        found: list[StoredPoint] = []
        offset = None
        while True:
            records, offset = self._client.scroll(
                self.collection,
                scroll_filter=self._filter(business, url),
                offset=offset,
                limit=SCROLL_PAGE_WITH_VECTORS if with_vector else SCROLL_PAGE,
                with_payload=with_payload,
                with_vectors=[DENSE] if with_vector else False,
            )
            found.extend(
                StoredPoint(str(r.id), list(r.vector[DENSE]) if with_vector else [], dict(r.payload or {}))
                for r in records
            )
            if offset is None:
                return found

    def search(
        self,
        business: str,
        vector: list[float] | None,
        text: str,
        limit: int,
        mode: Ranking,
        langs: tuple[str, ...] = (),
        vectors: bool = False,
    ) -> list[Hit]:
        m = self._m
        vectors = vectors and mode == "dense"
        if mode == "dense":
            if vector is None:
                return []
            query, using = vector, DENSE
        else:
            indices, values = query_terms(text, langs)
            if not indices:
                return []
            query, using = m.SparseVector(indices=indices, values=values), SPARSE
        response = self._client.query_points(
            self.collection,
            query=query,
            using=using,
            query_filter=self._filter(business),
            limit=limit,
            with_payload=True,
            with_vectors=[DENSE] if vectors else False,
        )
        return [
            Hit(
                id=str(p.id),
                score=float(p.score),
                payload=dict(p.payload or {}),
                vector=list(p.vector[DENSE]) if vectors else None,
            )
            for p in response.points
        ]

    def close(self) -> None:
        self._client.close()


def _server_client(settings: Settings):
    from qdrant_client import QdrantClient

    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    return QdrantClient(url=settings.qdrant_url, api_key=key)


class _ReadWriteLock:
    """Many searches at once, or one page swap (delete + write) alone."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writing = False

    @contextmanager
    def shared(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writing)
            self._readers += 1
        try:
            yield
        finally:
            with self._cond:
                self._readers -= 1
                self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        with self._cond:
            self._cond.wait_for(lambda: not self._writing)
            self._writing = True
            self._cond.wait_for(lambda: self._readers == 0)
        try:
            yield
        finally:
            with self._cond:
                self._writing = False
                self._cond.notify_all()


class SharedStore:
    """One process's handle on an open store. Embedded stores admit one opener per
    folder, so a process opens each store once and hands out handles: the API server's
    searches and the ingestion jobs it runs share it. `close()` closes the store when
    the last handle goes. A search never runs between a page's delete and its write
    (`swap()`), so it sees the page's old or new chunks, never neither."""

    def __init__(self, key: tuple, entry: _Entry) -> None:
        self._key, self._entry, self._closed = key, entry, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._entry.store, name)

    def search(self, *args, **kwargs) -> list[Hit]:
        return self._read(self._entry.store.search, *args, **kwargs)

    def page_chunks(self, business: str, url: str) -> list[dict[str, Any]]:
        """A page's passages in order, never read in the middle of its swap."""
        return self._read(self._entry.store.page_chunks, business, url)

    def _read(self, read: Callable[..., Any], *args, **kwargs) -> Any:
        """`read` under the shared lock, unless the store's own transactions keep it apart
        from swaps."""
        if self._transactional:
            return read(*args, **kwargs)
        with self._entry.lock.shared():
            return read(*args, **kwargs)

    @property
    def _transactional(self) -> bool:
        """A store whose own transactions keep searches from seeing half a swap, across
        processes too (PostgreSQL): no in-process lock is needed around it."""
        return hasattr(self._entry.store, "swap")

    def rankings(
        self,
        business: str,
        vector: list[float] | None,
        text: str | None,
        limit: int,
        langs: tuple[str, ...] = (),
        vectors: bool = False,
    ) -> tuple[list[Hit], list[Hit]]:
        """The dense ranking (empty without a vector; its hits carry their vectors when
        `vectors`) and the lexical ranking (empty without text), read together: no page
        swap falls between them."""
        if self._transactional:
            return self._entry.store.rankings(business, vector, text, limit, langs, vectors)
        with self._entry.lock.shared():
            store = self._entry.store
            dense = (
                store.search(business, vector, "", limit, mode="dense", vectors=vectors) if vector is not None else []
            )
            lexical = store.search(business, None, text, limit, mode="lexical", langs=langs) if text else []
            return dense, lexical

    def swap(self):
        """Hold while deleting a page's stale chunks and writing its new ones."""
        if self._transactional:
            return self._entry.store.swap()
        return self._entry.lock.exclusive()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with _REGISTRY_LOCK:
            self._entry.handles -= 1
            if self._entry.handles == 0:
                del _REGISTRY[self._key]
                self._entry.store.close()


@dataclass
class _Entry:
    store: Any
    handles: int = 0
    lock: _ReadWriteLock = field(default_factory=_ReadWriteLock)


_REGISTRY: dict[tuple, _Entry] = {}
_REGISTRY_LOCK = threading.Lock()


def _handle(key: tuple, opener) -> SharedStore:
    with _REGISTRY_LOCK:
        entry = _REGISTRY.get(key)
        if entry is None:
            entry = _REGISTRY[key] = _Entry(opener())
        entry.handles += 1
        return SharedStore(key, entry)


def open_store(settings: Settings, embedder_id: str, dimensions: int) -> SharedStore:
    """The collection for `embedder_id`, created with `dimensions` if it does not exist."""
    name = collection_name(embedder_id)
    if settings.qdrant_url:
        return _handle(
            ("server", settings.qdrant_url, name), lambda: QdrantServerStore(_server_client(settings), name, dimensions)
        )
    if settings.database_url:
        from ingest.kb.pgstore import PgVectorStore

        return _handle(
            ("pg", settings.database_url, name), lambda: PgVectorStore(settings.database_url, name, dimensions)
        )
    path = (settings.vectors_dir / name).resolve()
    return _handle(("edge", str(path)), lambda: EdgeStore(path, dimensions, settings.store_wait_s))


def vectors_lost(settings: Settings, embedder_id: str | None) -> bool:
    """True when the embedded store a knowledge base was written to is gone from disk (a
    folder deleted by hand, a disk replaced): its state then claims chunks no search can
    find, until the next run rebuilds them. A Qdrant server is not probed here."""
    if embedder_id is None or settings.qdrant_url or settings.database_url:
        return False
    return not (settings.vectors_dir / collection_name(embedder_id)).is_dir()


def open_existing_store(settings: Settings, embedder_id: str) -> SharedStore | None:
    """The collection of an embedder used before (to delete from), or None if there is none."""
    name = collection_name(embedder_id)
    if settings.qdrant_url:
        key = ("server", settings.qdrant_url, name)
        with _REGISTRY_LOCK:
            known = key in _REGISTRY
        if not known:
            client = _server_client(settings)
            exists = client.collection_exists(name)
            client.close()
            if not exists:
                return None
        return _handle(key, lambda: QdrantServerStore(_server_client(settings), name, dimensions=None))
    if settings.database_url:
        from ingest.kb.pgstore import PgVectorStore, pg_table_exists

        key = ("pg", settings.database_url, name)
        with _REGISTRY_LOCK:
            known = key in _REGISTRY
        if not known and not pg_table_exists(settings.database_url, name):
            return None
        return _handle(key, lambda: PgVectorStore(settings.database_url, name, dimensions=None))
    path = (settings.vectors_dir / name).resolve()
    if not path.exists():
        return None
    return _handle(("edge", str(path)), lambda: EdgeStore(path, dimensions=None, wait_s=settings.store_wait_s))
