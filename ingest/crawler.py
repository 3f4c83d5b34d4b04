"""The crawl of one site: every URL the frontier hands out is visited once, and each
visit ends in one typed outcome (read, gone, moved, left the site, skipped, failed).

A visit asks the cheapest question first: a page remembered as gone is re-checked with
a HEAD, one remembered as a redirect is asked again without following it, the others
are fetched with the validators of the last run (a 304 re-reads the raw copy). What
a visit finds is recorded in one place (`_record`): the frontier learns the new URLs,
the report counts the outcome, and the `CrawlLog` keeps what the selection step needs.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ingest.crawl.discover import CrawlMonitor, Frontier
from ingest.crawl.fetch import PDF_TYPES, REDIRECT_STATUSES, Fetcher, Validators
from ingest.crawl.rawstore import RawStore
from ingest.crawl.render import INSTALL_HINT, Renderer, needs_rendering
from ingest.crawl.urls import Scope, page_key
from ingest.extract.budget import PageTooSlow
from ingest.extract.html import decode_html, parse_html
from ingest.extract.language import text_language
from ingest.extract.pdf import PdfError, ScannedPdf, is_pdf, read_pdf
from ingest.kb.state import StateStore, StoredPage
from ingest.models import Document, Page, RunReport, SkipReason
from ingest.settings import Settings

GONE_STATUSES = frozenset({404, 410})
# Fetcher errors that skip a page without counting it failed.
_SKIP_ERRORS = ("not_html", "too_large")

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class PageRead:
    """A page read this run (fetched, or 304 and re-read from the raw store)."""

    url: str
    page: Page
    digest: str | None
    doc: Document
    canonical: str | None


@dataclass(frozen=True)
class Gone:
    """404 or 410: the page is no more."""

    url: str
    page: Page


@dataclass(frozen=True)
class Moved:
    """The page lives at `target`, in the site: an HTTP redirect (`page` is its answer)
    or a meta refresh stub (`page` is None)."""

    url: str
    target: str
    page: Page | None = None


@dataclass(frozen=True)
class LeftSite:
    """A redirect or refresh stub that leaves the site: not followed."""

    url: str


@dataclass(frozen=True)
class Skipped:
    """Not a page to read (`reason`: not_html, too_large, scanned_pdf)."""

    url: str
    reason: SkipReason


@dataclass(frozen=True)
class Failed:
    """Not read this time (an error, a challenge, an unreadable page): no evidence of removal."""

    url: str
    reason: SkipReason | None = None


Outcome = PageRead | Gone | Moved | LeftSite | Skipped | Failed


@dataclass(frozen=True)
class _Body:
    """A page's HTML in hand: `page` as fetched (or the 304), the body and its raw digest."""

    page: Page
    body: bytes
    digest: str | None


def _is_pdf(fetched: _Body) -> bool:
    """Served as a PDF, or (a 304's raw copy, whose type is not sent again) starting as one."""
    return fetched.body.startswith(b"%PDF-") or (fetched.page.content_type in PDF_TYPES and is_pdf(fetched.body))


@dataclass
class CrawlLog:
    """What the crawl saw, for the selection step."""

    reads: list[PageRead] = field(default_factory=list)
    gone: dict[str, Page] = field(default_factory=dict)
    # HTTP redirects within the site (remembered as such), and every move's target.
    redirects: dict[str, Page] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)
    offsite: list[str] = field(default_factory=list)


class Crawler:
    def __init__(
        self,
        scope: Scope,
        settings: Settings,
        fetcher: Fetcher,
        frontier: Frontier,
        state: StateStore,
        source_id: int,
        homepage: Page,
        report: RunReport,
        renderer: Renderer | None = None,
    ) -> None:
        self.scope, self.settings, self.fetcher, self.frontier = scope, settings, fetcher, frontier
        self.renderer = renderer
        self.shells = 0  # pages that needed a browser and did not get one
        self.state, self.source_id, self.homepage, self.report = state, source_id, homepage, report
        self.known: dict[str, StoredPage] = state.pages.of(source_id)
        self.raw = RawStore(settings.raw_dir)
        self.monitor = CrawlMonitor()
        self.log = CrawlLog()

    async def crawl(self, progress: Progress) -> CrawlLog:
        """Visit every URL the frontier admits, `settings.concurrency_max` at a time."""
        active = done = 0
        wake = asyncio.Event()

        async def worker() -> None:
            nonlocal active, done
            while True:
                item = self.frontier.next()
                if item is None:
                    if active == 0:
                        wake.set()
                        return
                    wake.clear()
                    await wake.wait()
                    continue
                active += 1
                try:
                    self._record(await self.visit(*item), item[1])
                finally:
                    active -= 1
                    done += 1
                    self.monitor.page_done(self.frontier.queued, len(self.frontier))
                    wake.set()
                    progress("fetch", done, self.frontier.admitted + len(self.frontier))

        await asyncio.gather(*(worker() for _ in range(self.settings.concurrency_max)))
        return self.log

    async def visit(self, url: str, depth: int) -> Outcome:
        stored = self.known.get(url)
        if stored and stored.status in GONE_STATUSES:
            gone = await self.recheck_gone(url, depth)
            if gone:
                return gone
        if stored and stored.status in REDIRECT_STATUSES:
            moved = await self.recheck_redirect(url, depth)
            if moved:
                return moved
        fetched = await self.fetch_or_reuse(url, depth, stored)
        if not isinstance(fetched, _Body):
            return fetched
        if _is_pdf(fetched):
            if not self.settings.read_pdfs:  # a PDF read in an earlier run, answering 304 now
                return Skipped(url, "not_html")
            return await self.read_pdf(url, fetched)
        outcome = self.read(url, fetched)
        if isinstance(outcome, PageRead) and needs_rendering(fetched.body, outcome.doc):
            return await self.render(outcome, fetched)
        return outcome

    async def render(self, read: PageRead, fetched: _Body) -> PageRead | Failed:
        """A page that builds its text in the browser, rendered (R-15.1) and read like any
        page; the HTML's own reading when there is no browser or rendering adds nothing."""
        html = await self.renderer.render(read.url, decode_html(fetched.body)) if self.renderer else None
        if self.renderer:
            self._spent_bytes(self.renderer.bytes_transferred)
            self.renderer.bytes_transferred = 0
        if html is None:
            self.shells += 1
            return read
        try:
            doc = replace(parse_html(html, read.url, self.settings.page_budget_s), url=read.url)
        except PageTooSlow:
            return Failed(read.url, "too_slow")
        except Exception:
            return read
        if doc.text_chars <= read.doc.text_chars:
            return read
        self.report.pages.rendered += 1
        self._remember(read.url, fetched, doc.title)
        # A single-page app serves one shell for every route: what tells its pages apart
        # (and duplicates from pages) is the HTML and what it shows, not the HTML alone.
        shown = "rendered:" + hashlib.sha256(f"{read.digest}\n{doc.markdown}".encode()).hexdigest()
        return replace(read, doc=doc, digest=shown, canonical=self._canonical(doc, read.url))

    def shell_warning(self) -> str | None:
        """What the report says when pages needed a browser they did not get."""
        if not self.shells:
            return None
        pages = f"{self.shells} pages build their" if self.shells > 1 else "1 page builds its"
        if self.renderer is None:
            return f"{pages} text with JavaScript and rendering is off (setting render)"
        why = self.renderer.unavailable or f"the browser could not render {'them' if self.shells > 1 else 'it'}"
        return f"{pages} text with JavaScript, and {why}: {INSTALL_HINT}"

    async def recheck_gone(self, url: str, depth: int) -> Gone | None:
        """Still gone? A HEAD answers without the 404 page's body."""
        probe = await self.fetcher.fetch(url, depth=depth, method="HEAD")
        if probe.status not in GONE_STATUSES:
            return None
        self._spent(probe)
        return Gone(url, probe)

    async def recheck_redirect(self, url: str, depth: int) -> Moved | None:
        """It redirected last time: ask again without following, which costs headers only."""
        probe = await self.fetcher.fetch(url, depth=depth, follow_redirects=False)
        target = self.scope.normalize(probe.location or "", url) if probe.status in REDIRECT_STATUSES else None
        if not (target and self.scope.in_site(target)):
            return None
        self._spent(probe)
        return Moved(url, target, probe)

    async def fetch_or_reuse(self, url: str, depth: int, stored: StoredPage | None) -> _Body | Outcome:
        """The page's body: fetched with last run's validators, or re-read from the raw
        store on a 304; or why there is none."""
        # Validators only with last run's body on hand: a worker whose data folder never saw
        # the page (another worker read it last time) would get a 304 and have to ask again.
        known = stored is not None and stored.raw_sha256 is not None and self.raw.has(stored.raw_sha256)
        validators = Validators(stored.etag, stored.last_modified) if known else None
        fresh = url == self.homepage.url and (validators is None or self.homepage.ok)  # read at intake already
        pages = self.fetcher.page_types  # HTML, and PDFs when read_pdfs
        page = self.homepage if fresh else await self.fetcher.fetch(url, validators, depth, accept=pages)
        self._spent(page)
        body = self.raw.get(stored.raw_sha256 or "") if page.not_modified and stored else None
        if page.not_modified and body is None:  # raw copy lost: fetch again, unconditionally
            page = await self.fetcher.fetch(url, None, depth, accept=pages)
            self._spent(page)
        if body is not None:
            self.report.pages.not_modified += 1
            return _Body(page, body, stored.raw_sha256)
        if page.status in GONE_STATUSES:
            return Gone(url, page)
        if page.error == "offsite_redirect":
            return LeftSite(url)
        if page.error in _SKIP_ERRORS:
            return Skipped(url, page.error)
        if not page.ok:
            return Failed(url, "challenge" if page.error == "challenge" else None)
        self.report.pages.fetched += 1
        final = self.scope.normalize(page.final_url) or url
        if final != url:  # a same-site redirect (/blog -> /blog/): the page is its target
            return Moved(url, final, page)
        return _Body(page, page.body, self.raw.put(page.body))

    def read(self, url: str, fetched: _Body) -> PageRead | Moved | LeftSite | Failed:
        """The page's Document, saved in the state as it is read (a run killed mid-crawl
        resumes with conditional requests); a refresh stub is a move."""
        page = fetched.page
        try:
            doc = replace(
                parse_html(fetched.body, self.scope.normalize(page.final_url) or url, self.settings.page_budget_s),
                url=url,
            )
        except PageTooSlow:  # skipped, and the crawl goes on; like a 503, its chunks stay
            return Failed(url, "too_slow")
        except Exception:  # one page the extractor cannot read must not stop the crawl
            return Failed(url, "unreadable")  # like a 503: not evidence of removal, its chunks stay
        self._remember(url, fetched, doc.title)
        stub = self.scope.normalize(doc.refresh, url) if doc.refresh else None
        if stub and page_key(stub) != page_key(url):
            return Moved(url, stub) if self.scope.in_site(stub) else LeftSite(url)
        return PageRead(url, page, fetched.digest, doc, self._canonical(doc, url))

    def _remember(self, url: str, fetched: _Body, title: str) -> None:
        """The page in the state as it is read, with its validators and raw copy: a run
        killed mid-crawl resumes with conditional requests (a 304 is remembered as 200)."""
        page = fetched.page
        status = page.status if not page.not_modified else 200
        self.state.pages.save(self.source_id, url, status, page.etag, page.last_modified, fetched.digest, title)

    def _canonical(self, doc: Document, url: str) -> str | None:
        """The page's canonical URL when it names another address."""
        canonical = self.scope.normalize(doc.canonical) if doc.canonical else None
        return canonical if canonical != url else None

    async def read_pdf(self, url: str, fetched: _Body) -> PageRead | Skipped | Failed:
        """A PDF as a page (R-15.2), read in a child process under the page budget; a scan
        is reported, not guessed at; one the reader cannot open fails like a 503 (its
        chunks from earlier runs stay)."""
        settings = self.settings
        try:
            pdf = await read_pdf(fetched.body, url, settings.pdf_max_pages, settings.page_budget_s)
        except ScannedPdf:  # remembered with its validators: the next run asks whether it changed
            self._remember(url, fetched, "")
            return Skipped(url, "scanned_pdf")
        except PdfError as exc:
            self.report.warnings.append(f"{url}: {exc}")
            return Failed(url, "unreadable")
        if pdf.pages_read < pdf.pages_total:
            self.report.warnings.append(
                f"{url}: read the first {pdf.pages_read} of its {pdf.pages_total:,} pages (setting pdf_max_pages)"
            )
        self.report.pages.pdfs += 1
        self._remember(url, fetched, pdf.title)
        doc = Document(url=url, title=pdf.title, markdown=pdf.markdown, lang=text_language(pdf.markdown))
        return PageRead(url, fetched.page, fetched.digest, doc, None)

    def _record(self, outcome: Outcome, depth: int) -> None:
        """The one place a visit's outcome reaches the frontier, the report and the log."""
        pages, log, frontier = self.report.pages, self.log, self.frontier
        match outcome:
            case PageRead():
                self._follow_links(outcome, depth)
                log.reads.append(outcome)
            case Gone(url, page):
                log.gone[url] = page
                pages.skip("gone")
                frontier.another_spelling(url)
            case Moved(url, target, page):
                if page is not None:
                    log.redirects[url] = page
                log.moved[url] = target
                frontier.add(target, depth, moved_here=True)
                pages.skip("redirect")
            case LeftSite(url):
                log.offsite.append(url)
                pages.skip("offsite_redirect")
            case Skipped(_, reason):
                pages.skip(reason)
            case Failed(_, reason):
                pages.failed += 1
                if reason:
                    pages.skip(reason)

    def _follow_links(self, read: PageRead, depth: int) -> None:
        if self.settings.follow_links:
            for link in read.doc.links:
                self.frontier.add(link, depth + 1)
            for _, alternate in read.doc.alternates:  # translations are pages of their own
                self.frontier.add(alternate, depth)
        if read.canonical and page_key(read.canonical) != page_key(read.url) and self.scope.in_site(read.canonical):
            self.frontier.add(read.canonical, depth)

    def _spent(self, page: Page) -> None:
        self._spent_bytes(page.bytes_transferred)

    def _spent_bytes(self, n: int) -> None:
        self.report.bytes_transferred += n
        self.frontier.bytes_spent += n
