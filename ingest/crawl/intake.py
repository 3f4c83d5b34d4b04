"""Domain intake (R-2.1 … R-2.6): from what the user typed to a reachable homepage."""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urlsplit

from ingest.crawl.fetch import Fetcher
from ingest.crawl.urls import normalize_url
from ingest.models import Page
from ingest.problems import SiteProblem

BLOCKED_STATUSES = frozenset({401, 403, 429, 451, 503})
_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
# Failures after which plain http may still be worth a try.
_CONNECTION_FAILURES = frozenset({"dns", "connect", "tls"})


def _valid_host(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]"))
        return True
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        return False
    labels = ascii_host.rstrip(".").split(".")
    return len(labels) >= 2 and all(_LABEL.match(label) for label in labels) and not labels[-1].isdigit()


def homepage_candidates(site: str) -> list[str]:
    """URLs to try, in order. Raises SiteProblem('invalid') for anything that is not a site."""
    text = site.strip()
    if not text or any(c.isspace() for c in text):
        raise SiteProblem("invalid", f"{site!r}")
    if "://" in text:
        url = normalize_url(text)
        host = urlsplit(url).hostname if url else None
        if url is None or not host or not (_valid_host(host) or _LABEL.match(host)):
            raise SiteProblem("invalid", f"{site!r} is not an http(s) address")
        return [url]
    if "/" in text or "@" in text:
        host = text.split("/", 1)[0]
    else:
        host = text
    host = host.lower().rstrip(".")
    if ":" in host and not host.startswith("["):
        host_only, _, port = host.partition(":")
        if not port.isdigit():
            raise SiteProblem("invalid", f"{site!r}")
    else:
        host_only = host
    if not _valid_host(host_only):
        raise SiteProblem("invalid", f"{site!r}")
    apex = host[4:] if host.startswith("www.") else host
    candidates = [f"https://{apex}/", f"https://www.{apex}/"]
    if host.startswith("www."):
        candidates.reverse()
    return candidates + [f"http://{host}/"]


def _problem_for(page: Page) -> SiteProblem:
    if page.error == "private":
        return SiteProblem("private", page.detail)
    if page.error == "invalid_url":
        return SiteProblem("invalid", page.detail)
    if page.error == "tls":
        return SiteProblem("tls", page.detail)
    if page.error == "timeout":
        return SiteProblem("timeout", f"{page.url} did not answer in time")
    if page.error in ("dns", "connect"):
        return SiteProblem("error", f"no connection to {page.url}: {page.detail or page.error}")
    if page.status in BLOCKED_STATUSES:
        return SiteProblem("blocked", f"{page.url} answered HTTP {page.status}")
    if page.error == "challenge":
        return SiteProblem("blocked", f"{page.url} answered with a bot challenge page instead of the site")
    if page.error:
        return SiteProblem("error", f"{page.url}: {page.error}")
    return SiteProblem("error", f"{page.url} answered HTTP {page.status}")


async def find_homepage(site: str, fetcher: Fetcher) -> Page:
    """The first candidate that answers 200 with HTML, or the most telling SiteProblem."""
    candidates = homepage_candidates(site)
    failures: list[Page] = []
    for index, url in enumerate(candidates):
        is_http_fallback = index == len(candidates) - 1 and len(candidates) == 3
        if is_http_fallback and any(f.error not in _CONNECTION_FAILURES for f in failures):
            break
        page = await fetcher.fetch(url)
        if page.ok and page.status == 200:
            return page
        if page.error == "private":
            raise _problem_for(page)
        failures.append(page)
    if all(f.error == "dns" for f in failures):
        raise SiteProblem("not_found", f"no DNS record for {site.strip()}")
    # The most specific answer wins: a refusal or a certificate problem says more than
    # a DNS failure on the apex when www exists.
    ranked = sorted((f for f in failures if f.error != "dns"), key=_rank)
    raise _problem_for(ranked[0])


def _rank(page: Page) -> int:
    if page.status in BLOCKED_STATUSES or page.error == "challenge":
        return 0
    order = {"tls": 1, "timeout": 2}
    return order.get(page.error or "", 3)
