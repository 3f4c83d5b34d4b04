"""Business brief (R-12.1 … R-12.5): from a domain to the few pages worth reading.

The homepage plus up to five key pages chosen by six prioritised page kinds, read
with one seen-line set so navigation is read once, and a summary of the sitemap's
shape. A model may then write the brief from exactly this input.
"""

from __future__ import annotations

import asyncio
import re
import tomllib
from collections import OrderedDict
from dataclasses import dataclass
from urllib.parse import unquote, urljoin, urlsplit

from bs4 import BeautifulSoup
from pydantic import BaseModel, Field

from ingest.crawl import discover
from ingest.crawl.fetch import Fetcher
from ingest.crawl.intake import find_homepage
from ingest.crawl.urls import Scope, page_key, prefix_of
from ingest.extract.budget import PageTooSlow
from ingest.extract.html import parse_html
from ingest.extract.language import path_language
from ingest.models import Document, Page
from ingest.problems import ProblemKind, SiteProblem
from ingest.settings import Settings, SettingsError, config_dir, load_exclusions

HOME_BUDGET_CHARS = 8_000
PAGE_BUDGET_CHARS = 5_000
# A page adding less new text than this is a gallery or a repeat of the navigation.
MIN_NEW_CHARS = 100
# A sixth key page is reliably a careers or cookie page.
MAX_KEY_PAGES = 5
MIN_SITE_TEXT_CHARS = 300
MAX_SITEMAP_CHILDREN = 3
# The biggest sections only: a site with its posts at the top level has a section per
# URL, thousands of lines that say nothing.
MAX_SECTIONS = 40
SAMPLE_PATHS = 150
_PREFERRED_CHILD = re.compile(r"page|product|collection|categor|service", re.I)
_DEFERRED_CHILD = re.compile(r"post|blog|news|image|video|author|tag", re.I)
_ICON_RELS = ("icon", "shortcut icon", "apple-touch-icon", "apple-touch-icon-precomposed")
# A refresh stub on the homepage is followed this many times at most.
MAX_HOME_STUBS = 3


@dataclass(frozen=True)
class PageKind:
    name: str
    words: frozenset[str]


def load_page_kinds() -> list[PageKind]:
    path = config_dir() / "page_kinds.toml"
    try:
        with path.open("rb") as fh:
            return [PageKind(k["name"], frozenset(w.lower() for w in k["words"])) for k in tomllib.load(fh)["kinds"]]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise SettingsError(f"cannot read page kinds from {path}: {exc}") from None


def page_kind(url: str, kinds: list[PageKind]) -> str | None:
    """The first kind, in priority order, one of whose words is a whole path segment."""
    segments = {s.rsplit(".", 1)[0] for s in unquote(urlsplit(url).path).lower().split("/") if s}
    return next((kind.name for kind in kinds if segments & kind.words), None)


def _depth(url: str) -> int:
    return len([s for s in urlsplit(url).path.split("/") if s])


def choose_pages(
    home_links: list[str],
    sitemap_urls: list[str],
    kinds: list[PageKind],
    homepage: str | None = None,
    language: str = "",
) -> list[tuple[str, str]]:
    """(kind, url) for up to five key pages, one per kind, kinds in priority order.
    Candidates: homepage links first, then the sitemap. Ties: in the homepage's
    `language` (a page under another language's folder, /de/ for an English homepage,
    comes last), then shallowest, then linked from the homepage, then the shorter path."""
    on_home = set(home_links)
    candidates = list(OrderedDict.fromkeys([*home_links, *sitemap_urls]))
    by_kind: dict[str, list[str]] = {}
    for url in candidates:
        if url == homepage:
            continue
        kind = page_kind(url, kinds)
        if kind:
            by_kind.setdefault(kind, []).append(url)
    chosen: list[tuple[str, str]] = []
    for kind in kinds:
        options = by_kind.get(kind.name)
        if options:
            best = min(
                options,
                key=lambda u: (
                    path_language(u) not in (None, language) if language else False,
                    _depth(u),
                    u not in on_home,
                    len(urlsplit(u).path),
                ),
            )
            chosen.append((kind.name, best))
        if len(chosen) == MAX_KEY_PAGES:
            break
    return chosen


def page_text(lines: list[str], seen: set[str], max_chars: int) -> str:
    """The page's lines not seen on an earlier page, up to `max_chars` (R-12.2)."""
    out: list[str] = []
    length = 0
    for line in lines:
        text = line.strip()
        if not text or text in seen:
            continue
        seen.add(text)
        if length + len(text) > max_chars:
            break
        out.append(text)
        length += len(text) + 1
    return "\n".join(out)


def child_preference(url: str) -> int:
    """Index children likely to describe the business first, feeds of posts last."""
    return 0 if _PREFERRED_CHILD.search(url) else 2 if _DEFERRED_CHILD.search(url) else 1


class SitemapSection(BaseModel):
    section: str
    urls: int


class SitemapSummary(BaseModel):
    total_urls: int = 0
    sections: list[SitemapSection] = Field(default_factory=list)
    sample_paths: list[str] = Field(default_factory=list)


def summarize_sitemap(urls: list[str]) -> SitemapSummary:
    """URLs grouped by first path segment: the 40 biggest sections with counts, and up to
    150 sample paths taken round-robin across them (a sitemap sorted by section would
    otherwise give a sample that never leaves /blog/)."""
    groups: dict[str, list[str]] = OrderedDict()
    for url in OrderedDict.fromkeys(urls):
        path = urlsplit(url).path or "/"
        segments = [s for s in path.split("/") if s]
        groups.setdefault(f"/{segments[0]}/" if segments else "/", []).append(path)
    biggest = sorted(groups.items(), key=lambda item: -len(item[1]))[:MAX_SECTIONS]
    sample: list[str] = []
    lists = [paths for _, paths in biggest]
    i = 0
    while len(sample) < SAMPLE_PATHS and any(i < len(paths) for paths in lists):
        for paths in lists:
            if i < len(paths) and len(sample) < SAMPLE_PATHS:
                sample.append(paths[i])
        i += 1
    return SitemapSummary(
        total_urls=sum(len(p) for p in groups.values()),
        sections=[SitemapSection(section=s, urls=len(p)) for s, p in biggest],
        sample_paths=sample,
    )


class BriefPage(BaseModel):
    url: str
    kind: str
    chars: int
    text: str


class BriefReport(BaseModel):
    site: str
    problem: ProblemKind | None = None
    message: str = ""
    pages: list[BriefPage] = Field(default_factory=list)
    sitemap: SitemapSummary = Field(default_factory=SitemapSummary)
    logo: str | None = None
    brief: str | None = None
    spend_usd: float = 0.0
    runs_left_this_month: int | None = None


def build_brief(site: str, settings: Settings) -> BriefReport:
    """The brief's input for `site`. Site problems come back in the report, never raised."""
    report = BriefReport(site=site)
    try:
        asyncio.run(_build(site, settings, report))
    except SiteProblem as problem:
        report.problem, report.message = problem.kind, problem.message
    return report


async def _build(site: str, settings: Settings, report: BriefReport) -> None:
    kinds = load_page_kinds()
    async with Fetcher(settings) as fetcher:
        homepage = await find_homepage(site, fetcher)
        parts = urlsplit(homepage.final_url)
        home = parse_html(homepage.body, homepage.final_url)
        scope = Scope.from_config(
            f"{parts.scheme}://{parts.netloc}/",
            load_exclusions(),
            prefix_of(homepage.url, homepage.final_url, home.links),
        )
        report.site = scope.home
        homepage, home = await _past_stubs(fetcher, scope, homepage, home)
        # Independent fetches overlap: the icon starts first and is awaited last.
        logo_task = asyncio.create_task(_logo(fetcher, scope, homepage.body, homepage.final_url))
        robots_page = await fetcher.fetch(scope.root + "robots.txt", accept=("text/plain",))
        robots = discover.parse_robots(robots_page.body) if robots_page.ok and robots_page.status == 200 else None
        sitemap_urls = await _sitemap_urls(fetcher, scope, robots)
        report.sitemap = summarize_sitemap(sitemap_urls)

        def admissible(url: str | None) -> bool:
            return (
                bool(url)
                and scope.in_site(url)
                and scope.exclusion_reason(url) is None
                and (robots is None or robots.can_fetch(url, settings.user_agent))
            )

        home_links = [u for u in (scope.normalize(link) for link in home.links) if admissible(u)]
        in_site_sitemap = [u for u in (scope.listed(scope.normalize(url)) for url in sitemap_urls) if admissible(u)]
        language = path_language(homepage.final_url) or home.lang
        chosen = choose_pages(home_links, in_site_sitemap, kinds, scope.normalize(homepage.final_url), language)
        pages = await asyncio.gather(*(fetcher.fetch(url) for _, url in chosen))
        seen: set[str] = set()
        home_text = page_text([*home.chrome.splitlines(), *home.markdown.splitlines()], seen, HOME_BUDGET_CHARS)
        texts = [BriefPage(url=homepage.final_url, kind="home", chars=len(home_text), text=home_text)]
        for (kind, url), page in zip(chosen, pages):
            if not (page.ok and page.status == 200):
                continue
            try:
                doc = parse_html(page.body, page.final_url, settings.page_budget_s)
            except PageTooSlow:  # a key page like that is left out, as the crawler leaves it
                continue
            text = page_text([*doc.chrome.splitlines(), *doc.markdown.splitlines()], seen, PAGE_BUDGET_CHARS)
            if len(text) >= MIN_NEW_CHARS:
                texts.append(BriefPage(url=url, kind=kind, chars=len(text), text=text))
        total = sum(p.chars for p in texts)
        report.logo = await logo_task
        if total < MIN_SITE_TEXT_CHARS:
            raise SiteProblem("empty", f"{total} characters of text on the homepage and key pages")
        report.pages = texts


async def _past_stubs(fetcher: Fetcher, scope: Scope, homepage: Page, home: Document) -> tuple[Page, Document]:
    """The homepage as a reader sees it: a meta refresh stub (`/` -> `/en/`) within the
    site is followed like a redirect."""
    for _ in range(MAX_HOME_STUBS):
        target = scope.normalize(home.refresh, homepage.final_url) if home.refresh else None
        if not target or not scope.in_site(target) or page_key(target) == page_key(homepage.final_url):
            break
        page = await fetcher.fetch(target)
        if not (page.ok and page.status == 200):
            break
        homepage, home = page, parse_html(page.body, page.final_url)
    return homepage, home


async def _sitemap_urls(fetcher: Fetcher, scope: Scope, robots) -> list[str]:
    """robots.txt Sitemap: lines, else the site's /sitemap.xml; index children by preference,
    at most 3. Entries naming another host are read at the same path on this one."""
    # The crawler's scope rule for robots.txt's Sitemap: lines too: another host's file is
    # read at the same path on this one, never fetched where the line points.
    candidates = [scope.listed(scope.normalize(url, scope.root)) for url in (robots.sitemaps if robots else [])]
    candidates = [c for c in candidates if c] or [scope.home + "sitemap.xml"]
    urls: list[str] = []
    for candidate in candidates:
        page = await fetcher.fetch(candidate, accept=())
        if not (page.ok and page.status == 200):
            continue
        sitemap = discover.parse_sitemap(page.body)
        urls.extend(entry.url for entry in sitemap.pages)
        children = [c for c in (scope.listed(scope.normalize(child)) for child in sitemap.children) if c]
        children = sorted(children, key=child_preference)[:MAX_SITEMAP_CHILDREN]
        for child in await asyncio.gather(*(fetcher.fetch(c, accept=()) for c in children)):
            if child.ok and child.status == 200:
                urls.extend(entry.url for entry in discover.parse_sitemap(child.body).pages)
    return urls


async def _logo(fetcher: Fetcher, scope: Scope, html: bytes, base: str) -> str | None:
    """The site's icon: a declared icon link on the site's host (or a host of its
    domain), else /favicon.ico; only if it answers with an image. An icon the page
    places on any other host is not fetched: the brief requests only what the crawler
    would."""
    soup = BeautifulSoup(html, "lxml")
    declared = [
        link["href"]
        for link in soup.find_all("link", href=True)
        if " ".join(link.get("rel") or []).lower() in _ICON_RELS
    ]
    for href in [*declared, "/favicon.ico"]:
        target = urljoin(base, href)
        if not (scope.on_host(target) or scope.related(target)):
            continue
        page = await fetcher.fetch(target, accept=())
        if page.ok and page.status == 200 and (page.content_type.startswith("image/") or target.endswith(".ico")):
            return target
    return None


BRIEF_MAX_OUTPUT_TOKENS = 900
BRIEF_INSTRUCTIONS = (
    "You write a short, factual brief about a business from its own website, for the people who will "
    "set up its phone assistant. Use only the text given. Cover: what the business is and does, what it "
    "sells or offers (with prices where stated), who it serves, where and how to reach it, and anything "
    "callers often ask. Say what the site does not make clear instead of guessing. At most 300 words."
)


def brief_input(report: BriefReport) -> str:
    """Exactly what the model reads: the pages' new text, then the sitemap's shape."""
    parts = [f"## {page.kind} page: {page.url}\n{page.text}" for page in report.pages]
    sections = ", ".join(f"{s.section} ({s.urls})" for s in report.sitemap.sections)
    parts.append(
        f"## Sitemap: {report.sitemap.total_urls} URLs. Sections: {sections or 'none'}.\n"
        f"Sample paths: {' '.join(report.sitemap.sample_paths)}"
    )
    return "\n\n".join(parts)


def write_brief(report: BriefReport, settings: Settings, guard, business: str) -> tuple[str, int, float]:
    """The model's brief, under the spend guard: the worst-case cost is checked against the
    daily caps and reserved before the call, the actual cost (from the API's usage) recorded after.
    Returns (brief, tokens, usd)."""
    from ingest.index.tokens import count_tokens
    from ingest.kb.embed import EmbedderUnavailable

    if settings.openai_api_key is None:
        raise EmbedderUnavailable(
            "writing a brief needs a model: set OPENAI_API_KEY (the brief's input is "
            "available without it: run without --write)"
        )
    text = brief_input(report)
    estimate = (
        (count_tokens(BRIEF_INSTRUCTIONS + text) + 50) * settings.brief_price_in_per_mtok
        + BRIEF_MAX_OUTPUT_TOKENS * settings.brief_price_out_per_mtok
    ) / 1e6
    with guard.spending(business, "brief", "model_tokens", estimate) as settle:
        brief, tokens_in, tokens_out = _write(settings, text)
        usd = (tokens_in * settings.brief_price_in_per_mtok + tokens_out * settings.brief_price_out_per_mtok) / 1e6
        settle(tokens_in + tokens_out, usd)
    return brief.strip(), tokens_in + tokens_out, usd


def _write(settings: Settings, text: str) -> tuple[str, int, int]:
    """The model's brief and its token counts (in, out)."""
    import openai

    from ingest.kb.embed import chat_errors

    client = openai.OpenAI(
        api_key=settings.openai_api_key.get_secret_value(),
        base_url=settings.openai_base_url,
        max_retries=2,
        timeout=120.0,
    )
    with chat_errors("the brief could not be written"):
        response = client.chat.completions.create(
            model=settings.brief_model,
            max_tokens=BRIEF_MAX_OUTPUT_TOKENS,
            messages=[{"role": "system", "content": BRIEF_INSTRUCTIONS}, {"role": "user", "content": text}],
        )
        brief = response.choices[0].message.content or ""
        tokens_in, tokens_out = response.usage.prompt_tokens, response.usage.completion_tokens
    return brief, tokens_in, tokens_out
