"""The state database: one connection setup, every table, numbered migrations."""

import sqlite3

from ingest.kb.db import MIGRATIONS, connect
from ingest.kb.state import ChunkRecord, StateStore
from ingest.ops.alerts import Alerter
from ingest.ops.guard import SpendGuard

# A data folder from before migrations were numbered: pages without missing_runs,
# businesses without their lexical columns, no alternates table, user_version 0.
OLD_SCHEMA = """
CREATE TABLE businesses (id TEXT PRIMARY KEY, created_at REAL NOT NULL, embedder_id TEXT);
CREATE TABLE sources (id INTEGER PRIMARY KEY, business TEXT NOT NULL REFERENCES businesses(id), site TEXT NOT NULL,
                      root_url TEXT, status TEXT NOT NULL DEFAULT 'new', last_run_id INTEGER, UNIQUE (business, site));
CREATE TABLE pages (source_id INTEGER NOT NULL REFERENCES sources(id), url TEXT NOT NULL, status INTEGER, etag TEXT,
                    last_modified TEXT, raw_sha256 TEXT, title TEXT, fetched_at REAL, PRIMARY KEY (source_id, url));
INSERT INTO businesses (id, created_at) VALUES ('acme', 0);
INSERT INTO sources (business, site) VALUES ('acme', 'acme.com');
INSERT INTO pages (source_id, url, status) VALUES (1, 'https://acme.com/', 200);
"""


def _tables(db) -> set[str]:
    return {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def test_a_new_file_gets_every_table_at_the_latest_version(tmp_path):
    db = connect(tmp_path / "data" / "state.sqlite3")
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    assert {"pages", "chunks", "alternates", "api_keys", "runs", "spend", "breaker", "alerts"} <= _tables(db)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_an_old_data_folder_is_migrated_once_and_keeps_its_rows(tmp_path):
    path = tmp_path / "state.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(OLD_SCHEMA)
    old.close()
    state = StateStore(path)
    try:
        assert list(state.pages.of(1)) == ["https://acme.com/"]  # rows kept
        state.pages.save_alternates(1, "https://acme.com/", [("de", "https://acme.com/de/")])  # new table there
        assert state.businesses.lexical_of("acme") == (None, ())  # new columns there
    finally:
        state.close()
    db = connect(path)  # a second open runs nothing again
    assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
    columns = [row[1] for row in db.execute("PRAGMA table_info(pages)")]
    assert columns.count("missing_runs") == 1


def test_the_stores_share_one_file_and_one_schema(settings):
    state, guard, alerter = StateStore(settings.state_path), SpendGuard(settings), Alerter(settings)
    try:
        guard.record("acme", "run-1", "embedding_tokens", 1000, 0.02)
        assert guard.spent_today("acme") == 0.02
        alerter.send_once("pause:acme", "paused", "body")
        alerter.send_once("pause:acme", "paused", "body")  # once per event
    finally:
        alerter.close()
        guard.close()
        state.close()
    db = connect(settings.state_path)
    assert db.execute("SELECT event FROM alerts").fetchall() == [("pause:acme",)]
    assert db.execute("SELECT business, usd FROM spend").fetchall() == [("acme", 0.02)]


def test_a_run_left_open_by_a_kill_is_closed_as_interrupted_by_the_next(tmp_path):
    state = StateStore(tmp_path / "state.sqlite3", clock=lambda: 1000.0)
    try:
        source = state.sources.ensure("acme", "acme.com")
        killed = state.runs.start("acme", source, "acme.com")  # never finished: the process died
        state.runs.start("acme", source, "acme.com")
        row = state._db.execute("SELECT finished_at, report FROM runs WHERE id=?", (killed,)).fetchone()
        assert row[0] == 1000.0 and '"error_kind":"Interrupted"' in row[1]
        assert state.runs.last_report("acme")["error_kind"] == "Interrupted"  # the newer run is still open
    finally:
        state.close()


def test_vectors_of_recorded_chunks_are_forgotten(tmp_path):
    state = StateStore(tmp_path / "state.sqlite3")
    try:
        source = state.sources.ensure("acme", "acme.com")
        state.pending.save("e", {"p1": b"\0" * 4, "p2": b"\1" * 4})
        state.chunks.add(source, [ChunkRecord("p1", "https://acme.com/", "f", "Home", 0, 10, "e")])  # then a kill
        assert state.pending.drop_recorded() == 1
        assert state.pending.of("e", ["p1", "p2"]) == {"p2": b"\1" * 4}  # paid, not yet written: kept
    finally:
        state.close()


def test_a_lost_or_damaged_state_is_refused_with_the_file_and_what_to_do(demo_site, settings, capsys):
    from ingest.cli import main

    assert main(["run", demo_site.base + "/", "--business", "demo"]) == 0
    assert main(["keys", "create", "--business", "demo"]) == 0
    capsys.readouterr()
    state = settings.state_path
    good = state.read_bytes()
    for wal in state.parent.glob("state.sqlite3-*"):
        wal.unlink()

    state.write_bytes(b"")  # emptied: starting afresh would drop every key and re-embed every page
    for argv in (["status"], ["search", "--business", "demo", "rooms"], ["keys", "list"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"the state database {state} is empty (0 bytes) beside a knowledge base" in err
        assert "restore it from a backup" in err and "Traceback" not in err
    assert main(["run", demo_site.base + "/", "--business", "demo"]) == 2
    assert state.stat().st_size == 0  # nothing was written over it

    state.write_bytes(b"garbage!" * 16 + good[128:])  # a damaged header
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert f"the state database {state} is damaged (file is not a database)" in err
