"""Which of the pages read this run are indexed. A pure step: it takes the crawl's log
and returns its decisions; the pipeline applies them to the state and the report.

`noindex` pages go (the owner said so); a page naming another as canonical goes only
when that page was read with the same text (crawl/signals.py); of pages with one body,
one URL stays, the one indexed last run if any, so chunks stay put from run to run.
Every rule that takes pages is counted, and one that takes much of the site warns.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import partial
from urllib.parse import urlsplit

from ingest.crawl.signals import Canonical, canonical_warning, follow, judge_canonicals, removal_warnings
from ingest.crawl.urls import Scope, page_key
from ingest.crawler import CrawlLog, PageRead
from ingest.extract.notfound import says_not_found
from ingest.models import Document, Page


@dataclass
class Selection:
    documents: list[Document] = field(default_factory=list)
    # Pages now `noindex`: gone, with the answer that said so.
    noindex: dict[str, Page] = field(default_factory=dict)
    # URLs whose content is indexed under another URL (a redirect or stub to it, a copy of
    # it, another spelling of it): chunks they hold from earlier runs go.
    superseded: set[str] = field(default_factory=set)
    skipped: Counter = field(default_factory=Counter)
    misconfigured: Counter = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)


def select_pages(
    log: CrawlLog,
    held_back: dict[str, str],
    excluded_paths: set[str],
    missing: set[str],
    had_content: set[str],
    scope: Scope,
    homepage_url: str,
) -> Selection:
    """`held_back`: spellings not fetched -> the one fetched; `excluded_paths`: paths our
    exclusion list kept out; `missing`: pages unlinked for too many runs (left out here);
    `had_content`: URLs with chunks before this run."""
    chosen = Selection()
    read_paths = {r.url.split("?", 1)[0] for r in log.reads}  # a listing read without its facets lost nothing
    taken: dict[str, list[str]] = {
        "offsite redirect": log.offsite,
        "exclusion pattern": sorted(excluded_paths - read_paths),
    }
    noindex = {r.url for r in log.reads if r.doc.noindex or "noindex" in r.page.x_robots_tag.lower()}
    not_found = {r.url for r in log.reads if says_not_found(r.doc)}  # a missing page answered with 200
    indexable = [r for r in log.reads if r.url not in noindex]
    canonical_of = {r.url: r.canonical for r in indexable}
    texts = {r.url: r.doc.markdown for r in indexable}
    canonicals = judge_canonicals(canonical_of, texts, log.moved, set(log.gone), scope.in_site, homepage_url)
    candidates: list[PageRead] = []
    for read in sorted(log.reads, key=lambda r: r.url):
        if read.url in noindex:
            chosen.noindex[read.url] = read.page
            taken.setdefault("noindex", []).append(read.url)
        elif read.url in missing:
            continue
        elif read.url in not_found:
            taken.setdefault("page-not-found", []).append(read.url)
        elif canonicals.get(read.url) is Canonical.DUPLICATE:
            taken.setdefault("canonical", []).append(read.url)
        else:
            candidates.append(read)
    keepers = keepers_of(candidates, had_content)
    for read in candidates:
        if keepers[read.digest] == read.url:
            chosen.documents.append(read.doc)
        else:
            taken.setdefault("duplicate", []).append(read.url)
    chosen.skipped = Counter({reason: len(taken[rule]) for rule, reason in _SKIP_OF_RULE.items() if taken.get(rule)})
    _judge_signals(
        chosen,
        canonicals,
        {r.url: r.canonical for r in log.reads},
        taken,
        sum(1 for r in log.reads if r.doc.text_chars) + len(log.offsite),
        scope,
    )
    chosen.superseded = _superseded(chosen.documents, log, held_back, taken)
    return chosen


# The report's skip reason for each rule selection applies.
_SKIP_OF_RULE = {
    "noindex": "noindex",
    "duplicate": "duplicate",
    "canonical": "canonical_elsewhere",
    "page-not-found": "soft_404",
}


def keepers_of(reads: list[PageRead], had_content: set[str]) -> dict[str | None, str]:
    """For each body, the one URL whose copy is indexed. Chosen after the crawl, not by
    arrival order, so the same page keeps its chunks from run to run: the URL indexed
    last time first, then the shortest, then the first in sort order."""
    keepers: dict[str | None, str] = {}
    for read in sorted(reads, key=lambda r: (r.url not in had_content, len(r.url), r.url)):
        keepers.setdefault(read.digest, read.url)
    return keepers


def _superseded(
    documents: list[Document], log: CrawlLog, held_back: dict[str, str], taken: dict[str, list[str]]
) -> set[str]:
    indexed = {page_key(d.url): d.url for d in documents}
    elsewhere = {url: follow(url, log.moved) for url in log.moved} | held_back
    moved_on = {
        url for url, target in elsewhere.items() if indexed.get(page_key(target), url) != url and url not in log.gone
    }
    return {*taken.get("canonical", []), *taken.get("duplicate", []), *taken.get("page-not-found", [])} | moved_on


def _shown(url: str, scope: Scope) -> str:
    """A URL as a warning shows it: the path on this site, the whole URL off it."""
    if not scope.in_site(url):
        return url
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def _judge_signals(
    chosen: Selection,
    canonicals: dict[str, Canonical],
    canonical_of: dict[str, str | None],
    taken: dict[str, list[str]],
    pages_with_content: int,
    scope: Scope,
) -> None:
    """Canonical links not obeyed, and rules that took much of the site, for the report."""
    chosen.misconfigured.update(f"canonical_{v.value}" for v in canonicals.values() if v is not Canonical.DUPLICATE)
    shown = partial(_shown, scope=scope)
    warning = canonical_warning(canonicals, shown, canonical_of)
    if warning:
        chosen.warnings.append(warning)
    chosen.warnings.extend(
        removal_warnings({rule: urls for rule, urls in taken.items() if urls}, pages_with_content, shown)
    )
