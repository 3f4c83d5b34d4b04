import pytest

from ingest.settings import load_exclusions
from ingest.urls import Scope, normalize_url, site_host


@pytest.mark.parametrize("raw, expected", [
    ("HTTP://Example.COM:80/a/./b/../c", "http://example.com/a/c"),
    ("https://example.com:443", "https://example.com/"),
    ("https://example.com/%7euser/%2fx", "https://example.com/~user/%2Fx"),
    ("https://example.com/p?b=2&a=1#frag", "https://example.com/p?a=1&b=2"),
    ("https://example.com/p?utm_source=x&fbclid=y&id=3", "https://example.com/p?id=3"),
    ("https://example.com/Path/Case", "https://example.com/Path/Case"),
    ("https://example.com:8443/x", "https://example.com:8443/x"),
])
def test_normalize(raw, expected):
    assert normalize_url(raw, tracking_params=frozenset({"fbclid"})) == expected


@pytest.mark.parametrize("raw", ["mailto:a@b.com", "javascript:void(0)", "ftp://x.com/", "http://", "tel:+441234"])
def test_non_http_urls_are_rejected(raw):
    assert normalize_url(raw) is None


def test_relative_links_resolve_against_the_final_url():
    assert normalize_url("../b", base="https://x.com/a/c/") == "https://x.com/a/b"


def test_apex_and_www_are_one_site_and_one_page():
    scope = Scope.from_config("https://www.acme.com/", load_exclusions())
    assert site_host("WWW.acme.com") == "acme.com"
    assert scope.in_site("https://acme.com/about")
    assert scope.normalize("http://acme.com/about") == scope.normalize("https://www.acme.com/about")
    assert not scope.in_site("https://accounts.google.com/")


@pytest.mark.parametrize("url, excluded", [
    ("https://acme.com/admin/", True),
    ("https://acme.com/wp-admin/edit.php", True),
    ("https://acme.com/giris", True),
    ("https://acme.com/sepet/", True),
    ("https://acme.com/shop?sort=price", True),
    ("https://acme.com/2024/05/", True),
    ("https://acme.com/community/procedures/administratives/", False),
    ("https://acme.com/cartography/", False),
    ("https://acme.com/rooms/", False),
])
def test_exclusions_match_whole_segments(url, excluded):
    scope = Scope.from_config("https://acme.com/", load_exclusions())
    assert (scope.exclusion_reason(url) == "excluded_pattern") is excluded
