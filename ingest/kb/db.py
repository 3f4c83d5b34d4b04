"""The state database: one SQLite file in the data folder holding everything sitekb
remembers besides vectors and raw pages: businesses, sources, pages, chunks, vectors
paid for, runs, API keys (kb/state.py), the spend ledger, plan usage and the circuit
breaker (ops/guard.py), and the alerts sent (ops/alerts.py).

This module owns the connection's settings, every table and every migration, so the
stores above it only read and write rows. Migrations are numbered steps recorded in
SQLite's `user_version`; each runs once, in order, when a connection opens a file
whose version is older.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

from ingest.settings import private_dir

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
    -- consecutive runs in which no link or sitemap entry pointed here (R-8.4)
    missing_runs INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (source_id, url)
);
-- A page's translations, as its hreflang links declare them (language -> URL).
CREATE TABLE IF NOT EXISTS alternates (
    source_id INTEGER NOT NULL REFERENCES sources(id),
    url TEXT NOT NULL,
    lang TEXT NOT NULL,
    alternate_url TEXT NOT NULL,
    PRIMARY KEY (source_id, url, lang)
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
-- Vectors paid for but not yet written to the store: a run that dies between
-- embedding and upserting resumes from here instead of paying again (R-9.5).
CREATE TABLE IF NOT EXISTS pending_vectors (
    point_id TEXT PRIMARY KEY,
    embedder_id TEXT NOT NULL,
    vector BLOB NOT NULL
);
-- Retrieval API keys: only a hash is stored; the key is shown once, at creation.
CREATE TABLE IF NOT EXISTS api_keys (
    id TEXT PRIMARY KEY,
    business TEXT NOT NULL REFERENCES businesses(id),
    key_hash TEXT NOT NULL UNIQUE,
    label TEXT,
    created_at REAL NOT NULL,
    revoked_at REAL
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    source_id INTEGER REFERENCES sources(id),
    business TEXT NOT NULL,
    started_at REAL NOT NULL,
    finished_at REAL,
    problem TEXT,
    report TEXT
);
-- Spend ledger, plan usage, circuit breaker (ops/guard.py).
CREATE TABLE IF NOT EXISTS spend (
    id INTEGER PRIMARY KEY,
    business TEXT NOT NULL,
    job TEXT NOT NULL,
    kind TEXT NOT NULL,
    units INTEGER NOT NULL,
    usd REAL NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS spend_by_time ON spend (at);
CREATE TABLE IF NOT EXISTS brief_runs (
    business TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS breaker (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    open_until REAL NOT NULL DEFAULT 0,
    reason TEXT,
    quota_streak INTEGER NOT NULL DEFAULT 0
);
INSERT OR IGNORE INTO breaker (id) VALUES (1);
CREATE TABLE IF NOT EXISTS job_failures (at REAL NOT NULL);
-- Alerts already sent, one row per event (ops/alerts.py).
CREATE TABLE IF NOT EXISTS alerts (event TEXT PRIMARY KEY, subject TEXT, at REAL NOT NULL);
"""


def _v1_every_table(db: sqlite3.Connection) -> None:
    """The tables as of this module, and the columns data folders made before
    migrations were numbered may lack (SQLite has no ADD COLUMN IF NOT EXISTS)."""
    # Statement by statement, not executescript(), which would commit the migration's transaction.
    sql = "\n".join(line for line in SCHEMA.splitlines() if not line.lstrip().startswith("--"))
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)
    _add_missing(db, "pages", {"missing_runs": "INTEGER NOT NULL DEFAULT 0"})
    _add_missing(db, "businesses", {"lexical_scheme": "TEXT", "languages": "TEXT"})


def _add_missing(db: sqlite3.Connection, table: str, columns: dict[str, str]) -> None:
    present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    for name, declaration in columns.items():
        if name not in present:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {declaration}")


def _v2_contact_cards(db: sqlite3.Connection) -> None:
    """Each source's contact card (ingest/extract/facts.py), as JSON."""
    _add_missing(db, "sources", {"facts": "TEXT"})


# Append a step to change the schema; never edit one that has shipped.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_v1_every_table, _v2_contact_cards)


class StateDamaged(RuntimeError):
    """The state database cannot be used as it is; the message names the file and what to do."""


START_OVER = (
    "restore it from a backup, or move the data folder away to start over (the next run then "
    "re-embeds every page, and the API keys must be created again)"
)


def connect(path: Path, *, shared: bool = False) -> sqlite3.Connection:
    """A connection to the state database at `path`, created and migrated as needed.
    Autocommit; WAL, so readers never wait for a writer; foreign keys on. `shared=True`
    lets one connection serve several threads (the callers serialise). A state that is
    damaged, or empty beside a knowledge base's vectors, is refused with StateDamaged:
    starting it afresh would drop every API key and re-embed every page without a word."""
    private_dir(path.parent)
    new = not path.exists()
    if not new and path.stat().st_size == 0 and _holds_vectors(path.parent):
        raise StateDamaged(f"the state database {path} is empty (0 bytes) beside a knowledge base; {START_OVER}")
    try:
        db = sqlite3.connect(path, timeout=30, isolation_level=None, check_same_thread=not shared)
        if new:
            os.chmod(path, 0o600)  # SQLite gives its -wal and -shm files the same mode
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db)
    except sqlite3.OperationalError:
        raise  # locked, read-only, disk I/O: not damage
    except sqlite3.DatabaseError as exc:  # "file is not a database", "disk image is malformed"
        raise StateDamaged(f"the state database {path} is damaged ({exc}); {START_OVER}") from None
    return db


def _holds_vectors(data_dir: Path) -> bool:
    vectors = data_dir / "vectors"
    return vectors.is_dir() and any(p.is_dir() for p in vectors.iterdir())


def migrate(db: sqlite3.Connection) -> int:
    """Run the migrations the database has not had, each in its own transaction. Returns the version."""
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for number, step in enumerate(MIGRATIONS[version:], start=version + 1):
        db.execute("BEGIN IMMEDIATE")
        try:
            if db.execute("PRAGMA user_version").fetchone()[0] < number:  # not done meanwhile by another process
                step(db)
                db.execute(f"PRAGMA user_version = {number}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    return len(MIGRATIONS)
