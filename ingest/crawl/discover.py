"""Discovery: robots.txt, sitemaps and a per-site frontier (R-3.1, R-3.5, R-3.6, R-3.8).

Pure parsing and queueing; the orchestrator does the fetching, so each piece
here can be tested on bytes.
"""

from __future__ import annotations

import heapq
import re
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from urllib.parse import urlsplit

from lxml import etree
from protego import Protego

from ingest.crawl.urls import Scope, page_key
from ingest.models import SkipReason

MAX_SITEMAP_DEPTH = 3
# A sitemap lastmod within this many days earns a priority bonus. *ours*
RECENT_DAYS = 365
MAX_SITEMAP_FILES = 50
MAX_SITEMAP_BYTES = 50_000_000
# Frontier admits up to this many times the fetch budget.
DISCOVERY_FACTOR = 4


@dataclass(frozen=True)
class SitemapEntry:
    url: str
    lastmod: str | None = None


@dataclass(frozen=True)
class Sitemap:
    pages: tuple[SitemapEntry, ...] = ()
    children: tuple[str, ...] = ()


def gunzip(data: bytes, max_bytes: int) -> bytes:
    """`data` inflated, at most `max_bytes` of it: a gzip bomb stops there."""
    return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data, max_bytes)


def _decompress(body: bytes) -> bytes:
    return gunzip(body, MAX_SITEMAP_BYTES) if body[:2] == b"\x1f\x8b" else body


def parse_sitemap(body: bytes) -> Sitemap:
    """XML urlset or sitemapindex (any namespace, BOM tolerated), gzip or not, or a text sitemap."""
    data = _decompress(body).lstrip(b"\xef\xbb\xbf").strip()
    if not data:
        return Sitemap()
    if data.startswith(b"<"):
        try:
            root = etree.fromstring(data, parser=etree.XMLParser(recover=True, resolve_entities=False, no_network=True))
        except etree.XMLSyntaxError:
            return Sitemap()
        if root is None:
            return Sitemap()
        kind = etree.QName(root).localname.lower()
        if kind in ("feed", "rss"):
            return Sitemap(tuple(_feed_entries(root)))
        pages, children = [], []
        for node in root:
            if not isinstance(node.tag, str):
                continue
            loc = lastmod = None
            alternates: list[str] = []
            for child in node:
                if not isinstance(child.tag, str):
                    continue
                name = etree.QName(child).localname.lower()
                if name == "loc" and child.text:
                    loc = child.text.strip()
                elif name == "lastmod" and child.text:
                    lastmod = child.text.strip()
                elif name == "link" and child.get("rel") == "alternate" and child.get("href"):
                    alternates.append(child.get("href").strip())  # hreflang versions of the page
            if not loc and node.text and re.match(r"\s*https?://", node.text):
                loc = node.text.strip()  # <sitemap>URL</sitemap> without <loc>, seen in the wild
            if not loc:
                continue
            if kind == "sitemapindex":
                children.append(loc)
            else:
                pages.append(SitemapEntry(loc, lastmod))
                pages.extend(SitemapEntry(href, lastmod) for href in alternates if href != loc)
        unique = {entry.url: entry for entry in reversed(pages)}  # first mention wins
        return Sitemap(tuple(e for e in pages if unique.get(e.url) is e), tuple(children))
    lines = data.decode("utf-8", "replace").splitlines()
    return Sitemap(tuple(SitemapEntry(line.strip()) for line in lines if re.match(r"^https?://", line.strip())))


def decode_robots(body: bytes) -> str:
    """robots.txt text: UTF-8 by RFC 9309, but UTF-16 files with a BOM exist in the wild."""
    if body.startswith((b"\xff\xfe", b"\xfe\xff")):
        return body.decode("utf-16", "replace")
    return body.decode("utf-8-sig", "replace")


def _feed_entries(root) -> list[SitemapEntry]:
    """Atom entries' links and RSS items' links: sitemaps.org accepts both feeds as sitemaps."""
    entries = []
    for node in root.iter():
        if not isinstance(node.tag, str) or etree.QName(node).localname.lower() not in ("entry", "item"):
            continue
        link = updated = None
        for child in node:
            if not isinstance(child.tag, str):
                continue
            name = etree.QName(child).localname.lower()
            if name == "link" and link is None:
                href = child.get("href") or (child.text or "").strip()
                if href and child.get("rel", "alternate") == "alternate":
                    link = href.strip()
            elif name in ("updated", "pubdate") and child.text:
                updated = child.text.strip()
        if link:
            entries.append(SitemapEntry(link, updated))
    return entries


def lastmod_bonus(lastmod: str | None, now: datetime | None = None) -> int:
    """Priority bonus for a sitemap entry changed within the last year (R-3.5)."""
    if not lastmod:
        return 0
    try:
        changed = datetime.fromisoformat(lastmod[:10])
    except ValueError:
        return 0
    now = now or datetime.now()
    return 1 if timedelta(0) <= now - changed <= timedelta(days=RECENT_DAYS) else 0


def parse_robots(body: bytes | str) -> Protego:
    return Protego.parse(decode_robots(body) if isinstance(body, bytes) else body)


# Discovery-rate trap detection. *ours*
RATE_WINDOW_PAGES = 20
RATE_WINDOWS_TO_WARN = 3
TRAP_RATE = 1.0
# A rate that kept more than this share of its value across the windows is "not falling".
RATE_FALL_IS_NOT_FALLING = 0.8


class CrawlMonitor:
    """Discovery rate per window of pages and frontier size over time (R-3.7, R-11.2).

    On a finite site the rate of new URLs per page read falls as the crawl goes on;
    when it stays at one or more per page for several windows in a row, something
    generates URLs (a calendar's "next month", filter combinations)."""

    def __init__(self) -> None:
        self.pages = 0
        self.rates: list[float] = []
        self.frontier_sizes: list[tuple[int, int]] = []
        self.trap_warning: str | None = None
        self._queued_at_window = 0

    def page_done(self, queued: int, waiting: int) -> None:
        self.pages += 1
        if self.pages % 10 == 0:
            self.frontier_sizes.append((self.pages, waiting))
        if self.pages % RATE_WINDOW_PAGES:
            return
        self.rates.append(round((queued - self._queued_at_window) / RATE_WINDOW_PAGES, 2))
        self._queued_at_window = queued
        last = self.rates[-RATE_WINDOWS_TO_WARN:]
        if (
            self.trap_warning is None
            and len(last) == RATE_WINDOWS_TO_WARN
            and min(last) >= TRAP_RATE
            and last[-1] >= RATE_FALL_IS_NOT_FALLING * last[0]
        ):
            self.trap_warning = (
                f"the discovery rate is not falling ({', '.join(map(str, last))} new URLs per page over the last "
                f"{RATE_WINDOW_PAGES * RATE_WINDOWS_TO_WARN} pages): the site may generate URLs without end "
                "(a calendar, filters, session ids); the page budget bounds this crawl"
            )


@dataclass(order=True)
class _Entry:
    priority: int
    order: int
    url: str = field(compare=False)
    depth: int = field(compare=False)


class Frontier:
    """Priority queue of URLs to fetch. The visited set is filled at enqueue time;
    budgets are enforced at admission; `next()` never sleeps (R-3.5)."""

    def __init__(
        self,
        scope: Scope,
        max_pages: int,
        max_depth: int,
        robots: Protego | None = None,
        user_agent: str = "*",
        max_bytes: int | None = None,
    ) -> None:
        self.scope = scope
        self.max_pages = max_pages
        self.max_depth = max_depth
        self.discovery_limit = DISCOVERY_FACTOR * max_pages
        self.robots = robots
        self.user_agent = user_agent
        self.seen: set[str] = set()
        # URLs some link or sitemap entry points to this run (not just our own memory of them).
        self.linked: set[str] = set()
        self.skipped: dict[str, int] = {}
        # One page per key (page_key): the spelling admitted first, and the others held back
        # in case it fails (a link to /x/ where only /x.html exists).
        self._page_of_key: dict[str, str] = {}
        self._spellings: dict[str, list[tuple[str, int]]] = {}
        # Queued and not yet taken: URL -> depth.
        self._waiting: dict[str, int] = {}
        # Paths (without query) skipped by an exclusion pattern: a faceted listing is one path.
        self.excluded_paths: set[str] = set()
        self._heap: list[_Entry] = []
        self._order = 0
        self.admitted = 0
        self.queued = 0
        self.max_bytes = max_bytes
        self.bytes_spent = 0

    def _skip(self, reason: SkipReason) -> bool:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1
        return False

    def add(
        self,
        url: str,
        depth: int,
        base: str | None = None,
        bonus: int = 0,
        linked: bool = True,
        moved_here: bool = False,
    ) -> bool:
        """Admit a URL (normalized here). Returns True when it was queued. `linked=False`
        re-checks a page we stored before without counting it as still linked.
        `moved_here`: the target of a redirect, fetched even when another spelling of
        the same page was (the site itself says this spelling is the page); every other
        rule (scope, exclusions, robots, depth) holds for it as for any URL."""
        normalized = self.scope.normalize(url, base)
        if normalized is None:
            return False
        if linked:
            self.linked.add(normalized)
        if normalized in self.seen:
            if moved_here:
                return self._release(normalized)
            if bonus and normalized in self._waiting:  # a sitemap's recent lastmod for a URL queued earlier
                self._push(normalized, self._waiting[normalized], bonus)
            return False
        self.seen.add(normalized)
        if not self.scope.in_site(normalized):
            return self._skip("offsite")
        reason = self.scope.exclusion_reason(normalized)
        if reason:
            self.excluded_paths.add(normalized.split("?", 1)[0])
            return self._skip(reason)
        if self.robots is not None and not self.robots.can_fetch(normalized, self.user_agent):
            return self._skip("robots")
        if depth > self.max_depth:
            return self._skip("depth")
        key = page_key(normalized)
        if key in self._page_of_key and not moved_here:
            self._spellings.setdefault(key, []).append((normalized, depth))
            return self._skip("same_page")
        if len(self.seen) > self.discovery_limit:
            return self._skip("discovery_limit")
        self._page_of_key.setdefault(key, normalized)
        return self._queue(normalized, depth, bonus)

    def another_spelling(self, url: str) -> bool:
        """`url` is gone (404/410): queue the next spelling of the same page that a link or
        sitemap used, or, when none was met yet, the next one met. Returns True when one
        was queued."""
        key = page_key(url)
        waiting = self._spellings.get(key)
        if waiting:
            return self._release(waiting[0][0])
        self._page_of_key.pop(key, None)
        return False

    def held_back(self) -> dict[str, str]:
        """Spellings never fetched, each with the spelling that was fetched for its page."""
        return {spelling: self._page_of_key[key] for key, waiting in self._spellings.items() for spelling, _ in waiting}

    def _release(self, url: str) -> bool:
        """Queue a spelling that was held back; False when `url` was not one."""
        waiting = self._spellings.get(page_key(url), [])
        depth = next((d for spelling, d in waiting if spelling == url), None)
        if depth is None:
            return False
        waiting.remove((url, depth))
        self.skipped["same_page"] -= 1
        self._page_of_key[page_key(url)] = url
        return self._queue(url, depth, 0)

    def _queue(self, normalized: str, depth: int, bonus: int) -> bool:
        self._push(normalized, depth, bonus)
        self.queued += 1
        return True

    def _push(self, normalized: str, depth: int, bonus: int) -> None:
        self._waiting[normalized] = depth
        path_depth = len([s for s in urlsplit(normalized).path.split("/") if s])
        heapq.heappush(self._heap, _Entry(depth + path_depth - bonus, self._order, normalized, depth))
        self._order += 1

    def next(self) -> tuple[str, int] | None:
        """Best URL within the page and byte budgets, or None. Never waits."""
        while self._heap:
            over_bytes = self.max_bytes is not None and self.bytes_spent >= self.max_bytes
            if self.admitted >= self.max_pages or over_bytes:
                for _ in self._waiting:
                    self._skip("budget_bytes" if over_bytes else "budget")
                self._heap.clear()
                self._waiting.clear()
                return None
            entry = heapq.heappop(self._heap)
            if self._waiting.pop(entry.url, None) is None:
                continue  # taken already, from an entry with a better priority
            self.admitted += 1
            return entry.url, entry.depth
        return None

    def __len__(self) -> int:
        return len(self._waiting)
