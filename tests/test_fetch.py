import asyncio
import email.utils
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from ingest.crawl.fetch import (
    HTML_TYPES,
    Fetcher,
    HostThrottle,
    is_challenge_page,
    is_public_address,
    is_transient_status,
    parse_retry_after,
)
from ingest.settings import load_settings


@pytest.mark.parametrize(
    "ip, public",
    [
        ("8.8.8.8", True),
        ("2606:4700::1111", True),
        ("127.0.0.1", False),
        ("10.1.2.3", False),
        ("172.16.0.1", False),
        ("192.168.1.1", False),
        ("169.254.169.254", False),
        ("100.64.0.1", False),
        ("224.0.0.1", False),
        ("0.0.0.0", False),
        ("::1", False),
        ("fe80::1", False),
        ("fc00::1", False),
        ("::ffff:127.0.0.1", False),
        ("::ffff:10.0.0.1", False),
        # IPv6 spellings that wrap a private IPv4 address reach that address
        ("64:ff9b::a9fe:a9fe", False),  # NAT64 of the cloud metadata address
        ("64:ff9b::808:808", True),  # NAT64 of a public one
        ("2002:a9fe:a9fe::", False),  # 6to4
        ("2002:808:808::", True),
        ("::169.254.169.254", False),  # IPv4-compatible
        ("::a00:1", False),
        ("fec0::1", False),  # site-local
        ("192.0.0.8", False),  # IETF protocol assignments
        ("192.0.0.170", False),
    ],
)
def test_public_address_classification(ip, public):
    assert is_public_address(ip) is public


@pytest.mark.parametrize(
    "status, transient",
    [
        (408, True),
        (429, True),
        (500, True),
        (502, True),
        (503, True),
        (504, True),
        (400, False),
        (401, False),
        (403, False),
        (404, False),
        (410, False),
        (501, False),
    ],
)
def test_transient_statuses_are_listed_not_guessed(status, transient):
    assert is_transient_status(status) is transient


def test_retry_after_in_both_forms():
    now = time.time()
    assert parse_retry_after("120") == 120
    assert parse_retry_after(email.utils.formatdate(now + 30, usegmt=True), now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after("soon") is None


def test_throttle_drops_to_one_on_pushback_and_rises_after_clean_runs():
    throttle = HostThrottle(start=2, ceiling=4)
    for _ in range(10):
        throttle.record(200, None)
    assert throttle.limit == 3
    throttle.record(429, None)
    assert throttle.limit == 1


def test_throttle_never_returns_to_the_level_that_drew_a_block():
    throttle = HostThrottle(start=2, ceiling=4)
    for _ in range(10):
        throttle.record(200, None, sent_at=2)
    assert throttle.limit == 3
    throttle.record(403, None, sent_at=3)
    assert (throttle.limit, throttle.ceiling) == (1, 2)
    throttle.record(200, None, sent_at=1)  # back to the proven level at once
    assert throttle.limit == 2
    for _ in range(50):
        throttle.record(200, None, sent_at=2)
    assert throttle.limit == 2


class _Scripted(BaseHTTPRequestHandler):
    """Answers from a script of (status, headers, body) per path; counts hits."""

    routes: dict = {}
    hits: dict = {}

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.hits[self.path] = self.hits.get(self.path, 0) + 1
        script = self.routes.get(self.path, [(404, {}, b"missing")])
        status, headers, body = script[min(self.hits[self.path], len(script)) - 1]
        self.send_response(status)
        headers = {"Content-Type": "text/html", **headers}
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _serving(handler, url_attribute: str):
    """Runs `handler` on 127.0.0.1; its base URL goes into `handler.<url_attribute>`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    setattr(handler, url_attribute, f"http://127.0.0.1:{server.server_address[1]}")
    yield handler
    server.shutdown()
    server.server_close()


@pytest.fixture
def scripted():
    yield from _serving(type("H", (_Scripted,), {"routes": {}, "hits": {}}), "base")


def _fetch(settings, url, pages: bool = False, **kwargs):
    """One fetch; `pages=True` asks for what the crawler reads as pages (HTML and PDFs)."""

    async def go():
        async with Fetcher(settings, **kwargs) as fetcher:
            return await fetcher.fetch(url, accept=fetcher.page_types if pages else HTML_TYPES)

    return asyncio.run(go())


def test_private_hosts_are_refused_by_default(scripted, monkeypatch, tmp_path):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SITEKB_ALLOW_PRIVATE_HOSTS", raising=False)
    scripted.routes["/"] = [(200, {}, b"<p>hi</p>")]
    page = _fetch(load_settings(), scripted.base + "/")
    assert page.error == "private"
    assert scripted.hits == {}  # refused before any byte was sent


def test_ipv4_mapped_ipv6_loopback_is_refused(scripted, monkeypatch, tmp_path):
    """An IPv4-mapped IPv6 spelling of 127.0.0.1 is still loopback."""
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    page = _fetch(load_settings(), "http://[::ffff:127.0.0.1]:1/")
    assert page.error == "private"


def test_transient_errors_are_retried_then_succeed(scripted, settings):
    scripted.routes["/flaky"] = [(503, {"Retry-After": "0"}, b""), (200, {}, b"<p>ok</p>")]
    page = _fetch(settings, scripted.base + "/flaky")
    assert page.status == 200 and page.body == b"<p>ok</p>"
    assert scripted.hits["/flaky"] == 2


def test_permanent_errors_are_not_retried(scripted, settings):
    scripted.routes["/gone"] = [(404, {}, b"no")]
    page = _fetch(settings, scripted.base + "/gone")
    assert page.status == 404
    assert scripted.hits["/gone"] == 1


def test_offsite_redirect_is_not_followed(scripted, settings):
    scripted.routes["/auth/google"] = [(302, {"Location": "https://accounts.google.com/terms"}, b"")]
    page = _fetch(settings, scripted.base + "/auth/google", in_scope=lambda url: url.startswith(scripted.base))
    assert page.error == "offsite_redirect"


def test_body_limit_and_content_type(scripted, settings, monkeypatch):
    monkeypatch.setenv("SITEKB_MAX_BODY_BYTES", "2048")
    small = load_settings()
    scripted.routes["/big"] = [(200, {}, b"x" * 5000)]
    scripted.routes["/pdf"] = [(200, {"Content-Type": "application/pdf"}, b"%PDF" + b"x" * 3000)]
    scripted.routes["/img"] = [(200, {"Content-Type": "image/png"}, b"\x89PNG")]
    scripted.routes["/files/menu.pdf"] = [(200, {"Content-Type": "application/octet-stream"}, b"%PDF")]
    assert _fetch(small, scripted.base + "/big").error == "too_large"
    assert _fetch(settings, scripted.base + "/img").error == "not_html"
    # PDFs are pages (R-15.2), with a limit of their own, and also when served as a download;
    # callers that want a web page (intake, the brief) get not_html for them.
    assert _fetch(small, scripted.base + "/pdf", pages=True).body.startswith(b"%PDF")
    assert _fetch(small, scripted.base + "/pdf").error == "not_html"
    too_small = small.model_copy(update={"max_pdf_bytes": 2048})
    assert _fetch(too_small, scripted.base + "/pdf", pages=True).error == "too_large"
    assert _fetch(settings, scripted.base + "/files/menu.pdf", pages=True).content_type == "application/pdf"
    no_pdfs = settings.model_copy(update={"read_pdfs": False})
    assert _fetch(no_pdfs, scripted.base + "/pdf", pages=True).error == "not_html"


def test_challenge_pages_are_detected_by_content(scripted, settings):
    challenge = b"<html><head><title>Just a moment...</title></head><body>cf_chl_opt</body></html>"
    assert is_challenge_page(challenge)
    assert not is_challenge_page(b"<html><title>Contact</title><p>We use reCAPTCHA-free forms.</p></html>")
    assert not is_challenge_page(b"<p>just a moment</p>" + b"x" * 70_000)
    scripted.routes["/wall"] = [(200, {}, challenge)]
    assert _fetch(settings, scripted.base + "/wall").error == "challenge"


@pytest.mark.parametrize(
    "host",
    [
        "2130706433",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "127.1",
        "0x7f000001",
        "localhost",
        "[::1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]",
    ],
)
def test_every_spelling_of_loopback_is_refused(host, scripted, monkeypatch, tmp_path):
    """Decimal, hex, octal and short IPv4 forms, names that resolve to loopback, IPv6 and
    IPv4-mapped IPv6: the guard judges the address actually connected, not the spelling."""
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    port = scripted.base.rsplit(":", 1)[1]
    page = _fetch(load_settings(), f"http://{host}:{port}/")
    # httpx refuses to parse the octal spelling at all; every other spelling reaches the guard.
    assert page.error == ("invalid_url" if host == "0177.0.0.1" else "private"), (host, page)
    assert scripted.hits == {}


def test_redirect_to_a_private_address_is_refused_on_the_hop(scripted, monkeypatch, tmp_path):
    """127.0.0.1 plays a public host here (the only address a test can serve from);
    its redirect to ::1 must be refused when the hop connects."""
    import ingest.crawl.fetch as fetch_module

    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    real = fetch_module.is_public_address
    monkeypatch.setattr(fetch_module, "is_public_address", lambda ip: ip == "127.0.0.1" or real(ip))
    port = scripted.base.rsplit(":", 1)[1]
    scripted.routes["/start"] = [(302, {"Location": f"http://[::1]:{port}/inside"}, b"")]
    page = _fetch(load_settings(), scripted.base + "/start")
    assert scripted.hits == {"/start": 1}
    assert page.error == "private"


class _ForwardProxy(BaseHTTPRequestHandler):
    """A plain HTTP forward proxy: GET http://host/path from the client, fetched and relayed."""

    seen: list = []

    def log_message(self, *args):
        pass

    def do_CONNECT(self):  # records where it is asked to open a tunnel, and declines
        self.seen.append(self.path)
        self.send_response(502)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self):
        import urllib.request

        self.seen.append(self.path)
        try:
            with urllib.request.urlopen(self.path, timeout=5) as upstream:
                status, body = upstream.status, upstream.read()
        except urllib.error.HTTPError as err:
            status, body = err.code, err.read()
        self.send_response(status)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture
def proxy():
    yield from _serving(type("P", (_ForwardProxy,), {"seen": []}), "url")


def test_requests_go_through_the_configured_proxy(scripted, proxy, settings, monkeypatch):
    monkeypatch.setenv("SITEKB_PROXY_URL", proxy.url)
    scripted.routes["/via"] = [(200, {}, b"<p>through the proxy</p>")]
    page = _fetch(load_settings(), scripted.base + "/via")
    assert page.status == 200 and page.body == b"<p>through the proxy</p>"
    assert proxy.seen == [scripted.base + "/via"]


def test_the_proxy_is_sent_to_the_vetted_address_not_the_name(scripted, proxy, settings, monkeypatch):
    """DNS rebinding through a proxy: a name the proxy resolved again could reach another
    address than the one vetted. The proxy is given the vetted address, for plain
    requests and for tunnels alike."""
    monkeypatch.setenv("SITEKB_PROXY_URL", proxy.url)
    port = scripted.base.rsplit(":", 1)[1]
    _fetch(load_settings(), f"http://localhost:{port}/via")
    _fetch(load_settings(), f"https://localhost:{port}/tls")
    loopback = (f"127.0.0.1:{port}", f"[::1]:{port}")
    assert len(proxy.seen) == 2 and "localhost" not in " ".join(proxy.seen)
    assert proxy.seen[0] in {f"http://{a}/via" for a in loopback} and proxy.seen[1] in loopback


def test_with_a_proxy_private_destinations_are_still_refused(scripted, proxy, monkeypatch, tmp_path):
    """The proxy itself is the operator's choice; where it is sent is still checked."""
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    monkeypatch.setenv("SITEKB_PROXY_URL", proxy.url)
    page = _fetch(load_settings(), scripted.base + "/")
    assert page.error == "private" and proxy.seen == [] and scripted.hits == {}


def test_a_guard_left_out_of_the_connection_path_stops_the_crawl_before_any_request(
    scripted, settings, monkeypatch, capsys
):
    """If an httpx upgrade stopped using the pool's network backend, the guard would be a
    dead attribute: the start-up probe notices and nothing is fetched."""
    from ingest.cli import main
    from ingest.crawl import fetch

    def unguarded(proxy_url, allow_private):
        return httpx.AsyncHTTPTransport(retries=0)  # what a changed httpx would leave us with

    monkeypatch.setattr(fetch, "guarded_transport", unguarded)
    monkeypatch.setattr(fetch, "_guard_verified", False)
    scripted.routes["/"] = [(200, {}, b"<p>hi</p>")]
    with pytest.raises(fetch.GuardMissing, match="not in httpx's connection path"):
        _fetch(settings, scripted.base + "/")
    assert main(["run", scripted.base + "/", "--business", "b"]) == 1
    assert "the SSRF guard is not in httpx's connection path" in capsys.readouterr().err
    assert scripted.hits == {}  # no request reached the site


def test_the_guard_is_verified_once_and_then_crawling_goes_on(scripted, settings, monkeypatch):
    from ingest.crawl import fetch

    monkeypatch.setattr(fetch, "_guard_verified", False)
    scripted.routes["/"] = [(200, {}, b"<p>hi</p>")]
    assert _fetch(settings, scripted.base + "/").status == 200
    assert fetch._guard_verified is True
