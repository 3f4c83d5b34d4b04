"""A hostile business website on 127.0.0.1: the traps real sites set for crawlers (issue #3).

Every request is logged (path, arrival time, status), so tests assert on what the
crawler actually asked for, not only on what it reports."""

from __future__ import annotations

import gzip
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

CONTENT = ["about", "services", "prices", "team", "history", "contact"]
GZIP_BOMB = gzip.compress(b"\0" * 30_000_000, compresslevel=9)  # ~30 KB that inflates to 30 MB
CHALLENGE = (
    b"<html><head><title>Just a moment...</title></head><body>"
    b"<div id='cf-browser-verification'>Checking your browser before accessing the site.</div></body></html>"
)


def _page(title: str, body: str, links: list[str], head: str = "") -> bytes:
    nav = " ".join(f'<a href="{href}">{href}</a>' for href in links)
    return (
        f"<html lang='en'><head><title>{title} | Hostile Co</title>{head}</head><body><header><nav>{nav}</nav>"
        f"</header><main><h1>{title}</h1><p>{body}</p></main><footer>Hostile Co, 1 Trap Street</footer>"
        f"</body></html>"
    ).encode()


def _text(name: str) -> str:
    return (
        f"This is the {name} page of Hostile Co. It holds facts about {name} that only this page states, "
        f"written at length so that the {name} page is real content worth a chunk of its own."
    )


class HostileSite:
    def __init__(
        self,
        waf_threshold: int | None = None,
        latency: float = 0.0,
        crawl_delay: float | None = None,
        block_all_but_home: bool = False,
    ) -> None:
        self.waf_threshold, self.latency, self.crawl_delay = waf_threshold, latency, crawl_delay
        self.block_all_but_home = block_all_but_home
        self.log: list[tuple[str, float, int]] = []
        self.in_flight = 0
        self.lock = threading.Lock()
        self.retry_after_served: set[str] = set()
        site = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                with site.lock:
                    site.in_flight += 1
                    blocked = site.waf_threshold is not None and site.in_flight > site.waf_threshold
                    # A datacenter-IP block that lets only the homepage and robots through.
                    blocked = blocked or (site.block_all_but_home and self.path not in ("/", "/robots.txt"))
                arrived = time.monotonic()
                try:
                    if blocked:
                        status = self._send(403, b"<h1>Request blocked by firewall</h1>")
                    else:
                        if site.latency:
                            time.sleep(site.latency)
                        status = site.route(self)
                except (BrokenPipeError, ConnectionResetError):
                    status = -1
                finally:
                    with site.lock:
                        site.in_flight -= 1
                with site.lock:
                    site.log.append((self.path, arrived, status))

            def _send(self, status: int, body: bytes, headers: dict | None = None, ctype: str = "text/html") -> int:
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                if "Content-Length" not in (headers or {}):
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                return status

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                pass  # crawlers hang up on bombs and huge bodies on purpose

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.other_site = ThreadingHTTPServer(("127.0.0.1", 0), Handler)  # a different origin (port)
        self.other_base = f"http://127.0.0.1:{self.other_site.server_address[1]}"

    def __enter__(self) -> HostileSite:
        for server in (self.server, self.other_site):
            threading.Thread(target=server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        for server in (self.server, self.other_site):
            server.shutdown()
            server.server_close()

    def requested(self, prefix: str) -> list[str]:
        return [path for path, _, _ in self.log if path.startswith(prefix)]

    def route(self, h) -> int:  # noqa: C901 - one branch per trap, kept flat on purpose
        parts = urlsplit(h.path)
        path, query = parts.path, parse_qs(parts.query)
        links = [
            "/",
            *[f"/{n}/" for n in CONTENT],
            "/shop/",
            "/events/?month=1",
            "/auth/google",
            "/login",
            "/giris",
            "/kayit",
            "/cart/",
            "/private/secret/",
            "/hidden/",
            "/header-hidden/",
            "/wall/",
            "/huge/",
            "/bomb/",
            "/loop/a",
            "/slow-down/",
            "/about/?utm_source=news&fbclid=x",
            "/about/?gclid=abc",
            "/brochure.pdf",
            "/team-photo.jpg",
        ]
        if path == "/robots.txt":
            delay = f"Crawl-delay: {self.crawl_delay}\n" if self.crawl_delay else ""
            return h._send(
                200,
                f"User-agent: *\n{delay}Disallow: /private/\nSitemap: {self.base}/sitemap_index.xml\n".encode(),
                ctype="text/plain",
            )
        if path == "/sitemap_index.xml":
            return h._send(
                200,
                f'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
                f"<loc>{self.base}/sitemap-pages.xml.gz</loc></sitemap></sitemapindex>".encode(),
                ctype="application/xml",
            )
        if path == "/sitemap-pages.xml.gz":
            urls = "".join(f"<url><loc>{self.base}/{n}/</loc></url>" for n in CONTENT[:-1])  # contact: links only
            return h._send(
                200,
                gzip.compress(f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'.encode()),
                ctype="application/gzip",
            )
        if path == "/":
            return h._send(200, _page("Home", _text("home"), links))
        if path.strip("/") in CONTENT:
            return h._send(200, _page(path.strip("/").title(), _text(path.strip("/")), links))
        if path == "/shop/":
            facets = [f"/shop/?sort={s}&filter={f}" for s in ("price", "name", "date") for f in ("red", "blue")]
            return h._send(200, _page("Shop", _text("shop"), facets + ["/"]))
        if path == "/events/":
            month = int(query.get("month", ["1"])[0])
            return h._send(
                200,
                _page(
                    f"Events {month}",
                    f"Events in month {month}.",
                    [f"/events/?month={month + 1}", f"/events/?month={month + 12}"],
                ),
            )
        if path == "/auth/google":
            return h._send(302, b"", {"Location": f"{self.other_base}/terms-of-service"})
        if path == "/terms-of-service":
            return h._send(200, _page("Google Terms of Service", "Terms that belong to someone else.", []))
        if path == "/hidden/":
            return h._send(200, _page("Hidden", _text("hidden"), ["/"], head='<meta name="robots" content="noindex">'))
        if path == "/header-hidden/":
            body = _page("Header hidden", _text("header-hidden"), ["/"])
            return h._send(200, body, {"X-Robots-Tag": "noindex, nofollow"})
        if path == "/brochure.pdf":  # a damaged PDF: unreadable, and said so
            return h._send(200, b"%PDF-1.4 not a web page", ctype="application/pdf")
        if path == "/team-photo.jpg":
            return h._send(200, b"\xff\xd8\xff\xe0 not a web page", ctype="image/jpeg")
        if path == "/wall/":
            return h._send(200, CHALLENGE)
        if path == "/huge/":
            h.send_response(200)
            h.send_header("Content-Type", "text/html")
            h.send_header("Content-Length", str(50_000_000))
            h.end_headers()
            chunk = b"<p>" + b"x" * 65_536
            for _ in range(50_000_000 // len(chunk)):
                h.wfile.write(chunk)
            return 200
        if path == "/bomb/":
            return h._send(200, GZIP_BOMB, {"Content-Encoding": "gzip"})
        if path == "/loop/a":
            return h._send(302, b"", {"Location": "/loop/b"})
        if path == "/loop/b":
            return h._send(302, b"", {"Location": "/loop/a"})
        if path == "/slow-down/":
            if path not in self.retry_after_served:
                self.retry_after_served.add(path)
                return h._send(429, b"<h1>Too many requests</h1>", {"Retry-After": "1"})
            return h._send(200, _page("Slow down", _text("slow-down"), ["/"]))
        return h._send(404, _page("Not found", "This page does not exist.", ["/"]))
