import gzip

from conftest import VECTORS, needs_corpora

from ingest.crawl.discover import Frontier, parse_robots, parse_sitemap
from ingest.crawl.urls import Scope
from ingest.settings import load_exclusions

SITEMAPS = VECTORS / "crawler-commons" / "sitemaps"


@needs_corpora
def test_xml_sitemap_keeps_lastmod():
    sitemap = parse_sitemap((SITEMAPS / "xmlSitemap.gz").read_bytes())
    assert len(sitemap.pages) == 5
    assert sitemap.pages[0].lastmod == "2005-01-01"


@needs_corpora
def test_sitemap_variants_from_the_vectors():
    assert len(parse_sitemap((SITEMAPS / "sitemap.badns.xml").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap.ns.xml").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap-with-bom.txt").read_bytes()).pages) == 2
    assert len(parse_sitemap((SITEMAPS / "sitemap.txt.gz").read_bytes()).pages) == 5


@needs_corpora
def test_sitemap_index_children_even_without_loc():
    index = parse_sitemap((SITEMAPS / "sitemap.index.xml").read_bytes())
    assert index.pages == ()
    assert index.children and all(c.startswith("https://example.com/sitemap.jss") for c in index.children)


def test_gzip_xml_index():
    body = gzip.compress(
        b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        b"<sitemap><loc>https://a.com/s1.xml</loc></sitemap></sitemapindex>"
    )
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


@needs_corpora
def test_feeds_and_sitemap_extensions_from_the_vectors():
    atom = parse_sitemap((SITEMAPS / "atom.xml").read_bytes())
    assert [p.url for p in atom.pages] == ["http://example.org/2003/12/13/atom03"]
    images = parse_sitemap((SITEMAPS / "extension" / "sitemap-images.xml").read_bytes())
    assert [p.url for p in images.pages] == ["http://www.example.com/images/some_image_landing_page.html"]
    links = parse_sitemap((SITEMAPS / "extension" / "sitemap-links.xml").read_bytes())
    urls = [p.url for p in links.pages]
    assert "http://www.example.com/deutsch/" in urls and len(urls) == len(set(urls))  # hreflang pages, once each
    for name in ("sitemap-news.xml", "sitemap-videos.xml", "sitemap-mobile.xml", "pagemaps-sitemap.xml"):
        pages = parse_sitemap((SITEMAPS / "extension" / name).read_bytes()).pages
        assert pages and all(p.url.startswith("http") and not p.url.endswith((".jpg", ".png")) for p in pages), name


def test_rss_items_are_pages():
    rss = b"""<rss version="2.0"><channel><title>x</title><link>https://a.com/</link>
    <item><title>Post</title><link>https://a.com/post-1</link><pubDate>Tue, 10 Jun 2025</pubDate></item></channel></rss>"""
    assert [p.url for p in parse_sitemap(rss).pages] == ["https://a.com/post-1"]


def test_recent_lastmod_earns_a_priority_bonus():
    from datetime import datetime

    from ingest.crawl.discover import lastmod_bonus

    now = datetime(2026, 11, 30)
    assert lastmod_bonus("2026-10-01", now) == 1
    assert lastmod_bonus("2026-10-01T12:00:00+00:00", now) == 1
    assert lastmod_bonus("2019-01-01", now) == 0
    assert lastmod_bonus("not a date", now) == 0 and lastmod_bonus(None, now) == 0


def test_discovery_limit_is_four_times_the_page_budget():
    frontier = _frontier(max_pages=3)
    admitted = sum(frontier.add(f"https://acme.com/p{i}", 1) for i in range(30))
    assert admitted == 12 and frontier.skipped["discovery_limit"] == 18


def test_byte_budget_stops_admission():
    frontier = _frontier(max_pages=10)
    frontier.max_bytes = 1000
    frontier.add("https://acme.com/a", 1)
    frontier.add("https://acme.com/b", 1)
    assert frontier.next() is not None
    frontier.bytes_spent = 1500
    assert frontier.next() is None and frontier.skipped["budget_bytes"] == 1


def test_crawl_monitor_flags_a_rate_that_does_not_fall():
    from ingest.crawl.discover import CrawlMonitor

    finite, endless = CrawlMonitor(), CrawlMonitor()
    queued_finite = queued_endless = 0
    for page in range(1, 81):
        queued_finite += 3 if page <= 20 else 0  # a site whose links are all known early
        queued_endless += 1.3 if page % 10 else 0.8
        finite.page_done(queued_finite, 5)
        endless.page_done(int(queued_endless), 50)
    assert finite.trap_warning is None
    assert endless.trap_warning and "not falling" in endless.trap_warning


def test_frontier_fetches_one_spelling_of_a_page_and_the_next_when_it_fails():
    frontier = _frontier()
    assert frontier.add("https://acme.com/catalogo/", 1)
    assert not frontier.add("https://acme.com/catalogo.html", 1)
    assert not frontier.add("https://acme.com/catalogo", 1)
    assert frontier.skipped == {"same_page": 2}
    assert frontier.next() == ("https://acme.com/catalogo/", 1)
    assert frontier.next() is None
    assert frontier.another_spelling("https://acme.com/catalogo/")  # it answered 404
    assert frontier.next() == ("https://acme.com/catalogo.html", 1)
    assert frontier.skipped == {"same_page": 1}


def test_frontier_fetches_the_spelling_a_redirect_names():
    frontier = _frontier()
    assert frontier.add("https://acme.com/about", 1)
    assert not frontier.add("https://acme.com/about/", 1)
    assert frontier.next() == ("https://acme.com/about", 1)
    assert frontier.add("https://acme.com/about/", 1, moved_here=True)  # /about answered 301 to /about/
    assert frontier.next() == ("https://acme.com/about/", 1)
    assert not frontier.add("https://acme.com/about/", 1, moved_here=True)  # never twice


def test_a_redirect_target_obeys_exclusions_robots_and_depth():
    robots = parse_robots("User-agent: *\nDisallow: /private/\n")
    frontier = Frontier(Scope.from_config("https://acme.com/", load_exclusions()), 50, 2, robots, "sitekb")
    for url, depth in [("https://acme.com/cart/", 1), ("https://acme.com/private/", 1), ("https://acme.com/deep/", 3)]:
        assert not frontier.add(url, depth)
        assert not frontier.add(url, depth, moved_here=True), url  # /cart -> /cart/ does not open the door
    assert not frontier.add("https://acme.com/new/", 3, moved_here=True)  # a target never seen: depth holds
    assert frontier.next() is None


def test_a_recent_lastmod_raises_a_url_queued_earlier():
    frontier = _frontier()
    frontier.add("https://acme.com/", 0)
    frontier.add("https://acme.com/a/b/c/", 1)  # from our own memory, before the sitemap is read
    frontier.add("https://acme.com/x/", 1)
    frontier.add("https://acme.com/a/b/c/", 1, bonus=3)  # the sitemap says it changed recently
    assert [frontier.next()[0] for _ in range(3)] == [
        "https://acme.com/",
        "https://acme.com/a/b/c/",
        "https://acme.com/x/",
    ]
    assert frontier.next() is None and len(frontier) == 0


def test_a_spelling_met_after_the_first_one_was_found_gone_is_fetched():
    frontier = _frontier()
    assert frontier.add("https://acme.com/info/", 1)
    assert frontier.next() == ("https://acme.com/info/", 1)
    assert not frontier.another_spelling("https://acme.com/info/")  # 404, and no other spelling yet
    assert frontier.add("https://acme.com/info.html", 1)  # a link read later
    assert not frontier.add("https://acme.com/info", 1)  # waits behind /info.html
    assert frontier.held_back() == {"https://acme.com/info": "https://acme.com/info.html"}
