"""The state database: everything sitekb remembers besides vectors and raw pages:
businesses, sources, pages, chunks, vectors paid for, runs, API keys (kb/state.py), the
spend ledger, plan usage and the circuit breaker (ops/guard.py), and the alerts sent
(ops/alerts.py).

Two backends behind one connection interface (`execute`, `executemany`, `close`,
`transaction`, `dialect`): by default one SQLite file in the data folder; with
`SITEKB_DATABASE_URL=postgresql://...`, a PostgreSQL database that every worker and API
process shares. The SQL above this module is written once, in the dialect both accept
(`?` placeholders, which the PostgreSQL connection turns into psycopg's `%s`;
`INSERT ... ON CONFLICT`; `RETURNING`).

This module owns the connection's settings, every table and every migration, so the
stores above it only read and write rows. Migrations are numbered steps, the same for
both backends, recorded in SQLite's `user_version` or PostgreSQL's `sitekb_schema`
table; each runs once, in order, in its own transaction, when a connection opens a
database whose version is older (PostgreSQL's DDL is transactional too).
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

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
INSERT INTO breaker (id) VALUES (1) ON CONFLICT DO NOTHING;
CREATE TABLE IF NOT EXISTS job_failures (at REAL NOT NULL);
-- Alerts already sent, one row per event (ops/alerts.py).
CREATE TABLE IF NOT EXISTS alerts (event TEXT PRIMARY KEY, subject TEXT, at REAL NOT NULL);
"""


def _ddl(db: Connection, sql: str) -> str:
    """SQLite's declarations in PostgreSQL's words: 8-byte floats (PostgreSQL's REAL has
    4 bytes, too few for epoch seconds), bytea, and identity columns for the ids SQLite
    numbers by itself."""
    if db.dialect == "sqlite":
        return sql
    sql = re.sub(r"\bREAL\b", "DOUBLE PRECISION", sql)
    sql = re.sub(r"\bBLOB\b", "BYTEA", sql)
    return re.sub(r"\bid INTEGER PRIMARY KEY,", "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,", sql)


def _v1_every_table(db: Connection) -> None:
    """The tables as of this module, and the columns data folders made before
    migrations were numbered may lack (SQLite has no ADD COLUMN IF NOT EXISTS)."""
    # Statement by statement, not executescript(), which would commit the migration's transaction.
    sql = "\n".join(line for line in SCHEMA.splitlines() if not line.lstrip().startswith("--"))
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(_ddl(db, statement))
    _add_missing(db, "pages", {"missing_runs": "INTEGER NOT NULL DEFAULT 0"})
    _add_missing(db, "businesses", {"lexical_scheme": "TEXT", "languages": "TEXT"})


def _add_missing(db: Connection, table: str, columns: dict[str, str]) -> None:
    if db.dialect == "sqlite":
        present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
    else:
        rows = db.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ?",
            (table,),
        )
        present = {row[0] for row in rows}
    for name, declaration in columns.items():
        if name not in present:
            db.execute(_ddl(db, f"ALTER TABLE {table} ADD COLUMN {name} {declaration}"))


def _v2_contact_cards(db: Connection) -> None:
    """Each source's contact card (ingest/extract/facts.py), as JSON."""
    _add_missing(db, "sources", {"facts": "TEXT"})


def _v3_job_results(db: Connection) -> None:
    """The report of each queued job (ops/queue.py), for whoever waits for it."""
    db.execute(
        _ddl(
            db,
            "CREATE TABLE IF NOT EXISTS job_results (job_id BIGINT PRIMARY KEY, result TEXT, error TEXT, at REAL NOT NULL)",
        )
    )


def _v4_run_indexes(db: Connection) -> None:
    """Runs by source and by business: the due check reads every source's last runs, and
    at 5,000 sources with 20 runs each it took ~40 s without them (0.13 s with)."""
    db.execute("CREATE INDEX IF NOT EXISTS runs_by_source ON runs (source_id, finished_at)")
    db.execute("CREATE INDEX IF NOT EXISTS runs_by_business ON runs (business, id)")


def _v5_language_shares(db: Connection) -> None:
    """Each business's passages by language, as shares (JSON): search weighs the lexical
    ranking by its question's language's share."""
    _add_missing(db, "businesses", {"language_shares": "TEXT"})


# Append a step to change the schema; never edit one that has shipped.
MIGRATIONS: tuple[Callable[[Connection], None], ...] = (
    _v1_every_table,
    _v2_contact_cards,
    _v3_job_results,
    _v4_run_indexes,
    _v5_language_shares,
)


class StateDamaged(RuntimeError):
    """The state database cannot be used as it is; the message names the file and what to do."""


class StateUnavailable(StateDamaged):
    """The PostgreSQL state database cannot be reached or refused the login; the message
    names the server (never the password) and what failed. Handled like StateDamaged:
    one sentence, exit 2, nothing written."""


class SqliteConnection(sqlite3.Connection):
    """sqlite3's connection with the interface the PostgreSQL one shares."""

    dialect = "sqlite"

    @contextmanager
    def transaction(self, lock: str = "") -> Iterator[None]:
        """One transaction holding SQLite's write lock from its start (so two processes
        checking and then writing take turns; `lock` is PostgreSQL's finer grain)."""
        self.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.execute("ROLLBACK")
            raise
        self.execute("COMMIT")


@lru_cache(maxsize=512)
def _psycopg_sql(sql: str) -> str:
    # The SQL here has no literal '?' or '%' inside strings: placeholders only.
    return sql.replace("%", "%%").replace("?", "%s")


class PgConnection:
    """One autocommit psycopg 3 connection; psycopg serialises threads sharing it."""

    dialect = "postgresql"

    def __init__(self, dsn: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise StateUnavailable(
                "SITEKB_DATABASE_URL names a PostgreSQL database, but psycopg is not installed: "
                "pip install 'sitekb[postgres]'"
            ) from None

        self._psycopg, self._dsn, self._in_transaction = psycopg, dsn, False
        try:
            self._conn = psycopg.connect(dsn, autocommit=True, connect_timeout=10)
        except psycopg.Error as exc:
            raise StateUnavailable(
                f"cannot open the state database at {redact_dsn(dsn)} (SITEKB_DATABASE_URL): {first_line(exc)}"
            ) from None

    def execute(self, sql: str, params: Any = ()) -> Any:
        # Always with a parameter tuple, so psycopg reads '%%' back as '%'.
        return self._again_if_dropped(lambda: self._conn.execute(_psycopg_sql(sql), tuple(params)))

    def executemany(self, sql: str, rows: Any) -> Any:
        rows = list(rows)

        def run() -> Any:
            cursor = self._conn.cursor()
            if rows:
                cursor.executemany(_psycopg_sql(sql), rows)
            return cursor

        return self._again_if_dropped(run)

    def _again_if_dropped(self, call: Callable[[], Any]) -> Any:
        """A connection the server dropped (a restart, a failover) is opened again once,
        outside a transaction, so a long-lived API process recovers by itself."""
        try:
            return call()
        except self._psycopg.OperationalError:
            if not self._conn.closed or self._in_transaction:
                raise
            try:
                self._conn = self._psycopg.connect(self._dsn, autocommit=True, connect_timeout=10)
            except self._psycopg.Error as exc:
                raise StateUnavailable(
                    f"lost the state database at {redact_dsn(self._dsn)} and cannot reach it again: {first_line(exc)}"
                ) from None
            return call()

    @contextmanager
    def transaction(self, lock: str = "") -> Iterator[None]:
        """One transaction; with `lock`, holding a transaction-scoped advisory lock on
        that name, so every process doing the same check-then-write takes turns."""
        with self._conn.transaction():
            self._in_transaction = True
            try:
                if lock:
                    self._conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (lock,))
                yield
            finally:
                self._in_transaction = False

    def close(self) -> None:
        self._conn.close()


Connection = SqliteConnection | PgConnection


def redact_dsn(dsn: str) -> str:
    """The DSN without its password (in `user:password@` or `?password=`), for messages."""
    dsn = re.sub(r"(://[^:/@]*):[^@]*@", r"\1:***@", dsn)
    return re.sub(r"([?&]password=)[^&]*", r"\1***", dsn, flags=re.IGNORECASE)


def first_line(exc: BaseException) -> str:
    """An error's first line, for one-sentence messages."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def database_unreachable(exc: BaseException) -> bool:
    """The shared database (SITEKB_DATABASE_URL) stopped answering: StateUnavailable,
    psycopg's OperationalError, a pool timeout, or procrastinate's ConnectorException
    (imported only here: a SQLite install may lack them all)."""
    if isinstance(exc, StateUnavailable):
        return True
    kinds: list[type] = []
    try:
        import psycopg
        import psycopg_pool
        from procrastinate.exceptions import ConnectorException

        kinds += [psycopg.OperationalError, psycopg_pool.PoolTimeout, ConnectorException]
    except ImportError:
        pass
    return isinstance(exc, tuple(kinds))


@contextmanager
def session_lock(dsn: str, key: str, *, wait: bool = True) -> Iterator[bool]:
    """A PostgreSQL session advisory lock on `key`, held on a connection of its own while
    the block runs; a process that dies drops the connection, and the lock with it.
    `wait=False` does not wait: it yields whether the lock was taken."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
        if wait:
            conn.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (key,))
            taken = True
        else:
            taken = conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (key,)).fetchone()[0]
        try:
            yield taken
        finally:
            if taken:
                conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))


def is_postgres(location: object) -> bool:
    return isinstance(location, str) and location.startswith(("postgresql://", "postgres://"))


START_OVER = (
    "restore it from a backup, or move the data folder away to start over (the next run then "
    "re-embeds every page, and the API keys must be created again)"
)


def connect(location: Path | str, *, shared: bool = False, busy_s: float = 30.0) -> Connection:
    """A connection to the state database at `location` (a SQLite file's path, or a
    postgresql:// DSN), created and migrated as needed. Autocommit. SQLite: WAL, so
    readers never wait for a writer; foreign keys on; `shared=True` lets one connection
    serve several threads (the callers serialise); a writer waits up to `busy_s` for
    another's lock. A SQLite state that is damaged, or
    empty beside a knowledge base's vectors, is refused with StateDamaged: starting it
    afresh would drop every API key and re-embed every page without a word."""
    if is_postgres(location):
        db = PgConnection(str(location))
        try:
            migrate(db)
        except BaseException:
            db.close()
            raise
        return db
    path = Path(location)
    private_dir(path.parent)
    new = not path.exists()
    if not new and path.stat().st_size == 0 and _holds_vectors(path.parent):
        raise StateDamaged(f"the state database {path} is empty (0 bytes) beside a knowledge base; {START_OVER}")
    try:
        db = sqlite3.connect(
            path, timeout=busy_s, isolation_level=None, check_same_thread=not shared, factory=SqliteConnection
        )
        if new:
            os.chmod(path, 0o600)  # SQLite gives its -wal and -shm files the same mode
        _journal_wal(db)
        db.execute("PRAGMA foreign_keys=ON")
        migrate(db)
    except sqlite3.OperationalError:
        raise  # locked, read-only, disk I/O: not damage
    except sqlite3.DatabaseError as exc:  # "file is not a database", "disk image is malformed"
        raise StateDamaged(f"the state database {path} is damaged ({exc}); {START_OVER}") from None
    return db


def _journal_wal(db: sqlite3.Connection, wait_s: float = 30.0) -> None:
    """The WAL journal. While another connection switches a new database to WAL, SQLite
    answers "locked" at once instead of waiting its busy timeout: ask again, up to wait_s."""
    deadline = time.monotonic() + wait_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            busy = getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
            if not (busy or "locked" in str(exc)) or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


def _holds_vectors(data_dir: Path) -> bool:
    vectors = data_dir / "vectors"
    return vectors.is_dir() and any(p.is_dir() for p in vectors.iterdir())


def migrate(db: Connection) -> int:
    """Run the migrations the database has not had, each in its own transaction. Returns the version."""
    if db.dialect == "postgresql":
        return _migrate_postgres(db)
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


def _migrate_postgres(db: PgConnection) -> int:
    """As for SQLite, with the version in `sitekb_schema` and an advisory lock so that
    workers starting together migrate once."""
    with db.transaction(lock="sitekb-migrate"):
        db.execute("CREATE TABLE IF NOT EXISTS sitekb_schema (version INTEGER NOT NULL)")
    for number, step in enumerate(MIGRATIONS, start=1):
        with db.transaction(lock="sitekb-migrate"):
            row = db.execute("SELECT version FROM sitekb_schema").fetchone()
            version = row[0] if row else 0
            if version >= number:
                continue
            step(db)
            if row:
                db.execute("UPDATE sitekb_schema SET version = ?", (number,))
            else:
                db.execute("INSERT INTO sitekb_schema (version) VALUES (?)", (number,))
    return len(MIGRATIONS)
