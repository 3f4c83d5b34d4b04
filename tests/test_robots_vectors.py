"""robots.txt handling (protego + our decoding) on crawler-commons' real files, read in place."""

import pytest
from conftest import CORPORA_MISSING, VECTORS

from ingest.crawl.discover import parse_robots

if CORPORA_MISSING:
    pytest.skip(CORPORA_MISSING, allow_module_level=True)

ROBOTS = VECTORS / "crawler-commons" / "robots"


def _robots(name):
    return parse_robots((ROBOTS / name).read_bytes())


@pytest.mark.parametrize("path", sorted(ROBOTS.iterdir()), ids=lambda p: p.name)
def test_every_file_parses(path):
    robots = parse_robots(path.read_bytes())
    robots.can_fetch("https://example.com/some/page", "sitekb")


@pytest.mark.parametrize(
    "name", ["robots-with-utf8-bom.txt", "robots-with-utf16le-bom.txt", "robots-with-utf16be-bom.txt"]
)
def test_byte_order_marks(name):
    text = (ROBOTS / name).read_bytes()
    robots = parse_robots(text)
    plain = parse_robots((ROBOTS / "robots-with-utf8-bom.txt").read_bytes()[3:])
    probes = ["https://e.com/", "https://e.com/login.aspx", "https://e.com/profile", "https://e.com/a/output/print"]
    assert [robots.can_fetch(u, "sitekb") for u in probes] == [plain.can_fetch(u, "sitekb") for u in probes]
    # The first line's "User-agent: *" was read, not lost behind the BOM.
    assert [robots.can_fetch(u, "sitekb") for u in probes] == [True, False, False, False]


def test_longest_match_wins():
    robots = _robots("rfc9309-example-longest-match-robots.txt")
    assert not robots.can_fetch("https://e.com/example/page/disallowed.gif", "foobot")
    assert robots.can_fetch("https://e.com/example/page/", "foobot")


def test_groups_for_the_same_agent_merge():
    robots = _robots("rfc9309-example-rule-group-merging.txt")
    assert not robots.can_fetch("https://e.com/foo", "ExampleBot")
    assert not robots.can_fetch("https://e.com/baz", "ExampleBot")
    assert robots.can_fetch("https://e.com/baz", "OtherBot")


def test_crawl_delay_is_per_agent():
    robots = _robots("crawl-delay-group-merging.txt")
    assert robots.crawl_delay("mybot") == 10
    assert robots.crawl_delay("otherbot") == 30
    assert not robots.can_fetch("https://e.com/login/", "yourbot")


@pytest.mark.xfail(
    strict=True,
    reason="protego ends a group at Crawl-delay, RFC 9309 2.2.4 says other records "
    "must not; mybot should share yourbot's Disallow rules",
)
def test_crawl_delay_does_not_split_a_group():
    robots = _robots("crawl-delay-group-merging.txt")
    assert not robots.can_fetch("https://e.com/private/", "mybot")


def test_our_user_agent_string_matches_its_product_token():
    robots = parse_robots("User-agent: sitekb\nDisallow: /private/\n")
    assert not robots.can_fetch("https://e.com/private/a", "sitekb/0.1 (knowledge-base crawler for voice assistants)")


def test_sitemaps_listed_relative_and_duplicated():
    assert list(_robots("relative-sitemap-robots.txt").sitemaps) == ["/sitemap.xml"]
    assert len(set(_robots("sitemap-robots-dedup.txt").sitemaps)) == 1


def test_wildcards():
    robots = _robots("wildcards.txt")
    assert not robots.can_fetch("https://www.amazon.com/gp/cart/view.html", "sitekb")
    assert robots.can_fetch("https://www.amazon.com/gp/help/", "sitekb")
