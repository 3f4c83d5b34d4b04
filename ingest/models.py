"""Typed, immutable data passed between stages."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from ingest.problems import ProblemKind

# Why a fetch gave no page to read (`Page.error`).
PageError = Literal[
    "dns",
    "connect",
    "tls",
    "timeout",
    "private",
    "invalid_url",
    "protocol",
    "challenge",
    "not_html",
    "too_large",
    "offsite_redirect",
    "redirect_without_location",
    "too_many_redirects",
]
# Why a URL was not read, or a page read not indexed (the keys of the report's `pages.skipped`).
SkipReason = Literal[
    # at admission (the frontier)
    "offsite",
    "excluded_pattern",
    "robots",
    "depth",
    "discovery_limit",
    "same_page",
    "budget",
    "budget_bytes",
    # at the visit (the crawler)
    "gone",
    "redirect",
    "offsite_redirect",
    "not_html",
    "too_large",
    "challenge",
    "unreadable",
    "too_slow",
    "scanned_pdf",
    # at selection
    "noindex",
    "canonical_elsewhere",
    "duplicate",
    "soft_404",
    "missing",
]
# A source's state after its last run; a run that met a site problem leaves "problem:<kind>".
SourceStatus = Literal["new", "ok", "capped", "paused_budget", "failed"]


@dataclass(frozen=True)
class Page:
    """One fetch outcome. `body` is the decoded-transfer, undecoded-charset HTML bytes."""

    url: str
    final_url: str
    status: int
    content_type: str = ""
    body: bytes = b""
    etag: str | None = None
    last_modified: str | None = None
    x_robots_tag: str = ""
    location: str | None = None
    retry_after: str | None = None
    error: PageError | None = None
    detail: str = ""
    depth: int = 0
    bytes_transferred: int = 0
    # The response headers a browser needs when the renderer hands it this answer
    # (content type, CORS, location, cache): ingest/crawl/render.py.
    headers: tuple[tuple[str, str], ...] = ()

    @property
    def not_modified(self) -> bool:
        return self.status == 304

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300 and self.error is None


# A link's query parameter naming a language: the same page in another language.
_LANGUAGE_PARAM = re.compile(r"(?<=[?&])(?:lang|language|locale|lng|hl)=[\w-]*&?")
# A Japanese postcode: "〒110-0001".
JP_POSTCODE = r"〒\s?\d{3}[-－]\d{4}"


@dataclass(frozen=True)
class Fact:
    """One line of the business's contact card (ingest/extract/facts.py)."""

    kind: str
    value: str
    label: str = ""  # what the site calls it: "Reception", "WhatsApp", "Berlin office"
    url: str = ""  # the page it was read on
    pages: int = 1  # on how many pages the site states it
    structured: bool = False  # from JSON-LD or microdata

    def key(self) -> str:
        if self.kind in ("phone", "whatsapp"):
            digits = re.sub(r"\D", "", self.value)
            # "+49 30 1234567" and "030 1234567" are one number, and so are "+82-2-777-4182" and "02-777-4182"
            return f"{self.kind}:{digits[-8:]}"
        # "Lausannegasse 47 (Rue de Lausanne 47), 1700 Freiburg" is "Rue de Lausanne 47, 1700 Fribourg"
        # and "〒110-0001 東京都台東区谷中3-11-8" is "東京都台東区谷中3-11-8"
        numbers = list(dict.fromkeys(re.findall(r"\d+", re.sub(JP_POSTCODE, "", self.value))))
        if self.kind == "address" and len(numbers) >= 2:
            return f"address:{'/'.join(numbers[:2])}"  # "C/ Pelay y Correa, 31, 41010" and "Calle Pelay…, 31, 41010"
        if self.kind == "booking":  # one booking engine in each of the site's languages: "…?lang=pt", "…?lang=en"
            return f"booking:{_LANGUAGE_PARAM.sub('', self.value.lower()).rstrip('?&').replace('?#', '#')}"
        return f"{self.kind}:{' '.join(self.value.lower().split())}"

    def to_dict(self) -> dict:
        return {"kind": self.kind, "value": self.value, "label": self.label, "url": self.url, "pages": self.pages}


@dataclass(frozen=True)
class Document:
    """A page as Markdown. `chrome` is the header/footer text outside the main content."""

    url: str
    title: str
    markdown: str
    chrome: str = ""
    lang: str = ""
    links: tuple[str, ...] = ()
    canonical: str | None = None
    noindex: bool = False
    # Where a meta refresh stub sends the reader at once (a redirect written in HTML).
    refresh: str | None = None
    # (language, URL) of the page's translations, from hreflang links ("x-default" included).
    alternates: tuple[tuple[str, str], ...] = ()
    # Blocks a main-content extractor would have dropped and extraction kept (callouts,
    # JSON-LD product facts), as they stand in `markdown`: the template rule judges
    # them whole, so a bio repeated across the site is not re-added.
    recovered: tuple[str, ...] = ()
    # Contact facts the page states anywhere, header and footer included.
    facts: tuple[Fact, ...] = ()

    @property
    def text_chars(self) -> int:
        return sum(len(line.strip()) for line in self.markdown.splitlines())


@dataclass(frozen=True)
class Chunk:
    url: str
    title: str
    heading_path: tuple[str, ...]
    body: str
    position: int
    tokens: int
    lang: str = ""  # the page's language; picks the lexical analysis (ingest.kb.lexical)

    @property
    def heading(self) -> str:
        return " > ".join(self.heading_path)

    @property
    def text(self) -> str:
        """What gets embedded and returned: the heading path, then the body (R-7.1)."""
        return f"{self.heading}\n\n{self.body}" if self.heading_path else self.body


@dataclass(frozen=True)
class KeyedChunk:
    chunk: Chunk
    fingerprint: str
    point_id: str


class PagesReport(BaseModel):
    discovered: int = 0
    fetched: int = 0
    skipped: dict[str, int] = Field(default_factory=dict)
    empty: int = 0
    not_modified: int = 0
    failed: int = 0
    # PDFs read as pages, and pages rendered in a browser.
    pdfs: int = 0
    rendered: int = 0
    status_counts: dict[str, int] = Field(default_factory=dict)

    def skip(self, reason: SkipReason, count: int = 1) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + count


class CrawlHealth(BaseModel):
    """R-11.2: how the crawl went, beyond page counts."""

    # New in-site URLs queued per page read, overall and per window of pages.
    discovery_rate: float = 0.0
    discovery_rate_by_window: list[float] = Field(default_factory=list)
    # Pages whose body another URL already served, per page read.
    duplicate_rate: float = 0.0
    # All bytes received (pages, sitemaps, robots, errors) per page that made chunks.
    bytes_per_useful_page: int = 0
    # (pages handled, URLs waiting) sampled as the crawl went.
    frontier_sizes: list[tuple[int, int]] = Field(default_factory=list)
    # Share of page requests refused with 403/406 or a challenge page.
    blocked_share: float = 0.0
    # Requests the browser made while rendering that were refused, by reason.
    render_blocked: dict[str, int] = Field(default_factory=dict)


class ChunksReport(BaseModel):
    added: int = 0
    unchanged: int = 0
    deleted: int = 0
    total: int = 0


class EmbeddingReport(BaseModel):
    model: str = ""
    tokens: int = 0
    calls: int = 0


class TemplateReport(BaseModel):
    template_lines: int = 0
    chars_dropped: int = 0
    chars_dropped_per_page: dict[str, int] = Field(default_factory=dict)


class RunReport(BaseModel):
    business: str
    site: str
    problem: ProblemKind | None = None
    message: str = ""
    # An internal failure (e.g. the embedding provider), as opposed to a site problem.
    error: str | None = None
    error_kind: str | None = None
    pages: PagesReport = Field(default_factory=PagesReport)
    crawl: CrawlHealth = Field(default_factory=CrawlHealth)
    chunks: ChunksReport = Field(default_factory=ChunksReport)
    embedding: EmbeddingReport = Field(default_factory=EmbeddingReport)
    templates: TemplateReport = Field(default_factory=TemplateReport)
    # The contact card's facts by kind ("phone": 2, "email": 1, ...).
    facts: dict[str, int] = Field(default_factory=dict)
    # Site signals found wrong and not obeyed, by kind (canonical_homepage, sitemap_other_host...).
    misconfigured: dict[str, int] = Field(default_factory=dict)
    bytes_transferred: int = 0
    spend_usd: float = 0.0
    seconds: float = 0.0
    warnings: list[str] = Field(default_factory=list)
