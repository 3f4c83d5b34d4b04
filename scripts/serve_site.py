#!/usr/bin/env python3
"""Serve a static site folder on 127.0.0.1 like a real web server, for the demo and tests.

    python scripts/serve_site.py scripts/demo_site --rewrite www.harbourlight.example [--port 0]

`/dir/` serves `dir/index.html`, `/dir` answers 301 to `/dir/`, `/page` serves `page.html`
(clean URLs, as static hosts do), missing files get the
site's `404.html` with status 404, responses carry ETag/Last-Modified and conditional
requests get 304. `--rewrite HOST` maps absolute links to the production host onto
this server, the way a staging mirror behaves. Standard library only.
"""

from __future__ import annotations

import argparse
import contextlib
import email.utils
import hashlib
import mimetypes
import posixpath
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit


def site_path(root: Path, url_path: str) -> Path | None:
    """The file or folder under `root` (resolved) that a URL path names; None outside it."""
    rel = posixpath.normpath(unquote(url_path)).lstrip("/")
    target = (root / rel).resolve() if rel not in ("", ".") else root
    return target if target == root or root in target.parents else None


def page_file(named: Path) -> Path | None:
    """The file served for what a URL path names: a folder's index.html, `page` as
    `page.html` (clean URLs, as static hosts serve them); None when there is none."""
    target = named / "index.html" if named.is_dir() else named
    if not target.is_file() and target.suffix == "" and target.with_name(target.name + ".html").is_file():
        target = target.with_name(target.name + ".html")
    return target if target.is_file() else None


class StaticSite:
    def __init__(self, root: str | Path, rewrite_hosts: tuple[str, ...] = (), port: int = 0) -> None:
        self.root = Path(root).resolve()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.site = self  # type: ignore[attr-defined]
        self.base = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        # Test hooks for what real servers also do: answer slowly, with a given status,
        # or with another body (a bot challenge, say).
        self.delay_s = 0.0
        self.status_overrides: dict[str, int] = {}
        self.body_overrides: dict[str, bytes] = {}
        # What was sent, for benchmarks that compare crawlers by the server's own count.
        self.requests = 0
        self.body_bytes_sent = 0
        self.statuses: dict[int, int] = {}
        self.log: list[tuple[str, int]] = []  # every request's (path, status), in order
        self._lock = threading.Lock()
        self._rewrites = [
            (f"{scheme}://{host}".encode(), self.base.encode())
            for host in rewrite_hosts
            for scheme in ("https", "http")
        ]

    def __enter__(self) -> StaticSite:
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def serve_forever(self) -> None:
        self._httpd.serve_forever()

    def read(self, path: Path) -> bytes:
        data = path.read_bytes()
        if path.suffix in (".html", ".xml", ".txt"):
            for old, new in self._rewrites:
                data = data.replace(old, new)
        return data


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; without this, Nagle's algorithm and delayed
    # ACKs add ~40 ms to every response on loopback, which real servers don't.
    disable_nagle_algorithm = True

    def log_message(self, *args) -> None:
        pass

    def do_HEAD(self) -> None:
        # The handler lives as long as the keep-alive connection: reset, or the next GET sends no body.
        self._head = True
        try:
            self.do_GET()
        finally:
            self._head = False

    def do_GET(self) -> None:
        site: StaticSite = self.server.site  # type: ignore[attr-defined]
        raw_path = urlsplit(self.path).path or "/"
        if site.delay_s:
            time.sleep(site.delay_s)
        if raw_path in site.body_overrides:
            return self._send(200, site.body_overrides[raw_path])
        if raw_path in site.status_overrides:
            return self._send(site.status_overrides[raw_path], b"<h1>Unavailable</h1>")
        named = site_path(site.root, raw_path)
        if named is None:
            return self._not_found(site)
        if named.is_dir() and not raw_path.endswith("/"):
            return self._send(301, b"", headers={"Location": raw_path + "/"})
        target = page_file(named)
        if target is None:
            return self._not_found(site)
        body = site.read(target)
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        mtime = target.stat().st_mtime
        headers = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
        if self.headers.get("If-None-Match") == etag:
            return self._send(304, b"", headers=headers)
        ctype = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype.endswith("xml"):
            ctype += "; charset=utf-8"
        self._send(200, body, ctype, headers)

    def _not_found(self, site: StaticSite) -> None:
        page = site.root / "404.html"
        self._send(404, site.read(page) if page.is_file() else b"<h1>Not found</h1>")

    def _send(self, status: int, body: bytes, ctype: str = "text/html; charset=utf-8", headers=None) -> None:
        site: StaticSite = self.server.site  # type: ignore[attr-defined]
        sends_body = status != 304 and not getattr(self, "_head", False)
        with site._lock:
            site.requests += 1
            site.log.append((urlsplit(self.path).path, status))
            site.body_bytes_sent += len(body) if sends_body else 0
            site.statuses[status] = site.statuses.get(status, 0) + 1
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if sends_body:
            self.wfile.write(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site_dir")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--rewrite", action="append", default=[], metavar="HOST")
    args = parser.parse_args()
    if not Path(args.site_dir).is_dir():
        parser.error(f"no such folder: {args.site_dir}")
    # "--rewrite https://www.example.com/" is read as the host it names
    hosts = tuple(urlsplit(h).hostname or h if "://" in h else h.strip("/") for h in args.rewrite)
    try:
        site = StaticSite(args.site_dir, hosts, args.port)
    except OSError as exc:
        parser.error(
            f"cannot listen on 127.0.0.1:{args.port} ({exc.strerror}): pick another --port, or 0 for a free one"
        )
    print(
        f"serving {args.site_dir} at {site.base}" + (f", links to {', '.join(hosts)} rewritten" if hosts else ""),
        flush=True,
    )
    with contextlib.suppress(KeyboardInterrupt):
        site.serve_forever()


if __name__ == "__main__":
    main()
