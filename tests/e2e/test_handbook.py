"""The whole pipeline on a real company website served from 127.0.0.1 (issue #2)."""

from collections import Counter
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup
from conftest import CORPORA_MISSING, HANDBOOK, crawl_env, shared_static_site

from ingest.kb.state import StateStore
from ingest.kb.store import open_store
from ingest.pipeline import run
from retrieval import search

if CORPORA_MISSING:
    pytest.skip(CORPORA_MISSING, allow_module_level=True)


@pytest.fixture(scope="module")
def handbook_runs(tmp_path_factory):
    from ingest.settings import load_settings

    data = tmp_path_factory.mktemp("handbook")
    with crawl_env(data):
        settings = load_settings()
        with shared_static_site()(HANDBOOK, rewrite_hosts=["23people.io"]) as site:
            first = run(site.base + "/", settings, business="handbook")
            second = run(site.base + "/", settings, business="handbook")
            yield settings, first, second


def test_first_run_ingests_every_sitemap_page(handbook_runs):
    _, first, _ = handbook_runs
    assert first.problem is None
    sitemap_pages = (HANDBOOK / "sitemap.xml").read_text().count("<loc>")
    assert sitemap_pages == 165
    assert first.pages.fetched >= sitemap_pages
    assert first.pages.status_counts.get("404", 0) > 0  # the site's broken .md links, counted, not stored
    assert first.chunks.added == first.chunks.total > 500


@pytest.mark.parametrize(
    "query, expected_path",
    [
        ("¿Cuáles son los valores de 23people?", "/about-us/who-we-are/values/"),
        ("seguro complementario de salud", "/community/benefits/agreements/seguros-complementarios/"),
        ("beneficios de ser parte de 23people", "/community/benefits/"),
    ],
)
def test_searches_find_the_right_page_with_heading_paths(handbook_runs, query, expected_path):
    settings, _, _ = handbook_runs
    hits = search("handbook", query, k=5, settings=settings)
    assert any(h.url.endswith(expected_path) for h in hits), [h.url for h in hits]
    assert all(" > " in h.heading_path or h.heading_path for h in hits)
    assert all(h.text.startswith(h.heading_path) for h in hits)


def test_no_chunk_is_made_of_the_sites_repeated_lines(handbook_runs):
    settings, _, _ = handbook_runs
    state = StateStore(settings.state_location)
    embedder_id = state.businesses.embedder_of("handbook")
    state.close()
    store = open_store(settings, embedder_id, 384)
    try:
        hits = []
        for query in (
            "Nuestro Manual",
            "Made with Material for MkDocs",
            "Copyright 23people",
            "Inicializando búsqueda",
        ):
            hits.extend(store.search("handbook", None, query, 20, mode="lexical"))
    finally:
        store.close()
    bodies = Counter(h.payload["text"].split("\n\n", 1)[-1] for h in hits if "#site-wide" not in h.payload["url"])
    assert bodies
    for body in bodies:
        lines = [l.strip() for l in body.splitlines() if l.strip()]
        assert not all(
            l
            in {
                "Made with",
                "Material for MkDocs",
                "Copyright © 2024 23people SpA",
                "Inicializando búsqueda",
                "23people/handbook",
            }
            for l in lines
        ), body


def test_second_run_adds_nothing_and_embeds_nothing(handbook_runs):
    _, first, second = handbook_runs
    assert second.problem is None
    assert second.embedding.calls == 0 and second.embedding.tokens == 0
    assert second.chunks.added == 0 and second.chunks.deleted == 0
    assert second.chunks.unchanged == second.chunks.total == first.chunks.total
    assert second.pages.not_modified >= 160


def test_store_and_state_agree(handbook_runs):
    settings, _, second = handbook_runs
    state = StateStore(settings.state_location)
    try:
        embedder_id = state.businesses.embedder_of("handbook")
        in_state = state.chunks.ids("handbook")
    finally:
        state.close()
    store = open_store(settings, embedder_id, 384)
    try:
        assert store.point_ids("handbook") == in_state
        assert len(in_state) == second.chunks.total
    finally:
        store.close()


def _page_payloads(settings) -> dict[str, list[str]]:
    state = StateStore(settings.state_location)
    embedder_id = state.businesses.embedder_of("handbook")
    state.close()
    store = open_store(settings, embedder_id, 384)
    try:
        by_page: dict[str, list[str]] = {}
        for payload in store.payloads("handbook").values():
            by_page.setdefault(urlsplit(payload["url"]).path, []).append(payload["text"])
        return by_page
    finally:
        store.close()


def _cells(row) -> list[str]:
    return [" ".join(c.get_text(" ", strip=True).split()) for c in row.find_all(["th", "td"])]


def test_every_table_of_the_site_survives(handbook_runs):
    """The handbook's 43 <table>s: 19 hold data and 24 are Pygments code listings (a
    line-number gutter beside a <pre>). Each data table's header row and last row are
    rows of a Markdown table in a chunk of its page (long tables repeat their header
    per chunk); each listing's code lines are in a chunk, without the gutter."""
    settings, _, _ = handbook_runs
    by_page = _page_payloads(settings)
    data, code = 0, 0
    for html_file in HANDBOOK.rglob("*.html"):
        soup = BeautifulSoup(html_file.read_bytes(), "lxml")
        path = ("/" + str(html_file.relative_to(HANDBOOK).parent) + "/").replace("/./", "/")
        lines = [line for text in by_page.get(path, []) for line in text.splitlines()]
        for table in soup.find_all("table"):
            pre = table.find_all("pre")
            if pre:
                code += 1
                code_lines = [l.strip() for l in pre[-1].get_text().splitlines() if l.strip()]
                assert code_lines[0] in {l.strip() for l in lines} and code_lines[-1] in {l.strip() for l in lines}
                assert not any(l.startswith("|") and code_lines[0] in l for l in lines)
                continue
            data += 1
            rows = [r for r in table.find_all("tr") if _cells(r)]
            for row in (rows[0], rows[-1]):
                cells = [c for c in _cells(row) if c]
                assert any(line.startswith("|") and all(c in line for c in cells) for line in lines), (path, cells)
    assert (data, code) == (19, 24)


def test_no_chunk_carries_the_sites_navigation(handbook_runs):
    """The menu on every page (MkDocs' <nav> lists) is template: no chunk holds menu
    entries as lines (one entry can also be a line of content: "4. Satisfacción de
    clientes" in a job description), except the site-wide document, which keeps the
    menu once."""
    settings, _, _ = handbook_runs
    home = BeautifulSoup((HANDBOOK / "index.html").read_bytes(), "lxml")
    menu = {" ".join(a.get_text(" ", strip=True).split()) for nav in home.find_all("nav") for a in nav.find_all("a")}
    menu = {m for m in menu if len(m) > 3}
    assert len(menu) > 20
    state = StateStore(settings.state_location)
    embedder_id = state.businesses.embedder_of("handbook")
    state.close()
    store = open_store(settings, embedder_id, 384)
    try:
        payloads = list(store.payloads("handbook").values())
    finally:
        store.close()

    def menu_lines(text: str) -> list[str]:
        lines = text.split("\n\n", 1)[-1].splitlines()
        return [
            l for l in lines if l.strip().lstrip("-*0123456789. ").strip() in menu and not l.lstrip().startswith("#")
        ]

    site_wide = [p for p in payloads if p["url"].endswith("#site-wide")]
    assert site_wide and sum(len(menu_lines(p["text"])) for p in site_wide) >= 3
    leaking = [
        (p["url"], menu_lines(p["text"]))
        for p in payloads
        if not p["url"].endswith("#site-wide") and len(menu_lines(p["text"])) >= 2
    ]
    assert not leaking, leaking[:5]
