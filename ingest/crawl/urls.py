"""URL normalization and site scope (R-3.2, R-3.3, R-3.4)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urljoin, urlsplit, urlunsplit

DEFAULT_PORTS = {"http": 80, "https": 443}
_PERCENT = re.compile(r"%([0-9A-Fa-f]{2})")
_STRAY_PERCENT = re.compile(r"%(?![0-9A-Fa-f]{2})")
_UNRESERVED_CHARS = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_PATH_SAFE = "/%:@!$&'()*+,;=~"
_QUERY_SAFE = "/%:@!$&'()*+,;=~?"
_HOST_SAFE = re.compile(r"^[a-z0-9.\-\[\]:]+$")


def _normalize_percent(part: str, safe: str) -> str:
    """RFC 3986 6.2.2: a stray '%' becomes %25, other characters that need it are
    encoded, hex is uppercased, and encoded unreserved characters are decoded."""

    def fix(match: re.Match[str]) -> str:
        char = chr(int(match.group(1), 16))
        return char if char in _UNRESERVED_CHARS else f"%{match.group(1).upper()}"

    return _PERCENT.sub(fix, quote(_STRAY_PERCENT.sub("%25", part), safe=safe))


def _remove_dot_segments(path: str) -> str:
    """Dot segments resolved and empty segments ('//') collapsed."""
    output: list[str] = []
    for segment in path.split("/")[1:]:
        if segment == "..":
            if output:
                output.pop()
        elif segment not in (".", ""):
            output.append(segment)
    trailing = path.endswith(("/", "/.", "/..")) and bool(output)
    return "/" + "/".join(output) + ("/" if trailing else "")


def _normalize_host(raw: str) -> str | None:
    """Lowercase, percent-decoded, IDNA (punycode) host; None when it cannot be a host."""
    host = unquote(raw).lower().rstrip(".")
    if host.startswith("["):
        return host
    try:
        host = host.encode("idna").decode("ascii") if not host.isascii() else host
    except UnicodeError:
        return None
    return host if host and _HOST_SAFE.match(host) else None


def _normalize_query(query: str, tracking_params: frozenset[str]) -> str:
    """Parameters kept as written (no decoding, '+' stays '+'), empty values and empty
    names dropped to their canonical form, tracking parameters removed, then sorted."""
    params = []
    for param in query.split("&"):
        name, _, value = param.partition("=")
        if not name:
            continue
        key = unquote(name).lower()
        if key in tracking_params or key.startswith("utm_"):
            continue
        name, value = _normalize_percent(name, _QUERY_SAFE), _normalize_percent(value, _QUERY_SAFE)
        params.append(f"{name}={value}" if value else name)
    return "&".join(sorted(params))


def normalize_url(url: str, base: str | None = None, tracking_params: frozenset[str] = frozenset()) -> str | None:
    """Canonical form of an http(s) URL, or None when it is not a crawlable http(s) URL.

    Follows crawler-commons' BasicURLNormalizer (tests/test_urls.py runs its vectors),
    except where a crawler of one business site must differ: only http(s) is crawlable,
    and a scheme-less 'foo.com/x' in a page is a relative link, as browsers read it."""
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
    netloc_host = parts.netloc.rsplit("@", 1)[-1]
    # "[::1]:8080" -> "[::1]", "example.com:8080" -> "example.com": the port is added back below.
    netloc_host = netloc_host[: netloc_host.find("]") + 1] if netloc_host.startswith("[") else netloc_host.split(":")[0]
    host = _normalize_host(netloc_host) if netloc_host else None
    if scheme not in DEFAULT_PORTS or not host:
        return None
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _remove_dot_segments(_normalize_percent(parts.path or "/", _PATH_SAFE))
    query = _normalize_query(parts.query, tracking_params) if parts.query else ""
    return urlunsplit((scheme, netloc, path, query, ""))


# The spellings static hosts serve one file under: /x, /x/, /x.html, /x/index.html.
_PAGE_SUFFIX = re.compile(r"(?:/index\.html?|\.html?|/)$", re.I)


def page_key(url: str) -> str:
    """One key for the spellings of a URL that a static host serves as one page:
    `/catalogo`, `/catalogo/`, `/catalogo.html` and `/catalogo/index.html` (and the
    query, which stays). Two URLs with the same key are one page, whichever the links use."""
    parts = urlsplit(url)
    return urlunsplit(("", parts.netloc, _PAGE_SUFFIX.sub("", parts.path), parts.query, ""))


# A folder's page linking to this many other paths of its host outside the folder is one
# section of a larger site (`acme.com/about-us/`), not a site published under it. *ours*
OUTSIDE_LINKS_OF_A_SECTION = 2


def prefix_of(requested: str, final: str, links: tuple[str, ...] = ()) -> str:
    """The path a site lives under: '/' unless the address asked for names a folder
    (`https://user.github.io/shop/`, or `/shop` answered from `/shop/`) whose page links
    within it, not around its host (`links`: the page's links, absolute)."""
    path = urlsplit(final).path or "/"
    if urlsplit(requested).path in ("", "/") or not path.endswith("/"):
        return "/"
    host = site_host(urlsplit(final).hostname or "")
    outside = {
        p
        for link in links
        if site_host(urlsplit(link).hostname or "") == host
        and (p := urlsplit(link).path or "/") != "/"
        and not p.startswith(path)
    }
    return "/" if len(outside) >= OUTSIDE_LINKS_OF_A_SECTION else path


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
    # The folder the site is published under ('/' for a whole host).
    prefix: str = "/"

    @classmethod
    def from_config(cls, root: str, exclusions: dict, prefix: str = "/") -> Scope:
        return cls(
            root=root,
            prefix=prefix,
            excluded_segments=frozenset(s.lower() for s in exclusions.get("segments", [])),
            excluded_query_params=frozenset(p.lower() for p in exclusions.get("query_params", [])),
            excluded_path_patterns=tuple(re.compile(p) for p in exclusions.get("path_regexes", [])),
            tracking_params=frozenset(p.lower() for p in exclusions.get("tracking_params", [])),
        )

    @property
    def site(self) -> str:
        return site_host(urlsplit(self.root).hostname or "")

    @property
    def home(self) -> str:
        """The site's top URL: the root, or the folder it is published under."""
        return self.root + self.prefix.lstrip("/")

    @property
    def label(self) -> str:
        """The site as people name it: host, port if any, and folder (`user.github.io/shop`)."""
        port = urlsplit(self.root).port
        return f"{self.site}{f':{port}' if port else ''}{self.prefix.rstrip('/')}"

    def normalize(self, url: str, base: str | None = None) -> str | None:
        """Normalized URL; same-site URLs are moved onto the root's scheme and host,
        so http/https and apex/www spellings of one page are one page."""
        normalized = normalize_url(url, base, self.tracking_params)
        if normalized is None or not self.in_site(normalized):
            return normalized
        root = urlsplit(self.root)
        parts = urlsplit(normalized)
        return urlunsplit((root.scheme, root.netloc, parts.path, parts.query, ""))

    def on_host(self, url: str) -> bool:
        """Same host (apex or www.) and port as the site, whatever the path."""
        parts = urlsplit(url)
        return site_host(parts.hostname or "") == self.site and parts.port == urlsplit(self.root).port

    def in_site(self, url: str) -> bool:
        if not self.on_host(url):
            return False
        path = urlsplit(url).path or "/"
        return path.startswith(self.prefix) or path + "/" == self.prefix

    def listed(self, url: str | None) -> str | None:
        """Where a URL a sitemap lists is on this site: as written when it is in scope,
        moved onto this host when it names an unrelated one (a development or staging
        host, `rehost`), None when it is on this host outside the site's folder or on a
        host of the same domain (`blog.acme.com` is a site of its own)."""
        if not url or self.in_site(url):
            return url
        if self.on_host(url) or self.related(url):
            return None
        return self.rehost(url)

    def related(self, url: str) -> bool:
        """A host of the same domain as the site: a subdomain of it or the domain it is under."""
        host, site = site_host(urlsplit(url).hostname or ""), self.site
        return host != site and (host.endswith("." + site) or site.endswith("." + host))

    def rehost(self, url: str) -> str | None:
        """`url`'s path and query on this site's host, under its folder: where a URL that
        names another host (a base URL set wrongly at build time) would be on this site."""
        parts = urlsplit(url)
        path = parts.path or "/"
        if not path.startswith(self.prefix):
            path = self.prefix + path.lstrip("/")
        return self.normalize(urlunsplit(("", "", path, parts.query, "")), self.root)

    def exclusion_reason(self, url: str) -> str | None:
        """'excluded_pattern' when the URL matches a configured exclusion, else None."""
        parts = urlsplit(url)
        inside = parts.path[len(self.prefix) :] if parts.path.startswith(self.prefix) else parts.path
        segments = [unquote(s).lower() for s in inside.split("/") if s]
        if any(s in self.excluded_segments for s in segments):
            return "excluded_pattern"
        if any(k.lower() in self.excluded_query_params for k, _ in parse_qsl(parts.query, keep_blank_values=True)):
            return "excluded_pattern"
        if any(p.search(parts.path) for p in self.excluded_path_patterns):
            return "excluded_pattern"
        return None
