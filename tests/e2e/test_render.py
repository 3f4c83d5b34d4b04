"""Sites that build their text in the browser (R-15.1), rendered by Debian's Chromium
through Playwright, on sites served from 127.0.0.1: a single-page app whose scripts
write the text (one of them from JSON it fetches), the demo site's client-rendered
twin, the SSRF guard on the browser's own requests, and a machine without a browser."""

from __future__ import annotations

import contextlib
import socket
import threading

import pytest
from conftest import DEMO_SITE, StaticSite, needs_browser, stored_payloads
from js_twin import build_twin

from ingest import pipeline
from ingest.crawl import fetch, render
from ingest.settings import load_settings
from retrieval.search import search

SHELL = (
    "<html lang='en'><head><title>{title}</title></head><body><div id='root'></div>"
    "<noscript>You need to enable JavaScript to run this app.</noscript>{scripts}</body></html>"
)
APP_JS = """
fetch('/api/menu').then(r => r.json()).then(data => {
  document.title = data.title;
  document.getElementById('root').innerHTML = '<main><h1>' + data.title + '</h1>' +
    data.sections.map(s => '<h2>' + s.name + '</h2><p>' + s.text + '</p>').join('') +
    '<p><a href="/about">About us</a></p></main>';
});
"""
MENU = {
    "title": "Casa Lola",
    "sections": [
        {
            "name": "Opening hours",
            "text": "We are open every evening from six until midnight, and closed on Mondays. "
            "The kitchen takes its last orders at half past eleven.",
        },
        {
            "name": "Paella",
            "text": "Our paella valenciana is cooked to order for two people or more and costs 32 euros; "
            "please allow forty minutes.",
        },
    ],
}
ABOUT = (
    "document.getElementById('root').innerHTML = '<main><h1>About Casa Lola</h1><p>Casa Lola was opened in 1998 "
    "by Lola Fernandez, who cooked in her grandmother&#39;s bar in Triana before. The kitchen still uses her recipes "
    "for croquetas and salmorejo, and the wine list has forty Andalusian wines.</p>"
    "<p>Call us on +34 954 123 456 to book a table.</p></main>';"
)


@pytest.fixture
def spa(site_dir_server, settings):
    import json

    root = site_dir_server.root_dir
    root.joinpath("index.html").write_text(SHELL.format(title="Loading", scripts='<script src="/app.js"></script>'))
    root.joinpath("app.js").write_text(APP_JS)
    # The data is asked for as /api/menu, which the static host redirects to /api/menu/:
    # the renderer follows the redirect itself, each hop judged like the first.
    (root / "api" / "menu").mkdir(parents=True)
    root.joinpath("api", "menu", "index.html").write_text(json.dumps(MENU))
    root.joinpath("about.html").write_text(SHELL.format(title="About", scripts=f"<script>{ABOUT}</script>"))
    return site_dir_server


@needs_browser
def test_text_written_by_scripts_is_rendered_and_indexed(spa, settings):
    report = pipeline.run(spa.base + "/", load_settings(), business="casa")
    assert report.problem is None, report.message
    assert report.pages.rendered == 2 and report.pages.fetched == 2  # the homepage's link to /about was written by JS
    texts = "\n".join(p["text"] for p in stored_payloads(settings, "casa"))
    assert "closed on Mondays" in texts and "32 euros" in texts  # from the JSON the script fetched
    assert "+34 954 123 456" in texts  # written by an inline script
    assert ("/api/menu", 301) in spa.log and ("/api/menu/", 200) in spa.log and ("/app.js", 200) in spa.log
    hits = search("casa", "when are you open?", k=3)
    assert hits[0].url == spa.base + "/"

    again = pipeline.run(spa.base + "/", load_settings(), business="casa")
    assert again.pages.rendered == 2  # the shell answers 304; what its scripts write may have changed
    assert again.embedding.calls == 0 and again.chunks.added == 0 and again.chunks.deleted == 0


@needs_browser
def test_the_browser_reaches_nothing_the_crawler_may_not(site_dir_server, settings, monkeypatch):
    """The site is public (127.0.0.1 counts as public here); its script asks for a private
    address (127.0.0.2) by fetch, image and WebSocket, loads a tracker and a web font."""
    secret = socket.socket()
    secret.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    secret.bind(("127.0.0.2", 0))
    secret.listen(16)
    port = secret.getsockname()[1]
    reached: list[bytes] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = secret.accept()
            except OSError:
                return
            reached.append(conn.recv(256))
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    stun = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)  # WebRTC's STUN goes by UDP, past any proxy
    stun.bind(("127.0.0.2", 0))
    stun.settimeout(0.2)
    stun_port = stun.getsockname()[1]
    monkeypatch.setattr(fetch, "is_public_address", lambda ip: ip == "127.0.0.1")
    monkeypatch.setattr(fetch, "_guard_verified", True)
    private = f"http://127.0.0.2:{port}"
    script = (
        f"fetch('{private}/metadata').catch(() => null);"
        f"try {{ new WebSocket('ws://127.0.0.2:{port}/socket'); }} catch (e) {{}}"
        "try { const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.2:"
        + str(stun_port)
        + "'}]}); pc.createDataChannel('x'); pc.createOffer().then(o => pc.setLocalDescription(o)); } catch (e) {}"
        "document.getElementById('root').innerHTML = '<main><h1>Harbour Dental</h1><p>"
        + "Our practice on the harbour front treats children and adults, six days a week. " * 4
        + f'</p><img src="{private}/pixel.png"></main>\';'
    )
    site_dir_server.root_dir.joinpath("index.html").write_text(
        SHELL.format(
            title="Harbour Dental",
            scripts=(
                '<link rel="stylesheet" href="https://fonts.example/css">'
                '<script src="https://www.googletagmanager.com/gtm.js?id=GTM-1"></script>'
                f"<script>{script}</script>"
            ),
        )
    )
    try:
        report = pipeline.run(site_dir_server.base + "/", load_settings(allow_private_hosts=False), business="dental")
    finally:
        secret.close()
    datagrams = []
    with contextlib.suppress(OSError):
        while True:
            datagrams.append(stun.recv(512))
    stun.close()
    assert report.problem is None, report.message
    assert report.pages.rendered == 1
    assert reached == [] and datagrams == []
    blocked = report.crawl.render_blocked
    assert blocked.get("private", 0) >= 1  # the fetch, refused by the guard on the address
    assert blocked.get("tracker") == 1 and blocked.get("image") == 1 and blocked.get("other_host") == 1


def test_without_a_browser_the_run_says_what_to_install(spa, settings):
    report = pipeline.run(spa.base + "/", load_settings(browser_path="/nonexistent/chromium"), business="casa")
    assert report.problem == "empty"
    assert "1 page builds its text with JavaScript" in report.message
    assert "apt-get install chromium" in report.message and "/nonexistent/chromium" in report.message
    assert report.pages.rendered == 0


def test_a_static_site_starts_no_browser(demo_site, settings, monkeypatch):
    async def refuse(self):
        raise AssertionError("a static page was sent to the browser")

    monkeypatch.setattr(render.Renderer, "_start", refuse)
    report = pipeline.run(demo_site.base + "/", load_settings(), business="demo")
    assert report.problem is None and report.pages.fetched == 17
    assert report.pages.rendered == 0 and not report.crawl.render_blocked


@needs_browser
def test_the_demo_sites_client_rendered_twin_gives_the_same_knowledge_base(demo_site, settings, tmp_path):
    twin_root = tmp_path / "twin"
    assert build_twin(DEMO_SITE, twin_root) == 17
    static = pipeline.run(demo_site.base + "/", load_settings(), business="static")
    with StaticSite(twin_root, rewrite_hosts=("www.harbourlight.example", "harbourlight.example")) as twin:
        rendered = pipeline.run(twin.base + "/", load_settings(), business="twin")
        assert rendered.problem is None and rendered.pages.rendered == 17
        assert rendered.chunks.total == static.chunks.total

        def chunks(business: str, base: str) -> set[tuple[str, str]]:
            return {(p["url"].replace(base, ""), p["text"]) for p in stored_payloads(settings, business)}

        assert chunks("twin", twin.base) == chunks("static", demo_site.base)
        assert search("twin", "what is your phone number?", k=1)[0].url.startswith(twin.base + "/contact/")


SPA_ROUTER = """
const pages = {
  '/': ['Casa Lola', 'A tapas bar by the river in Seville with a terrace over the water and a long wine list.'],
  '/menu': ['Our menu', 'Croquetas, salmorejo and grilled octopus, and a paella for two on Sundays only.'],
  '/contact': ['Contact', 'Müşteri hizmetleri: call +34 954 123 456; Größe of groups up to twenty people.'],
};
const [title, text] = pages[location.pathname] || ['Not found', ''];
document.title = title;
document.getElementById('root').innerHTML = '<main><h1>' + title + '</h1><p>' + text + ' ' + text + '</p>' +
  '<nav><a href="/">Home</a> <a href="/menu">Menu</a> <a href="/contact">Contact</a></nav></main>';
"""


@needs_browser
def test_one_shell_for_every_route_gives_one_page_per_route(site_dir_server, settings):
    """A single-page app serves the same HTML at every address; its router writes the page.
    The pages differ by what they show, so none is a duplicate of another; the text comes
    through in its own characters (the shell is UTF-8, and the browser is told so)."""
    root = site_dir_server.root_dir
    shell = SHELL.format(title="Casa Lola", scripts='<script src="/router.js"></script>')
    for name in ("index", "menu", "contact"):
        root.joinpath(f"{name}.html").write_text(shell, encoding="utf-8")
    root.joinpath("router.js").write_text(SPA_ROUTER, encoding="utf-8")
    report = pipeline.run(site_dir_server.base + "/", load_settings(), business="casa")
    assert report.problem is None, report.message
    assert report.pages.rendered == 3 and "duplicate" not in report.pages.skipped
    texts = "\n".join(p["text"] for p in stored_payloads(settings, "casa"))
    assert "paella for two on Sundays" in texts and "Müşteri hizmetleri" in texts and "Größe" in texts
    assert [path for path, _ in site_dir_server.log].count("/router.js") == 1  # fetched once per crawl


@needs_browser
def test_a_page_whose_script_never_ends_is_given_up_and_the_crawl_goes_on(site_dir_server, settings):
    root = site_dir_server.root_dir
    root.joinpath("index.html").write_text(
        "<html><body><main><h1>Harbour Dental</h1><p>"
        + "Our practice on the harbour front treats children and adults, six days a week. " * 4
        + '</p><a href="/booking">Book</a></main></body></html>'
    )
    root.joinpath("booking.html").write_text(SHELL.format(title="Booking", scripts='<script src="/spin.js"></script>'))
    root.joinpath("spin.js").write_text("while (true) {}")
    done: list = []
    run = threading.Thread(
        target=lambda: done.append(
            pipeline.run(site_dir_server.base + "/", load_settings(render_timeout_s=2), business="dental")
        ),
        daemon=True,
    )
    run.start()
    run.join(120)  # a guard against a hang, not a measure of speed: the budget is 2 s
    assert done, "the crawl hung on a page whose script never ends"
    report = done[0]
    assert report.problem is None and report.pages.fetched == 2 and report.pages.rendered == 0
    assert any("1 page builds its text with JavaScript" in w for w in report.warnings)
