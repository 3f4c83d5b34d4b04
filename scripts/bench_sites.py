#!/usr/bin/env python3
"""How much of each real site ends up in the knowledge base.

    .venv/bin/python scripts/bench_sites.py [--only NAME ...] [--json]

Ingests every site under ../shared/corpora/sites/ (served on 127.0.0.1 by the corpora's
own serve_site.py, absolute links to the production host mapped onto it) and every
synthetic quirk site of scripts/quirk_sites.py, each into a fresh data folder, and
prints per site: real pages (HTML files that are not the 404 page, a meta refresh
stub or noindex, and have text beyond their headings), real pages with chunks, coverage, pages skipped by reason, the
misconfigurations found and the run's warnings.

A real page counts as covered when the knowledge base holds chunks for its URL (any
spelling of it: /x, /x/, /x.html, /x/index.html) or for another file whose extracted
text is the same (a duplicate kept once).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

REPO = Path(__file__).resolve().parent.parent
SITES = REPO.parent / "shared" / "corpora" / "sites"
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from quirk_sites import HOST, QUIRKS, build_site  # noqa: E402

from ingest.crawl.urls import normalize_url  # noqa: E402
from ingest.extract.html import parse_html  # noqa: E402
from ingest.kb.state import StateStore  # noqa: E402
from ingest.pipeline import run  # noqa: E402
from ingest.settings import load_settings  # noqa: E402

_LOC_HOST = re.compile(rb"<loc>\s*https?://([^/<\s]+)")
# Judged here, not by the code under test (so the same script measures an older commit).
_STUB = re.compile(rb"<meta[^>]+http-equiv=[\"']?refresh[\"']?[^>]+content=[\"']?\d+\s*;\s*url=", re.I)
_NOINDEX = re.compile(rb"<meta[^>]+name=[\"']?robots[\"']?[^>]+content=[\"'][^\"']*noindex", re.I)
_SPELLING = re.compile(r"(?:/index\.html?|\.html?|/)$")


def page_key(url: str) -> str:
    """/x, /x/, /x.html and /x/index.html are one page."""
    return _SPELLING.sub("", url)


def _server_class():
    """The corpora's server where ../shared is beside the repository, else our copy."""
    path = REPO.parent / "shared" / "tools" / "serve_site.py"
    if not path.exists():
        from serve_site import StaticSite

        return StaticSite
    spec = importlib.util.spec_from_file_location("shared_serve_site", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StaticSite


def production_host(folder: Path) -> str | None:
    """The host a built site's sitemap names (its absolute links are mapped onto the server)."""
    sitemap = folder / "sitemap.xml"
    hosts = Counter(m.decode() for m in _LOC_HOST.findall(sitemap.read_bytes())) if sitemap.exists() else Counter()
    return hosts.most_common(1)[0][0].removeprefix("www.") if hosts else None


def real_pages(folder: Path, base: str) -> tuple[dict[str, str], int]:
    """URL -> extracted text of each real page under `folder` (`base` its URL), and the
    number of pages left out for having no text beyond their headings."""
    pages, empty = {}, 0
    for file in sorted(folder.rglob("*.html")):
        rel = file.relative_to(folder).as_posix()
        if rel == "404.html":
            continue
        url = normalize_url(base + quote(rel[: -len("index.html")] if rel.endswith("index.html") else rel))
        html = file.read_bytes()
        if _STUB.search(html) or _NOINDEX.search(html):
            continue
        doc = parse_html(html, url)
        if not any(line.strip() and not line.startswith("#") for line in doc.markdown.splitlines()):
            empty += 1
            continue
        pages[url] = doc.markdown
    return pages, empty


def measure(name: str, folder: Path, start: str, scope: str, rewrite: tuple[str, ...]) -> dict:
    data = tempfile.mkdtemp(prefix=f"bench-sites-{name}-")
    os.environ.update(SITEKB_DATA_DIR=data, SITEKB_ALLOW_PRIVATE_HOSTS="true")
    os.environ.pop("OPENAI_API_KEY", None)
    settings = load_settings()
    with _server_class()(folder, rewrite_hosts=rewrite) as site:
        started = time.monotonic()
        report = run(site.base + start, settings, business=name)
        seconds = time.monotonic() - started
        real, empty = real_pages(folder / scope if scope else folder, site.base + "/" + (scope + "/" if scope else ""))
    state = StateStore(settings.state_location)
    try:
        chunk_urls = {c.url for source in state.sources.of(name) for c in state.chunks.of(source.id).values()}
    finally:
        state.close()
    with_chunks = {page_key(url) for url in chunk_urls if "#" not in url}
    covered_texts = {text for url, text in real.items() if page_key(url) in with_chunks}
    covered = [url for url, text in real.items() if page_key(url) in with_chunks or text in covered_texts]
    # Chunks from what is not a real page of the site: stubs, 404 pages, pages outside its folder.
    others = with_chunks - {page_key(url) for url in real}
    return {
        "site": name,
        "real_pages": len(real),
        "headings_only": empty,
        "pages_with_chunks": len(covered),
        "coverage": round(len(covered) / len(real), 3) if real else None,
        "not_covered": sorted(url.removeprefix(site.base) for url in real if url not in covered)[:10],
        "other_pages_with_chunks": sorted(url.removeprefix(page_key(site.base)) for url in others)[:10],
        "chunks": report.chunks.total,
        "skipped": report.pages.skipped,
        "misconfigured": getattr(report, "misconfigured", {}),
        "warnings": report.warnings,
        "problem": report.problem,
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="site names (corpora folders or quirk sites)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results = []
    corpora = sorted(p for p in SITES.iterdir() if p.is_dir()) if SITES.exists() else []
    if not corpora:
        print(f"note: {SITES} is missing: only the synthetic quirk sites are measured", file=sys.stderr)
    for folder in corpora:
        if not args.only or folder.name in args.only:
            host = production_host(folder)
            results.append(measure(folder.name, folder, "/", "", (host,) if host else ()))
    with tempfile.TemporaryDirectory() as scratch:
        for name in QUIRKS:
            if not args.only or name in args.only:
                quirk = build_site(name, Path(scratch) / name)
                results.append(measure(name, Path(scratch) / name, quirk.start, quirk.folder, (HOST.split("://")[1],)))
    if args.json:
        print(json.dumps(results, indent=1, ensure_ascii=False))
        return
    print(f"{'site':20} {'real':>5} {'with chunks':>11} {'coverage':>8} {'chunks':>6}  skipped (headings only)")
    for r in results:
        skipped = ", ".join(f"{k} {v}" for k, v in sorted(r["skipped"].items()) if k != "offsite")
        print(
            f"{r['site']:20} {r['real_pages']:>5} {r['pages_with_chunks']:>11} {r['coverage']:>8.1%} "
            f"{r['chunks']:>6}  {skipped} ({r['headings_only']} pages with headings only)"
        )
        for kind, n in r["misconfigured"].items():
            print(f"{'':20} misconfigured: {kind} {n}")
        for warning in r["warnings"]:
            print(f"{'':20} warning: {warning}")
        if r["other_pages_with_chunks"]:
            print(f"{'':20} chunks from what is not a real page: {' '.join(r['other_pages_with_chunks'])}")
        if r["not_covered"]:
            print(f"{'':20} not covered: {' '.join(r['not_covered'])}")


if __name__ == "__main__":
    main()
