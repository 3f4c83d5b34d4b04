"""Pages that build their text in the browser (R-15.1): rendered in headless Chromium,
only when the HTML has almost no text and scripts that would write it.

Every request the browser makes goes through the crawl's own Fetcher, so the SSRF
guard (the connected address is checked), politeness per host, robots.txt, size
limits and the user agent hold for it as for any page: the browser's requests are
intercepted (Playwright's `route`) and answered with what the Fetcher got; the page
itself is answered with the HTML already fetched. The browser cannot reach anything on
its own: its DNS answers nothing (`--host-resolver-rules`) and its proxy is a closed
port, so a WebSocket, a preconnect or anything interception does not see goes nowhere.
What a page needs to render is allowed: the site's own scripts, styles and data, and
scripts and data from other hosts (a CDN's React, a headless CMS); trackers, images,
media and fonts are refused, and so are other hosts' styles and pages (frames).

One browser per crawl, started on the first page that needs it; `render_concurrency`
pages at a time, each within `render_timeout_s`. No browser installed (or Playwright
missing): `unavailable` says what to install, and the page stays as its HTML was.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import time
from collections import Counter
from collections.abc import Callable
from urllib.parse import urlsplit

from ingest.crawl.fetch import Fetcher
from ingest.crawl.urls import Scope, site_host
from ingest.models import Document, Page
from ingest.settings import Settings

# Under this much main text a page with scripts may be a shell. *ours*
SHELL_TEXT_CHARS = 200
# ... and with under this much text on the whole page (menus and footer included) it is
# one whatever its markup says. *ours*
BARE_TEXT_CHARS = 40
# The element a client-side app mounts into, empty in the HTML.
_MOUNT_POINT = re.compile(
    rb"<(?:div|main|section|app-root)[^>]*\bid=[\"']?(?:root|app|__next|__nuxt|___gatsby|svelte|q-app|main-app)\b"
    rb"|<app-root\b|\bng-app\b|\bng-version=|data-reactroot|data-server-rendered",
    re.I,
)
_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script>", re.I | re.S)
_INVISIBLE = re.compile(rb"<(script|style|noscript|template|svg)\b.*?</\1\s*>|<!--.*?-->", re.I | re.S)
_TAG = re.compile(rb"<[^>]*>")
_NOSCRIPT_JS = re.compile(rb"<noscript\b[^>]*>[^<]{0,300}javascript", re.I)
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# Launch flags: quiet (no background fetches of its own), and nothing the browser would
# fetch by itself resolves (its DNS answers nothing) or leaves by UDP (WebRTC's STUN).
LAUNCH_ARGS = [
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-features=MediaRouter,OptimizationHints,Translate",
    "--host-resolver-rules=MAP * ~NOTFOUND",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp",
]
# And in every page, before its scripts: no peer connections at all.
NO_WEBRTC = "delete window.RTCPeerConnection; delete window.webkitRTCPeerConnection; delete window.RTCDataChannel;"
MAX_LAUNCHES = 2  # a browser that dies is started once more, then given up for the crawl
CLOSE_GRACE_S = 5.0  # beyond render_timeout_s, to close a page whose scripts never yield
INSTALL_HINT = (
    "install a browser to read it: `apt-get install chromium` (Debian/Ubuntu) and "
    "`pip install 'sitekb[render]'`, or set SITEKB_BROWSER_PATH"
)
# What the browser may fetch from the site itself, and from other hosts.
SITE_TYPES = frozenset({"document", "script", "xhr", "fetch", "stylesheet"})
OTHER_HOST_TYPES = frozenset({"script", "xhr", "fetch"})
# Analytics, ads, tag managers, chat and consent widgets, session recorders, maps, video:
# nothing a page needs to show its text. Matched on the host and its parents.
TRACKERS = frozenset(
    {
        "google-analytics.com",
        "googletagmanager.com",
        "googleadservices.com",
        "googlesyndication.com",
        "doubleclick.net",
        "facebook.net",
        "facebook.com",
        "connect.facebook.net",
        "hotjar.com",
        "clarity.ms",
        "segment.com",
        "segment.io",
        "mixpanel.com",
        "hs-scripts.com",
        "hs-analytics.net",
        "hubspot.com",
        "newrelic.com",
        "nr-data.net",
        "sentry.io",
        "sentry-cdn.com",
        "intercom.io",
        "intercomcdn.com",
        "tawk.to",
        "crisp.chat",
        "zdassets.com",
        "cookiebot.com",
        "onetrust.com",
        "cookielaw.org",
        "usercentrics.eu",
        "tiktok.com",
        "linkedin.com",
        "licdn.com",
        "twitter.com",
        "ads-twitter.com",
        "pinterest.com",
        "bing.com",
        "yandex.ru",
        "matomo.cloud",
        "plausible.io",
        "recaptcha.net",
        "gstatic.com",
        "maps.googleapis.com",
        "youtube.com",
        "ytimg.com",
        "vimeo.com",
    }
)


def needs_rendering(html: bytes, doc: Document) -> bool:
    """Almost no text in the HTML, and scripts that would write it: an app's mount point, a
    <noscript> asking for JavaScript, or no text at all on the page (a section index with
    a menu and a title is a page, not a shell)."""
    if doc.text_chars >= SHELL_TEXT_CHARS:
        return False
    head = html[:500_000]
    scripts = [attrs for attrs, code in _SCRIPT.findall(head) if b"src=" in attrs.lower() or len(code.strip()) > 200]
    scripts = [attrs for attrs in scripts if b"application/ld+json" not in attrs.lower()]
    if not scripts:
        return False
    # No text anywhere, not even a menu or a footer: nothing but what the scripts will write.
    bare = _visible_chars(head) < BARE_TEXT_CHARS
    return bare or bool(_MOUNT_POINT.search(head) or _NOSCRIPT_JS.search(head))


def _visible_chars(html: bytes) -> int:
    """Characters of text in the body, menus and footer included (scripts, styles and
    tags not): a rough count, enough to tell an empty page from a short one."""
    start = html.lower().find(b"<body")
    body = _INVISIBLE.sub(b" ", html[start if start >= 0 else 0 :])
    return len(b" ".join(_TAG.sub(b" ", body).split()))


def is_tracker(host: str) -> bool:
    labels = host.lower().rstrip(".").split(".")
    return any(".".join(labels[i:]) in TRACKERS for i in range(len(labels) - 1))


def refusal(url: str, resource_type: str, scope: Scope) -> str | None:
    """Why the browser may not fetch this while rendering, or None when it may."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return "scheme"
    host = parts.hostname or ""
    if is_tracker(host):
        return "tracker"
    own = site_host(host) == scope.site or scope.related(url)  # any port: a site's API may have its own
    if resource_type not in (SITE_TYPES if own else OTHER_HOST_TYPES):
        return resource_type if own or resource_type in ("image", "media", "font") else "other_host"
    return None


def find_browser(settings: Settings) -> str | None:
    if settings.browser_path:
        path = shutil.which(settings.browser_path) or settings.browser_path
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


class Renderer:
    """Headless Chromium for one crawl, started when first needed; `close()` ends it."""

    def __init__(
        self, settings: Settings, fetcher: Fetcher, scope: Scope, allowed: Callable[[str], bool] = lambda url: True
    ) -> None:
        self.settings, self.fetcher, self.scope, self.allowed = settings, fetcher, scope, allowed
        self.unavailable: str | None = None  # why no page can be rendered, said once
        self.blocked: Counter[str] = Counter()
        self.bytes_transferred = 0
        self._semaphore = asyncio.Semaphore(settings.render_concurrency)
        self._starting = asyncio.Lock()
        self._playwright = None
        self._browser = None
        self._launches = 0
        self._closed = False  # closed for good: no page starts a browser again
        # Scripts and styles fetched once per crawl, not once per page that loads them.
        self._assets: dict[tuple[str, str], Page] = {}

    async def close(self) -> None:
        self._closed = True
        await self._stop()

    async def _stop(self) -> None:
        browser, playwright, self._browser, self._playwright = self._browser, self._playwright, None, None
        try:
            if browser is not None:
                with contextlib.suppress(Exception):
                    await browser.close()
        finally:
            if playwright is not None:
                with contextlib.suppress(Exception):
                    await playwright.stop()

    async def _start(self) -> bool:
        async with self._starting:
            if self._closed:
                return False
            if self._browser is not None and self._browser.is_connected():
                return True
            if self.unavailable:
                return False
            if self._browser is not None:  # it died (killed, out of memory): one more try
                await self._stop()
            if self._launches >= MAX_LAUNCHES:
                self.unavailable = f"the browser stopped working {self._launches} times"
                return False
            path = find_browser(self.settings)
            if path is None:
                self.unavailable = (
                    f"there is no browser at {self.settings.browser_path} (setting browser_path)"
                    if self.settings.browser_path
                    else f"no browser is installed ({', '.join(BROWSERS)}: none found)"
                )
                return False
            try:
                from playwright.async_api import async_playwright
            except ImportError:
                self.unavailable = "Playwright is not installed"
                return False
            self._launches += 1
            try:
                self._playwright = await async_playwright().start()
                self._browser = await self._playwright.chromium.launch(
                    executable_path=path,
                    # As root Chromium runs only without its sandbox; otherwise it keeps it.
                    chromium_sandbox=os.geteuid() != 0,
                    args=LAUNCH_ARGS,
                    proxy={"server": "http://127.0.0.1:9", "bypass": "<-loopback>"},
                    timeout=30_000,
                )
            except Exception as exc:
                self.unavailable = f"the browser at {path} did not start ({' '.join(str(exc).split())[:200]})"
                await self._stop()
                return False
            return True

    async def render(self, url: str, html: str) -> str | None:
        """The page's DOM after its scripts ran, or None (no browser, or it failed).
        Within render_timeout_s, whatever the page's scripts do (a script that never
        yields blocks even reading the DOM: the page is then given up)."""
        async with self._semaphore:
            if not await self._start():
                return None
            budget = self.settings.render_timeout_s
            context = None
            try:
                async with asyncio.timeout(budget + CLOSE_GRACE_S):
                    context = await self._browser.new_context(
                        user_agent=self.settings.user_agent,
                        service_workers="block",
                        accept_downloads=False,
                        java_script_enabled=True,
                    )
                    return await self._render(context, url, html, time.monotonic() + budget)
            except Exception:  # out of time, the browser died, the page could not be read
                return None
            finally:
                if context is not None:
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(context.close(), CLOSE_GRACE_S)

    async def _render(self, context, url: str, html: str, deadline: float) -> str:
        from playwright.async_api import Error as PlaywrightError

        await context.add_init_script(NO_WEBRTC)
        page = await context.new_page()
        served: list[bool] = []  # the first request of the page's frame is the page
        await page.route("**/*", lambda route: self._answer(route, html, page, served))
        left = lambda: max(0.1, deadline - time.monotonic()) * 1000  # noqa: E731
        try:
            await page.goto(url, wait_until="load", timeout=left())
            await page.wait_for_load_state("networkidle", timeout=left())
        except PlaywrightError:  # out of time: what the scripts wrote so far is the page
            pass
        return await page.content()

    async def _answer(self, route, html: str, page, served: list[bool]) -> None:
        """One request of the browser's: the page from the HTML in hand; others, if allowed,
        fetched by the crawl's Fetcher (guard, politeness, limits) and handed over."""
        request = route.request
        try:
            if not served and request.resource_type == "document" and request.frame == page.main_frame:
                served.append(True)
                # Decoded as the extractor decodes it (the caller's job), handed over as UTF-8:
                # the browser reads the same characters (without a charset it would guess).
                await route.fulfill(status=200, content_type="text/html; charset=utf-8", body=html.encode("utf-8"))
                return
            why = self._refusal(request.url, request.resource_type)
            if why is None and request.method not in ("GET", "HEAD"):
                why = "method"
            if why is None and request.is_navigation_request() and request.frame == page.main_frame:
                why = "navigation"  # the page sends the browser elsewhere: this page is what was asked for
            if why:
                self.blocked[why] += 1
                await route.abort("blockedbyclient")
                return
            answer = await self._fetch(request.url, request.resource_type, request.method)
            if answer.error or answer.status == 0:  # refused by the guard or a hop's rule, too large, unreachable
                self.blocked["redirect" if answer.error == "offsite_redirect" else answer.error or "failed"] += 1
                await route.abort("addressunreachable" if answer.error == "private" else "failed")
                return
            await route.fulfill(status=answer.status, headers=dict(answer.headers), body=answer.body)
        except Exception:  # the page closed meanwhile, or the answer could not be given: nothing to do
            with contextlib.suppress(Exception):
                await route.abort("failed")

    def _refusal(self, url: str, kind: str) -> str | None:
        """Why this address may not be fetched for the page, as a request of the browser's
        or as a redirect hop of one: the rules of `refusal`, and robots.txt on the site."""
        why = refusal(url, kind, self.scope)
        if why is None and self.scope.on_host(url) and not self.allowed(url):
            return "robots"
        return why

    async def _fetch(self, url: str, kind: str, method: str) -> Page:
        """Through the crawl's Fetcher, not counted in its health figures. Redirects are
        followed here, each hop judged as the browser's own request would be (the guard
        checks every hop's address): Chromium does not follow a redirect handed to it by
        interception."""
        cached = self._assets.get((kind, url)) if kind in ("script", "stylesheet") and method == "GET" else None
        if cached is not None:
            return cached
        answer = await self.fetcher.fetch(
            url,
            accept=(),
            method=method,
            hop_allowed=lambda hop: self._refusal(hop, kind) is None,
            counted=False,
        )
        self.bytes_transferred += answer.bytes_transferred
        if kind in ("script", "stylesheet") and method == "GET" and answer.status == 200 and not answer.error:
            self._assets[(kind, url)] = answer
        return answer
