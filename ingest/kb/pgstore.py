"""The vector store in PostgreSQL with pgvector: the shared backend every worker and API
process can use at once, chosen when SITEKB_DATABASE_URL is set and SITEKB_QDRANT_URL is
not (kb/store.py's open_store).

One table per embedder identity (as one Qdrant collection per embedder): the point's
dense vector (`vector(d)`, cosine, an HNSW index), its business and URL (a B-tree), and its
payload (JSONB). The lexical side is a table of the point's BM25 terms, the same hashed
terms and weights qdrant-edge's analysis gives (kb/lexical.py), scored in SQL with the
IDF Qdrant applies, counted within the business.

Dense search within a business: a business's points are ranked exactly (a scan of its
rows by the B-tree, as Qdrant itself does below its full-scan threshold). Past
FULL_SCAN_POINTS the HNSW index answers, with `ef_search` raised; pgvector 0.6 filters
after the graph walk, so a short answer is completed by the exact scan.

A page's swap (delete, then write) is one transaction: a search in any process sees the
page's old chunks or its new ones, never neither. The dense and lexical rankings of one
query are read in one REPEATABLE READ snapshot.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ingest.kb.db import first_line
from ingest.kb.lexical import document_terms, query_terms
from ingest.kb.points import Hit, Ranking, StoredPoint, StoreError

FULL_SCAN_POINTS = 20_000
POOL_MAX = 16  # searches of one API process at once (its thread pool has 40)


def table_name(collection: str) -> str:
    """A PostgreSQL identifier for a collection name (at most 63 bytes)."""
    slug = re.sub(r"[^a-z0-9]+", "_", collection.lower()).strip("_")[:40]
    return f"skbv_{slug}_{hashlib.sha1(collection.encode()).hexdigest()[:8]}"


def _vector_text(vector: list[float]) -> str:
    return "[" + ",".join(f"{float(x):.8g}" for x in vector) + "]"


def _parse_vector(text: str) -> list[float]:
    return [float(x) for x in text.strip("[]").split(",")] if text and text != "[]" else []


class PgVectorStore:
    def __init__(self, dsn: str, collection: str, dimensions: int | None) -> None:
        """`dimensions=None` uses the table as it is (StoreError if there is none)."""
        try:
            from psycopg.types.json import Jsonb
            from psycopg_pool import ConnectionPool
        except ImportError:
            raise StoreError("the PostgreSQL vector store needs psycopg: pip install 'sitekb[postgres]'") from None
        self._jsonb = Jsonb
        self.collection = collection
        self.table = table_name(collection)
        self._local = threading.local()
        try:
            self._pool = ConnectionPool(
                dsn, min_size=1, max_size=POOL_MAX, kwargs={"autocommit": True}, open=True, timeout=30
            )
            self._pool.wait(timeout=30)
        except Exception as exc:  # noqa: BLE001 (pool errors come in several kinds; all mean "cannot open")
            raise StoreError(f"cannot open the PostgreSQL vector store: {first_line(exc)}") from None
        try:
            with self._conn() as conn:
                if dimensions is not None:
                    self._create(conn, dimensions)
                elif not self.exists(conn):
                    raise StoreError(f"there is no vector table {self.table} for {collection}")
        except BaseException:
            self._pool.close()
            raise

    def exists(self, conn=None) -> bool:
        with self._conn(conn) as c:
            return not _missing(c, self.table)

    def _create(self, conn, dimensions: int) -> None:
        t = self.table
        if not _missing(conn, t, f"{t}_by_page", f"{t}_hnsw", f"{t}_terms", f"{t}_terms_lookup"):
            return  # CREATE ... IF NOT EXISTS would still wait for a lock behind every writer
        with conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", (t,))
            conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {t} (id TEXT PRIMARY KEY, business TEXT NOT NULL, url TEXT, "
                f"payload JSONB NOT NULL, embedding vector({int(dimensions)}) NOT NULL)"
            )
            conn.execute(f"CREATE INDEX IF NOT EXISTS {t}_by_page ON {t} (business, url)")
            conn.execute(f"CREATE INDEX IF NOT EXISTS {t}_hnsw ON {t} USING hnsw (embedding vector_cosine_ops)")
            conn.execute(
                f"CREATE TABLE IF NOT EXISTS {t}_terms (id TEXT NOT NULL REFERENCES {t}(id) ON DELETE CASCADE, "
                "business TEXT NOT NULL, term BIGINT NOT NULL, weight REAL NOT NULL, PRIMARY KEY (id, term))"
            )
            conn.execute(f"CREATE INDEX IF NOT EXISTS {t}_terms_lookup ON {t}_terms (business, term)")

    @contextmanager
    def _conn(self, conn=None) -> Iterator[Any]:
        """This thread's connection inside a swap, the one given, or one from the pool."""
        current = conn or getattr(self._local, "conn", None)
        if current is not None:
            yield current
            return
        with self._pool.connection() as fresh:
            yield fresh

    @contextmanager
    def swap(self) -> Iterator[None]:
        """One transaction around a page's delete and write, on this thread."""
        if getattr(self._local, "conn", None) is not None:
            yield  # nested: the outer swap's transaction holds
            return
        with self._pool.connection() as conn, conn.transaction():
            self._local.conn = conn
            try:
                yield
            finally:
                self._local.conn = None

    def upsert(self, points: list[StoredPoint]) -> None:
        if not points:
            return
        t = self.table
        rows, terms = [], []
        for p in points:
            rows.append(
                (
                    p.id,
                    p.payload.get("business", ""),
                    p.payload.get("url"),
                    self._jsonb(p.payload),
                    _vector_text(p.vector),
                )
            )
            indices, values = document_terms(p.text, p.payload.get("lang", ""))
            terms.extend((p.id, p.payload.get("business", ""), int(i), float(v)) for i, v in zip(indices, values))
        with self._conn() as conn, conn.transaction(), conn.cursor() as cur:
            cur.executemany(
                f"INSERT INTO {t} (id, business, url, payload, embedding) VALUES (%s, %s, %s, %s, %s::vector) "
                "ON CONFLICT (id) DO UPDATE SET business=excluded.business, url=excluded.url, "
                "payload=excluded.payload, embedding=excluded.embedding",
                rows,
            )
            cur.execute(f"DELETE FROM {t}_terms WHERE id = ANY(%s)", ([p.id for p in points],))
            if terms:
                cur.executemany(f"INSERT INTO {t}_terms (id, business, term, weight) VALUES (%s, %s, %s, %s)", terms)

    def delete(self, ids: list[str]) -> None:
        if ids:
            with self._conn() as conn:
                conn.execute(f"DELETE FROM {self.table} WHERE id = ANY(%s)", (list(ids),))

    def count(self, business: str) -> int:
        with self._conn() as conn:
            return conn.execute(f"SELECT COUNT(*) FROM {self.table} WHERE business=%s", (business,)).fetchone()[0]

    def point_ids(self, business: str) -> set[str]:
        with self._conn() as conn:
            return {r[0] for r in conn.execute(f"SELECT id FROM {self.table} WHERE business=%s", (business,))}

    def payloads(self, business: str) -> dict[str, dict[str, Any]]:
        with self._conn() as conn:
            rows = conn.execute(f"SELECT id, payload FROM {self.table} WHERE business=%s", (business,))
            return {r[0]: dict(r[1]) for r in rows}

    def points(self, business: str) -> list[StoredPoint]:
        with self._conn() as conn:
            rows = conn.execute(
                f"SELECT id, embedding::text, payload FROM {self.table} WHERE business=%s ORDER BY id", (business,)
            )
            return [StoredPoint(r[0], _parse_vector(r[1]), dict(r[2])) for r in rows]

    def page_chunks(self, business: str, url: str) -> list[dict[str, Any]]:
        with self._conn() as conn:
            rows = conn.execute(f"SELECT payload FROM {self.table} WHERE business=%s AND url=%s", (business, url))
            return sorted((dict(r[0]) for r in rows), key=lambda p: p.get("position", 0))

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
        with self._conn() as conn:
            if mode == "dense":
                return self._dense(conn, business, vector, limit, vectors) if vector is not None else []
            return self._lexical(conn, business, text, limit, langs)

    def rankings(
        self,
        business: str,
        vector: list[float] | None,
        text: str | None,
        limit: int,
        langs: tuple[str, ...] = (),
        vectors: bool = False,
    ) -> tuple[list[Hit], list[Hit]]:
        """Both rankings from one snapshot: a swap committing between them is seen by neither or both."""
        with self._pool.connection() as conn, conn.transaction():
            conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            dense = self._dense(conn, business, vector, limit, vectors) if vector is not None else []
            lexical = self._lexical(conn, business, text, limit, langs) if text else []
            return dense, lexical

    def _dense(self, conn, business: str, vector: list[float], limit: int, vectors: bool = False) -> list[Hit]:
        t, q = self.table, _vector_text(vector)
        own = ", embedding::text" if vectors else ""
        exact = (
            f"WITH mine AS MATERIALIZED (SELECT id, payload, embedding FROM {t} WHERE business=%s) "
            f"SELECT id, 1 - (embedding <=> %s::vector), payload{own} FROM mine ORDER BY embedding <=> %s::vector LIMIT %s"
        )
        total = conn.execute(f"SELECT COUNT(*) FROM {t} WHERE business=%s", (business,)).fetchone()[0]
        if total <= FULL_SCAN_POINTS:
            rows = conn.execute(exact, (business, q, q, limit)).fetchall()
        else:
            with conn.transaction():
                conn.execute(f"SET LOCAL hnsw.ef_search = {max(100, min(1000, limit * 8))}")
                rows = conn.execute(
                    f"SELECT id, 1 - (embedding <=> %s::vector), payload{own} FROM {t} WHERE business=%s "
                    "ORDER BY embedding <=> %s::vector LIMIT %s",
                    (q, business, q, limit),
                ).fetchall()
            if len(rows) < min(limit, total):  # the graph walk found too few of this business's points
                rows = conn.execute(exact, (business, q, q, limit)).fetchall()
        return [
            Hit(id=r[0], score=float(r[1]), payload=dict(r[2]), vector=_parse_vector(r[3]) if vectors else None)
            for r in rows
        ]

    def _lexical(self, conn, business: str, text: str, limit: int, langs: tuple[str, ...]) -> list[Hit]:
        indices, values = query_terms(text, langs)
        if not indices:
            return []
        t = self.table
        # BM25 with Qdrant's IDF, ln((N - n + 0.5) / (n + 0.5) + 1), N and n within the business.
        rows = conn.execute(
            f"""
            WITH q AS (SELECT * FROM unnest(%s::bigint[], %s::real[]) AS q(term, qw)),
                 n AS (SELECT COUNT(*)::float AS total FROM {t} WHERE business = %s),
                 df AS (SELECT term, COUNT(*)::float AS df FROM {t}_terms
                        WHERE business = %s AND term = ANY(%s::bigint[]) GROUP BY term),
                 scored AS (
                    SELECT x.id, SUM(q.qw * x.weight * ln((n.total - df.df + 0.5) / (df.df + 0.5) + 1)) AS score
                    FROM {t}_terms x JOIN q USING (term) JOIN df USING (term) CROSS JOIN n
                    WHERE x.business = %s GROUP BY x.id ORDER BY score DESC, x.id LIMIT %s)
            SELECT s.id, s.score, p.payload FROM scored s JOIN {t} p ON p.id = s.id ORDER BY s.score DESC, s.id
            """,
            (
                [int(i) for i in indices],
                [float(v) for v in values],
                business,
                business,
                [int(i) for i in indices],
                business,
                limit,
            ),
        ).fetchall()
        return [Hit(id=r[0], score=float(r[1]), payload=dict(r[2])) for r in rows]

    def close(self) -> None:
        self._pool.close()


def pg_table_exists(dsn: str, collection: str) -> bool:
    import psycopg

    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as conn:
        return not _missing(conn, table_name(collection))


def _missing(conn, *relations: str) -> list[str]:
    """Which of these tables or indexes do not exist (one query)."""
    found = conn.execute("SELECT " + ", ".join(["to_regclass(%s) IS NOT NULL"] * len(relations)), relations).fetchone()
    return [name for name, there in zip(relations, found) if not there]
