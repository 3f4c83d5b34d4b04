"""Sites that get their own signals wrong (scripts/quirk_sites.py), crawled on 127.0.0.1:
a canonical link, a clean URL, a path prefix, a sitemap's host, a refresh stub or an
hreflang link never costs a page with content, and each mistake is reported."""

from __future__ import annotations

from collections import Counter
from urllib.parse import unquote, urlsplit

import pytest
from conftest import stored_payloads
from quirk_sites import HOST, build_site, page, prose
from serve_site import StaticSite

from ingest.cli import main
from ingest.kb.state import StateStore
from ingest.pipeline import run
from ingest.settings import load_settings
from retrieval.search import Searcher


class Crawl:
    """A quirk site served on 127.0.0.1 and ingested into a fresh data folder."""

    def __init__(self, name: str, tmp_path, monkeypatch) -> None:
        self.folder = tmp_path / name
        self.quirk = build_site(name, self.folder)
        self.site = StaticSite(self.folder, rewrite_hosts=(HOST.split("://")[1],)).__enter__()
        monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path / "data"))
        monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        self.data = tmp_path / "data"

    def run(self, business: str | None = "quirk"):
        from ingest.settings import load_settings

        self.settings = load_settings()
        self.report = run(self.site.base + self.quirk.start, self.settings, business=business)
        return self.report

    def chunk_paths(self, business: str = "quirk") -> Counter:
        """Path of each page with chunks -> its number of chunks."""
        state = StateStore(self.settings.state_location)
        try:
            return Counter(
                unquote(urlsplit(c.url).path)
                for s in state.sources.of(business)
                for c in state.chunks.of(s.id).values()
                if "#" not in c.url
            )
        finally:
            state.close()

    def texts(self, business: str = "quirk") -> list[str]:
        return [p["text"] for p in stored_payloads(self.settings, business)]

    def requests(self, predicate=lambda path, status: True) -> list[tuple[str, int]]:
        return [(p, s) for p, s in self.site.log if predicate(p, s)]

    def close(self) -> None:
        self.site.__exit__()


@pytest.fixture
def crawl(tmp_path, monkeypatch):
    opened: list[Crawl] = []

    def make(name: str) -> Crawl:
        opened.append(Crawl(name, tmp_path, monkeypatch))
        return opened[-1]

    yield make
    for c in opened:
        c.close()


def test_canonicals_to_the_homepage_keep_every_page_and_are_reported(crawl, capsys):
    c = crawl("canonical-home")
    report = c.run()
    pages = c.chunk_paths()
    real = [
        p
        for p in (f.parent.relative_to(c.folder).as_posix() for f in c.folder.rglob("index.html"))
        if not p.startswith("print")
    ]
    assert len(real) == 39  # the homepage, two language overviews, 36 service pages
    assert sorted(pages) == sorted("/" if p == "." else f"/{p}/" for p in real)
    # The print copy names its original, which was read with the same text: one copy stays.
    assert report.pages.skipped["canonical_elsewhere"] == 1
    assert "/print/boiler/" not in pages
    assert report.misconfigured == {"canonical_homepage": 38}
    warning = next(w for w in report.warnings if "canonical" in w)
    assert warning.startswith("38 pages name a canonical URL") and "point to the homepage" in warning
    assert main(["status", "--business", "quirk"]) == 0
    assert "warning: 38 pages name a canonical URL" in capsys.readouterr().out
    again = c.run()  # a resync obeys the same rule: nothing moves, nothing is paid twice
    assert (again.chunks.added, again.chunks.deleted, again.embedding.calls) == (0, 0, 0)


def test_clean_urls_are_one_page_whichever_spelling_the_links_use(crawl):
    c = crawl("clean-urls")
    report = c.run()
    pages = c.chunk_paths()
    names = ["catalogo", "precios", "contacto", "horarios", "garantia", "envios"]
    for name in names:
        spellings = [p for p in pages if p.strip("/").removesuffix(".html") == name]
        assert len(spellings) == 1, (name, spellings)
        served = c.requests(lambda p, s, name=name: p.strip("/").removesuffix(".html") == name and s == 200)
        assert len(served) == 1, (name, served)  # read once, not once per spelling
    texts = "\n".join(c.texts())
    for i, name in enumerate(names):
        assert texts.count(prose(name, (i + 1) * 10)) == 1
    assert report.pages.skipped.get("same_page", 0) >= 6 and "duplicate" not in report.pages.skipped


def test_canonical_and_hreflang_without_the_slash_cause_no_redirects_and_translations_are_linked(crawl):
    c = crawl("trailing-slash")
    c.run()
    assert c.requests(lambda p, s: s == 301) == []
    assert set(c.chunk_paths()) == {"/", "/about/", "/prices/", "/de/", "/de/ueber-uns/", "/de/preise/"}
    before = len(c.site.log)
    again = c.run()
    assert [s for _, s in c.site.log[before:] if s not in (200, 304, 404)] == []  # no redirect churn
    assert (again.chunks.added, again.chunks.deleted) == (0, 0)
    state = StateStore(c.settings.state_location)
    try:
        alternates = state.pages.alternates(state.sources.of("quirk")[0].id)
    finally:
        state.close()
    base = c.site.base
    assert alternates[f"{base}/about/"] == {"de": f"{base}/de/ueber-uns/"}
    assert alternates[f"{base}/de/ueber-uns/"] == {"en": f"{base}/about/"}


def test_a_site_under_a_path_prefix_is_that_folder(crawl):
    c = crawl("path-prefix")
    report = c.run(business=None)
    assert report.business == "127.0.0.1/shop"
    assert set(c.chunk_paths("127.0.0.1/shop")) == {
        "/shop/",
        *(f"/shop/{i}/" for i in ("kettles", "toasters", "grinders", "scales", "timers")),
    }
    assert c.requests(lambda p, s: p.startswith("/blog")) == []
    assert ("/shop/sitemap.xml", 200) in c.site.log


def test_a_sitemap_naming_another_host_is_read_on_this_one(crawl):
    c = crawl("sitemap-other-host")
    report = c.run()
    names = ["installation", "maintenance", "emergency", "financing", "careers-in-heating", "references"]
    assert set(c.chunk_paths()) == {"/", *(f"/{n}/" for n in names)}  # the homepage links to one of them
    assert report.misconfigured == {"sitemap_other_host": 7}
    assert any("localhost:1313" in w and "7 entries" in w for w in report.warnings)


def test_refresh_stubs_are_redirects_inside_the_site_and_skipped_when_they_leave(crawl):
    c = crawl("refresh-stubs")
    report = c.run()
    assert set(c.chunk_paths()) == {"/en/", "/en/prices/", "/en/team/"}
    assert report.pages.skipped.get("offsite_redirect") == 1  # /partner/ sends readers to another site
    assert not any("has moved" in t for t in c.texts())
    assert c.requests(lambda p, s: p == "/en/prices/" and s == 200) == [("/en/prices/", 200)]


def test_translations_reached_only_through_hreflang_are_kept_and_linked(crawl):
    c = crawl("hreflang")
    c.run()
    pages = c.chunk_paths()
    assert {"/de/", "/de/oeffnungszeiten/", "/de/preise/", "/de/notdienst/"} <= set(pages)
    state = StateStore(c.settings.state_location)
    try:
        alternates = state.pages.alternates(state.sources.of("quirk")[0].id)
    finally:
        state.close()
    assert alternates[f"{c.site.base}/prices/"] == {"de": f"{c.site.base}/de/preise/"}
    assert alternates[f"{c.site.base}/de/preise/"] == {"en": f"{c.site.base}/prices/"}


def test_a_page_and_its_translation_take_one_slot_in_the_questions_language(crawl):
    c = crawl("hreflang")
    c.run()
    translated = {f"/{en}/": f"/de/{de}/" for en, de in (("prices", "preise"), ("opening-hours", "oeffnungszeiten"))}

    def page(url: str) -> str:  # the contact card (#contact-card) and site-wide passages are no version of a page
        parts = urlsplit(url)
        return parts.path + (f"#{parts.fragment}" if parts.fragment else "")

    with Searcher(c.settings) as searcher:
        german = [page(h.url) for h in searcher.search("quirk", "Was kosten die Preise bei euch?", 10)]
        english = [page(h.url) for h in searcher.search("quirk", "What are your prices?", 10)]
    for en, de in translated.items():
        assert en not in german and de not in english  # never both: one slot, in the question's language
    assert "/de/preise/" in german[:3] and "/prices/" in english[:3]


def test_noindex_is_obeyed_and_a_rule_taking_most_pages_warns(crawl):
    c = crawl("noindex-majority")
    report = c.run()
    assert set(c.chunk_paths()) == {"/", "/team/", "/history/"}
    assert report.pages.skipped["noindex"] == 5
    assert "the noindex rule took away 5 of 8 pages with content (62%; e.g. /about/, /contact/)" in report.warnings[0]


def test_the_guard_names_a_rule_only_when_it_takes_much(crawl):
    c = crawl("hreflang")
    report = c.run()
    assert report.warnings == [] and report.misconfigured == {}


def test_a_rule_that_empties_the_site_is_named_in_the_problem(site_dir_server, settings, capsys):
    names = ["about", "services", "prices", "contact"]
    for i, name in enumerate(["", *names]):
        folder = site_dir_server.root_dir / name
        folder.mkdir(exist_ok=True)
        (folder / "index.html").write_text(
            page(
                name or "Home",
                f"<p>{prose(name or 'home', i)}</p>",
                head='<meta name="robots" content="noindex">',
                nav=tuple(f"/{n}/" for n in names),
            )
        )
    assert main(["run", site_dir_server.base + "/", "--business", "staging"]) == 2
    err = capsys.readouterr().err
    assert "empty" in err and "the noindex rule took away 5 of 5 pages with content" in err


def _write_pages(root, pages: dict[str, str]) -> None:
    for path, html in pages.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(html)


def _chunk_paths(settings, business: str) -> Counter:
    state = StateStore(settings.state_location)
    try:
        return Counter(
            urlsplit(c.url).path
            for s in state.sources.of(business)
            for c in state.chunks.of(s.id).values()
            if "#" not in c.url
        )
    finally:
        state.close()


def test_a_spelling_that_fails_for_a_while_leaves_no_second_copy(site_dir_server, settings):
    nav = ("/", "/svc", "/svc.html", "/team/")
    _write_pages(
        site_dir_server.root_dir,
        {
            "index.html": page("Home", f"<p>{prose('home', 1)}</p>", nav=nav),
            "svc.html": page("Service", f"<p>{prose('service', 2)}</p>", nav=nav),
            "team/index.html": page("Team", f"<p>{prose('team', 3)}</p>", nav=nav),
        },
    )
    run(site_dir_server.base + "/", settings, business="b")
    first = _chunk_paths(settings, "b")
    chosen = next(p for p in first if p.startswith("/svc"))
    site_dir_server.status_overrides[chosen] = 503  # the page's spelling fails this run
    during = run(site_dir_server.base + "/", settings, business="b")
    assert _chunk_paths(settings, "b") == first and during.chunks.deleted == 0
    del site_dir_server.status_overrides[chosen]
    after = run(site_dir_server.base + "/", settings, business="b")
    assert _chunk_paths(settings, "b") == first and (after.chunks.added, after.chunks.deleted) == (0, 0)


def test_a_page_gone_under_one_spelling_is_read_under_the_next(site_dir_server, settings):
    root = site_dir_server.root_dir
    _write_pages(root, {"index.html": page("Home", f"<p>{prose('home', 1)}</p>", nav=("/", "/info/"))})
    run(site_dir_server.base + "/", settings, business="b")  # /info/ answers 404 and is remembered
    _write_pages(
        root,
        {
            "index.html": page("Home", f"<p>{prose('home', 1)}</p>", nav=("/", "/info/", "/info.html")),
            "info.html": page("Info", f"<p>{prose('opening hours', 2)}</p>"),
        },
    )
    site_dir_server.status_overrides["/info/"] = 404  # a host that serves /info only as /info.html
    run(site_dir_server.base + "/", settings, business="b")
    assert "/info.html" in _chunk_paths(settings, "b")


def test_a_page_turned_into_a_stub_or_a_redirect_gives_its_chunks_to_the_target(site_dir_server, settings):
    root = site_dir_server.root_dir
    nav = ("/", "/old/", "/new/", "/moved")
    _write_pages(
        root,
        {
            "index.html": page("Home", f"<p>{prose('home', 1)}</p>", nav=nav),
            "old/index.html": page("Old prices", f"<p>{prose('prices', 2)}</p>", nav=nav),
            "new/index.html": page("New prices", f"<p>{prose('prices', 3)}</p>", nav=nav),
            "moved/index.html": page("Moved", f"<p>{prose('team', 4)}</p>", nav=nav),
        },
    )
    run(site_dir_server.base + "/", settings, business="b")
    assert {"/old/", "/moved/"} <= set(_chunk_paths(settings, "b"))
    (root / "old" / "index.html").write_text(
        '<html><head><meta http-equiv="refresh" content="0; url=/new/">'
        "</head><body><p>This page has moved.</p></body></html>"
    )
    report = run(site_dir_server.base + "/", settings, business="b")
    assert set(_chunk_paths(settings, "b")) == {"/", "/new/", "/moved/"}
    assert report.chunks.deleted >= 1


def test_a_canonical_off_the_site_is_shown_whole_in_the_warning(site_dir_server, settings):
    nav = ("/", "/prices/", "/team/", "/faq/")
    for i, path in enumerate(nav):
        folder = site_dir_server.root_dir / path.strip("/")
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "index.html").write_text(
            page(
                path.strip("/") or "Home",
                f"<p>{prose(path or 'home', i)}</p>",
                nav=nav,
                head='<link rel="canonical" href="https://production.example/">',
            )
        )
    report = run(site_dir_server.base + "/", settings, business="b")
    assert report.misconfigured == {"canonical_offsite": 4}
    assert "(e.g. / -> https://production.example/, /faq/ -> https://production.example/)" in report.warnings[0]


def test_a_made_document_the_run_no_longer_makes_leaves_with_its_chunks(site_dir_server, settings):
    """The site-wide document and the contact card are rebuilt by every run; when the
    footer that fed them is gone, so are their chunks."""
    footer = (
        '<footer><p>Harbour Bakery, open daily</p><p>Call <a href="tel:+441736555019">01736 555019</a></p></footer>'
    )

    def site(with_footer: bool) -> dict[str, str]:
        nav = '<nav><a href="/">Home</a> <a href="/bread/">Bread</a> <a href="/cakes/">Cakes</a> <a href="/about/">About</a></nav>'
        return {
            f"{path}index.html": f"<html><body>{nav}<main><h1>{name}</h1><p>{prose(name, i)}</p></main>"
            f"{footer if with_footer else ''}</body></html>"
            for i, (path, name) in enumerate(
                (("", "home"), ("bread/", "bread"), ("cakes/", "cakes"), ("about/", "about"))
            )
        }

    _write_pages(site_dir_server.root_dir, site(with_footer=True))
    run(site_dir_server.base + "/", settings, business="m")
    made = {url.split("#")[1] for url in _all_chunk_urls(settings, "m") if "#" in url}
    assert made == {"site-wide", "contact-card"}
    _write_pages(site_dir_server.root_dir, site(with_footer=False))
    after = run(site_dir_server.base + "/", settings, business="m")
    assert not [url for url in _all_chunk_urls(settings, "m") if "#" in url] and after.facts == {}


def _all_chunk_urls(settings, business: str) -> list[str]:
    state = StateStore(settings.state_location)
    try:
        return [c.url for s in state.sources.of(business) for c in state.chunks.of(s.id).values()]
    finally:
        state.close()


def test_a_page_over_its_extraction_budget_is_skipped_and_the_crawl_goes_on(site_dir_server, settings):
    nav = ("/", "/menu/", "/about/")
    pages = {
        "index.html": page("Home", f"<p>{prose('home', 1)}</p>", nav=nav),
        "about/index.html": page("About", f"<p>{prose('about', 2)}</p>", nav=nav),
        # 2 MB of dense markup: seconds of extraction, well past a 0.3 s budget.
        "menu/index.html": page("Menu", "<div><span>x</span> <b>y</b></div>" * 60_000, nav=nav),
    }
    _write_pages(site_dir_server.root_dir, pages)
    report = run(site_dir_server.base + "/", load_settings(page_budget_s=0.3), business="slow")
    assert report.problem is None and report.pages.skipped.get("too_slow") == 1
    assert set(_chunk_paths(settings, "slow")) == {"/", "/about/"}


def test_pages_that_say_they_are_missing_are_not_indexed(site_dir_server, settings):
    """A missing page answered with 200 and "page not found", or a theme's "Oops! That
    page can't be found.": no passage of it, and a page that turns into one loses its
    chunks on the next run."""
    names = ["about", "services", "prices", "contact"]
    pages = {
        f"{name or 'index'}/index.html" if name else "index.html": page(
            name or "Home", f"<p>{prose(name or 'home', i)}</p>", nav=tuple(f"/{n}/" for n in names)
        )
        for i, name in enumerate(["", *names])
    }
    pages["tags/index.html"] = "page not found"
    pages["offer/index.html"] = page(
        "Page not found – Harbourlight",
        "<h1>Oops! That page can’t be found.</h1><p>It looks like nothing was found here. Try a search?</p>",
        nav=("/tags/",),
    )
    pages["about/index.html"] = pages["about/index.html"].replace("</main>", '<a href="/offer/">x</a></main>')
    _write_pages(site_dir_server.root_dir, pages)
    report = run(site_dir_server.base + "/", settings, business="soft")
    paths = _chunk_paths(settings, "soft")
    assert report.pages.skipped["soft_404"] == 2
    assert "/tags/" not in paths and "/offer/" not in paths and paths["/prices/"] > 0
    _write_pages(site_dir_server.root_dir, {"prices/index.html": page("404", "<h1>Error 404</h1><p>Not found.</p>")})
    report = run(site_dir_server.base + "/", settings, business="soft")
    assert report.pages.skipped["soft_404"] == 3 and "/prices/" not in _chunk_paths(settings, "soft")
