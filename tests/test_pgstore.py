"""What the PostgreSQL vector store adds to the store contract (tests/test_store.py runs
that contract on it too): swaps seen whole by other processes, the HNSW path, and its
choice by configuration."""

from __future__ import annotations

import threading

import pytest

from ingest.kb import pgstore
from ingest.kb.pgstore import PgVectorStore
from ingest.kb.store import SharedStore, StoredPoint, open_existing_store, open_store, vectors_lost
from ingest.settings import load_settings


def _point(pid: str, business: str, url: str, text: str, vector: list[float]) -> StoredPoint:
    return StoredPoint(pid, vector, {"business": business, "url": url, "text": text, "position": 0})


def test_a_search_from_another_process_never_sees_a_page_half_swapped(pg_url):
    """A writer replaces one page's two chunks again and again; a reader with its own
    connections (as another process would have) must always find two chunks: old or new."""
    writer = PgVectorStore(pg_url, "swap", dimensions=3)
    reader = PgVectorStore(pg_url, "swap", dimensions=3)
    writer.upsert([_point(f"v0-{i}", "acme", "u", f"opening hours version 0 part {i}", [1, i, 0]) for i in (1, 2)])
    stop, seen, problems = threading.Event(), [], []

    def read() -> None:
        while not stop.is_set():
            dense, lexical = reader.rankings("acme", [1.0, 0.5, 0.0], "opening hours", 10)
            seen.append((len(dense), len(lexical)))
            if len(dense) != 2 or len(lexical) != 2:
                problems.append((dense, lexical))

    thread = threading.Thread(target=read)
    thread.start()
    try:
        for version in range(1, 40):
            with writer.swap():
                writer.delete([f"v{version - 1}-{i}" for i in (1, 2)])
                writer.upsert(
                    [
                        _point(f"v{version}-{i}", "acme", "u", f"opening hours version {version} part {i}", [1, i, 0])
                        for i in (1, 2)
                    ]
                )
    finally:
        stop.set()
        thread.join()
        writer.close()
        reader.close()
    assert len(seen) > 10  # the reader really ran during the swaps
    assert problems == []


def test_the_swap_is_rolled_back_when_the_write_fails(pg_url):
    store = PgVectorStore(pg_url, "rollback", dimensions=3)
    try:
        store.upsert([_point("a", "acme", "u", "old text", [1, 0, 0])])
        with pytest.raises(Exception), store.swap():  # noqa: B017, PT011 (the database's own error)
            store.delete(["a"])
            store.upsert([_point("b", "acme", "u", "new text", [1, 0])])  # wrong dimensions: refused
        assert store.point_ids("acme") == {"a"}  # the delete went back with it
    finally:
        store.close()


def test_a_large_business_is_searched_through_the_hnsw_index_and_completed_exactly(pg_url, monkeypatch):
    """Past FULL_SCAN_POINTS the HNSW index answers; pgvector 0.6 filters after the graph
    walk, so a business whose points are few among many others gets its answer from the
    exact scan instead of a short list."""
    monkeypatch.setattr(pgstore, "FULL_SCAN_POINTS", 5)
    store = PgVectorStore(pg_url, "hnsw", dimensions=3)
    try:
        store.upsert([_point(f"big-{i}", "big", "u", "x", [1, i / 300, 0]) for i in range(300)])
        store.upsert([_point(f"small-{i}", "small", "u", "y", [0, 1, i / 10]) for i in range(8)])
        big = store.search("big", [1, 0, 0], "", 5, mode="dense")
        assert [h.id for h in big] == [f"big-{i}" for i in range(5)]
        small = store.search("small", [1, 0, 0], "", 6, mode="dense")  # 8 points, far from the query
        assert len(small) == 6 and all(h.id.startswith("small-") for h in small)
    finally:
        store.close()


def test_database_url_alone_puts_the_vectors_in_postgresql(pg_url, tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", database_url=pg_url)
    assert open_existing_store(settings, "local:e5") is None  # nothing written yet
    store = open_store(settings, "local:e5", 3)
    try:
        assert isinstance(store, SharedStore) and isinstance(store._entry.store, PgVectorStore)
        store.upsert([_point("a", "acme", "u", "text", [1, 0, 0])])
        again = open_existing_store(settings, "local:e5")
        assert again.count("acme") == 1
        again.close()
    finally:
        store.close()
    assert not (tmp_path / "data" / "vectors").exists()  # nothing embedded on disk
    assert not vectors_lost(settings, "local:e5")
