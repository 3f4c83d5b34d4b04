#!/usr/bin/env python3
"""Discovery completeness on a real site: which pages sitemaps alone find, which links
alone find, and which both together find (R-3.1: "sitemap alone is not enough").

    .venv/bin/python scripts/bench_discovery.py [SITE_DIR] [--rewrite HOST]

Crawls only (no embedding), three times, each in a fresh data folder. Defaults to
../shared/corpora/sites/handbook. Prints JSON; docs/benchmarks.md records it.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402

from ingest.pipeline import run  # noqa: E402
from ingest.settings import load_settings  # noqa: E402


def _pages_read(data_dir: str) -> set[str]:
    """Distinct pages with content this run (stored with a raw body)."""
    db = sqlite3.connect(Path(data_dir) / "state.sqlite3")
    try:
        return {
            url.split("://", 1)[1].split("/", 1)[1]
            for (url,) in db.execute("SELECT url FROM pages WHERE raw_sha256 IS NOT NULL")
        }
    finally:
        db.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site_dir", nargs="?", default=str(REPO.parent / "shared/corpora/sites/handbook"))
    parser.add_argument("--rewrite", action="append", default=None)
    args = parser.parse_args()
    os.environ["SITEKB_ALLOW_PRIVATE_HOSTS"] = "true"
    found: dict[str, set[str]] = {}
    reports = {}
    with StaticSite(args.site_dir, rewrite_hosts=tuple(args.rewrite or ["23people.io"])) as site:
        for name, overrides in (
            ("sitemap_only", {"follow_links": False}),
            ("links_only", {"use_sitemaps": False}),
            ("both", {}),
        ):
            data = tempfile.mkdtemp(prefix="sitekb-discovery-")
            report = run(site.base + "/", load_settings(data_dir=data, **overrides), business="d", index=False)
            found[name] = _pages_read(data)
            reports[name] = {
                "requests": sum(report.pages.status_counts.values()),
                "statuses": report.pages.status_counts,
                "skipped": report.pages.skipped,
            }
    sitemap, links, both = found["sitemap_only"], found["links_only"], found["both"]
    print(
        json.dumps(
            {
                "site": args.site_dir,
                "pages_found": {name: len(pages) for name, pages in found.items()},
                "only_in_sitemaps": len(sitemap - links),
                "only_via_links": len(links - sitemap),
                "in_both": len(sitemap & links),
                "both_misses": sorted((sitemap | links) - both),
                "runs": reports,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
