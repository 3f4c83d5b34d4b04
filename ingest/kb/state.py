"""The state's records (SQLite or PostgreSQL, kb/db.py): businesses, sources, pages, chunks, runs.

The record of what is in the vector store lives here (LangChain's RecordManager
idea): resync diffs against it, and every run checks the store agrees with it.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ingest.kb.db import Connection, connect
from ingest.models import Fact, RunReport


@dataclass(frozen=True)
class StoredPage:
    url: str
    status: int | None
    etag: str | None
    last_modified: str | None
    raw_sha256: str | None


@dataclass(frozen=True)
class SourceRow:
    id: int
    site: str
    root_url: str | None
    status: str
    last_run_id: int | None


@dataclass(frozen=True)
class SourceSummary:
    site: str
    root_url: str | None
    status: str
    pages: int  # pages read with content on file
    chunks: int
    last_refreshed_at: float | None  # end of the last run without a site problem


@dataclass(frozen=True)
class RefreshHistory:
    business: str
    site: str
    root_url: str | None
    status: str
    last_success_at: float | None
    last_attempt_at: float | None


@dataclass(frozen=True)
class KeyRow:
    id: str
    business: str
    label: str | None
    created_at: float
    revoked_at: float | None


@dataclass(frozen=True)
class ChunkRecord:
    """A chunk written to the vector store, as the state records it."""

    point_id: str
    url: str
    fingerprint: str
    heading: str
    position: int
    tokens: int
    embedder_id: str


@dataclass(frozen=True)
class StoredChunk:
    point_id: str
    url: str
    fingerprint: str


class _Records:
    def __init__(self, db, clock=time.time) -> None:
        self._db, self.clock = db, clock


class BusinessRecords(_Records):
    """Businesses, their embedder and lexical analysis."""

    def all(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT id FROM businesses ORDER BY id")]

    def embedder_of(self, business: str) -> str | None:
        row = self._db.execute("SELECT embedder_id FROM businesses WHERE id=?", (business,)).fetchone()
        return row[0] if row else None

    def set_embedder(self, business: str, embedder_id: str) -> None:
        self._db.execute("UPDATE businesses SET embedder_id=? WHERE id=?", (embedder_id, business))

    def lexical_of(self, business: str) -> tuple[str | None, tuple[str, ...]]:
        """The lexical analysis the business's chunks were indexed with, and their languages."""
        row = self._db.execute("SELECT lexical_scheme, languages FROM businesses WHERE id=?", (business,)).fetchone()
        if not row or row[0] is None:
            return None, ()
        return row[0], tuple(json.loads(row[1] or "[]"))

    def set_lexical(self, business: str, scheme: str, languages: set[str]) -> None:
        self._db.execute(
            "UPDATE businesses SET lexical_scheme=?, languages=? WHERE id=?",
            (scheme, json.dumps(sorted(languages)), business),
        )

    def language_shares(self, business: str) -> dict[str, float]:
        """The share of the business's passages in each language ("en", "et"), as its last
        run left them; empty before a run recorded them."""
        row = self._db.execute("SELECT language_shares FROM businesses WHERE id=?", (business,)).fetchone()
        return json.loads(row[0]) if row and row[0] else {}

    def set_language_shares(self, business: str, counts: dict[str, int]) -> None:
        """Record the business's passages per language (`counts`: language -> passages)."""
        total = sum(counts.values())
        shares = {lang: round(n / total, 4) for lang, n in sorted(counts.items())} if total else {}
        self._db.execute("UPDATE businesses SET language_shares=? WHERE id=?", (json.dumps(shares), business))


class SourceRecords(_Records):
    """Sources: a business's sites, their status and refresh history."""

    def last_run(self, business: str) -> int:
        """The newest run over the business's sites (0: none): what it answers changes with it."""
        row = self._db.execute("SELECT MAX(last_run_id) FROM sources WHERE business=?", (business,)).fetchone()
        return row[0] or 0

    def set_facts(self, source_id: int, facts: list[Fact]) -> None:
        """The source's contact card, replaced whole by each run that indexes it."""
        self._db.execute(
            "UPDATE sources SET facts=? WHERE id=?",
            (json.dumps([asdict(f) for f in facts], ensure_ascii=False), source_id),
        )

    def facts_of_source(self, source_id: int) -> list[Fact]:
        return self._facts("id", source_id)

    def facts_of(self, business: str) -> list[Fact]:
        """The contact cards of the business's sites, in the order the sites were added."""
        return self._facts("business", business)

    def _facts(self, column: str, value) -> list[Fact]:
        rows = self._db.execute(f"SELECT facts FROM sources WHERE {column}=? ORDER BY id", (value,))
        return [Fact(**item) for (text,) in rows for item in json.loads(text or "[]")]

    def ensure(self, business: str, site: str) -> int:
        self._db.execute(
            "INSERT INTO businesses (id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING", (business, time.time())
        )
        self._db.execute("INSERT INTO sources (business, site) VALUES (?, ?) ON CONFLICT DO NOTHING", (business, site))
        return self._db.execute("SELECT id FROM sources WHERE business=? AND site=?", (business, site)).fetchone()[0]

    def update(self, source_id: int, **fields: object) -> None:
        assignments = ", ".join(f"{k}=?" for k in fields)
        self._db.execute(f"UPDATE sources SET {assignments} WHERE id=?", (*fields.values(), source_id))

    def of(self, business: str) -> list[SourceRow]:
        rows = self._db.execute(
            "SELECT id, site, root_url, status, last_run_id FROM sources WHERE business=? ORDER BY site", (business,)
        )
        return [SourceRow(*row) for row in rows]

    def summaries(self, business: str) -> list[SourceSummary]:
        rows = self._db.execute(
            "SELECT s.site, s.root_url, s.status, "
            "(SELECT COUNT(*) FROM pages p WHERE p.source_id = s.id AND p.raw_sha256 IS NOT NULL), "
            "(SELECT COUNT(*) FROM chunks c WHERE c.source_id = s.id), "
            "(SELECT MAX(finished_at) FROM runs r WHERE r.source_id = s.id AND r.problem IS NULL) "
            "FROM sources s WHERE s.business=? ORDER BY s.site",
            (business,),
        )
        return [SourceSummary(*row) for row in rows]

    def refresh_history(self) -> list[RefreshHistory]:
        """Per source: status, root URL, last successful run's end and last attempt's start."""
        rows = self._db.execute(
            "SELECT s.business, s.site, s.root_url, s.status, "
            "(SELECT MAX(finished_at) FROM runs r WHERE r.source_id = s.id AND r.problem IS NULL "
            f"  AND {_json_field(self._db, 'r.report', 'error')} IS NULL), "
            "(SELECT MAX(started_at) FROM runs r WHERE r.source_id = s.id) "
            "FROM sources s ORDER BY s.business, s.site"
        )
        return [RefreshHistory(*row) for row in rows]


def language_twins(urls: list[str], languages: tuple[str, ...]) -> list[tuple[str, str]]:
    """Pairs of URLs that differ only in a first path segment naming one of `languages`
    (`es-CL` names `es` and `es-cl`), the rest of the address (query included) the same:
    the same page in two languages."""
    codes = {lang.lower() for lang in languages if lang} | {lang.split("-")[0].lower() for lang in languages if lang}
    by_rest: dict[tuple[str, str, str], dict[str, str]] = {}  # -> language folder -> its URL
    for url in sorted(urls):
        parts = urlsplit(url)
        if parts.fragment:  # the site-wide document and the contact card are no page's translation
            continue
        segments = parts.path.split("/")
        if len(segments) > 1 and segments[1].lower() in codes:
            rest = (parts.netloc, "/".join(segments[2:]), parts.query)
            by_rest.setdefault(rest, {}).setdefault(segments[1].lower(), url)
    pairs = []
    for versions in by_rest.values():
        first, *others = versions.values()
        pairs += [(first, other) for other in others]
    return pairs


class PageRecords(_Records):
    """Pages read, their validators, missed runs and translations."""

    def of(self, source_id: int) -> dict[str, StoredPage]:
        rows = self._db.execute(
            "SELECT url, status, etag, last_modified, raw_sha256 FROM pages WHERE source_id=?", (source_id,)
        )
        return {row[0]: StoredPage(*row) for row in rows}

    def save(
        self,
        source_id: int,
        url: str,
        status: int,
        etag: str | None,
        last_modified: str | None,
        raw_sha256: str | None,
        title: str | None,
    ) -> None:
        self._db.execute(
            "INSERT INTO pages (source_id, url, status, etag, last_modified, raw_sha256, title, fetched_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (source_id, url) DO UPDATE SET status=excluded.status, "
            "etag=excluded.etag, last_modified=excluded.last_modified, raw_sha256=excluded.raw_sha256, "
            "title=excluded.title, fetched_at=excluded.fetched_at",
            (source_id, url, status, etag, last_modified, raw_sha256, title, time.time()),
        )

    def delete(self, source_id: int, url: str) -> None:
        self._db.execute("DELETE FROM pages WHERE source_id=? AND url=?", (source_id, url))
        self._db.execute("DELETE FROM alternates WHERE source_id=? AND url=?", (source_id, url))

    def count_missing(self, source_id: int, linked: set[str]) -> dict[str, int]:
        """Add one missed run to every stored page nobody links to any more; reset the rest.
        Returns url -> consecutive missed runs for the stored pages."""
        counts: dict[str, int] = {}
        for url, missed in self._db.execute(
            "SELECT url, missing_runs FROM pages WHERE source_id=?", (source_id,)
        ).fetchall():
            counts[url] = 0 if url in linked else missed + 1
        self._db.executemany(
            "UPDATE pages SET missing_runs=? WHERE source_id=? AND url=?",
            [(n, source_id, url) for url, n in counts.items()],
        )
        return counts

    def save_alternates(self, source_id: int, url: str, alternates: list[tuple[str, str]]) -> None:
        """Replace the translations `url` declares: (language, URL) pairs."""
        self._db.execute("DELETE FROM alternates WHERE source_id=? AND url=?", (source_id, url))
        self._db.executemany(
            "INSERT INTO alternates (source_id, url, lang, alternate_url) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (source_id, url, lang) DO UPDATE SET alternate_url=excluded.alternate_url",
            [(source_id, url, lang, alt) for lang, alt in alternates],
        )

    def translations(self, business: str, languages: tuple[str, ...] = ()) -> dict[str, str]:
        """URL -> the first URL (in sort order) of the set of pages that are each other's
        translations, over the business's hreflang links and, for sites without them,
        pages whose addresses differ only in a first path segment naming one of the
        business's `languages` (/de/participate/ and /en/participate/). Pages without any
        are absent."""
        parent: dict[str, str] = {}

        def root(url: str) -> str:
            while parent.setdefault(url, url) != url:
                url = parent[url]
            return url

        rows = self._db.execute(
            "SELECT url, alternate_url FROM alternates JOIN sources ON sources.id = alternates.source_id "
            "WHERE sources.business=? AND alternates.lang != 'x-default'",  # often one page for all
            (business,),
        )
        pairs = list(rows)
        if languages:
            urls = self._db.execute(
                "SELECT DISTINCT url FROM chunks JOIN sources ON sources.id = chunks.source_id WHERE sources.business=?",
                (business,),
            )
            pairs += language_twins([u for (u,) in urls], languages)
        for url, alternate in pairs:
            a, b = root(url), root(alternate)
            if a != b:
                parent[max(a, b)] = min(a, b)
        return {url: root(url) for url in parent}

    def alternates(self, source_id: int) -> dict[str, dict[str, str]]:
        """url -> {language: URL of that translation}."""
        found: dict[str, dict[str, str]] = {}
        for url, lang, alternate in self._db.execute(
            "SELECT url, lang, alternate_url FROM alternates WHERE source_id=?", (source_id,)
        ):
            found.setdefault(url, {})[lang] = alternate
        return found


class ChunkRecords(_Records):
    """The chunks in the vector store (the record resyncs diff against)."""

    def of(self, source_id: int) -> dict[str, StoredChunk]:
        rows = self._db.execute("SELECT point_id, url, fingerprint FROM chunks WHERE source_id=?", (source_id,))
        return {row[0]: StoredChunk(*row) for row in rows}

    def add(self, source_id: int, records: list[ChunkRecord]) -> None:
        self._db.executemany(
            "INSERT INTO chunks (point_id, source_id, url, fingerprint, heading, position, tokens, embedder_id) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (point_id) DO UPDATE SET source_id=excluded.source_id, "
            "url=excluded.url, fingerprint=excluded.fingerprint, heading=excluded.heading, "
            "position=excluded.position, tokens=excluded.tokens, embedder_id=excluded.embedder_id",
            [
                (r.point_id, source_id, r.url, r.fingerprint, r.heading, r.position, r.tokens, r.embedder_id)
                for r in records
            ],
        )

    def delete(self, point_ids: list[str]) -> None:
        self._db.executemany("DELETE FROM chunks WHERE point_id=?", [(p,) for p in point_ids])

    def count(self, business: str) -> int:
        return self._db.execute(
            "SELECT COUNT(*) FROM chunks JOIN sources ON sources.id = chunks.source_id WHERE sources.business=?",
            (business,),
        ).fetchone()[0]

    def ids(self, business: str, embedder_id: str | None = None) -> set[str]:
        query = "SELECT point_id FROM chunks JOIN sources ON sources.id = chunks.source_id WHERE sources.business=?"
        params: tuple = (business,)
        if embedder_id is not None:
            query += " AND chunks.embedder_id=?"
            params += (embedder_id,)
        return {r[0] for r in self._db.execute(query, params)}

    def embedders(self, point_ids: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for start in range(0, len(point_ids), 500):
            part = point_ids[start : start + 500]
            rows = self._db.execute(
                f"SELECT point_id, embedder_id FROM chunks WHERE point_id IN ({','.join('?' * len(part))})", part
            )
            found.update(dict(rows))
        return found


class PendingVectors(_Records):
    """Vectors paid for, not yet in the store."""

    def drop_recorded(self) -> int:
        """Forget vectors whose chunks are recorded as written (a run killed between writing
        and forgetting left them). Returns how many."""
        return self._db.execute("DELETE FROM pending_vectors WHERE point_id IN (SELECT point_id FROM chunks)").rowcount

    def save(self, embedder_id: str, vectors: dict[str, bytes]) -> None:
        self._db.executemany(
            "INSERT INTO pending_vectors (point_id, embedder_id, vector) VALUES (?, ?, ?) "
            "ON CONFLICT (point_id) DO UPDATE SET embedder_id=excluded.embedder_id, vector=excluded.vector",
            [(pid, embedder_id, blob) for pid, blob in vectors.items()],
        )

    def of(self, embedder_id: str, point_ids: list[str]) -> dict[str, bytes]:
        found: dict[str, bytes] = {}
        for start in range(0, len(point_ids), 500):
            part = point_ids[start : start + 500]
            rows = self._db.execute(
                f"SELECT point_id, vector FROM pending_vectors WHERE embedder_id=? "
                f"AND point_id IN ({','.join('?' * len(part))})",
                (embedder_id, *part),
            )
            found.update(dict(rows))
        return found

    def drop(self, point_ids: list[str]) -> None:
        self._db.executemany("DELETE FROM pending_vectors WHERE point_id=?", [(p,) for p in point_ids])


class KeyRecords(_Records):
    """Retrieval API keys, stored as hashes."""

    def create(self, business: str, label: str | None = None) -> tuple[str, str]:
        """(key id, secret key). The secret is returned once and stored only as a hash."""
        if not self._db.execute("SELECT 1 FROM businesses WHERE id=?", (business,)).fetchone():
            raise LookupError(f"unknown business {business!r}; ingest its site first")
        key_id = "key_" + secrets.token_hex(4)
        secret = f"skb_{secrets.token_urlsafe(32)}"
        self._db.execute(
            "INSERT INTO api_keys (id, business, key_hash, label, created_at) VALUES (?, ?, ?, ?, ?)",
            (key_id, business, _key_hash(secret), label, time.time()),
        )
        return key_id, secret

    def of(self, business: str | None = None) -> list[KeyRow]:
        query = "SELECT id, business, label, created_at, revoked_at FROM api_keys"
        rows = self._db.execute(
            query + (" WHERE business=?" if business else "") + " ORDER BY created_at", (business,) if business else ()
        )
        return [KeyRow(*row) for row in rows]

    def revoke(self, key_id: str) -> bool:
        cur = self._db.execute(
            "UPDATE api_keys SET revoked_at=? WHERE id=? AND revoked_at IS NULL", (time.time(), key_id)
        )
        return cur.rowcount == 1

    def business_for(self, secret: str) -> str | None:
        row = self._db.execute(
            "SELECT business FROM api_keys WHERE key_hash=? AND revoked_at IS NULL", (_key_hash(secret),)
        ).fetchone()
        return row[0] if row else None


class RunRecords(_Records):
    """Runs and their reports."""

    def start(self, business: str, source_id: int | None, site: str = "") -> int:
        """A new run of `business`. Runs of it still open were killed (one job per business
        runs at a time, under its lock): they are closed as interrupted, with a report."""
        interrupted = RunReport(
            business=business, site=site, error="the run was interrupted (killed or crashed)", error_kind="Interrupted"
        )
        self._db.execute(
            "UPDATE runs SET finished_at=started_at, report=? WHERE business=? AND finished_at IS NULL",
            (interrupted.model_dump_json(), business),
        )
        row = self._db.execute(
            "INSERT INTO runs (business, source_id, started_at) VALUES (?, ?, ?) RETURNING id",
            (business, source_id, self.clock()),
        ).fetchone()
        return int(row[0])

    def finish(self, run_id: int, problem: str | None, report: dict) -> None:
        self._db.execute(
            "UPDATE runs SET finished_at=?, problem=?, report=? WHERE id=?",
            (self.clock(), problem, json.dumps(report), run_id),
        )

    def last_report(self, business: str) -> dict | None:
        row = self._db.execute(
            "SELECT report FROM runs WHERE business=? AND report IS NOT NULL ORDER BY id DESC LIMIT 1", (business,)
        ).fetchone()
        return json.loads(row[0]) if row else None


class StateStore:
    """The state database's records, by kind, on one connection (kb/db.py)."""

    def __init__(self, location: Path | str, shared: bool = False, clock=time.time) -> None:
        """`location`: the SQLite file, or a postgresql:// DSN (Settings.state_location).
        `shared=True` lets one connection serve several threads (callers serialise).
        `clock` stamps runs (tests inject one instead of sleeping through hours)."""
        self.clock = clock
        self._db = connect(location, shared=shared)
        self.businesses = BusinessRecords(self._db)
        self.sources = SourceRecords(self._db)
        self.pages = PageRecords(self._db)
        self.chunks = ChunkRecords(self._db)
        self.pending = PendingVectors(self._db)
        self.keys = KeyRecords(self._db)
        self.runs = RunRecords(self._db, clock)

    def close(self) -> None:
        self._db.close()


def _json_field(db: Connection, column: str, key: str) -> str:
    """SQL for a top-level field of a JSON text column, as text."""
    if db.dialect == "sqlite":
        return f"json_extract({column}, '$.{key}')"
    return f"(({column})::jsonb ->> '{key}')"


def _key_hash(secret: str) -> str:
    # Keys are 256-bit random tokens: a plain SHA-256 cannot be brute-forced back.
    return hashlib.sha256(secret.encode()).hexdigest()
