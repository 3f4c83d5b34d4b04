"""The indexing step, in the manner of LangChain's `index()`: documents in, the vector
store reconciled with them against a record of what it holds, a result out.

Chunks are keyed by content (index/fingerprint.py), so the diff against the records
says exactly what is new and what is stale. New chunks are embedded first, batch by
batch, and each batch's vectors are saved in the records as soon as they are paid for
(an error or a kill loses no paid work, and the next run reuses them); the store is
untouched while we pay. Then, page by page, the page's stale points are deleted and its
new ones written: a search meanwhile sees a page's old or new chunks, and no duplicate
survives. Last, the store and the records must agree; a mismatch is repaired and said.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import numpy as np

from ingest.index.chunk import chunk_document
from ingest.index.fingerprint import key_chunks
from ingest.kb.embed import Embedder, Embeddings, OpenAIEmbedder
from ingest.kb.lexical import SCHEME as LEXICAL_SCHEME
from ingest.kb.lexical import analysis_language
from ingest.kb.state import ChunkRecord, StateStore
from ingest.kb.store import StoredPoint
from ingest.models import ChunksReport, Document, KeyedChunk
from ingest.ops.guard import SpendGuard

# Chunks per embedding call; each batch's vectors are saved on arrival.
EMBED_BATCH = 64
# Points rewritten per call when only their lexical analysis changes.
REWRITE_BATCH = 256

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Records:
    """What the state records of one business's source: the chunks in the store, and
    vectors paid for but not yet written."""

    state: StateStore
    business: str
    source_id: int

    def chunk_urls(self) -> dict[str, str]:
        return {pid: c.url for pid, c in self.state.chunks.of(self.source_id).items()}

    def write(self, doomed: list[str], fresh: list[KeyedChunk], embedder_id: str) -> None:
        self.state.chunks.delete(doomed)
        records = [
            ChunkRecord(
                k.point_id, k.chunk.url, k.fingerprint, k.chunk.heading, k.chunk.position, k.chunk.tokens, embedder_id
            )
            for k in fresh
        ]
        self.state.chunks.add(self.source_id, records)
        self.state.pending.drop([k.point_id for k in fresh])


@dataclass
class IndexResult:
    chunks: ChunksReport = field(default_factory=ChunksReport)
    warnings: list[str] = field(default_factory=list)


def index(
    documents: list[Document],
    records: Records,
    store,
    embedder: Embedder,
    *,
    gone: Iterable[str] = (),
    open_old: Callable[[str], object | None] = lambda embedder_id: None,
    guard: SpendGuard | None = None,
    job: str = "",
    paid: Callable[[Embeddings], None] = lambda result: None,
    progress: Progress = lambda phase, done, total: None,
) -> IndexResult:
    """Reconcile `store` with `documents`: the chunks of a document are replaced where they
    changed, and every chunk of a URL in `gone` (gone, noindex, or now indexed under another
    URL) is deleted, as is every chunk of a made document (URL with a fragment) not in
    `documents`. Stale points of another embedder are deleted from its store, which
    `open_old(embedder_id)` opens. `guard` is asked before every paid batch; `paid` hears
    of each."""
    result = IndexResult()
    keyed = [
        k
        for doc in documents
        for k in key_chunks(chunk_document(doc, embedder.chunk_tokens), records.business, embedder.id)
    ]
    _forget_lost(store, records, embedder.id, result)
    stored = records.chunk_urls()
    processed, gone = {d.url for d in documents}, set(gone)
    new_by_id = {k.point_id: k for k in keyed}
    # A document under a URL with a fragment (the site-wide document, the contact card)
    # is made by each run from its pages, never read: one this run did not make is gone.
    made = {url for url in stored.values() if "#" in url} - processed
    stale = [
        pid for pid, url in stored.items() if (url in processed and pid not in new_by_id) or url in gone or url in made
    ]
    to_add = [k for pid, k in new_by_id.items() if pid not in stored]
    result.chunks.unchanged = sum(1 for pid in new_by_id if pid in stored)
    vectors = _embed(embedder, to_add, records, guard, job, paid, progress)
    _delete_other_embedders(stale, embedder.id, records, open_old)
    _write(store, records, embedder.id, stale, stored, to_add, vectors, result)
    records.state.pending.drop_recorded()
    records.state.businesses.set_embedder(records.business, embedder.id)
    payloads = store.payloads(records.business)  # one read of the business's points serves both checks
    _reanalyse(store, records, payloads, {d.url: d.lang for d in documents}, {k.point_id for k in to_add}, result)
    _verify(store, records, embedder.id, set(payloads), result)
    return result


def _forget_lost(store, records: Records, embedder_id: str, result: IndexResult) -> None:
    """Chunks the records hold but the store lacks (a vector folder lost or restored from an
    old backup) are forgotten before the diff, so this run writes them again: from vectors
    still pending, or embedded anew from the pages read."""
    lost = records.state.chunks.ids(records.business, embedder_id) - store.point_ids(records.business)
    if lost:
        records.state.chunks.delete(sorted(lost))
        result.warnings.append(
            f"{len(lost)} chunks recorded in the state were missing from the vector store; "
            "they are written again by this run"
        )


def _embed(
    embedder: Embedder,
    to_add: list[KeyedChunk],
    records: Records,
    guard: SpendGuard | None,
    job: str,
    paid: Callable[[Embeddings], None],
    progress: Progress,
) -> dict[str, list[float]]:
    """Vectors for `to_add`, reusing those paid for by an earlier, interrupted run."""
    state, business = records.state, records.business
    cached = state.pending.of(embedder.id, [k.point_id for k in to_add])
    vectors = {pid: np.frombuffer(blob, dtype=np.float32).tolist() for pid, blob in cached.items()}
    missing = [k for k in to_add if k.point_id not in vectors]
    for start in range(0, len(missing), EMBED_BATCH):
        part = missing[start : start + EMBED_BATCH]
        texts = [k.chunk.text for k in part]
        if guard is not None and isinstance(embedder, OpenAIEmbedder):  # the local model costs nothing
            estimate = sum(k.chunk.tokens for k in part) * embedder.price_per_mtok / 1e6
            with guard.spending(business, job, "embedding_tokens", estimate) as settle:
                embedded = embedder.embed_documents(texts)
                settle(embedded.tokens, embedded.cost_usd)
        else:
            embedded = embedder.embed_documents(texts)
        if guard is not None:
            guard.provider_ok()
        fresh = dict(zip((k.point_id for k in part), embedded.vectors))
        state.pending.save(embedder.id, {pid: np.asarray(v, dtype=np.float32).tobytes() for pid, v in fresh.items()})
        vectors.update(fresh)
        paid(embedded)
        progress("embed", min(start + EMBED_BATCH, len(missing)), len(missing))
    return vectors


def _delete_other_embedders(stale: list[str], current: str, records: Records, open_old) -> None:
    """Points made by a previous embedder live in that embedder's collection."""
    by_embedder: dict[str, list[str]] = {}
    for pid, embedder_id in records.state.chunks.embedders(stale).items():
        if embedder_id != current:
            by_embedder.setdefault(embedder_id, []).append(pid)
    for embedder_id, ids in by_embedder.items():
        old = open_old(embedder_id)
        if old is not None:
            try:
                old.delete(ids)
            finally:
                old.close()


def _write(
    store,
    records: Records,
    embedder_id: str,
    stale: list[str],
    stored: dict[str, str],
    to_add: list[KeyedChunk],
    vectors: dict[str, list[float]],
    result: IndexResult,
) -> None:
    """Page by page, delete then write (a search in another process, on a Qdrant server,
    may fall in the moment between the two calls; in this process `swap()` holds it)."""
    stale_by_url: dict[str, list[str]] = {}
    for pid in stale:
        stale_by_url.setdefault(stored[pid], []).append(pid)
    new_by_url: dict[str, list[KeyedChunk]] = {}
    for k in to_add:
        new_by_url.setdefault(k.chunk.url, []).append(k)
    for url in sorted(set(stale_by_url) | set(new_by_url)):
        doomed, fresh = stale_by_url.get(url, []), new_by_url.get(url, [])
        with store.swap():
            store.delete(doomed)
            store.upsert(
                [StoredPoint(k.point_id, vectors[k.point_id], payload(k, records.business, embedder_id)) for k in fresh]
            )
        records.write(doomed, fresh, embedder_id)
        result.chunks.deleted += len(doomed)
        result.chunks.added += len(fresh)


def payload(keyed: KeyedChunk, business: str, embedder_id: str) -> dict:
    chunk = keyed.chunk
    return {
        "business": business,
        "url": chunk.url,
        "title": chunk.title,
        "heading_path": chunk.heading,
        "text": chunk.text,
        "position": chunk.position,
        "fingerprint": keyed.fingerprint,
        "embedder": embedder_id,
        "lang": chunk.lang,
    }


def _reanalyse(
    store,
    records: Records,
    payloads: dict[str, dict],
    lang_by_url: dict[str, str],
    written: set[str],
    result: IndexResult,
) -> None:
    """Bring chunks indexed under an older lexical analysis (or with a page language that
    has since changed) up to date from their stored text and vectors: no embedding calls.
    Rewrites points in place; the set of point ids does not change."""
    state, business = records.state, records.business
    scheme, _ = state.businesses.lexical_of(business)
    lang_of = {pid: lang_by_url.get(p.get("url"), p.get("lang", "")) for pid, p in payloads.items()}
    stale = {
        pid
        for pid, p in payloads.items()
        if pid not in written and (scheme != LEXICAL_SCHEME or p.get("lang", "") != lang_of[pid])
    }
    if stale:
        points = [
            StoredPoint(p.id, p.vector, {**p.payload, "lang": lang_of[p.id]})
            for p in store.points(business)
            if p.id in stale
        ]
        for start in range(0, len(points), REWRITE_BATCH):
            store.upsert(points[start : start + REWRITE_BATCH])
        if scheme != LEXICAL_SCHEME:
            result.warnings.append(
                f"re-indexed {len(points)} unchanged chunks for the lexical analysis "
                f"{LEXICAL_SCHEME} from their stored text (no embedding calls)"
            )
    state.businesses.set_lexical(business, LEXICAL_SCHEME, {analysis_language(lang) for lang in lang_of.values()})
    # passages per language, for search to weigh the lexical ranking by (search.fusion_weights)
    state.businesses.set_language_shares(
        business, Counter(lang.split("-")[0].lower() for lang in lang_of.values() if lang)
    )


def _verify(store, records: Records, embedder_id: str, in_store: set[str], result: IndexResult) -> None:
    """The store (`in_store`: its point ids for the business) and the records must agree;
    a mismatch is repaired where safe and reported."""
    state, business = records.state, records.business
    in_state = state.chunks.ids(business, embedder_id)
    orphans = in_store - in_state
    if orphans:
        store.delete(sorted(orphans))
        result.warnings.append(f"removed {len(orphans)} points found in the vector store but not in the state")
    missing = in_state - in_store
    if missing:
        state.chunks.delete(sorted(missing))
        result.warnings.append(
            f"{len(missing)} chunks recorded in the state were missing from the vector store; "
            "they will be re-embedded on the next run"
        )
    result.chunks.total = state.chunks.count(business)
