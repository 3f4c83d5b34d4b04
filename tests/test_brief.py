"""Business brief (issue #8): page kinds, tie-breaks, budgets, sitemap summary."""

import pytest

from ingest.brief import (
    MAX_SECTIONS,
    SAMPLE_PATHS,
    child_preference,
    choose_pages,
    load_page_kinds,
    page_kind,
    page_text,
    path_language,
    summarize_sitemap,
)

KINDS = load_page_kinds()
B = "https://acme.com"


@pytest.mark.parametrize(
    "path, kind",
    [
        ("/about/", "about"),
        ("/company/our-story/", "about"),
        ("/quienes-somos/", "about"),
        ("/hakkimizda", "about"),
        ("/shop/", "products"),
        ("/collections/summer/", "products"),
        ("/menu.html", "products"),
        ("/urunler/", "products"),
        ("/services/", "services"),
        ("/servicios/", "services"),
        ("/hizmetlerimiz/", "services"),
        ("/pricing/", "pricing"),
        ("/precios/", "pricing"),
        ("/fiyatlar/", "pricing"),
        ("/contact-us/", "contact"),
        ("/iletisim/", "contact"),
        ("/kontakt/", "contact"),
        ("/faq/", "faq"),
        ("/preguntas-frecuentes/", "faq"),
        ("/sss/", "faq"),
        ("/history/", None),
        ("/insights/api-servicios/", None),
        ("/careers/", None),
        ("/cookie-policy/", None),
    ],
)
def test_page_kind_patterns_match_whole_segments(path, kind):
    assert page_kind(B + path, KINDS) == kind


def test_one_page_per_kind_in_priority_order_at_most_five():
    links = [f"{B}/{p}/" for p in ("faq", "contact", "pricing", "services", "shop", "about", "about-us", "careers")]
    chosen = choose_pages(links, [], KINDS)
    assert [kind for kind, _ in chosen] == ["about", "products", "services", "pricing", "contact"]


def test_tie_break_depth_first():
    chosen = dict(choose_pages([f"{B}/en/business/pricing/"], [f"{B}/pricing/"], KINDS))
    assert chosen["pricing"] == f"{B}/pricing/"  # the sitemap's shallower page beats a homepage link


def test_key_pages_in_the_homepage_language_first():
    links = [f"{B}/de/preise/", f"{B}/en/pricing/", f"{B}/de/ueber-uns/", f"{B}/about/"]
    assert dict(choose_pages(links, [], KINDS, language="en")) == {
        "pricing": f"{B}/en/pricing/",
        "about": f"{B}/about/",
    }
    assert dict(choose_pages(links, [], KINDS, language="de"))["pricing"] == f"{B}/de/preise/"
    assert dict(choose_pages(links, [], KINDS))["pricing"] == f"{B}/de/preise/"  # no language: shorter path


def test_path_language_reads_only_a_language_folder():
    assert [path_language(f"{B}{p}") for p in ("/de/preise/", "/en-us/", "/pt_BR/x", "/us/", "/go/", "/")] == [
        "de",
        "en",
        "pt",
        None,
        None,
        None,
    ]


def test_tie_break_linked_from_home_second():
    chosen = dict(choose_pages([f"{B}/rates/"], [f"{B}/prices/"], KINDS))
    assert chosen["pricing"] == f"{B}/rates/"


def test_tie_break_shorter_path_third():
    chosen = dict(choose_pages([f"{B}/price-list/", f"{B}/fees/"], [], KINDS))
    assert chosen["pricing"] == f"{B}/fees/"


def test_homepage_is_not_a_key_page():
    assert choose_pages([f"{B}/about/"], [], KINDS, homepage=f"{B}/about/") == []


def test_seen_lines_are_read_once_and_budgets_hold():
    seen: set[str] = set()
    nav = ["Home", "About", "Prices", "Contact"]
    home = page_text(nav + ["Welcome to Acme, bakers since 1987."], seen, 8000)
    assert home.startswith("Home\nAbout")
    about = page_text(nav + ["We bake with a wood oven."], seen, 5000)
    assert about == "We bake with a wood oven."
    long = page_text([f"line {i} " + "x" * 90 for i in range(200)], seen, 5000)
    assert 4900 < len(long) <= 5000


def test_round_robin_sample_leaves_the_blog():
    urls = (
        [f"{B}/blog/post-{i}/" for i in range(3000)]
        + [f"{B}/shop/item-{i}/" for i in range(900)]
        + [f"{B}/about/", f"{B}/contact/"]
        + [f"{B}/services/s-{i}/" for i in range(98)]
    )
    summary = summarize_sitemap(urls)
    assert summary.total_urls == 4000 and len(summary.sample_paths) == SAMPLE_PATHS
    assert summary.sections[0].section == "/blog/" and summary.sections[0].urls == 3000
    sampled_sections = {p.split("/")[1] for p in summary.sample_paths}
    assert {"blog", "shop", "services", "about", "contact"} <= sampled_sections
    assert sum(p.startswith("/blog/") for p in summary.sample_paths) < 60


def test_wordpress_posts_at_the_top_level_do_not_flood_the_summary():
    urls = [f"{B}/{slug}-{i}/" for i, slug in enumerate(["my-post"] * 2000)] + [f"{B}/shop/a/", f"{B}/shop/b/"]
    summary = summarize_sitemap(urls)
    assert summary.total_urls == 2002
    assert len(summary.sections) == MAX_SECTIONS and summary.sections[0].section == "/shop/"


def test_index_children_by_preference():
    children = [
        "https://a.com/post-sitemap.xml",
        "https://a.com/misc.xml",
        "https://a.com/product-sitemap.xml",
        "https://a.com/author-sitemap.xml",
        "https://a.com/page-sitemap.xml",
    ]
    ordered = sorted(children, key=child_preference)
    assert ordered[:2] == ["https://a.com/product-sitemap.xml", "https://a.com/page-sitemap.xml"]
    assert ordered[2] == "https://a.com/misc.xml"
