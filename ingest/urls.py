"""URL normalization and site scope (R-3.2, R-3.3, R-3.4)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urljoin, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
_UNRESERVED = re.compile(r"%([0-9A-Fa-f]{2})")
_UNRESERVED_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _normalize_percent(part: str) -> str:
    """Uppercase percent-encoding hex and decode percent-encoded unreserved characters."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED_CHARS else f"%{match.group(1).upper()}"

    return _UNRESERVED.sub(fix, part)


def _remove_dot_segments(path: str) -> str:
    output: list[str] = []
    for segment in path.split("/"):
        if segment == "..":
            if len(output) > 1:
                output.pop()
        elif segment != ".":
            output.append(segment)
    result = "/".join(output)
    if path.endswith(("/.", "/..")):
        result += "/"
    return result if result.startswith("/") else "/" + result


def normalize_url(url: str, base: str | None = None, tracking_params: frozenset[str] = frozenset()) -> str | None:
    """Canonical form of an http(s) URL, or None when it is not a crawlable http(s) URL."""
    url = url.strip()
    if base is not None:
        try:
            url = urljoin(base, url)
        except ValueError:
            return None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS or not parts.hostname:
        return None
    host = parts.hostname.lower().rstrip(".")
    if ":" in host:
        host = f"[{host}]"
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _remove_dot_segments(_normalize_percent(quote(parts.path or "/", safe="/%:@!$&'()*+,;=~")))
    query_items = [
        (k, v)
        for k, v in parse_qsl(parts.query, keep_blank_values=True)
        if k.lower() not in tracking_params and not k.lower().startswith("utm_")
    ]
    query = _normalize_percent(urlencode(sorted(query_items), quote_via=quote)) if query_items else ""
    return urlunsplit((scheme, netloc, path, query, ""))


def site_host(host: str) -> str:
    """Apex and www. of the same domain are one site (R-3.2)."""
    host = host.lower().rstrip(".")
    return host[4:] if host.startswith("www.") else host


@dataclass(frozen=True)
class Scope:
    """Which URLs belong to the site being crawled, and which are excluded by pattern."""

    root: str
    excluded_segments: frozenset[str]
    excluded_query_params: frozenset[str]
    excluded_path_patterns: tuple[re.Pattern[str], ...]
    tracking_params: frozenset[str]

    @classmethod
    def from_config(cls, root: str, exclusions: dict) -> "Scope":
        return cls(
            root=root,
            excluded_segments=frozenset(s.lower() for s in exclusions.get("segments", [])),
            excluded_query_params=frozenset(p.lower() for p in exclusions.get("query_params", [])),
            excluded_path_patterns=tuple(re.compile(p) for p in exclusions.get("path_regexes", [])),
            tracking_params=frozenset(p.lower() for p in exclusions.get("tracking_params", [])),
        )

    @property
    def site(self) -> str:
        return site_host(urlsplit(self.root).hostname or "")

    def normalize(self, url: str, base: str | None = None) -> str | None:
        """Normalized URL; same-site URLs are moved onto the root's scheme and host,
        so http/https and apex/www spellings of one page are one page."""
        normalized = normalize_url(url, base, self.tracking_params)
        if normalized is None or not self.in_site(normalized):
            return normalized
        root = urlsplit(self.root)
        parts = urlsplit(normalized)
        return urlunsplit((root.scheme, root.netloc, parts.path, parts.query, ""))

    def in_site(self, url: str) -> bool:
        parts = urlsplit(url)
        root = urlsplit(self.root)
        return site_host(parts.hostname or "") == self.site and parts.port == root.port

    def exclusion_reason(self, url: str) -> str | None:
        """'excluded_pattern' when the URL matches a configured exclusion, else None."""
        parts = urlsplit(url)
        segments = [unquote(s).lower() for s in parts.path.split("/") if s]
        if any(s in self.excluded_segments for s in segments):
            return "excluded_pattern"
        if any(k.lower() in self.excluded_query_params for k, _ in parse_qsl(parts.query, keep_blank_values=True)):
            return "excluded_pattern"
        if any(p.search(parts.path) for p in self.excluded_path_patterns):
            return "excluded_pattern"
        return None
