#!/usr/bin/env python3
"""`make demo`: serve the bundled sample site on 127.0.0.1, ingest it, run a few searches.

Offline and self-contained: the site is scripts/demo_site/, the data goes to
$SITEKB_DATA_DIR/demo (default ./data/demo) and starts fresh on every run, because
the site is served on a new port each time (a new port is a new site), and private
hosts are allowed for this run only.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve_site import StaticSite  # noqa: E402

from ingest.cli import main as ingest  # noqa: E402

SITE = Path(__file__).resolve().parent / "demo_site"
BUSINESS = "harbourlight-demo"
QUESTIONS = [
    "how much is a single room in high season?",
    "what is your phone number?",
    "can I bring my dog?",
    "what time is check-in?",
]


def main() -> int:
    os.environ["SITEKB_ALLOW_PRIVATE_HOSTS"] = "true"
    data_dir = Path(os.environ.get("SITEKB_DATA_DIR", "data")) / "demo"
    shutil.rmtree(data_dir, ignore_errors=True)
    os.environ["SITEKB_DATA_DIR"] = str(data_dir)
    with StaticSite(SITE, rewrite_hosts=("www.harbourlight.example", "harbourlight.example")) as site:
        print(f"Serving the sample site (Harbour Light Guesthouse) at {site.base}\n")
        status = ingest(["run", site.base + "/", "--business", BUSINESS])
        if status != 0:
            return status
    for question in QUESTIONS:
        print(f"\n$ SITEKB_DATA_DIR={data_dir} .venv/bin/ingest search --business {BUSINESS} -k 2 {question!r}")
        ingest(["search", "--business", BUSINESS, "-k", "2", question])
    return 0


if __name__ == "__main__":
    sys.exit(main())
