import gzip

from ingest.discover import Frontier, parse_robots, parse_sitemap
from ingest.settings import load_exclusions
from ingest.urls import Scope

from conftest import VECTORS

SITEMAPS = VECTORS / "crawler-commons" / "sitemaps"


def test_xml_sitemap_keeps_lastmod():
    sitemap = parse_sitemap((SITEMAPS / "xmlSitemap.gz").read_bytes())
    assert len(sitemap.pages) == 5
    assert sitemap.pages[0].lastmod == "2005-01-01"


def test_sitemap_variants_from_the_vectors():
    assert len(parse_sitemap((SITEMAPS / "sitemap.badns.xml").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap.ns.xml").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap-with-bom.txt").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap.txt.gz").read_bytes()).pages) == 5


def test_sitemap_index_children_even_without_loc():
    index = parse_sitemap((SITEMAPS / "sitemap.index.xml").read_bytes())
    assert index.pages == ()
    assert index.children and all(c.startswith("https://example.com/sitemap.jss") for c in index.children)


def test_gzip_xml_index():
    body = gzip.compress(b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                         b'<sitemap><loc>https://a.com/s1.xml</loc></sitemap></sitemapindex>')
    assert parse_sitemap(body).children == ("https://a.com/s1.xml",)


def _frontier(max_pages=10, robots=None):
    scope = Scope.from_config("https://acme.com/", load_exclusions())
    return Frontier(scope, max_pages=max_pages, max_depth=2, robots=robots)


def test_frontier_dedupes_at_enqueue_and_counts_skips():
    frontier = _frontier()
    assert frontier.add("https://acme.com/a", 1)
    assert not frontier.add("https://www.acme.com/a#top", 1)
    assert not frontier.add("https://other.com/", 1)
    assert not frontier.add("https://acme.com/cart/", 1)
    assert not frontier.add("https://acme.com/deep", 3)
    assert frontier.skipped == {"offsite": 1, "excluded_pattern": 1, "depth": 1}
    assert frontier.next() == ("https://acme.com/a", 1)
    assert frontier.next() is None


def test_frontier_budget_picks_best_priority_not_arrival_order():
    frontier = _frontier(max_pages=2)
    frontier.add("https://acme.com/a/b/c/d", 2)
    frontier.add("https://acme.com/", 0)
    frontier.add("https://acme.com/about", 1)
    assert [frontier.next()[0], frontier.next()[0]] == ["https://acme.com/", "https://acme.com/about"]
    assert frontier.next() is None
    assert frontier.skipped["budget"] == 1


def test_frontier_obeys_robots():
    robots = parse_robots("User-agent: *\nDisallow: /private/\n")
    frontier = _frontier(robots=robots)
    assert not frontier.add("https://acme.com/private/x", 1)
    assert frontier.skipped == {"robots": 1}
