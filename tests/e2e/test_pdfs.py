"""PDFs the site links to are pages (R-15.2), on a site served from 127.0.0.1: a menu
with price tables, a two-column patient guide, terms whose headings live in the outline,
a scanned menu (reported, not read) and a bomb of 20,000 pages (read up to the limit)."""

from __future__ import annotations

import pytest
from conftest import stored_payloads
from pdfs import bomb_pdf, in_order, menu_pdf, outlined_pdf, recall, scanned_pdf, two_column_pdf

from ingest import pipeline
from ingest.settings import load_settings
from retrieval.search import search

BUSINESS = "casa"
PDFS = {
    "menu.pdf": menu_pdf(),
    "docs/guide.pdf": two_column_pdf(),
    "terms.pdf": outlined_pdf(),
    "scan.pdf": scanned_pdf(),
    "bomb.pdf": bomb_pdf(),
}


@pytest.fixture
def site(site_dir_server, settings):
    root = site_dir_server.root_dir
    links = "".join(f'<li><a href="/{name}">{name}</a></li>' for name in PDFS)
    root.joinpath("index.html").write_text(
        "<html lang='en'><head><title>Casa Lola</title></head><body><main><h1>Casa Lola</h1>"
        "<p>A tapas bar by the river in Seville, with a terrace and a long wine list. We open every "
        "evening at six and take bookings for groups of eight or more.</p>"
        f"<ul>{links}</ul></main></body></html>"
    )
    for name, pdf in PDFS.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(pdf.body)
    return site_dir_server


def _run(site, **env):
    return pipeline.run(site.base + "/", load_settings(pdf_max_pages=40, **env), business=BUSINESS)


def _text_of(payloads: list[dict], url: str) -> str:
    chunks = sorted((p for p in payloads if p["url"] == url), key=lambda p: p["position"])
    return "\n\n".join(p["text"] for p in chunks)


def test_linked_pdfs_become_pages_with_headings_tables_and_page_numbers(site, settings):
    report = _run(site)
    assert report.problem is None, report.message
    assert report.pages.pdfs == 4  # menu, guide, terms and the bomb's first pages
    assert report.pages.skipped.get("scanned_pdf") == 1
    assert any("bomb.pdf: read the first 40 of its 20,000 pages" in w for w in report.warnings)
    payloads = stored_payloads(settings, BUSINESS)

    for name in ("menu.pdf", "docs/guide.pdf", "terms.pdf"):
        text = _text_of(payloads, f"{site.base}/{name}")
        assert recall(PDFS[name].words, text) >= 0.95, name

    menu = [p for p in payloads if p["url"] == f"{site.base}/menu.pdf"]
    mains = next(p for p in menu if "Paella valenciana" in p["text"])
    assert mains["heading_path"] == "Casa Lola Menu > Mains (page 1)"
    assert "| Paella valenciana | Rice with chicken and rabbit, for two | 32.00 EUR |" in mains["text"]
    assert "| Dish | Description | Price |" in mains["text"]  # the table's header, kept with its rows

    guide = _text_of(payloads, f"{site.base}/docs/guide.pdf")
    assert all(in_order(passage, guide) for passage in PDFS["docs/guide.pdf"].passages)  # down each column

    terms = [p for p in payloads if p["url"] == f"{site.base}/terms.pdf"]
    assert {p["heading_path"] for p in terms} >= {
        "Hotel Miramar terms > Pets (page 1)",
        "Hotel Miramar terms > Room rates (page 1)",
    }
    assert not [p for p in payloads if p["url"].endswith("scan.pdf")]
    bomb = [p for p in payloads if p["url"].endswith("bomb.pdf")]
    assert bomb and max(int(p["heading_path"].split()[-1]) for p in bomb) == 40  # "Page 40"

    hits = search(BUSINESS, "how much is the paella?", k=3)
    assert hits[0].url == f"{site.base}/menu.pdf"


def test_unchanged_pdfs_answer_304_and_cost_nothing(site, settings):
    first = _run(site)
    seen = len(site.log)
    again = _run(site)
    assert again.embedding.calls == 0 and again.chunks.added == 0 and again.chunks.deleted == 0
    assert again.chunks.total == first.chunks.total
    pdf_answers = {path: status for path, status in site.log[seen:] if path.endswith(".pdf")}
    assert pdf_answers == {f"/{name}": 304 for name in PDFS}  # the scan too: asked, answered 304
    assert again.pages.pdfs == 4 and again.pages.skipped.get("scanned_pdf") == 1


def test_a_changed_pdf_replaces_its_chunks(site, settings):
    _run(site)
    site.root_dir.joinpath("menu.pdf").write_bytes(menu_pdf(title="Casa Lola Summer Menu").body)
    again = _run(site)
    assert again.chunks.added > 0 and again.chunks.deleted > 0
    menu = [p for p in stored_payloads(settings, BUSINESS) if p["url"] == f"{site.base}/menu.pdf"]
    assert {p["heading_path"].split(" > ")[0] for p in menu} == {"Casa Lola Summer Menu"}


def test_pdfs_off_reads_none(site, settings):
    report = _run(site, read_pdfs=False)
    assert report.pages.pdfs == 0 and report.pages.skipped.get("not_html") == len(PDFS)
