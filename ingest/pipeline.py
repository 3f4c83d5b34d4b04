"""The orchestrator: `run()` finds the homepage, crawls the site (crawler.py), selects
the pages to index (selection.py), strips templates, and reconciles the knowledge base
with them (indexer.py), under the business's lock, the spend guard and the breaker,
recording the run. Site problems, caps and provider failures end in the report.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from urllib.parse import urlsplit

from ingest import indexer
from ingest.crawl import discover
from ingest.crawl.fetch import Fetcher
from ingest.crawl.intake import find_homepage
from ingest.crawl.render import Renderer
from ingest.crawl.signals import follow
from ingest.crawl.urls import Scope, page_key, prefix_of
from ingest.crawler import GONE_STATUSES, Crawler, CrawlLog
from ingest.extract.facts import card_markdown, card_url, contact_card
from ingest.extract.html import parse_html
from ingest.extract.templates import strip_templates
from ingest.kb.db import session_lock
from ingest.kb.embed import CreditExhausted, EmbedderError, Embeddings, QuotaExceeded, make_embedder
from ingest.kb.state import StateStore
from ingest.kb.store import open_existing_store, open_store
from ingest.models import Document, Fact, Page, RunReport, SourceStatus
from ingest.ops.alerts import Alerter
from ingest.ops.guard import BreakerOpen, BudgetExceeded, SpendGuard
from ingest.problems import SiteProblem
from ingest.selection import select_pages
from ingest.settings import DiskFull, Settings, ensure_free_space, load_exclusions, private_dir

# a site with less readable text than this is a client-rendered shell.
MIN_SITE_TEXT_CHARS = 300
# Status recorded for a URL that redirected within the site last run.
REDIRECT_STATUSES_MARK = 301
# a page no link or sitemap points to for this many consecutive runs is removed.
MISSING_RUNS_TO_REMOVE = 3
# a run that reaches fewer than this share of the last run's pages deletes nothing.
MIN_COVERAGE = 0.5
# Below this many stored pages a coverage ratio says little (one page of two is 50%). *ours*
MIN_PAGES_FOR_COVERAGE = 4

Progress = Callable[[str, int, int], None]


class RunTimeout(RuntimeError):
    """The run went past its wall-clock budget (run_budget_s) and stopped between pages
    or embedding batches: what it paid for is kept, nothing was deleted."""


_now = time.monotonic  # the budget's clock (tests move it)


def _within_budget(progress: Progress, budget_s: float) -> Progress:
    """`progress`, checking the run's wall-clock budget each time the crawl or the
    embedding reports a step: one slow site cannot hold a worker forever."""
    if budget_s <= 0:
        return progress
    deadline = _now() + budget_s

    def checked(phase: str, done: int, total: int) -> None:
        if _now() > deadline:
            raise RunTimeout(
                f"the run went past its budget of {budget_s:g} s (setting run_budget_s) during {phase}; "
                "what it had paid for is kept and the next run goes on from there"
            )
        progress(phase, done, total)

    return checked


class BusinessBusy(RuntimeError):
    """Another job holds this business's lock."""


def _no_progress(phase: str, done: int, total: int) -> None:
    pass


@dataclass
class CrawlResult:
    documents: list[Document] = field(default_factory=list)
    # url -> the answer that showed it gone (None: missing from links and sitemaps)
    gone: dict[str, Page | None] = field(default_factory=dict)
    previous_pages: int = 0
    # The page the homepage's address leads to (through redirects and refresh stubs).
    homepage_url: str = ""
    # URLs whose content is indexed under another URL this run (a redirect or stub to it,
    # a copy of it, another spelling of it): chunks they hold from earlier runs go.
    superseded: set[str] = field(default_factory=set)


def run(
    site: str,
    settings: Settings,
    business: str | None = None,
    max_pages: int | None = None,
    progress: Progress = _no_progress,
    index: bool = True,
    clock=time.time,
) -> RunReport:
    """Ingest or resync one site. Site problems, spend caps, the breaker and provider
    failures come back in the report; other failures are recorded, then raised.
    `index=False` discovers and fetches only (the report's page and crawl figures)."""
    started = time.monotonic()
    report = RunReport(business=business or "", site=site)
    guard, alerter = SpendGuard(settings, clock), Alerter(settings, clock)
    failed = False
    try:
        guard.check_breaker()
        progress = _within_budget(progress, settings.run_budget_s)
        asyncio.run(_run(site, settings, business, max_pages, report, progress, started, index, guard))
    except SiteProblem as problem:
        report.problem, report.message = problem.kind, problem.message
    except (BreakerOpen, BusinessBusy, DiskFull) as exc:
        report.error, report.error_kind = str(exc), type(exc).__name__
    except RunTimeout as exc:
        report.error, report.error_kind = str(exc), "timeout"
    except BudgetExceeded as exc:
        report.error, report.error_kind = str(exc), type(exc).__name__
        _alert(
            report,
            alerter,
            f"pause:{report.business}:{_today(clock)}",
            f"{report.business} paused by the spend cap",
            f"Refreshing {report.site} stopped: {exc}. What was already paid for is kept; the source is "
            "paused_budget and is not refreshed automatically until it is run by hand.",
        )
    except EmbedderError as exc:
        report.error, report.error_kind = str(exc), type(exc).__name__
        failed = True
        if isinstance(exc, CreditExhausted):
            _breaker_opened(report, alerter, guard.credit_exhausted(), clock)
        elif isinstance(exc, QuotaExceeded):
            _breaker_opened(report, alerter, guard.quota_error(), clock)
    except Exception:
        failed = True
        raise
    finally:
        if failed:
            _breaker_opened(report, alerter, guard.job_failed(), clock)
        spent = guard.spent_today()
        if spent > settings.alert_spend_usd:
            _alert(
                report,
                alerter,
                f"spend:{_today(clock)}",
                f"daily spend passed ${settings.alert_spend_usd:.2f}",
                f"sitekb has spent ${spent:.2f} today (UTC); the daily cap is ${settings.daily_cap_total_usd:.2f}.",
            )
        guard.close()
        alerter.close()
    report.seconds = round(time.monotonic() - started, 3)
    return report


def _today(clock) -> str:
    return datetime.fromtimestamp(clock(), UTC).strftime("%Y-%m-%d")


def _alert(report: RunReport, alerter: Alerter, event: str, subject: str, body: str) -> None:
    report.warnings.extend(alerter.send_once(event, subject, body))


def _breaker_opened(report: RunReport, alerter: Alerter, reason: str | None, clock) -> None:
    if reason:
        _alert(
            report,
            alerter,
            f"breaker:{int(clock())}",
            "circuit breaker opened: jobs paused",
            f"No new sitekb jobs start for now: {reason}. The last job was {report.business} ({report.site}): "
            f"{report.error}",
        )


def _links_of(page: Page) -> tuple[str, ...]:
    try:
        return parse_html(page.body, page.final_url).links
    except Exception:  # an unreadable homepage is the crawl's to report, as for any page
        return ()


@contextmanager
def _business_lock(settings: Settings, business: str) -> Iterator[None]:
    """One worker per business (R-10.3). An OS file lock, or with a shared PostgreSQL
    state a session advisory lock, which holds across machines: a crashed holder (its
    process, or its connection) releases either."""
    if settings.database_url:
        with session_lock(settings.database_url, f"sitekb-business:{business}", wait=False) as taken:
            if not taken:
                raise BusinessBusy(f"another job for business {business!r} is running")
            yield
        return
    locks = private_dir(settings.data_dir) / "locks"
    locks.mkdir(exist_ok=True)
    name = hashlib.sha1(business.encode()).hexdigest()[:16]
    with open(locks / f"{name}.lock", "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise BusinessBusy(f"another job for business {business!r} is running") from None
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


async def _run(
    site: str,
    settings: Settings,
    business: str | None,
    max_pages: int | None,
    report: RunReport,
    progress: Progress,
    started: float,
    index: bool,
    guard: SpendGuard,
) -> None:
    homepage, scope = await _intake(site, settings, report)
    report.business = business = business or scope.site + scope.prefix.rstrip("/")
    report.site = scope.label
    with _business_lock(settings, business):
        ensure_free_space(private_dir(settings.data_dir), settings.min_free_disk_mb, "a run")
        state = StateStore(settings.state_location, clock=guard.clock)
        run_id = None
        source_id = state.sources.ensure(business, report.site)
        try:
            state.sources.update(source_id, root_url=scope.home)
            run_id = state.runs.start(business, source_id, report.site)
            guard.check(business)  # at job start
            job = f"run-{run_id}"
            crawl = await _crawl(
                scope, homepage, settings, state, source_id, max_pages or settings.max_pages, report, progress
            )
            _charge_proxy(settings, guard, business, job, report)
            if index:
                _index(crawl, business, source_id, settings, state, report, progress, guard, job)
            capped = report.pages.skipped.get("budget") or report.pages.skipped.get("budget_bytes")
            state.sources.update(source_id, status="capped" if capped else "ok", last_run_id=run_id)
        except Exception as exc:
            state.sources.update(source_id, status=_failed_status(exc, report), last_run_id=run_id)
            raise
        finally:
            if run_id is not None:
                report.seconds = round(time.monotonic() - started, 3)
                report.spend_usd = round(report.spend_usd, 6)
                state.runs.finish(run_id, report.problem, report.model_dump())
            state.close()


async def _intake(site: str, settings: Settings, report: RunReport) -> tuple[Page, Scope]:
    """The homepage, and the site's scope: its host, and the folder it is published under."""
    async with Fetcher(settings) as intake_fetcher:
        try:
            homepage = await find_homepage(site, intake_fetcher)
        finally:
            report.pages.status_counts.update(intake_fetcher.status_counts)
    parts = urlsplit(homepage.final_url)
    prefix = prefix_of(homepage.url, homepage.final_url, _links_of(homepage))
    return homepage, Scope.from_config(f"{parts.scheme}://{parts.netloc}/", load_exclusions(), prefix)


def _charge_proxy(settings: Settings, guard: SpendGuard, business: str, job: str, report: RunReport) -> None:
    if settings.proxy_url and settings.proxy_price_per_gb:
        cost = report.bytes_transferred / 1e9 * settings.proxy_price_per_gb
        guard.record(business, job, "proxy_bytes", report.bytes_transferred, cost)


def _failed_status(exc: Exception, report: RunReport) -> SourceStatus | str:
    """The source's status after a run that raised `exc`, which the report records too."""
    if isinstance(exc, SiteProblem):
        report.problem, report.message = exc.kind, exc.message
        return f"problem:{exc.kind}"
    if isinstance(exc, BudgetExceeded):
        report.error, report.error_kind = str(exc), type(exc).__name__
        return "paused_budget"
    report.error, report.error_kind = report.error or f"{type(exc).__name__}: {exc}", type(exc).__name__
    return "failed"


async def _crawl(
    scope: Scope,
    homepage: Page,
    settings: Settings,
    state: StateStore,
    source_id: int,
    max_pages: int,
    report: RunReport,
    progress: Progress,
) -> CrawlResult:
    had_content = {c.url for c in state.chunks.of(source_id).values() if "#" not in c.url}
    async with Fetcher(settings, in_scope=lambda url: scope.in_site(scope.normalize(url) or "")) as fetcher:
        robots = await _robots(fetcher, scope, settings, report)
        frontier = discover.Frontier(
            scope, max_pages, settings.max_depth, robots, settings.user_agent, max_bytes=settings.max_site_bytes
        )
        delay = robots.crawl_delay(settings.user_agent) if robots else None
        if delay:
            fetcher.set_crawl_delay(urlsplit(scope.root).hostname or "", float(delay))
        renderer = None
        if settings.render == "auto":
            renderer = Renderer(
                settings, fetcher, scope, lambda url: robots is None or robots.can_fetch(url, settings.user_agent)
            )
        crawler = Crawler(scope, settings, fetcher, frontier, state, source_id, homepage, report, renderer)
        await _seed(frontier, fetcher, scope, robots, homepage, crawler.known, had_content, settings, report)
        try:
            log = await crawler.crawl(progress)
        finally:
            if renderer is not None:
                await renderer.close()
                report.crawl.render_blocked = dict(renderer.blocked)
        if warning := crawler.shell_warning():
            report.warnings.append(warning)
        for reason, n in frontier.skipped.items():
            report.pages.skip(reason, n)
        report.pages.discovered = len(frontier.seen) - frontier.skipped.get("offsite", 0)
        for key, n in fetcher.status_counts.items():
            report.pages.status_counts[key] = report.pages.status_counts.get(key, 0) + n
    missing = {
        url
        for url, missed in state.pages.count_missing(source_id, frontier.linked).items()
        if missed >= MISSING_RUNS_TO_REMOVE
    }
    homepage_url = scope.normalize(homepage.url) or homepage.url
    _save_alternates(state, source_id, scope, log)
    chosen = select_pages(log, frontier.held_back(), frontier.excluded_paths, missing, had_content, scope, homepage_url)
    for reason, n in chosen.skipped.items():
        report.pages.skip(reason, n)
    report.misconfigured.update(chosen.misconfigured)
    report.warnings.extend(chosen.warnings)
    result = CrawlResult(
        previous_pages=len(had_content), homepage_url=follow(homepage_url, log.moved), superseded=chosen.superseded
    )
    result.gone.update(log.gone)
    result.gone.update(chosen.noindex)
    _remember(state, source_id, log, result.gone)
    for url in missing:
        result.gone[url] = None
        report.pages.skip("missing")
        state.pages.delete(source_id, url)
    result.documents = [d for d in chosen.documents if d.url not in result.gone]
    _crawl_health(report, crawler.monitor, len(log.reads), len(result.documents))
    return result


async def _seed(
    frontier: discover.Frontier,
    fetcher: Fetcher,
    scope: Scope,
    robots,
    homepage: Page,
    known: dict,
    had_content: set[str],
    settings: Settings,
    report: RunReport,
) -> None:
    """The homepage, the pages we stored (re-checked even if no longer linked), then the
    sitemaps. Stored pages come before the sitemap so that of a page's spellings (/x, /x/,
    /x.html) the one indexed last time stays the page (the order keepers_of uses), and a
    sitemap's lastmod still raises their priority."""
    frontier.add(homepage.url, 0)
    for url in sorted(known, key=lambda u: (u not in had_content, known[u].status != 200, len(u), u)):
        frontier.add(url, 1, linked=False)
    if settings.use_sitemaps:
        for entry in await _sitemap_urls(fetcher, scope, robots, report):
            frontier.add(entry.url, 1, bonus=discover.lastmod_bonus(entry.lastmod))


def _remember(state: StateStore, source_id: int, log: CrawlLog, gone: dict[str, Page | None]) -> None:
    """Redirects are remembered to be re-asked without following, gone pages to be re-checked with a HEAD."""
    for url in log.redirects:
        state.pages.save(source_id, url, REDIRECT_STATUSES_MARK, None, None, None, None)
    for url, page in gone.items():
        if page is not None and page.status in GONE_STATUSES:
            state.pages.save(source_id, url, page.status, page.etag, page.last_modified, None, None)


def _save_alternates(state: StateStore, source_id: int, scope: Scope, log: CrawlLog) -> None:
    """Each page's translations, named by the URL each was read under this run (an
    hreflang link may spell it /de/x where the page is /de/x/)."""
    read_by_key = {page_key(r.url): r.url for r in log.reads}
    for read in log.reads:
        pairs = []
        for lang, href in read.doc.alternates:
            url = scope.normalize(href)
            if url and scope.in_site(url):
                target = follow(url, log.moved)
                target = read_by_key.get(page_key(target), target)
                if target != read.url:
                    pairs.append((lang, target))
        state.pages.save_alternates(source_id, read.url, pairs)


# Duplicate bodies above this share of pages read (from 10 on) look like a generated space. *ours*
DUPLICATE_RATE_TO_WARN = 0.3
# Nearly every page request refused: the site blocks our network, not our pages.
BLOCKED_SHARE_TO_WARN = 0.9
MIN_REQUESTS_TO_JUDGE = 5


def _crawl_health(report: RunReport, monitor: discover.CrawlMonitor, pages_read: int, useful_pages: int) -> None:
    health = report.crawl
    health.discovery_rate = round(monitor.pages and (report.pages.discovered / monitor.pages), 2)
    health.discovery_rate_by_window = monitor.rates
    health.frontier_sizes = monitor.frontier_sizes
    duplicates = report.pages.skipped.get("duplicate", 0)
    health.duplicate_rate = round(duplicates / pages_read, 3) if pages_read else 0.0
    health.bytes_per_useful_page = report.bytes_transferred // useful_pages if useful_pages else 0
    requests = sum(report.pages.status_counts.values())
    blocked = sum(report.pages.status_counts.get(s, 0) for s in ("403", "406")) + report.pages.skipped.get(
        "challenge", 0
    )
    health.blocked_share = round(blocked / requests, 3) if requests else 0.0
    if monitor.trap_warning:
        report.warnings.append(monitor.trap_warning)
    if duplicates >= 10 and health.duplicate_rate > DUPLICATE_RATE_TO_WARN:
        report.warnings.append(
            f"{duplicates} of {pages_read} pages repeat another page's content: the site may serve one page "
            "under many URLs (session ids, filters); only one copy of each is kept"
        )
    if requests >= MIN_REQUESTS_TO_JUDGE and health.blocked_share >= BLOCKED_SHARE_TO_WARN:
        report.warnings.append(
            f"the site blocks our server's network: {blocked} of {requests} requests were refused (HTTP 403 or "
            "a bot challenge). Ask the site's owner or host to allow our crawler's IP address, or set "
            "SITEKB_PROXY_URL to crawl through a proxy they allow"
        )


async def _robots(fetcher: Fetcher, scope: Scope, settings: Settings, report: RunReport):
    page = await fetcher.fetch(scope.root + "robots.txt", accept=("text/plain",))
    report.bytes_transferred += page.bytes_transferred
    if page.ok and page.status == 200:
        return discover.parse_robots(page.body)
    return None


async def _sitemap_urls(fetcher: Fetcher, scope: Scope, robots, report: RunReport) -> list[discover.SitemapEntry]:
    """The sitemaps' page entries. Entries and child sitemaps that name another host (a
    base URL set wrongly when the site was built) are read at the same path on this
    site's host, and the report says so."""
    queue = list(robots.sitemaps) if robots else []
    queue.append(scope.home + "sitemap.xml")
    seen: set[str] = set()
    pages: list[discover.SitemapEntry] = []
    foreign: dict[str, int] = {}
    depth = {url: 0 for url in queue}
    while queue and len(seen) < discover.MAX_SITEMAP_FILES:
        listed = queue.pop(0)
        url = _on_site(scope, scope.normalize(listed, scope.root), foreign)  # robots.txt may give relative URLs
        if not url or url in seen:
            continue
        seen.add(url)
        page = await fetcher.fetch(url, accept=())
        report.bytes_transferred += page.bytes_transferred
        if not (page.ok and page.status == 200):
            continue
        sitemap = discover.parse_sitemap(page.body)
        for entry in sitemap.pages:
            moved = _on_site(scope, scope.normalize(entry.url), foreign)
            if moved:
                pages.append(replace(entry, url=moved))
        for child in sitemap.children:
            if depth.get(listed, 0) < discover.MAX_SITEMAP_DEPTH:
                depth[child] = depth.get(listed, 0) + 1
                queue.append(child)
    if foreign:
        hosts = ", ".join(sorted(foreign))
        report.misconfigured["sitemap_other_host"] = sum(foreign.values())
        report.warnings.append(
            f"the sitemap names another host ({hosts}) for {sum(foreign.values())} entries, a base URL set wrongly "
            f"when the site was built: read at the same paths on {scope.label} instead"
        )
    return pages


def _on_site(scope: Scope, url: str | None, foreign: dict[str, int]) -> str | None:
    """`scope.listed(url)`, counting in `foreign` the URLs moved from another host."""
    if url and not scope.on_host(url) and not scope.related(url):
        host = urlsplit(url).netloc
        foreign[host] = foreign.get(host, 0) + 1
    return scope.listed(url)


def _index(
    crawl: CrawlResult,
    business: str,
    source_id: int,
    settings: Settings,
    state: StateStore,
    report: RunReport,
    progress: Progress,
    guard: SpendGuard,
    job: str,
) -> None:
    """Templates stripped, then the knowledge base reconciled with the pages read
    (ingest/indexer.py), unless the site is empty or its coverage collapsed."""
    documents = crawl.documents
    report.pages.empty = sum(1 for d in documents if d.text_chars == 0)
    chars = sum(d.text_chars for d in documents)
    if chars < MIN_SITE_TEXT_CHARS:
        # A rule that took the site's pages says so here too: the run stops on this problem.
        raise SiteProblem(
            "empty", "; ".join([f"{chars} characters of text on {len(documents)} pages", *report.warnings])
        )
    if crawl.previous_pages >= MIN_PAGES_FOR_COVERAGE and len(documents) < MIN_COVERAGE * crawl.previous_pages:
        report.warnings.append(
            f"coverage collapsed: {len(documents)} pages read this run against {crawl.previous_pages} last run; "
            "nothing was deleted or written, the knowledge base is unchanged"
        )
        report.chunks.unchanged = report.chunks.total = state.chunks.count(business)
        return
    ensure_free_space(settings.data_dir, settings.min_free_disk_mb, "writing the knowledge base")
    stripped = strip_templates(documents, crawl.homepage_url)
    report.templates = stripped.report
    # A page not read this run (a 503, say) keeps its chunks, and its facts stay on the card.
    read, gone = {d.url for d in documents}, {*crawl.gone, *crawl.superseded}
    kept = [f for f in state.sources.facts_of_source(source_id) if f.url not in read and f.url not in gone]
    card = contact_card([(d.url, d.facts) for d in documents] + [(f.url, (f,)) for f in kept])
    card_doc = _card_document(card, documents, crawl.homepage_url)
    embedder = make_embedder(settings)
    report.embedding.model = embedder.model

    def paid(embedded: Embeddings) -> None:
        report.embedding.tokens += embedded.tokens
        report.embedding.calls += embedded.calls
        report.spend_usd = round(report.spend_usd + embedded.cost_usd, 6)

    store = open_store(settings, embedder.id, embedder.dimensions)
    try:
        result = indexer.index(
            [*stripped.documents, *(d for d in (stripped.site_document, card_doc) if d)],
            indexer.Records(state, business, source_id),
            store,
            embedder,
            gone=gone,
            open_old=lambda embedder_id: open_existing_store(settings, embedder_id),
            guard=guard,
            job=job,
            paid=paid,
            progress=progress,
        )
    finally:
        store.close()
    report.chunks = result.chunks
    report.warnings.extend(result.warnings)
    state.sources.set_facts(source_id, card)
    report.facts = dict(Counter(f.kind for f in card))  # the card lists its facts kind by kind


def _card_document(card: list[Fact], documents: list[Document], homepage_url: str) -> Document | None:
    """The contact card as a page of its own, labelled in the site's languages."""
    languages = [lang for lang, _ in Counter(d.lang for d in documents if d.lang).most_common(3)]
    markdown = card_markdown(card, languages)
    if not markdown:
        return None
    return Document(
        url=card_url(card, homepage_url),
        title=markdown.splitlines()[0].lstrip("# "),
        markdown=markdown,
        lang=languages[0] if languages else "",
    )
