"""Site signals are hints, never silent removals.

A site says things about its own pages that a crawler is taught to obey: this page's
canonical copy is elsewhere, this page is not to be indexed, this address now lives
there. Real sites get these wrong more often than right-minded crawlers expect (a
template that points every page's canonical link at the homepage is common), and
obeying a wrong signal empties a knowledge base without a word. So a page is dropped
for a canonical link only on evidence (the target was read and says the same), and
any one rule that takes away a large share of a site's pages warns, with examples.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from enum import Enum

from ingest.crawl.urls import page_key

# Extracted texts this similar (word-bag F1) are one page written twice. *ours*
NEAR_DUPLICATE = 0.9
# A rule that takes away more than this share of the pages with content warns. *ours*
REMOVAL_SHARE_TO_WARN = 0.2
# ...once it takes at least this many (one page of four is not a pattern).
MIN_REMOVED_TO_WARN = 3
# Our own exclusion list takes a site's login, cart, account and search links on every
# run; a content section matching it takes many more paths than a menu has. *ours*
MIN_EXCLUDED_TO_WARN = 10
MAX_REDIRECT_HOPS = 5
_WORD = re.compile(r"\w+")


class Canonical(str, Enum):
    """What a page's canonical link turned out to be."""

    DUPLICATE = "duplicate"  # the target was read and holds the same text: drop this copy
    HOMEPAGE = "homepage"  # points at the homepage, whose text is another
    OFFSITE = "offsite"  # points outside the site
    GONE = "gone"  # the target answered 404/410
    NOT_READ = "not_read"  # the target could not be read (error, excluded, not HTML, a redirect away)
    DIFFERENT_TEXT = "different_text"  # the target is another page
    CHAIN = "chain"  # the target is a copy dropped for yet another page


def text_similarity(a: str, b: str) -> float:
    """Word-bag F1 of two texts (lowercased words): 1.0 for the same words, 0.0 for none shared."""
    return _bag_similarity(_words(a), _words(b))


def _words(text: str) -> Counter:
    return Counter(_WORD.findall(text.lower()))


def _bag_similarity(words_a: Counter, words_b: Counter) -> float:
    total = sum(words_a.values()) + sum(words_b.values())
    if total == 0:
        return 1.0
    return 2 * sum((words_a & words_b).values()) / total


def judge_canonicals(
    canonical_of: dict[str, str | None],
    text_of: dict[str, str],
    moved: dict[str, str],
    gone: set[str],
    in_site: Callable[[str], bool],
    homepage: str,
) -> dict[str, Canonical]:
    """For each page read this run (`text_of`: its main text) whose canonical link names
    another page, what that link is worth. Only `DUPLICATE` removes a page; every other
    verdict keeps it and is a misconfiguration to report. `moved` maps the URLs that
    redirected this run (HTTP or a refresh stub) to where they went."""
    read_by_key = {page_key(url): url for url in text_of}
    verdicts: dict[str, Canonical] = {}
    targets: dict[str, str] = {}
    bags: dict[str, Counter] = {}  # a template's canonical names one page for hundreds

    def bag(url: str) -> Counter:
        if url not in bags:
            bags[url] = _words(text_of[url])
        return bags[url]

    for url, canonical in canonical_of.items():
        if not canonical or page_key(canonical) == page_key(url):
            continue
        if not in_site(canonical):
            verdicts[url] = Canonical.OFFSITE
            continue
        target = follow(canonical, moved)
        read = read_by_key.get(page_key(target))
        if read == url:
            continue  # the canonical redirects back to this page: it names itself
        if read is None:
            verdicts[url] = Canonical.GONE if target in gone or canonical in gone else Canonical.NOT_READ
        elif _bag_similarity(bag(url), bag(read)) >= NEAR_DUPLICATE:
            verdicts[url], targets[url] = Canonical.DUPLICATE, read
        elif page_key(read) == page_key(follow(homepage, moved)):
            verdicts[url] = Canonical.HOMEPAGE
        else:
            verdicts[url] = Canonical.DIFFERENT_TEXT
    dropped: set[str] = set()
    for url in sorted(targets, key=lambda u: (len(u), u)):
        if targets[url] in dropped:  # A -> B -> A, or A -> B -> C: B's copy stays, so A must
            verdicts[url] = Canonical.CHAIN
        else:
            dropped.add(url)
    return verdicts


def follow(url: str, moved: dict[str, str]) -> str:
    """Where `url` leads through this run's redirects and refresh stubs (`moved`)."""
    for _ in range(MAX_REDIRECT_HOPS):
        if url not in moved:
            break
        url = moved[url]
    return url


def canonical_warning(
    verdicts: dict[str, Canonical], shown: Callable[[str], str], canonical_of: dict[str, str | None]
) -> str | None:
    """One sentence on the canonical links that were not obeyed, or None."""
    wrong = sorted(url for url, verdict in verdicts.items() if verdict is not Canonical.DUPLICATE)
    if not wrong:
        return None
    counts = Counter(verdicts[url].value for url in wrong)
    why = ", ".join(f"{n} {_CANONICAL_WHY[kind]}" for kind, n in counts.most_common())
    examples = ", ".join(f"{shown(url)} -> {shown(canonical_of[url] or '')}" for url in wrong[:2])
    return (
        f"{len(wrong)} pages name a canonical URL that is not a copy of them ({why}); they were kept, since "
        f"the site's canonical links look misconfigured (e.g. {examples})"
    )


_CANONICAL_WHY = {
    "homepage": "point to the homepage",
    "offsite": "point off the site",
    "gone": "point to a missing page",
    "not_read": "point to a page that could not be read",
    "different_text": "point to a page with other text",
    "chain": "point to a copy of yet another page",
}


def removal_warnings(removed: dict[str, list[str]], pages_with_content: int, shown: Callable[[str], str]) -> list[str]:
    """A warning for each rule that took away more than a fifth of the pages with content,
    naming the rule, the count and two examples."""
    warnings = []
    for rule, urls in sorted(removed.items()):
        least = MIN_EXCLUDED_TO_WARN if rule == "exclusion pattern" else MIN_REMOVED_TO_WARN
        if pages_with_content and len(urls) >= least and len(urls) / pages_with_content > REMOVAL_SHARE_TO_WARN:
            examples = ", ".join(shown(url) for url in sorted(urls)[:2])
            warnings.append(
                f"the {rule} rule took away {len(urls)} of {pages_with_content} pages with content "
                f"({len(urls) / pages_with_content:.0%}; e.g. {examples}): check that the site means it"
            )
    return warnings
