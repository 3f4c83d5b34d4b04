"""`ingest brief` against servers on 127.0.0.1 (issue #8): the page choice on a real site,
the eight problem kinds, plan metering, and --write under the spend guard."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from fake_openai import FakeOpenAI

from ingest.brief import build_brief
from ingest.cli import main
from ingest.settings import load_settings


def test_demo_site_brief(demo_site, settings):
    report = build_brief(demo_site.base + "/", settings)
    assert report.problem is None
    assert [p.kind for p in report.pages] == ["home", "about", "products", "pricing", "contact", "faq"]
    assert report.pages[0].chars <= 8000 and all(p.chars <= 5000 for p in report.pages[1:])
    assert report.logo and report.logo.endswith("/assets/logo.svg")
    assert report.sitemap.total_urls == 17
    # The menu and footer were read once, with the homepage.
    assert sum("Reception open daily" in p.text for p in report.pages) == 1


def test_a_page_with_little_new_text_is_dropped(site_dir_server, settings):
    root = site_dir_server.root_dir
    nav = '<nav><a href="/about/">About</a> <a href="/shop/">Shop</a></nav>'
    (root / "index.html").write_text(f"<html><body>{nav}<main><p>{'Welcome to Acme. ' * 40}</p></main></body></html>")
    (root / "about").mkdir()
    (root / "about" / "index.html").write_text(
        f"<html><body>{nav}<main><p>{'We are Acme. ' * 30}</p></main></body></html>"
    )
    (root / "shop").mkdir()
    (root / "shop" / "index.html").write_text(f"<html><body>{nav}<main><img src=a.jpg><p>Buy.</p></main></body></html>")
    report = build_brief(site_dir_server.base + "/", settings)
    assert [p.kind for p in report.pages] == ["home", "about"]  # the shop page adds 4 new characters


class _Answer(BaseHTTPRequestHandler):
    status, body, delay = 200, b"", 0.0

    def log_message(self, *args):
        pass

    def do_GET(self):
        time.sleep(self.delay)
        self.send_response(self.status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


def _server(status=200, body=b"", delay=0.0):
    handler = type("A", (_Answer,), {"status": status, "body": body, "delay": delay})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"127.0.0.1:{server.server_address[1]}"


SHELL = b"<html><body><div id='root'></div><script src='/app.js'></script></body></html>"


@pytest.mark.parametrize(
    "case, kind",
    [
        ("invalid", "invalid"),
        ("not_found", "not_found"),
        ("blocked", "blocked"),
        ("private", "private"),
        ("timeout", "timeout"),
        ("tls", "tls"),
        ("empty", "empty"),
        ("error", "error"),
    ],
)
def test_the_eight_problem_kinds(case, kind, settings, monkeypatch, capsys):
    server = None
    if case == "invalid":
        site = "not a website"
    elif case == "not_found":
        site = "no-such-business.invalid"
    else:
        status, body, delay = {
            "blocked": (403, b"denied", 0),
            "private": (200, b"hi", 0),
            "timeout": (200, b"", 2.0),
            "tls": (200, b"hi", 0),
            "empty": (200, SHELL, 0),
            "error": (500, b"oops", 0),
        }[case]
        server, hostport = _server(status, body, delay)
        site = f"{'https' if case == 'tls' else 'http'}://{hostport}/"
    if case == "private":
        monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    if case == "timeout":
        monkeypatch.setenv("SITEKB_REQUEST_TIMEOUT_S", "0.5")
        monkeypatch.setenv("SITEKB_FETCH_ATTEMPTS", "1")
    try:
        assert main(["brief", site, "--json"]) == 2
    finally:
        if server:
            server.shutdown()
    captured = capsys.readouterr()
    assert f"{kind}:" in captured.err
    if captured.out:
        assert json.loads(captured.out)["problem"] == kind


def test_plan_allowance_is_metered(demo_site, settings, monkeypatch, capsys):
    monkeypatch.setenv("SITEKB_PLAN", "free")
    for left in (2, 1, 0):
        assert main(["brief", demo_site.base + "/", "--business", "acme", "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["runs_left_this_month"] == left
    assert main(["brief", demo_site.base + "/", "--business", "acme"]) == 2
    assert "used its 3 brief runs" in capsys.readouterr().err


def test_write_without_a_key_explains_what_is_missing(demo_site, settings, capsys):
    assert main(["brief", demo_site.base + "/", "--write"]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err


def test_write_with_a_model_under_the_spend_guard(demo_site, settings, monkeypatch, capsys):
    from ingest.ops.guard import SpendGuard

    with FakeOpenAI() as fake:
        fake.use(monkeypatch)
        assert main(["brief", demo_site.base + "/", "--business", "acme", "--write", "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["brief"].startswith("Brief written from: home page") and "faq page" in report["brief"]
        assert report["spend_usd"] > 0 and len(fake.chats) == 1
        guard = SpendGuard(load_settings())
        assert guard.spent_today("acme") == pytest.approx(report["spend_usd"])
        guard.close()
        monkeypatch.setenv("SITEKB_DAILY_CAP_BUSINESS_USD", "0.0001")
        assert main(["brief", demo_site.base + "/", "--business", "acme", "--write"]) == 2
        assert "daily cap" in capsys.readouterr().err
        assert len(fake.chats) == 1  # refused before the call


def test_brief_follows_a_stub_homepage_and_reads_key_pages_in_its_language(site_dir_server, settings):
    root = site_dir_server.root_dir
    (root / "index.html").write_text('<html><head><meta http-equiv="refresh" content="0; url=/en/"></head></html>')
    links = ["/de/preise/", "/en/pricing/", "/de/kontakt/", "/en/contact/"]
    nav = "".join(f'<a href="{href}">{href}</a> ' for href in links)
    words = {
        "en": "Our workshop repairs bicycles of every kind and sells spare parts. ",
        "de": "Unsere Werkstatt repariert Fahrräder aller Art und verkauft Ersatzteile. ",
    }
    for path, lang in [("en", "en"), *((p.strip("/"), p[1:3]) for p in links)]:
        (root / path).mkdir(parents=True, exist_ok=True)
        (root / path / "index.html").write_text(
            f'<html lang="{lang}"><body><nav>{nav}</nav><main><h1>{path}</h1>'
            f"<p>{path}: {words[lang] * 4}</p></main></body></html>"
        )
    report = build_brief(site_dir_server.base + "/", settings)
    assert report.problem is None
    assert [(p.kind, p.url.removeprefix(site_dir_server.base)) for p in report.pages] == [
        ("home", "/en/"),
        ("pricing", "/en/pricing/"),
        ("contact", "/en/contact/"),
    ]


def test_a_brief_of_no_site_says_invalid_in_its_json_too(settings, capsys):
    assert main(["brief", "not a domain!", "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["problem"] == "invalid" and "ingest: invalid:" in err


def test_a_brief_requests_nothing_outside_the_site(site_dir_server, settings, tmp_path):
    """robots.txt's Sitemap: line and the icon link name another server: the brief reads
    the sitemap at the same path on the site, and leaves the other server alone."""
    from serve_site import StaticSite

    other_root = tmp_path / "other"
    other_root.mkdir()
    (other_root / "sitemap.xml").write_text("<urlset></urlset>")
    (other_root / "evil.ico").write_bytes(b"\x00\x00\x01\x00")
    with StaticSite(other_root) as other:
        root = site_dir_server.root_dir
        (root / "robots.txt").write_text(f"User-agent: *\nAllow: /\nSitemap: {other.base}/sitemap.xml\n")
        (root / "sitemap.xml").write_text(
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{site_dir_server.base}/about/'
            "</loc></url></urlset>"
        )
        (root / "index.html").write_text(
            f'<html><head><link rel="icon" href="{other.base}/evil.ico"></head>'
            f"<body><main><p>{'Welcome to Acme. ' * 40}</p></main></body></html>"
        )
        (root / "about").mkdir()
        (root / "about" / "index.html").write_text(
            f"<html><body><main><p>{'We are Acme. ' * 40}</p></main></body></html>"
        )
        report = build_brief(site_dir_server.base + "/", settings)
    assert report.problem is None and report.sitemap.total_urls == 1  # read on the site itself
    assert other.log == []  # not one request reached the other server
