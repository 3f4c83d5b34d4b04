"""Unattended operation (issue #6): spend caps, the circuit breaker, alerts, the weekly
schedule, one worker per business, settings read per job, resuming after a kill.

Time is injected (a Clock), never slept through. The provider is a fake
OpenAI-compatible server, mail goes to a real SMTP server (aiosmtpd) and webhooks to a
real HTTP receiver, all on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from aiosmtpd.controller import Controller
from fake_openai import FakeOpenAI, error_body
from test_resync import Site, assert_consistent

from ingest import pipeline
from ingest.kb.state import StateStore
from ingest.kb.store import EdgeStore
from ingest.ops.guard import SpendGuard
from ingest.ops.schedule import due_sources, run_due
from ingest.settings import load_settings

T0 = 1_800_000_000.0  # a fixed moment; the clock only moves when a test moves it


class Clock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> float:
        return self.now

    def advance(self, minutes: float) -> None:
        self.now += minutes * 60


class Inbox:
    def __init__(self) -> None:
        self.messages: list = []

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope.content.decode("utf-8", "replace"))
        return "250 OK"


@pytest.fixture
def smtp():
    inbox = Inbox()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    inbox.port = port
    yield inbox
    controller.stop()


@pytest.fixture
def webhook():
    received: list = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            received.append(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(204)
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield received, f"http://127.0.0.1:{server.server_address[1]}/hook"
    server.shutdown()


@pytest.fixture
def ops(site_dir_server, settings, monkeypatch, smtp, webhook):
    site = Site(site_dir_server.root_dir, site_dir_server)
    site.write()
    received, hook_url = webhook
    monkeypatch.setenv("SITEKB_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("SITEKB_SMTP_PORT", str(smtp.port))
    monkeypatch.setenv("SITEKB_SMTP_TLS", "none")
    monkeypatch.setenv("SITEKB_ALERT_TO", '["ops@example.com"]')
    monkeypatch.setenv("SITEKB_ALERT_WEBHOOK_URL", hook_url)
    with FakeOpenAI() as fake:
        fake.use(monkeypatch)
        yield site, fake, smtp, received


def _run(site, clock, **overrides):
    return pipeline.run(site.url, load_settings(**overrides), business="shop", clock=clock)


def _status(settings):
    state = StateStore(settings.state_location)
    try:
        return state.sources.of("shop")[0].status
    finally:
        state.close()


def test_credit_exhaustion_opens_the_breaker_for_an_hour_and_alerts_once(ops, settings):
    site, fake, smtp, hooks = ops
    clock = Clock()
    fake.failures = [(429, error_body("insufficient_quota", "You exceeded your current quota"))]
    first = _run(site, clock)
    assert first.error_kind == "CreditExhausted"
    requests_so_far = len(fake.requests)
    clock.advance(10)
    blocked = _run(site, clock)
    assert blocked.error_kind == "BreakerOpen" and "out of credit" in blocked.error
    assert len(fake.requests) == requests_so_far  # no new job reached the provider
    assert len(smtp.messages) == 1 and "circuit breaker opened" in smtp.messages[0]
    assert [h["subject"] for h in hooks] == ["circuit breaker opened: jobs paused"]
    clock.advance(51)  # 61 minutes after the failure
    resumed = _run(site, clock)
    assert resumed.error is None and resumed.chunks.added > 0
    assert len(smtp.messages) == 1  # one alert for one event


def test_two_quota_errors_in_a_row_open_it_for_half_an_hour(ops, settings, monkeypatch):
    site, fake, smtp, _ = ops
    monkeypatch.setattr("ingest.kb.embed.OpenAIEmbedder.attempts", 1)
    clock = Clock()
    fake.failures = [(429, error_body("rate_limit_exceeded", "slow down"))]
    assert _run(site, clock).error_kind == "QuotaExceeded"
    guard = SpendGuard(load_settings(), clock)
    assert guard.breaker()[0] <= clock()  # one quota error is not enough
    fake.failures = [(429, error_body("rate_limit_exceeded", "slow down"))]
    clock.advance(1)
    assert _run(site, clock).error_kind == "QuotaExceeded"
    until, reason = guard.breaker()
    guard.close()
    assert until == pytest.approx(clock() + 30 * 60) and "quota" in reason
    clock.advance(29)
    assert _run(site, clock).error_kind == "BreakerOpen"
    clock.advance(2)
    assert _run(site, clock).error is None


def test_eight_failed_jobs_within_half_an_hour_and_the_night_of_failures(ops, settings, monkeypatch):
    """Jobs failing at the write step for hours: the breaker opens after 8, and no retry
    re-embeds what an earlier attempt already paid for (the seeds' night of failures)."""
    site, fake, smtp, _ = ops
    clock = Clock()

    def broken_upsert(self, points):
        raise OSError("disk full")

    real_upsert = EdgeStore.upsert
    monkeypatch.setattr(EdgeStore, "upsert", broken_upsert)
    for _ in range(8):
        with pytest.raises(OSError):
            _run(site, clock)
        clock.advance(3)
    embedded_once = fake.inputs_embedded
    assert embedded_once > 0 and len(fake.requests) == 1  # attempts 2-8 reused the paid vectors
    refused = _run(site, clock)
    assert refused.error_kind == "BreakerOpen" and "8 jobs failed" in refused.error
    assert sum("circuit breaker opened" in m for m in smtp.messages) == 1
    monkeypatch.setattr(EdgeStore, "upsert", real_upsert)
    clock.advance(31)
    healed = _run(site, clock)
    assert healed.error is None and healed.chunks.added > 0 and healed.embedding.calls == 0
    assert fake.inputs_embedded == embedded_once
    assert_consistent(load_settings())


def test_a_job_that_hits_the_cap_stops_keeps_what_it_paid_and_is_paused(ops, settings):
    site, fake, smtp, hooks = ops
    clock = Clock()
    report = _run(site, clock, daily_cap_business_usd=0.0000005)
    assert report.error_kind == "BudgetExceeded" and "daily cap" in report.error
    assert _status(settings) == "paused_budget"
    assert sum("paused by the spend cap" in h["subject"] for h in hooks) == 1
    again = _run(site, clock, daily_cap_business_usd=0.0000005)
    assert again.error_kind == "BudgetExceeded"
    assert sum("paused by the spend cap" in h["subject"] for h in hooks) == 1  # once per event
    clock.advance(60 * 24 * 8)  # a week later the paused source is still not due
    assert [d.due for d in due_sources(load_settings(), clock())] == [False]
    resumed = _run(site, clock)  # run by hand with a cap it fits in
    assert resumed.error is None and _status(settings) == "ok"


def test_daily_spend_alert_fires_once(ops, settings):
    site, fake, smtp, _ = ops
    clock = Clock()
    _run(site, clock, alert_spend_usd=0.0)
    site.content["prices"][0] += " Updated."
    site.write()
    _run(site, clock, alert_spend_usd=0.0)
    assert sum("daily spend passed" in m for m in smtp.messages) == 1


def test_weekly_schedule_runs_due_sources_with_settings_read_per_job(ops, settings, monkeypatch):
    site, fake, smtp, _ = ops
    clock = Clock()
    assert _run(site, clock).error is None
    assert run_due(load_settings, pipeline.run, clock) == []  # refreshed just now
    seen = []

    def spy(url, job_settings, business, clock):
        seen.append(job_settings.max_pages)
        monkeypatch.setenv("SITEKB_MAX_PAGES", "3")  # changed between jobs, in this process
        return pipeline.run(url, job_settings, business=business, clock=clock)

    clock.advance(60 * 24 * 8)
    outcomes = run_due(load_settings, spy, clock)
    assert len(outcomes) == 1 and outcomes[0]["error"] is None and seen == [500]
    clock.advance(60 * 24 * 8)
    outcomes = run_due(load_settings, spy, clock)
    assert seen == [500, 3]  # the next job read the new setting
    assert outcomes[0]["pages"]["skipped"].get("budget")
    assert _status(settings) == "capped"
    clock.advance(60 * 24 * 8)
    assert [d.due for d in due_sources(load_settings(), clock())] == [True]  # capped sources are refreshed


def test_one_worker_per_business_and_a_crashed_holder_releases_it(ops, settings):
    import fcntl
    import hashlib
    import subprocess
    import sys

    site, *_ = ops
    lock = settings.data_dir / "locks" / f"{hashlib.sha1(b'shop').hexdigest()[:16]}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with open(lock, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        busy = _run(site, Clock())
        assert busy.error_kind == "BusinessBusy"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys, time; f = open(sys.argv[1], 'a+'); "
            "fcntl.flock(f, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
            str(lock),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "held"
    assert _run(site, Clock()).error_kind == "BusinessBusy"
    holder.kill()
    holder.wait()
    assert _run(site, Clock()).error is None  # the crashed holder's lock died with it


def test_a_run_killed_mid_crawl_resumes_without_downloading_again(ops, settings, monkeypatch):
    from ingest.crawl.fetch import Fetcher

    site, *_ = ops
    real_fetch = Fetcher.fetch
    fetched = []

    async def dying_fetch(self, url, *args, **kwargs):
        if len(fetched) == 4:
            raise SystemExit("killed")
        page = await real_fetch(self, url, *args, **kwargs)
        if page.status == 200 and url.endswith("/") and "sitemap" not in url:
            fetched.append(url)
        return page

    monkeypatch.setattr(Fetcher, "fetch", dying_fetch)
    with pytest.raises(SystemExit):
        _run(site, Clock())
    monkeypatch.setattr(Fetcher, "fetch", real_fetch)
    resumed = _run(site, Clock())
    assert resumed.error is None
    assert resumed.pages.not_modified >= 3  # pages read before the kill were not downloaded again
