"""One contract for the state database, run against both backends (kb/db.py): the SQLite
file of the embedded default and the PostgreSQL database that workers share. Each test
runs twice (`state_location`: a file, then a DSN)."""

from __future__ import annotations

import threading
import time

import pytest

from ingest.kb.db import MIGRATIONS, StateUnavailable, connect, redact_dsn
from ingest.kb.state import ChunkRecord, StateStore
from ingest.models import Fact
from ingest.ops.alerts import Alerter
from ingest.ops.guard import BreakerOpen, BudgetExceeded, SpendGuard
from ingest.settings import load_settings


def _settings(location, tmp_path):
    if isinstance(location, str):
        return load_settings(data_dir=tmp_path / "data", database_url=location)
    return load_settings(data_dir=location.parent)


def _version(db) -> int:
    if db.dialect == "sqlite":
        return db.execute("PRAGMA user_version").fetchone()[0]
    return db.execute("SELECT version FROM sitekb_schema").fetchone()[0]


def test_a_new_database_gets_every_migration_once(state_location):
    db = connect(state_location)
    try:
        assert _version(db) == len(MIGRATIONS)
    finally:
        db.close()
    again = connect(state_location)  # a second open runs nothing again
    try:
        assert _version(again) == len(MIGRATIONS)
        assert again.execute("SELECT COUNT(*) FROM breaker").fetchone()[0] == 1
    finally:
        again.close()


def test_sources_pages_and_translations_round_trip(state_location):
    state = StateStore(state_location)
    try:
        source = state.sources.ensure("acme", "acme.com")
        assert state.sources.ensure("acme", "acme.com") == source  # idempotent
        other = state.sources.ensure("acme", "shop.acme.com")
        assert other != source
        state.sources.update(source, root_url="https://acme.com/", status="ok")
        assert [(s.site, s.root_url, s.status) for s in state.sources.of("acme")] == [
            ("acme.com", "https://acme.com/", "ok"),
            ("shop.acme.com", None, "new"),
        ]
        state.pages.save(source, "https://acme.com/", 200, '"e1"', None, "sha-1", "Home")
        state.pages.save(
            source, "https://acme.com/", 200, '"e2"', "Tue", "sha-2", "Home"
        )  # an update, not a second row
        page = state.pages.of(source)["https://acme.com/"]
        assert (page.etag, page.last_modified, page.raw_sha256) == ('"e2"', "Tue", "sha-2")
        state.pages.save_alternates(source, "https://acme.com/", [("de", "https://acme.com/de/")])
        state.pages.save_alternates(source, "https://acme.com/", [("de", "https://acme.com/de/start")])
        assert state.pages.alternates(source) == {"https://acme.com/": {"de": "https://acme.com/de/start"}}
        assert state.pages.translations("acme")["https://acme.com/de/start"] == "https://acme.com/"
        assert state.pages.count_missing(source, set()) == {"https://acme.com/": 1}
        assert state.pages.count_missing(source, set()) == {"https://acme.com/": 2}
        state.sources.set_facts(source, [Fact(kind="phone", value="+34 600 000 000", label="Teléfono")])
        assert [f.value for f in state.sources.facts_of("acme")] == ["+34 600 000 000"]
        state.businesses.set_lexical("acme", "scheme-1", {"es", "en"})
        assert state.businesses.lexical_of("acme") == ("scheme-1", ("en", "es"))
        assert state.businesses.language_shares("acme") == {}  # no run recorded them yet
        state.businesses.set_language_shares("acme", {"es": 3, "en": 1})
        assert state.businesses.language_shares("acme") == {"en": 0.25, "es": 0.75}
    finally:
        state.close()


def test_chunks_pending_vectors_and_runs(state_location):
    clock = iter(float(t) for t in range(1000, 2000))
    state = StateStore(state_location, clock=lambda: next(clock))
    try:
        source = state.sources.ensure("acme", "acme.com")
        record = ChunkRecord("p1", "https://acme.com/", "f1", "Home", 0, 10, "e")
        state.chunks.add(source, [record])
        state.chunks.add(source, [ChunkRecord("p1", "https://acme.com/", "f2", "Home", 0, 12, "e")])  # replaced
        assert state.chunks.of(source)["p1"].fingerprint == "f2"
        assert state.chunks.count("acme") == 1 and state.chunks.ids("acme", "e") == {"p1"}
        assert state.chunks.embedders(["p1", "nope"]) == {"p1": "e"}
        blob = bytes(range(256))
        state.pending.save("e", {"p1": b"\0" * 4, "p2": blob})
        state.pending.save("e", {"p2": blob})  # saved again: still one row
        assert state.pending.drop_recorded() == 1  # p1's chunk is recorded
        assert state.pending.of("e", ["p1", "p2"]) == {"p2": blob}  # bytes kept exactly
        first = state.runs.start("acme", source, "acme.com")
        second = state.runs.start("acme", source, "acme.com")  # the first was killed
        assert second > first
        assert state.runs.last_report("acme")["error_kind"] == "Interrupted"
        state.runs.finish(second, None, {"error": None, "pages": 3})
        assert state.runs.last_report("acme") == {"error": None, "pages": 3}
        [history] = state.sources.refresh_history()
        assert history.last_success_at is not None and history.last_attempt_at is not None
        state.chunks.delete(["p1"])
        assert state.chunks.count("acme") == 0
    finally:
        state.close()


def test_pages_under_language_folders_are_each_others_translations(state_location):
    # xhain links no hreflang, but /de/participate/ and /en/participate/ are one page.
    state = StateStore(state_location)
    try:
        source = state.sources.ensure("xhain", "x-hain.de")
        urls = [
            "https://x-hain.de/de/participate/",
            "https://x-hain.de/en/participate/",
            "https://x-hain.de/de/",
            "https://x-hain.de/en/",
            "https://x-hain.de/de/#site-wide",  # the site-wide document is no page's translation
            "https://x-hain.de/de/blog/2016/06/24/netzwerk-grundlagen/",  # its English slug differs
            "https://x-hain.de/en/blog/2016/06/24/networking-basics/",
            "https://x-hain.de/fr/participate/",  # not a language of this business's pages
            "https://x-hain.de/de/?page_id=5",  # plain WordPress links: the query tells pages apart
            "https://x-hain.de/de/?page_id=9",
            "https://x-hain.de/en/?page_id=5",
        ]
        state.chunks.add(source, [ChunkRecord(f"p{i}", url, "f", "H", 0, 10, "e") for i, url in enumerate(urls)])
        found = state.pages.translations("xhain", ("de", "en"))
        assert found == {
            "https://x-hain.de/de/participate/": "https://x-hain.de/de/participate/",
            "https://x-hain.de/en/participate/": "https://x-hain.de/de/participate/",
            "https://x-hain.de/de/": "https://x-hain.de/de/",
            "https://x-hain.de/en/": "https://x-hain.de/de/",
            "https://x-hain.de/de/?page_id=5": "https://x-hain.de/de/?page_id=5",
            "https://x-hain.de/en/?page_id=5": "https://x-hain.de/de/?page_id=5",
        }
        assert state.pages.translations("xhain") == {}  # without the languages: hreflang only
    finally:
        state.close()


def test_api_keys(state_location):
    state = StateStore(state_location)
    try:
        with pytest.raises(LookupError):
            state.keys.create("nobody")
        state.sources.ensure("acme", "acme.com")
        key_id, secret = state.keys.create("acme", "front desk")
        assert state.keys.business_for(secret) == "acme"
        assert [k.label for k in state.keys.of("acme")] == ["front desk"]
        assert state.keys.revoke(key_id) and not state.keys.revoke(key_id)
        assert state.keys.business_for(secret) is None
    finally:
        state.close()


def test_spend_ledger_breaker_and_alerts(state_location, tmp_path):
    now = [1_800_000_000.0]
    settings = _settings(state_location, tmp_path)
    guard, alerter = SpendGuard(settings, clock=lambda: now[0]), Alerter(settings, clock=lambda: now[0])
    try:
        guard.record("acme", "run-1", "embedding_tokens", 1000, 0.02)
        guard.record("other", "run-2", "embedding_tokens", 1000, 0.5)
        assert guard.spent_today("acme") == pytest.approx(0.02)
        assert guard.spent_today() == pytest.approx(0.52)
        assert guard.quota_error() is None
        assert guard.quota_error() is not None  # the second in a row opens the breaker
        until, _ = guard.breaker()
        assert until == pytest.approx(now[0] + 30 * 60)  # epoch seconds keep their precision
        guard.credit_exhausted()  # a longer pause wins
        assert guard.breaker()[0] == pytest.approx(now[0] + 60 * 60)
        guard._open(60, "short")  # a shorter one does not shorten it
        assert guard.breaker()[0] == pytest.approx(now[0] + 60 * 60)
        with pytest.raises(BreakerOpen):
            guard.check_breaker()
        assert alerter.send_once("pause:acme", "paused", "body") == []
        assert alerter._db.execute("SELECT COUNT(*) FROM alerts").fetchone()[0] == 1
        alerter.send_once("pause:acme", "paused", "body")  # once per event
        assert alerter._db.execute("SELECT COUNT(*) FROM alerts").fetchone()[0] == 1
    finally:
        alerter.close()
        guard.close()


def test_connections_started_together_migrate_once(state_location):
    """Workers starting at the same moment on a new database: every one gets a usable
    state, and the migrations ran once."""
    errors: list[BaseException] = []
    opened = []

    def open_one() -> None:
        try:
            opened.append(StateStore(state_location, shared=True))
        except BaseException as exc:  # noqa: BLE001 (collected for the assertion)
            errors.append(exc)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    try:
        assert errors == []
        assert all(s.sources.ensure("acme", "acme.com") == opened[0].sources.ensure("acme", "acme.com") for s in opened)
        assert _version(opened[0]._db) == len(MIGRATIONS)
    finally:
        for s in opened:
            s.close()


def test_an_unreachable_postgresql_is_one_sentence_without_the_password(tmp_path):
    dsn = f"postgresql://sitekb:s3cret@/nowhere?host={tmp_path}&port=5999"
    with pytest.raises(StateUnavailable) as caught:
        connect(dsn)
    message = str(caught.value)
    assert "s3cret" not in message and "SITEKB_DATABASE_URL" in message and "\n" not in message
    assert redact_dsn(dsn).startswith("postgresql://sitekb:***@")


def test_workers_spending_at_once_never_pass_a_cap(state_location, tmp_path):
    """Ten workers, each with its own connection, embed batches of $0.07 against a $1 cap
    at the same moment. Check and reservation are one transaction, so together they stop
    at the cap: not one batch over it (each call costs its estimate here)."""
    settings = _settings(state_location, tmp_path).model_copy(update={"daily_cap_business_usd": 1.0})
    SpendGuard(settings).close()  # the schema, before the workers race
    refused, calls = [], []

    def worker(n: int) -> None:
        guard = SpendGuard(settings)
        try:
            while True:
                try:
                    with guard.spending("acme", f"run-{n}", "embedding_tokens", 0.07) as settle:
                        time.sleep(0.005)  # the provider's call, while the others check
                        calls.append(n)
                        settle(3500, 0.07)
                except BudgetExceeded:
                    refused.append(n)
                    return
        finally:
            guard.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    guard = SpendGuard(settings)
    try:
        spent = guard.spent_today("acme")
    finally:
        guard.close()
    assert sorted(refused) == list(range(10))
    assert len(calls) == 14 and spent == pytest.approx(0.98)  # 14 x $0.07 fit under $1; a 15th would not


def test_a_failed_paid_call_leaves_nothing_in_the_ledger(state_location, tmp_path):
    guard = SpendGuard(_settings(state_location, tmp_path))
    try:
        with pytest.raises(TimeoutError), guard.spending("acme", "run-1", "embedding_tokens", 0.5):
            raise TimeoutError("the provider did not answer")
        with guard.spending("acme", "run-1", "embedding_tokens", 0.5) as settle:
            settle(100, 0.002)  # cheaper than estimated: the ledger keeps what it cost
        assert guard.spent_today("acme") == pytest.approx(0.002)
    finally:
        guard.close()


def test_a_percent_sign_in_sql_is_a_percent_sign(state_location):
    db = connect(state_location)
    try:
        assert db.execute("SELECT '50%'").fetchone()[0] == "50%"
        assert db.execute("SELECT ? || '%'", ("50",)).fetchone()[0] == "50%"
    finally:
        db.close()


def test_a_connection_the_server_dropped_is_opened_again(pg_url):
    """A PostgreSQL restart or failover ends every session; a long-lived API process must
    answer again without a restart of its own."""
    import psycopg

    state = StateStore(pg_url, shared=True)
    try:
        state.sources.ensure("acme", "acme.com")
        pid = state._db.execute("SELECT pg_backend_pid()").fetchone()[0]
        with psycopg.connect(pg_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        assert [s.site for s in state.sources.of("acme")] == ["acme.com"]
    finally:
        state.close()


def test_a_password_in_the_query_string_is_not_shown_either():
    assert "s3cret" not in redact_dsn("postgresql://db.internal/sitekb?user=skb&password=s3cret&sslmode=require")
    assert redact_dsn("postgresql:///sitekb?password=s3cret").endswith("password=***")
