"""The crawler against a hostile site on 127.0.0.1 (tests/hostile_site.py), issue #3."""

from __future__ import annotations

from typing import get_args

import pytest
from conftest import crawl_env, stored_payloads
from hostile_site import CONTENT, HostileSite

from ingest.models import PageError, SkipReason
from ingest.pipeline import run
from ingest.settings import load_settings


def _ingested_texts(settings, business):
    return [p["text"] for p in stored_payloads(settings, business)]


@pytest.fixture(scope="module")
def hostile_run(tmp_path_factory):
    data = tmp_path_factory.mktemp("hostile")
    with crawl_env(data):
        settings = load_settings()
        with HostileSite() as site:
            report = run(site.base + "/", settings, business="hostile")
            yield site, report, settings


def test_every_real_page_is_found_by_sitemap_index_gzip_child_or_link(hostile_run):
    site, report, settings = hostile_run
    assert report.problem is None
    texts = "\n".join(_ingested_texts(settings, "hostile"))
    for name in CONTENT:  # 'contact' is only linked, the others are in the gzip child sitemap
        assert f"This is the {name} page of Hostile Co" in texts, name
    assert "This is the slow-down page" in texts  # after its 429 and Retry-After


def test_excluded_paths_and_robots_are_never_requested(hostile_run):
    site, report, _ = hostile_run
    for path in ("/login", "/giris", "/kayit", "/cart", "/private/"):
        assert site.requested(path) == [], path
    assert report.pages.skipped["excluded_pattern"] >= 4 and report.pages.skipped["robots"] == 1


def test_facets_and_tracking_duplicates_are_not_fetched(hostile_run):
    site, report, _ = hostile_run
    assert site.requested("/shop/?") == []
    assert site.requested("/about/") == ["/about/"]  # utm/fbclid/gclid variants are the same page


def test_offsite_redirect_is_not_followed_nor_ingested(hostile_run):
    site, report, settings = hostile_run
    assert site.requested("/terms-of-service") == []
    assert report.pages.skipped["offsite_redirect"] == 1
    assert not any("someone else" in t for t in _ingested_texts(settings, "hostile"))


def test_noindex_challenge_and_oversized_pages_are_skipped(hostile_run):
    _, report, settings = hostile_run
    assert report.pages.skipped["noindex"] == 2  # meta robots and X-Robots-Tag
    assert report.pages.skipped["challenge"] == 1
    assert report.pages.skipped["too_large"] == 2  # 50 MB body and a gzip bomb
    assert report.pages.skipped["not_html"] == 1  # the team photo
    assert report.pages.skipped["unreadable"] == 1  # the damaged PDF brochure, said in a warning
    assert any("brochure.pdf: not a readable PDF" in w for w in report.warnings)
    texts = "\n".join(_ingested_texts(settings, "hostile"))
    for absent in ("Checking your browser", "header-hidden page", "This is the hidden page"):
        assert absent not in texts


def test_redirect_loop_ends_as_a_failed_page(hostile_run):
    site, report, _ = hostile_run
    assert 1 <= len(site.requested("/loop/")) <= 12
    assert report.pages.failed >= 2  # the loop and the challenge wall


def test_retry_after_is_honoured(hostile_run):
    site, _, _ = hostile_run
    arrivals = [t for path, t, _ in site.log if path == "/slow-down/"]
    assert len(arrivals) == 2 and arrivals[1] - arrivals[0] >= 0.95


def test_calendar_trap_is_bounded_by_depth(hostile_run):
    site, report, _ = hostile_run
    assert 1 <= len(site.requested("/events/")) <= 31  # depth 5 from the homepage, two links a page
    assert report.pages.skipped["depth"] > 0


def test_crawl_health_is_reported(hostile_run):
    _, report, _ = hostile_run
    health = report.crawl
    assert health.discovery_rate > 0 and health.bytes_per_useful_page > 0
    assert report.pages.status_counts["200"] > 10 and report.pages.status_counts["429"] == 1


def test_a_generated_url_space_raises_the_discovery_rate_warning(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
    with HostileSite() as site:
        report = run(site.base + "/", load_settings(max_depth=100, max_pages=90), business="trap")
    assert len(site.requested("/events/")) <= 90
    assert report.pages.skipped.get("budget", 0) > 0
    assert any("discovery rate is not falling" in w for w in report.warnings), report.warnings


def test_firewall_that_counts_requests_in_flight(tmp_path, monkeypatch):
    """A WAF answering 403 above 2 requests in flight: at most one block, nothing lost."""
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
    with HostileSite(waf_threshold=2, latency=0.02) as site:
        report = run(site.base + "/", load_settings(), business="waf")
    blocks = [path for path, _, status in site.log if status == 403]
    assert len(blocks) <= 1, blocks
    texts = "\n".join(_ingested_texts(load_settings(), "waf"))
    assert all(f"This is the {name} page" in texts for name in CONTENT)
    assert report.crawl.blocked_share < 0.1


def test_crawl_delay_spaces_requests(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
    with HostileSite(crawl_delay=0.3) as site:
        run(site.base + "/", load_settings(max_pages=6), business="delay")
    starts = sorted(t for path, t, _ in site.log if path not in ("/robots.txt",) and not path.startswith("/sitemap"))
    gaps = [b - a for a, b in zip(starts[1:], starts[2:])]  # the homepage came before robots.txt was read
    assert len(gaps) >= 4 and min(gaps) >= 0.25, gaps


def test_a_site_that_blocks_our_network_says_so_and_how_to_fix_it(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
    with HostileSite(block_all_but_home=True) as site:
        report = run(site.base + "/", load_settings(), business="blocked", index=False)
    assert report.crawl.blocked_share >= 0.9
    advice = [w for w in report.warnings if "blocks our server's network" in w]
    assert advice and "SITEKB_PROXY_URL" in advice[0] and "IP address" in advice[0]


def test_every_skip_and_page_error_is_a_named_outcome(hostile_run):
    _, report, _ = hostile_run
    assert set(report.pages.skipped) <= set(get_args(SkipReason))
    assert {"offsite_redirect", "not_html", "too_large", "challenge"} <= set(get_args(PageError))
