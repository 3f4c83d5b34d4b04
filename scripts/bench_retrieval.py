#!/usr/bin/env python3
"""Retrieval quality on the handbook: hit@1, hit@5 and MRR for dense-only, lexical-only
and hybrid search, in one run, over scripts/retrieval_questions.json.

    .venv/bin/python scripts/bench_retrieval.py [--site ../shared/corpora/sites/handbook]

The site is served on 127.0.0.1 and ingested on the embedded defaults (local MiniLM)
into a temporary data folder; then every question is asked in every mode. A hit counts
when the passage comes from one of the question's expected pages. Unanswerable
questions are listed with what each mode returned first, for reading, not scored.
Prints JSON; docs/benchmarks.md records it.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402

MODES = ("dense", "lexical", "hybrid")


def _metrics(ranks: list[int | None]) -> dict:
    n = len(ranks)
    return {
        "questions": n,
        "hit@1": round(sum(r == 1 for r in ranks) / n, 3),
        "hit@5": round(sum(r is not None and r <= 5 for r in ranks) / n, 3),
        "mrr": round(sum(1 / r for r in ranks if r) / n, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", default=str(REPO.parent / "shared/corpora/sites/handbook"))
    parser.add_argument("--questions", default=str(REPO / "scripts" / "retrieval_questions.json"))
    args = parser.parse_args()
    questions = json.loads(Path(args.questions).read_text(encoding="utf-8"))
    os.environ.update(
        SITEKB_DATA_DIR=tempfile.mkdtemp(prefix="sitekb-retrieval-"),
        SITEKB_ALLOW_PRIVATE_HOSTS="true",
        HF_HUB_OFFLINE="1",
    )
    os.environ.pop("OPENAI_API_KEY", None)
    from ingest.pipeline import run
    from ingest.settings import load_settings
    from retrieval.search import Searcher

    settings = load_settings()
    with StaticSite(args.site, rewrite_hosts=("23people.io",)) as site:
        report = run(site.base + "/", settings, business="handbook")
    ranks: dict[str, dict[str, list]] = {m: {"all": [], "es": [], "en": []} for m in MODES}
    misses: dict[str, list] = {m: [] for m in MODES}
    unanswerable = []
    with Searcher(settings) as searcher:
        for q in questions:
            row = {}
            for mode in MODES:
                hits = searcher.search("handbook", q["question"], 10, mode=mode)
                paths = [urlsplit(h.url).path for h in hits]
                if not q["expected"]:
                    row[mode] = f"{hits[0].heading_path} ({paths[0]})" if hits else None
                    continue
                rank = next((i + 1 for i, p in enumerate(paths) if p in q["expected"]), None)
                ranks[mode]["all"].append(rank)
                ranks[mode][q["lang"]].append(rank)
                if rank is None or rank > 5:
                    misses[mode].append(
                        {"id": q["id"], "question": q["question"], "expected": q["expected"], "got": paths[:3]}
                    )
            if not q["expected"]:
                unanswerable.append({"question": q["question"], "top_hit": row})
    print(
        json.dumps(
            {
                "chunks": report.chunks.total,
                "embedding": report.embedding.model,
                "metrics": {m: {lang: _metrics(r) for lang, r in by_lang.items() if r} for m, by_lang in ranks.items()},
                "misses_at_5": misses,
                "unanswerable": unanswerable,
            },
            indent=2,
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
