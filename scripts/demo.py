#!/usr/bin/env python3
"""`make demo`: serve the bundled sample site on 127.0.0.1, ingest it, run a few searches.

Offline and self-contained: the site is scripts/demo_site/, the data goes under
$SITEKB_DATA_DIR (default ./data), private hosts are allowed for this run only.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_site import StaticSite  # noqa: E402

from ingest.cli import main as ingest  # noqa: E402

SITE = Path(__file__).resolve().parent / "demo_site"
BUSINESS = "harbourlight-demo"
QUESTIONS = ["how much is a single room in high season?", "what is your phone number?",
             "can I bring my dog?", "what time is check-in?"]


def main() -> int:
    os.environ["SITEKB_ALLOW_PRIVATE_HOSTS"] = "true"
    with StaticSite(SITE, rewrite_hosts=("www.harbourlight.example", "harbourlight.example")) as site:
        print(f"Serving the sample site (Harbour Light Guesthouse) at {site.base}\n")
        status = ingest(["run", site.base + "/", "--business", BUSINESS])
        if status != 0:
            return status
    for question in QUESTIONS:
        print(f"\n$ ingest search --business {BUSINESS} -k 2 {question!r}")
        ingest(["search", "--business", BUSINESS, "-k", "2", question])
    return 0


if __name__ == "__main__":
    sys.exit(main())
