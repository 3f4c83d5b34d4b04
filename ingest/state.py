"""State in SQLite: businesses, sources, pages, chunks, runs.

The record of what is in the vector store lives here (LangChain's RecordManager
idea): resync diffs against it, and every run checks the store agrees with it.
"""
from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS businesses (
    id TEXT PRIMARY KEY,
    created_at REAL NOT NULL,
    embedder_id TEXT
);
CREATE TABLE IF NOT EXISTS sources (
    id INTEGER PRIMARY KEY,
    business TEXT NOT NULL REFERENCES businesses(id),
    site TEXT NOT NULL,
    root_url TEXT,
    status TEXT NOT NULL DEFAULT 'new',
    last_run_id INTEGER,
    UNIQUE (business, site)
);
CREATE TABLE IF NOT EXISTS pages (
    source_id INTEGER NOT NULL REFERENCES sources(id),
    url TEXT NOT NULL,
    status INTEGER,
    etag TEXT,
    last_modified TEXT,
    raw_sha256 TEXT,
    title TEXT,
    fetched_at REAL,
    PRIMARY KEY (source_id, url)
);
CREATE TABLE IF NOT EXISTS chunks (
    point_id TEXT PRIMARY KEY,
    source_id INTEGER NOT NULL REFERENCES sources(id),
    url TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    heading TEXT NOT NULL,
    position INTEGER NOT NULL,
    tokens INTEGER NOT NULL,
    embedder_id TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_page ON chunks (source_id, url);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    source_id INTEGER REFERENCES sources(id),
    business TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    problem TEXT,
    report TEXT
);
"""


@dataclass(frozen=True)
class StoredPage:
    url: str
    status: int | None
    etag: str | None
    last_modified: str | None
    raw_sha256: str | None


@dataclass(frozen=True)
class StoredChunk:
    point_id: str
    url: str
    fingerprint: str


class StateStore:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    # businesses and sources
    def ensure_source(self, business: str, site: str) -> int:
        self._db.execute("INSERT OR IGNORE INTO businesses (id, created_at) VALUES (?, ?)", (business, time.time()))
        self._db.execute("INSERT OR IGNORE INTO sources (business, site) VALUES (?, ?)", (business, site))
        return self._db.execute("SELECT id FROM sources WHERE business=? AND site=?", (business, site)).fetchone()[0]

    def set_source(self, source_id: int, **fields: object) -> None:
        assignments = ", ".join(f"{k}=?" for k in fields)
        self._db.execute(f"UPDATE sources SET {assignments} WHERE id=?", (*fields.values(), source_id))

    def embedder_of(self, business: str) -> str | None:
        row = self._db.execute("SELECT embedder_id FROM businesses WHERE id=?", (business,)).fetchone()
        return row[0] if row else None

    def set_embedder(self, business: str, embedder_id: str) -> None:
        self._db.execute("UPDATE businesses SET embedder_id=? WHERE id=?", (embedder_id, business))

    def businesses(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM businesses ORDER BY id")]

    def sources(self, business: str) -> list[dict]:
        rows = self._db.execute(
            "SELECT id, site, root_url, status, last_run_id FROM sources WHERE business=? ORDER BY site", (business,))
        return [dict(zip(("id", "site", "root_url", "status", "last_run_id"), row)) for row in rows]

    # pages
    def pages(self, source_id: int) -> dict[str, StoredPage]:
        rows = self._db.execute(
            "SELECT url, status, etag, last_modified, raw_sha256 FROM pages WHERE source_id=?", (source_id,))
        return {row[0]: StoredPage(*row) for row in rows}

    def save_page(self, source_id: int, url: str, status: int, etag: str | None, last_modified: str | None,
                  raw_sha256: str | None, title: str | None) -> None:
        self._db.execute(
            "INSERT INTO pages (source_id, url, status, etag, last_modified, raw_sha256, title, fetched_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source_id, url) DO UPDATE SET status=excluded.status, "
            "etag=excluded.etag, last_modified=excluded.last_modified, raw_sha256=excluded.raw_sha256, "
            "title=excluded.title, fetched_at=excluded.fetched_at",
            (source_id, url, status, etag, last_modified, raw_sha256, title, time.time()))

    def delete_page(self, source_id: int, url: str) -> None:
        self._db.execute("DELETE FROM pages WHERE source_id=? AND url=?", (source_id, url))

    # chunks
    def chunks(self, source_id: int) -> dict[str, StoredChunk]:
        rows = self._db.execute("SELECT point_id, url, fingerprint FROM chunks WHERE source_id=?", (source_id,))
        return {row[0]: StoredChunk(*row) for row in rows}

    def add_chunks(self, source_id: int, rows: list[tuple[str, str, str, str, int, int, str]]) -> None:
        self._db.executemany(
            "INSERT OR REPLACE INTO chunks (point_id, source_id, url, fingerprint, heading, position, tokens, embedder_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [(r[0], source_id, *r[1:]) for r in rows])

    def delete_chunks(self, point_ids: list[str]) -> None:
        self._db.executemany("DELETE FROM chunks WHERE point_id=?", [(p,) for p in point_ids])

    def chunk_count(self, business: str) -> int:
        return self._db.execute(
            "SELECT COUNT(*) FROM chunks JOIN sources ON sources.id = chunks.source_id WHERE sources.business=?",
            (business,)).fetchone()[0]

    def chunk_ids(self, business: str) -> set[str]:
        rows = self._db.execute(
            "SELECT point_id FROM chunks JOIN sources ON sources.id = chunks.source_id WHERE sources.business=?",
            (business,))
        return {r[0] for r in rows}

    # runs
    def start_run(self, business: str, source_id: int | None) -> int:
        cur = self._db.execute("INSERT INTO runs (business, source_id, started_at) VALUES (?, ?, ?)",
                               (business, source_id, time.time()))
        return int(cur.lastrowid)

    def finish_run(self, run_id: int, problem: str | None, report: dict) -> None:
        self._db.execute("UPDATE runs SET finished_at=?, problem=?, report=? WHERE id=?",
                         (time.time(), problem, json.dumps(report), run_id))

    def last_report(self, business: str) -> dict | None:
        row = self._db.execute("SELECT report FROM runs WHERE business=? AND report IS NOT NULL ORDER BY id DESC LIMIT 1",
                               (business,)).fetchone()
        return json.loads(row[0]) if row else None

