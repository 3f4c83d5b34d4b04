"""Fetching: politeness, SSRF guard, retries and limits as separate layers around one GET.

Layers, outermost first: `HostThrottle` (adaptive per-host concurrency, R-4.1) →
tenacity retries for transient failures only (R-4.2) → manual redirect following
with scope and hop checks (R-3.3, R-4.4) → a streaming GET with size and
content-type limits (R-4.4) → `GuardedBackend`, which resolves the host itself and
refuses non-public addresses on the socket actually connected (R-2.6).
"""

from __future__ import annotations

import asyncio
import email.utils
import ipaddress
import re
import socket
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import urlsplit

import httpcore
import httpx
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from ingest.crawl.discover import gunzip
from ingest.models import Page
from ingest.settings import Settings

TRANSIENT_STATUSES = frozenset({408, 429, 500, 502, 503, 504})
THROTTLE_STATUSES = frozenset({403, 406, 429, 503})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
HTML_TYPES = ("text/html", "application/xhtml+xml")
PDF_TYPES = ("application/pdf", "application/x-pdf")
# Response headers kept on a Page for the renderer's browser (ingest/crawl/render.py).
BROWSER_HEADERS = frozenset(
    {
        "content-type",
        "location",
        "cache-control",
        "access-control-allow-origin",
        "access-control-allow-credentials",
        "access-control-allow-headers",
        "access-control-allow-methods",
        "access-control-expose-headers",
    }
)
# Clean responses in a row before a host's concurrency goes up by one, and
# before it climbs back to a level already proven safe after a pushback (safe because a
# second pushback there lowers the ceiling for good). *ours*
CLEAN_RUN_TO_RAISE = 10
CLEAN_RUN_TO_RECOVER = 1


def is_transient_status(status: int) -> bool:
    """Transient = retry later. Never 'starts with 4' (R-4.2): 404 is final, 408/429 are not."""
    return status in TRANSIENT_STATUSES


class PrivateAddressError(Exception):
    """The host resolves to an address we refuse to connect to."""


# Soft blocks: challenge and captcha pages answered with status 200. Matched in
# the first bytes of small pages only; a real page that mentions a captcha is long.
_CHALLENGE_MARKERS = (
    b"<title>just a moment",
    b"cf-browser-verification",
    b"challenge-platform",
    b"cf_chl_opt",
    b"attention required! | cloudflare",
    b"checking your browser before accessing",
    b"ddos-guard",
    b"/_incapsula_resource",
    b"px-captcha",
    b"g-recaptcha",
    b"h-captcha",
    b"please enable js and disable any ad blocker",
    b"sgcaptcha",
    b"awswaf",
    b"perimeterx",
)
CHALLENGE_MAX_BYTES = 60_000


def is_challenge_page(body: bytes) -> bool:
    """A bot challenge or captcha wall served as a normal page: never content, never evidence."""
    if len(body) > CHALLENGE_MAX_BYTES:
        return False
    head = body[:CHALLENGE_MAX_BYTES].lower()
    return any(marker in head for marker in _CHALLENGE_MARKERS)


# IPv4 ranges Python's is_global lets through that no business site lives on: carrier-grade
# NAT, and the IETF protocol assignments (192.0.0.8, the dummy address, among them).
_NOT_PUBLIC_V4 = (ipaddress.ip_network("100.64.0.0/10"), ipaddress.ip_network("192.0.0.0/24"))
# NAT64 (RFC 6052): an IPv4 address in the last 32 bits, reached through a translator.
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def _embedded_ipv4(addr: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address wraps (mapped, 6to4, NAT64, IPv4-compatible), if any:
    a connection to it reaches that IPv4 host, so that host is what is judged."""
    if addr.ipv4_mapped is not None:
        return addr.ipv4_mapped
    if addr.sixtofour is not None:
        return addr.sixtofour
    if any(addr in network for network in _NAT64) or int(addr) >> 32 == 0:
        return ipaddress.IPv4Address(int(addr) & 0xFFFFFFFF)
    return None


class NotAPage(ValueError):
    """A local file that is no HTML page we would read (empty, too large, binary)."""


def read_html_file(path: Path, max_bytes: int) -> bytes:
    """A saved page's HTML (`.gz` inflated), under the fetcher's limits: at most `max_bytes`
    read or inflated, never the whole of an endless or bombed file; NotAPage otherwise."""
    with path.open("rb") as handle:
        raw = handle.read(max_bytes + 1)
    if path.suffix == ".gz":
        try:
            raw = gunzip(raw, max_bytes + 1)
        except zlib.error as exc:
            raise NotAPage(f"{path} is not a readable gzip file ({exc})") from None
    if len(raw) > max_bytes:
        raise NotAPage(f"{path} is over {max_bytes:,} bytes (SITEKB_MAX_BODY_BYTES)")
    if not raw.strip():
        raise NotAPage(f"{path} is empty")
    if b"\0" in raw[:8192] or b"<" not in raw[:65536]:
        raise NotAPage(f"{path} is not an HTML page")
    return raw


def is_public_address(ip: str) -> bool:
    addr = ipaddress.ip_address(ip)
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.is_site_local:
            return False
        addr = _embedded_ipv4(addr) or addr
    if addr.version == 4 and any(addr in network for network in _NOT_PUBLIC_V4):
        return False
    return addr.is_global and not addr.is_multicast


async def resolve(host: str, port: int, allow_private: bool, timeout: float | None = None) -> list[str]:
    """The host's addresses; PrivateAddressError if any is not public (unless allowed)."""
    loop = asyncio.get_running_loop()
    try:
        infos = await asyncio.wait_for(loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout)
    except socket.gaierror as exc:
        raise httpcore.ConnectError(f"DNS lookup failed for {host}: {exc}") from exc
    except TimeoutError as exc:
        raise httpcore.ConnectTimeout(f"DNS lookup timed out for {host}") from exc
    addresses = [info[4][0] for info in infos]
    if not allow_private:
        refused = [a for a in addresses if not is_public_address(a)]
        if refused:
            raise PrivateAddressError(f"{host} resolves to non-public address {refused[0]}")
    return addresses


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """Resolves names itself and connects to a vetted IP, so DNS rebinding and
    redirects to private hosts are checked on the address actually connected.

    Through a proxy (`proxied`), the socket goes to the proxy, the operator's choice,
    and each request head written to it names its destination by the vetted address
    instead of the host name (_PinnedToProxy), so the proxy cannot resolve the name
    again to another address."""

    def __init__(self, allow_private: bool, proxied: bool = False) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._allow_private = allow_private
        self._proxied = proxied

    async def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        addresses = await resolve(host, port, self._allow_private or self._proxied, timeout)
        last_error: Exception | None = None
        for address in addresses:
            try:
                stream = await self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
                return _PinnedToProxy(stream, self._allow_private) if self._proxied else stream
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                last_error = exc
        raise last_error or httpcore.ConnectError(f"no address for {host}")

    async def connect_unix_socket(self, *args, **kwargs):
        raise httpcore.ConnectError("unix sockets are not used")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


# A request head's first line: "CONNECT host:443 HTTP/1.1", "GET http://host/x HTTP/1.1".
_REQUEST_LINE = re.compile(rb"^([A-Z]+) (\S+) (HTTP/1\.[01]\r\n)")


class _PinnedToProxy(httpcore.AsyncNetworkStream):
    """The stream to a proxy. Each request head names its destination (CONNECT's target,
    or a plain request's absolute URL); the name is resolved and judged here and replaced
    by the vetted address. TLS inside a CONNECT tunnel is still verified against the name
    (httpcore starts it with the URL's host), so the certificate check is unchanged."""

    def __init__(self, inner: httpcore.AsyncNetworkStream, allow_private: bool) -> None:
        self._inner, self._allow_private = inner, allow_private

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        match = _REQUEST_LINE.match(buffer)
        if match:
            method, target, version = match.groups()
            pinned = await self._pin(target.decode("ascii"), method == b"CONNECT", timeout)
            buffer = b"%s %s %s" % (method, pinned.encode("ascii"), version) + buffer[match.end() :]
        await self._inner.write(buffer, timeout)

    async def _pin(self, target: str, connect: bool, timeout: float | None) -> str:
        parts = urlsplit(f"//{target}" if connect else target)
        host, port = parts.hostname or "", parts.port or (443 if connect or parts.scheme == "https" else 80)
        address = (await resolve(host, port, self._allow_private, timeout))[0]
        netloc = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
        return netloc if connect else parts._replace(netloc=netloc).geturl()

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return await self._inner.read(max_bytes, timeout)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.AsyncNetworkStream:
        return await self._inner.start_tls(ssl_context, server_hostname, timeout)

    def get_extra_info(self, info: str):
        return self._inner.get_extra_info(info)


class GuardMissing(RuntimeError):
    """The SSRF guard is not in the connection path: crawling would reach any address."""


def guarded_transport(proxy_url: str | None, allow_private: bool) -> httpx.AsyncHTTPTransport:
    """An httpx transport whose connections go through GuardedBackend. httpx has no
    public hook for the network backend; the pool's is the one place where the
    connected address is known, which is what R-2.6 asks for. verify_guard() checks
    that it is still used."""
    transport = httpx.AsyncHTTPTransport(retries=0, proxy=proxy_url or None)
    transport._pool._network_backend = GuardedBackend(allow_private, proxied=bool(proxy_url))
    return transport


_guard_verified = False


async def verify_guard() -> None:
    """Once per process: a request to a loopback address through a guarded transport
    must be refused by the guard, not reach the address. If an httpx or httpcore
    upgrade stops using the pool's backend, the guard would be a dead attribute and
    every private address reachable: crawling is refused instead."""
    global _guard_verified
    if _guard_verified:
        return
    async with httpx.AsyncClient(transport=guarded_transport(None, allow_private=False)) as probe:
        try:
            await probe.get("http://127.0.0.1:9/", timeout=2.0)
        except PrivateAddressError:
            _guard_verified = True
            return
        except Exception as exc:  # reached the address (refused, reset, answered): no guard
            raise GuardMissing(
                f"the SSRF guard is not in httpx's connection path (a probe to 127.0.0.1 got {type(exc).__name__}, "
                "not the guard's refusal): crawling is refused; pin httpx/httpcore to a tested version"
            ) from None
    raise GuardMissing("the SSRF guard is not in httpx's connection path (127.0.0.1 answered): crawling is refused")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a Retry-After header, in either of its forms (delta or HTTP-date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (now if now is not None else time.time()))


class HostThrottle:
    """Adaptive concurrency for one host (R-4.1): start at `start`, rise by one after a run
    of clean responses, drop to 1 at once on pushback (403/406/429/503), and never again
    reach the level that drew the pushback. Below a level already proven safe it climbs
    back after a short clean run, so one block costs little time."""

    def __init__(self, start: int, ceiling: int, crawl_delay: float = 0.0) -> None:
        self.limit = start
        self.ceiling = ceiling
        self.known_good = start
        self.crawl_delay = crawl_delay
        self.pushbacks = 0
        self._active = 0
        self._clean_run = 0
        self._not_before = 0.0
        self._cond = asyncio.Condition()

    async def __aenter__(self) -> int:
        """Waits for a slot; returns the concurrency level the request is sent at."""
        async with self._cond:
            await self._cond.wait_for(lambda: self._active < self.limit)
            self._active += 1
            level = self.limit
            delay = self._not_before - time.monotonic()
            self._not_before = max(self._not_before, time.monotonic()) + self.crawl_delay
        if delay > 0:
            await asyncio.sleep(delay)
        return level

    async def __aexit__(self, *exc) -> None:
        async with self._cond:
            self._active -= 1
            self._cond.notify_all()

    def record(self, status: int, retry_after: float | None, sent_at: int | None = None) -> None:
        if status in THROTTLE_STATUSES:
            self.pushbacks += 1
            level = sent_at if sent_at is not None else self.limit
            if level > 1:
                self.ceiling = min(self.ceiling, level - 1)
                self.known_good = min(self.known_good, self.ceiling)
            self.limit = 1
            self._clean_run = 0
        elif 200 <= status < 400:
            self._clean_run += 1
            needed = CLEAN_RUN_TO_RECOVER if self.limit < self.known_good else CLEAN_RUN_TO_RAISE
            if self._clean_run >= needed and self.limit < self.ceiling:
                self.known_good = max(self.known_good, self.limit)
                self.limit += 1
                self._clean_run = 0
        if retry_after:
            self._not_before = max(self._not_before, time.monotonic() + retry_after)


@dataclass(frozen=True)
class Validators:
    etag: str | None = None
    last_modified: str | None = None


class _Transient(Exception):
    def __init__(self, page: Page, retry_after: float | None) -> None:
        self.page = page
        self.retry_after = retry_after


class Fetcher:
    """GETs pages politely. Use as an async context manager; one per run."""

    def __init__(self, settings: Settings, in_scope: Callable[[str], bool] = lambda url: True) -> None:
        self.settings = settings
        self.in_scope = in_scope
        # Every response and network failure, retries and redirect hops included.
        self.status_counts: dict[str, int] = {}
        self._throttles: dict[str, HostThrottle] = {}
        self._proxied = bool(settings.proxy_url)
        self.page_types = HTML_TYPES + PDF_TYPES if settings.read_pdfs else HTML_TYPES
        self._client = httpx.AsyncClient(
            transport=guarded_transport(settings.proxy_url, settings.allow_private_hosts),
            timeout=httpx.Timeout(settings.request_timeout_s),
            headers={"User-Agent": settings.user_agent, "Accept": "text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"},
            follow_redirects=False,
        )

    async def __aenter__(self) -> Fetcher:
        await verify_guard()
        return self

    async def __aexit__(self, *exc) -> None:
        await self._client.aclose()

    def throttle(self, host: str) -> HostThrottle:
        if host not in self._throttles:
            self._throttles[host] = HostThrottle(self.settings.concurrency_start, self.settings.concurrency_max)
        return self._throttles[host]

    def set_crawl_delay(self, host: str, seconds: float) -> None:
        self.throttle(host).crawl_delay = seconds

    async def fetch(
        self,
        url: str,
        validators: Validators | None = None,
        depth: int = 0,
        accept: Iterable[str] = HTML_TYPES,
        method: str = "GET",
        follow_redirects: bool = True,
        hop_allowed: Callable[[str], bool] | None = None,
        counted: bool = True,
    ) -> Page:
        """Fetch with retries. Network failures come back as a Page with `error` set, never raised.
        With `follow_redirects=False` a redirect comes back as it is (status and `location`).
        `accept`: the content types read (`page_types`: HTML, and PDFs when read_pdfs).
        `hop_allowed`: which redirect targets are followed (default: the Fetcher's scope).
        `counted=False`: not in `status_counts` (a browser's requests while rendering, which
        must not tell the crawl's health; politeness still hears them)."""
        try:
            throttle = self.throttle(httpx.URL(url).host)
        except httpx.InvalidURL as exc:  # e.g. an octal IPv4 spelling httpx refuses to parse
            return Page(url=url, final_url=url, status=0, error="invalid_url", depth=depth, detail=str(exc))
        retry_after: list[float | None] = [None]

        def wait(state) -> float:
            backoff = wait_exponential(multiplier=0.5, max=10)(state)
            return retry_after[0] if retry_after[0] is not None else backoff

        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.settings.fetch_attempts),
            wait=wait,
            retry=retry_if_exception(lambda e: isinstance(e, _Transient)),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    async with throttle as level:
                        page = await self._follow(
                            url,
                            validators,
                            depth,
                            tuple(accept),
                            method,
                            self.settings.max_redirects if follow_redirects else 0,
                            hop_allowed or self.in_scope,
                            counted,
                        )
                    after = parse_retry_after(page.retry_after)
                    throttle.record(page.status, after, sent_at=level)
                    if is_transient_status(page.status) or page.error in ("timeout", "connect"):
                        retry_after[0] = min(after, 60.0) if after is not None else None
                        raise _Transient(page, after)
                    if page.status in THROTTLE_STATUSES and level > 1:
                        # A 403/406 drawn while several requests were in flight may be the
                        # firewall counting them: ask again once the host is down to one.
                        retry_after[0] = 0.0
                        raise _Transient(page, None)
                    return page
        except _Transient as exc:
            return exc.page
        raise AssertionError("unreachable")

    async def _follow(
        self,
        url: str,
        validators: Validators | None,
        depth: int,
        accept: tuple[str, ...],
        method: str,
        max_hops: int,
        hop_allowed: Callable[[str], bool],
        counted: bool = True,
    ) -> Page:
        current = url
        headers: dict[str, str] = {}
        if validators and validators.etag:
            headers["If-None-Match"] = validators.etag
        if validators and validators.last_modified:
            headers["If-Modified-Since"] = validators.last_modified
        transferred = 0
        for _ in range(max_hops + 1):
            try:
                page = await self._get(current, url, headers, depth, accept, method)
            except PrivateAddressError as exc:
                return Page(url=url, final_url=current, status=0, error="private", depth=depth, detail=str(exc))
            transferred += page.bytes_transferred
            if counted:
                key = str(page.status) if page.status else (page.error or "error")
                self.status_counts[key] = self.status_counts.get(key, 0) + 1
            if page.status in REDIRECT_STATUSES and page.error is None:
                if max_hops == 0:
                    return replace(page, bytes_transferred=transferred)
                if not page.location:
                    return replace(page, error="redirect_without_location", bytes_transferred=transferred)
                nxt = str(httpx.URL(current).join(page.location))
                if not hop_allowed(nxt):
                    return replace(page, final_url=nxt, error="offsite_redirect", bytes_transferred=transferred)
                current = nxt
                continue
            return replace(page, bytes_transferred=transferred)
        return Page(
            url=url, final_url=current, status=0, error="too_many_redirects", depth=depth, bytes_transferred=transferred
        )

    async def _get(
        self, current: str, original: str, headers: dict[str, str], depth: int, accept: tuple[str, ...], method: str
    ) -> Page:
        limit = self.settings.max_body_bytes
        try:
            async with self._client.stream(method, current, headers=headers) as response:
                base = dict(
                    url=original,
                    final_url=str(response.url),
                    status=response.status_code,
                    depth=depth,
                    etag=response.headers.get("etag"),
                    last_modified=response.headers.get("last-modified"),
                    x_robots_tag=response.headers.get("x-robots-tag", ""),
                    bytes_transferred=_header_bytes(response),
                    headers=tuple((k, v) for k, v in response.headers.items() if k.lower() in BROWSER_HEADERS),
                )
                if response.status_code in REDIRECT_STATUSES:
                    return Page(**base, location=response.headers.get("location"))
                if response.status_code in TRANSIENT_STATUSES or response.status_code in THROTTLE_STATUSES:
                    return Page(**base, retry_after=response.headers.get("retry-after"))
                ctype = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if ctype in ("application/octet-stream", "binary/octet-stream") and _names_pdf(current):
                    ctype = "application/pdf"  # a PDF served as a download: read as what its name says
                if response.status_code == 200 and accept and ctype and ctype not in accept:
                    return Page(**base, content_type=ctype, error="not_html")
                if ctype in PDF_TYPES:
                    limit = self.settings.max_pdf_bytes
                declared = response.headers.get("content-length")
                if declared and declared.isdigit() and int(declared) > limit:
                    return Page(**base, content_type=ctype, error="too_large")
                chunks: list[bytes] = []
                size = 0
                # aiter_bytes decodes gzip/br incrementally, so the limit also bounds
                # decompression bombs.
                async for piece in response.aiter_bytes():
                    size += len(piece)
                    if size > limit:
                        return Page(**base, content_type=ctype, error="too_large")
                    chunks.append(piece)
                base["bytes_transferred"] += response.num_bytes_downloaded
                body = b"".join(chunks)
                if response.status_code == 200 and is_challenge_page(body):
                    return Page(**base, content_type=ctype, error="challenge")
                return Page(**base, content_type=ctype, body=body)
        except (httpx.TimeoutException, httpcore.ConnectTimeout):
            return Page(url=original, final_url=current, status=0, error="timeout", depth=depth)
        except PrivateAddressError:
            raise
        except (httpx.ConnectError, httpcore.ConnectError) as exc:
            kind = "tls" if _is_tls_error(exc) else ("dns" if "DNS lookup failed" in str(exc) else "connect")
            return Page(url=original, final_url=current, status=0, error=kind, depth=depth, detail=str(exc))
        except httpx.InvalidURL as exc:  # a redirect Location httpx cannot parse
            return Page(url=original, final_url=current, status=0, error="invalid_url", depth=depth, detail=str(exc))
        except (httpx.HTTPError, httpcore.ProtocolError) as exc:
            return Page(url=original, final_url=current, status=0, error="protocol", depth=depth, detail=str(exc))


def _names_pdf(url: str) -> bool:
    return urlsplit(url).path.lower().endswith(".pdf")


def _header_bytes(response: httpx.Response) -> int:
    """Size of the status line and headers as sent (httpx counts only body bytes)."""
    return (
        len(f"HTTP/1.1 {response.status_code} {response.reason_phrase}\r\n")
        + 2
        + sum(len(name) + len(value) + 4 for name, value in response.headers.raw)
    )


def _is_tls_error(exc: BaseException) -> bool:
    text = repr(exc) + repr(exc.__cause__ or "")
    return "SSL" in text or "CERTIFICATE" in text.upper()
