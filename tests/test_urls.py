import pytest

from ingest.crawl.urls import Scope, normalize_url, page_key, prefix_of, site_host
from ingest.settings import load_exclusions


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("HTTP://Example.COM:80/a/./b/../c", "http://example.com/a/c"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com/%7euser/%2fx", "https://example.com/~user/%2Fx"),
        ("https://example.com/p?b=2&a=1#frag", "https://example.com/p?a=1&b=2"),
        ("https://example.com/p?utm_source=x&fbclid=y&id=3", "https://example.com/p?id=3"),
        ("https://example.com/Path/Case", "https://example.com/Path/Case"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),  # the port once, not twice
        ("http://[2001:DB8::1]:80/x", "http://[2001:db8::1]/x"),
    ],
)
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


@pytest.mark.parametrize(
    "url, excluded",
    [
        ("https://acme.com/admin/", True),
        ("https://acme.com/wp-admin/edit.php", True),
        ("https://acme.com/giris", True),
        ("https://acme.com/sepet/", True),
        ("https://acme.com/shop?sort=price", True),
        ("https://acme.com/2024/05/", True),
        ("https://acme.com/community/procedures/administratives/", False),
        ("https://acme.com/cartography/", False),
        ("https://acme.com/rooms/", False),
    ],
)
def test_exclusions_match_whole_segments(url, excluded):
    scope = Scope.from_config("https://acme.com/", load_exclusions())
    assert (scope.exclusion_reason(url) == "excluded_pattern") is excluded


def test_the_spellings_a_static_host_serves_one_file_under_are_one_page():
    spellings = ["/catalogo", "/catalogo/", "/catalogo.html", "/catalogo/index.html", "/catalogo/index.htm"]
    assert len({page_key("https://a.com" + s) for s in spellings}) == 1
    assert page_key("https://a.com/") == page_key("https://a.com/index.html")
    assert page_key("https://a.com/catalogo?p=2") != page_key("https://a.com/catalogo")
    assert page_key("https://a.com/catalogo/precios") != page_key("https://a.com/catalogo")


@pytest.mark.parametrize(
    "requested, final, prefix",
    [
        ("https://user.github.io/", "https://user.github.io/en/", "/"),  # a redirect to a language is not a folder
        ("https://user.github.io/shop/", "https://user.github.io/shop/", "/shop/"),
        ("https://user.github.io/shop", "https://user.github.io/shop/", "/shop/"),
        ("https://acme.com/index.html", "https://acme.com/index.html", "/"),
        ("https://acme.com/en/about", "https://acme.com/en/about", "/"),  # a page, not a folder
    ],
)
def test_a_site_lives_under_the_folder_its_address_names(requested, final, prefix):
    assert prefix_of(requested, final) == prefix


def test_a_folder_whose_page_links_around_its_host_is_a_section_of_a_larger_site():
    section = (
        "https://www.acme.com/",
        "https://acme.com/services/",
        "https://acme.com/contact/",
        "https://acme.com/about-us/team/",
    )
    assert prefix_of("https://acme.com/about-us/", "https://acme.com/about-us/", section) == "/"
    project = ("https://user.github.io/", "https://user.github.io/shop/kettles/", "https://other.example/x/")
    assert prefix_of("https://user.github.io/shop/", "https://user.github.io/shop/", project) == "/shop/"


def test_a_site_under_a_folder_is_that_folder_and_takes_other_hosts_paths_into_it():
    scope = Scope.from_config("https://user.github.io/", load_exclusions(), prefix="/shop/")
    assert scope.home == "https://user.github.io/shop/" and scope.label == "user.github.io/shop"
    assert scope.in_site("https://user.github.io/shop/kettles/") and scope.in_site("https://user.github.io/shop")
    assert not scope.in_site("https://user.github.io/blog/") and not scope.in_site("https://user.github.io/shopping/")
    assert scope.on_host("https://user.github.io/blog/")
    assert scope.rehost("http://localhost:1313/kettles/?a=1") == "https://user.github.io/shop/kettles/?a=1"
    assert scope.rehost("https://code.example/shop/kettles/") == "https://user.github.io/shop/kettles/"
    assert scope.exclusion_reason("https://user.github.io/shop/cart/") == "excluded_pattern"


def test_sitemap_urls_on_an_unrelated_host_are_moved_here_and_on_a_related_one_are_not():
    scope = Scope.from_config("https://acme.com/", load_exclusions())
    assert scope.listed(scope.normalize("https://www.acme.com/a/")) == "https://acme.com/a/"
    assert scope.listed("http://localhost:1313/a/") == "https://acme.com/a/"
    assert scope.listed("https://acme.netlify.app/a/?p=1") == "https://acme.com/a/?p=1"
    assert scope.listed("https://blog.acme.com/post/") is None  # a site of its own
    assert scope.listed(None) is None
