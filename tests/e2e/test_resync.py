"""Resync scenarios (issue #5) on a site served from 127.0.0.1 whose files change between runs.

After every run: the store holds exactly the chunks the state records, and no two
points of the business carry the same text."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from conftest import StaticSite
from fake_openai import FakeOpenAI

from ingest import crawler, indexer, pipeline
from ingest.cli import main
from ingest.kb.embed import EmbedderError, LocalE5
from ingest.kb.state import StateStore
from ingest.kb.store import EdgeStore, StoredPoint, open_existing_store
from ingest.settings import load_settings

BUSINESS = "shop"
PAGES = ["about", "rooms", "prices", "breakfast", "faq", "contact", "garden", "parking"]


def _paragraphs(name: str) -> list[str]:
    return [
        f"The {name} page explains {topic} for guests of the Harbour shop, in words that belong to "
        f"{name} alone and to its {topic} section, so every section makes exactly one chunk."
        for topic in ("history", "details", "practicalities")
    ]


class Site:
    """A small business site on disk: every page links every linked page; the sitemap lists them."""

    def __init__(self, root: Path, server: StaticSite) -> None:
        self.root, self.server = root, server
        self.linked = list(PAGES)
        self.content = {name: _paragraphs(name) for name in PAGES}
        self.noindex: set[str] = set()

    @property
    def url(self) -> str:
        return self.server.base + "/"

    def write(self) -> None:
        nav = "".join(f'<li><a href="/{n}/">{n.title()}</a></li>' for n in self.linked)
        footer = "<footer><p>12 Quay Street, Porthkerris</p><p>Phone +44 1736 555 0199</p></footer>"
        for name in ["index", *PAGES]:
            if name != "index" and name not in self.content:
                continue
            paragraphs = self.content.get(
                name,
                [
                    f"Welcome to the Harbour shop home page, paragraph {i}, "
                    f"with enough words to be real content for the home page."
                    for i in range(3)
                ],
            )
            sections = "".join(f"<h2>{name.title()} part {i}</h2><p>{p}</p>" for i, p in enumerate(paragraphs))
            robots = '<meta name="robots" content="noindex">' if name in self.noindex else ""
            html = (
                f"<html lang='en'><head><title>{name.title()} | Harbour shop</title>{robots}</head><body>"
                f"<header><nav><ul>{nav}</ul></nav></header><main><h1>{name.title()}</h1>{sections}</main>"
                f"{footer}</body></html>"
            )
            path = self.root / ("index.html" if name == "index" else f"{name}/index.html")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(html)
        urls = "".join(f"<url><loc>{self.server.base}/{n}/</loc></url>" for n in self.linked)
        (self.root / "sitemap.xml").write_text(
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
        )

    def delete(self, name: str) -> None:
        (self.root / name / "index.html").unlink()
        (self.root / name).rmdir()
        self.content.pop(name)
        self.linked.remove(name)


@pytest.fixture
def site(site_dir_server, settings):
    s = Site(site_dir_server.root_dir, site_dir_server)
    s.write()
    return s


def _run(site: Site, **env):
    return pipeline.run(site.url, load_settings(**env), business=BUSINESS)


def _state(settings):
    return StateStore(settings.state_location)


def assert_consistent(settings) -> dict[str, dict]:
    """Points == distinct live chunks; no duplicate texts. Returns the payloads by id."""
    state = _state(settings)
    try:
        embedder_id = state.businesses.embedder_of(BUSINESS)
        in_state = state.chunks.ids(BUSINESS)
    finally:
        state.close()
    store = open_existing_store(settings, embedder_id)
    try:
        payloads = store.payloads(BUSINESS)
    finally:
        store.close()
    assert set(payloads) == in_state
    texts = Counter(p["text"] for p in payloads.values())
    assert not [t for t, n in texts.items() if n > 1]
    return payloads


def _urls(payloads) -> set[str]:
    return {p["url"].split("#")[0].rstrip("/").rsplit("/", 1)[-1] for p in payloads.values()}


def test_unchanged_site_makes_no_calls_and_no_writes(site, settings):
    first = _run(site)
    assert first.problem is None and first.chunks.added > 20
    again = _run(site)
    assert again.embedding.calls == 0 and again.chunks.added == 0 and again.chunks.deleted == 0
    assert again.chunks.unchanged == again.chunks.total == first.chunks.total
    # The homepage is read once, at intake (it used to be asked for again, conditionally);
    # every other page answers 304.
    assert again.pages.fetched == 1 and again.pages.not_modified == len(PAGES)
    assert again.pages.status_counts["304"] == len(PAGES)
    assert_consistent(settings)


def test_one_edited_paragraph_replaces_only_its_chunk(site, settings):
    _run(site)
    before = assert_consistent(settings)
    site.content["prices"][1] = site.content["prices"][1].replace("details", "new winter prices")
    site.write()
    report = _run(site)
    assert (report.chunks.added, report.chunks.deleted) == (1, 1)
    assert report.embedding.calls == 1
    after = assert_consistent(settings)
    assert len(set(before) ^ set(after)) == 2
    assert any("new winter prices" in p["text"] for p in after.values())


def test_deleted_page_loses_its_chunks(site, settings):
    _run(site)
    site.delete("garden")
    site.write()
    report = _run(site)
    # garden's 3 chunks go; the site-wide document (whose menu lost "Garden") is replaced.
    assert (report.chunks.deleted, report.chunks.added) == (3 + 1, 1)
    assert "garden" not in _urls(assert_consistent(settings))
    third = _run(site)  # still gone: checked with a HEAD, no 404 page downloaded again
    assert third.pages.skipped.get("gone") == 1 and third.chunks.deleted == 0 and third.embedding.calls == 0


def test_page_turned_noindex_loses_its_chunks(site, settings):
    _run(site)
    site.noindex.add("faq")
    site.write()
    report = _run(site)
    assert report.pages.skipped.get("noindex") == 1
    assert "faq" not in _urls(assert_consistent(settings))


def test_unlinked_page_is_removed_on_the_third_run_only(site, settings):
    _run(site)
    site.linked.remove("parking")  # still on disk and answering 200, but nothing points to it
    site.write()
    for run_number in (1, 2):
        report = _run(site)
        assert "parking" in _urls(assert_consistent(settings)), run_number
        assert report.chunks.deleted == (1 if run_number == 1 else 0)  # the site-wide menu changed once
    report = _run(site)
    assert report.pages.skipped.get("missing") == 1 and report.chunks.deleted == 3
    assert "parking" not in _urls(assert_consistent(settings))


def test_relinked_page_resets_its_missing_count(site, settings):
    _run(site)
    site.linked.remove("parking")
    site.write()
    _run(site)
    _run(site)
    site.linked.append("parking")
    site.write()
    _run(site)
    site.linked.remove("parking")
    site.write()
    _run(site)
    assert "parking" in _urls(assert_consistent(settings))


def test_whole_site_timing_out_deletes_nothing(site, settings, site_dir_server):
    first = _run(site)
    site_dir_server.delay_s = 1.0
    report = _run(site, request_timeout_s=0.3, fetch_attempts=1)
    assert report.problem == "timeout"
    site_dir_server.delay_s = 0
    assert len(assert_consistent(settings)) == first.chunks.total


def test_server_errors_and_blocks_are_not_evidence_of_removal(site, settings, site_dir_server):
    first = _run(site)
    site_dir_server.status_overrides.update({"/garden/": 503, "/parking/": 403})
    report = _run(site, fetch_attempts=1)
    assert report.pages.failed == 2 and report.chunks.deleted == 0
    assert len(assert_consistent(settings)) == first.chunks.total


def test_a_page_the_extractor_cannot_read_is_failed_not_evidence(site, settings, monkeypatch):
    """A page whose extraction raises (a 1,000-level page once did, in markdownify) is
    counted and skipped; the crawl goes on and the page keeps its chunks. No real page is
    known to raise now, so the extractor is made to fail on one URL."""
    first = _run(site)
    real = crawler.parse_html

    def fails_on_garden(body, url, *budget):
        if "/garden/" in url:
            raise RecursionError("maximum recursion depth exceeded")
        return real(body, url, *budget)

    monkeypatch.setattr(crawler, "parse_html", fails_on_garden)
    site.content["prices"][1] = site.content["prices"][1].replace("details", "new winter prices")
    site.write()
    report = _run(site)
    assert report.error is None and report.problem is None
    assert report.pages.failed == 1 and report.pages.skipped.get("unreadable") == 1
    assert (report.chunks.added, report.chunks.deleted) == (1, 1)  # the rest of the site is refreshed
    payloads = assert_consistent(settings)
    assert len(payloads) == first.chunks.total and "garden" in _urls(payloads)


CHALLENGE = (
    b"<html><head><title>Just a moment...</title></head><body><div id='cf-browser-verification'>"
    b"Checking your browser before accessing the site.</div></body></html>"
)


def test_challenge_page_is_not_content_and_not_evidence(site, settings, site_dir_server):
    first = _run(site)
    site_dir_server.body_overrides["/rooms/"] = CHALLENGE
    report = _run(site)
    assert report.pages.skipped.get("challenge") == 1 and report.pages.failed == 1
    assert report.chunks.deleted == 0 and report.chunks.added == 0
    payloads = assert_consistent(settings)
    assert len(payloads) == first.chunks.total
    assert not any("Checking your browser" in p["text"] for p in payloads.values())


def test_collapsed_coverage_deletes_nothing_and_says_why(site, settings, site_dir_server):
    first = _run(site)
    site_dir_server.status_overrides.update({f"/{n}/": 404 for n in PAGES[:6]})
    report = _run(site)
    assert report.chunks.deleted == 0 and report.chunks.added == 0
    assert any("coverage collapsed" in w for w in report.warnings)
    assert len(assert_consistent(settings)) == first.chunks.total


def test_switching_embedder_re_embeds_everything_once(site, settings, monkeypatch):
    first = _run(site)
    with FakeOpenAI() as fake:
        fake.use(monkeypatch)
        switched = _run(site)
        assert switched.embedding.model == "text-embedding-3-small"
        assert switched.chunks.deleted == first.chunks.total
        assert switched.chunks.added == switched.chunks.total == fake.inputs_embedded
        payloads = assert_consistent(settings)
        assert {p["embedder"] for p in payloads.values()} == {"text-embedding-3-small@1536/chunking-v1"}
        again = _run(site)
        assert again.embedding.calls == 0 and again.chunks.added == 0
    old = EdgeStore(
        load_settings().vectors_dir
        / next(p.name for p in load_settings().vectors_dir.iterdir() if p.is_dir() and "e5" in p.name.lower()),
        dimensions=None,
    )
    try:
        assert old.count(BUSINESS) == 0  # the old collection was emptied, not left to drift
    finally:
        old.close()


def test_kill_between_delete_and_write_then_resume_without_paying_again(site, settings, monkeypatch):
    _run(site)
    for name in ("about", "rooms", "faq"):
        site.content[name][0] = site.content[name][0].replace("history", "a rewritten history")
    site.write()
    calls = {"n": 0}
    real_upsert = EdgeStore.upsert

    def dying_upsert(self, points):
        calls["n"] += 1
        if calls["n"] == 2:
            raise SystemExit("killed")  # the process dies after deleting the second page's old chunks
        return real_upsert(self, points)

    monkeypatch.setattr(EdgeStore, "upsert", dying_upsert)
    with pytest.raises(SystemExit):
        _run(site)
    monkeypatch.setattr(EdgeStore, "upsert", real_upsert)
    resumed = _run(site)
    assert resumed.embedding.calls == 0  # all three new chunks were paid for before the kill
    assert resumed.chunks.added == 2
    payloads = assert_consistent(settings)
    assert sum("a rewritten history" in p["text"] for p in payloads.values()) == 3


def test_embedding_failure_midway_keeps_paid_vectors(site, settings, monkeypatch):
    monkeypatch.setattr(indexer, "EMBED_BATCH", 8)
    real = LocalE5.embed_documents
    calls = {"n": 0}

    def failing(self, texts):
        calls["n"] += 1
        if calls["n"] == 3:
            raise EmbedderError("provider fell over")
        return real(self, texts)

    monkeypatch.setattr(LocalE5, "embed_documents", failing)
    failed = _run(site)
    assert failed.error == "provider fell over" and failed.embedding.calls == 2
    monkeypatch.setattr(LocalE5, "embed_documents", real)
    state = _state(settings)
    try:
        assert state.chunks.count(BUSINESS) == 0  # nothing written yet: the knowledge base is as before
    finally:
        state.close()
    resumed = _run(site)
    assert resumed.error is None
    assert resumed.embedding.calls == -(-(resumed.chunks.added - 16) // 8)  # only the unpaid ones
    assert_consistent(settings)


def test_knowledge_base_from_an_older_lexical_analysis_is_reanalysed_without_paying(site, settings):
    from ingest.kb.lexical import SCHEME
    from retrieval.search import Searcher

    assert _run(site).problem is None
    state = _state(settings)
    embedder_id = state.businesses.embedder_of(BUSINESS)
    state.businesses.set_lexical(BUSINESS, "bm25-plain-0", set())  # as a knowledge base indexed before stemming
    state.close()
    store = open_existing_store(settings, embedder_id)
    store.upsert(
        [
            StoredPoint(p.id, p.vector, {k: v for k, v in p.payload.items() if k != "lang"})
            for p in store.points(BUSINESS)
        ]
    )  # ... whose chunks were analysed plainly
    store.close()
    with Searcher(settings) as searcher:  # "practicality" does not find "practicalities" unstemmed
        assert searcher.search(BUSINESS, "practicality", 3, mode="lexical") == []

    again = _run(site)
    assert again.embedding.calls == 0 and again.chunks.added == 0 and again.chunks.deleted == 0
    assert any("re-indexed" in w and "no embedding calls" in w for w in again.warnings)
    payloads = assert_consistent(settings)
    assert {p["lang"] for p in payloads.values()} == {"en"}
    state = _state(settings)
    assert state.businesses.lexical_of(BUSINESS) == (SCHEME, ("en",))
    state.close()
    with Searcher(settings) as searcher:
        hits = searcher.search(BUSINESS, "practicality", 3, mode="lexical")
    assert hits and all("practicalities" in h.text for h in hits)
    assert not any("re-indexed" in w for w in _run(site).warnings)  # once


def test_a_vector_left_pending_by_a_kill_is_forgotten_by_the_next_run(site, settings):
    _run(site)
    state = _state(settings)
    try:
        point_id = next(iter(state.chunks.of(state.sources.of(BUSINESS)[0].id)))
        state.pending.save("left-by-a-kill", {point_id: b"\0" * 16})  # written, then killed before forgetting
    finally:
        state.close()
    assert _run(site).embedding.calls == 0
    state = _state(settings)
    try:
        assert state.pending.of("left-by-a-kill", [point_id]) == {}
    finally:
        state.close()


def test_a_lost_vector_folder_is_rebuilt_by_the_next_run(site, settings, capsys):
    first = _run(site)
    shutil.rmtree(load_settings().vectors_dir)  # a disk replaced, a folder deleted by hand
    # Until then, nothing claims chunks no search can find, and the refresh is due now.
    assert main(["status", "--business", BUSINESS, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)[0]
    assert status["chunks"] == 0 and status["vectors_missing"] is True
    assert status["sources"][0]["next_refresh"] == "now"
    assert "vector store is missing" in status["sources"][0]["refresh_note"]
    healed = _run(site)
    assert healed.error is None and healed.chunks.total == first.chunks.total
    assert healed.chunks.added == first.chunks.total and healed.embedding.calls > 0
    assert any("written again by this run" in w for w in healed.warnings)
    assert len(assert_consistent(settings)) == first.chunks.total
    assert _run(site).chunks.added == 0  # and then it is an ordinary resync
    assert main(["status", "--business", BUSINESS, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["vectors_missing"] is False


def test_a_run_past_its_budget_stops_cleanly_and_the_next_goes_on(site, settings, monkeypatch):
    monkeypatch.setattr(indexer, "EMBED_BATCH", 8)
    clock = {"now": 0.0}
    monkeypatch.setattr(pipeline, "_now", lambda: clock["now"])

    def slow_embedding(phase: str, done: int, total: int) -> None:
        if phase == "embed" and done >= 8:
            clock["now"] += 10_000  # the budget runs out while the second batch is embedded

    stopped = pipeline.run(site.url, load_settings(run_budget_s=600), business=BUSINESS, progress=slow_embedding)
    assert stopped.error_kind == "timeout" and "budget of 600 s" in stopped.error
    assert stopped.embedding.calls == 2  # it stops when that batch is done: two batches of 8 paid
    state = _state(settings)
    try:
        assert state.chunks.count(BUSINESS) == 0  # nothing written yet: the knowledge base is as before
    finally:
        state.close()
    monkeypatch.setattr(pipeline, "_now", lambda: 0.0)
    resumed = _run(site)
    assert resumed.error is None
    assert resumed.embedding.calls == -(-(resumed.chunks.added - 16) // 8)  # the paid vectors were kept
    assert_consistent(settings)


def test_a_crawl_past_its_budget_deletes_nothing(site, settings):
    first = _run(site)
    for name in ("about", "rooms"):
        site.content[name][0] = site.content[name][0].replace("history", "a rewritten history")
    site.write()
    stopped = _run(site, run_budget_s=1e-9)
    assert stopped.error_kind == "timeout" and "during fetch" in stopped.error
    assert stopped.chunks.deleted == 0 and len(assert_consistent(settings)) == first.chunks.total
