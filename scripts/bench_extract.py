#!/usr/bin/env python3
"""Extraction quality on the WCXB development split, side by side with trafilatura.

    .venv/bin/python scripts/bench_extract.py [--corpus ../shared/corpora/wcxb-dev] [--limit N]

For every page: word-level bag-of-words F1 (lowercased \\w+ tokens, the benchmark's own
definition), precision and recall against `main_content`, the share of `with` snippets
found and of `without` snippets leaked, per page type and overall; and pages per
CPU-second for each extractor. trafilatura runs with its defaults
(`extract(html, url=..., output_format="txt")`); rs-trafilatura cannot be built here
(its crates come from crates.io) and is compared through its published figures.
Prints JSON; docs/benchmarks.md records it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
from ingest.extract.html import markdown_to_text, parse_html  # noqa: E402

_WORDS = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")
RS_TRAFILATURA_PUBLISHED = {
    "all": 0.859,
    "article": 0.932,
    "documentation": 0.932,
    "service": 0.844,
    "forum": 0.808,
    "collection": 0.716,
    "listing": 0.707,
    "product": 0.641,
}


def _tokens(text: str) -> Counter:
    return Counter(_WORDS.findall(text.lower()))


def score(predicted: str, truth: str) -> tuple[float, float, float]:
    pred, gold = _tokens(predicted), _tokens(truth)
    overlap = sum((pred & gold).values())
    if not pred or not gold:
        return (1.0, 1.0, 1.0) if pred == gold else (0.0, 0.0, 0.0)
    p, r = overlap / sum(pred.values()), overlap / sum(gold.values())
    return p, r, (2 * p * r / (p + r) if p + r else 0.0)


def _norm(text: str) -> str:
    return _SPACE.sub(" ", text).strip().lower()


def ours(html: str, url: str) -> str:
    return markdown_to_text(parse_html(html, url).markdown)


def trafilatura_txt(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, output_format="txt") or ""


EXTRACTORS = {"sitekb": ours, "trafilatura": trafilatura_txt}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--corpus", default=str(REPO.parent / "shared/corpora/wcxb-dev"))
    parser.add_argument("--limit", type=int)
    parser.add_argument("--only", choices=sorted(EXTRACTORS), action="append")
    args = parser.parse_args()
    if "trafilatura" in (args.only or EXTRACTORS):
        try:
            import trafilatura  # noqa: F401
        except ImportError:  # it would score 0 on every page, a comparison that means nothing
            sys.exit("the peer column needs trafilatura: .venv/bin/pip install -e '.[bench]' (or --only sitekb)")
    corpus = Path(args.corpus)
    files = sorted((corpus / "ground-truth").glob("*.json"))[: args.limit]
    rows: dict[str, dict[str, list]] = {name: defaultdict(list) for name in args.only or EXTRACTORS}
    cpu: dict[str, float] = defaultdict(float)
    skipped: list[str] = []
    for gt_path in files:
        gt = json.loads(gt_path.read_text(encoding="utf-8"))
        if "main_content" not in gt["ground_truth"]:
            skipped.append(gt_path.stem)  # 2 dev pages carry snippets but no main content
            continue
        html = gzip.decompress((corpus / "html" / f"{gt_path.stem}.html.gz").read_bytes()).decode("utf-8", "replace")
        truth = gt["ground_truth"]
        kind = gt["_internal"]["page_type"]["primary"]
        for name in rows:
            started = time.process_time()
            try:
                text = EXTRACTORS[name](html, gt.get("url") or "")
            except Exception:  # an extractor crashing on a page scores zero for it
                text = ""
            cpu[name] += time.process_time() - started
            p, r, f1 = score(text, truth["main_content"])
            normalized = _norm(text)
            with_hits = [_norm(s) in normalized for s in truth.get("with", [])]
            leaks = [_norm(s) in normalized for s in truth.get("without", [])]
            for group in ("all", kind):
                rows[name][group].append((p, r, f1, with_hits, leaks))
    scored = len(files) - len(skipped)
    result = {"pages": scored, "skipped_without_ground_truth": skipped, "extractors": {}}
    for name, groups in rows.items():
        summary = {}
        for group, items in sorted(groups.items(), key=lambda kv: (kv[0] != "all", kv[0])):
            withs = [h for *_, hits, _ in items for h in hits]
            leaks = [h for *_, _, ls in items for h in ls]
            summary[group] = {
                "pages": len(items),
                "f1": round(sum(i[2] for i in items) / len(items), 3),
                "precision": round(sum(i[0] for i in items) / len(items), 3),
                "recall": round(sum(i[1] for i in items) / len(items), 3),
                "with_found": round(sum(withs) / len(withs), 3) if withs else None,
                "without_leaked": round(sum(leaks) / len(leaks), 3) if leaks else None,
            }
        result["extractors"][name] = {
            "by_type": summary,
            "pages_per_cpu_second": round(scored / cpu[name], 1) if cpu[name] else None,
        }
    result["rs_trafilatura_published_f1"] = RS_TRAFILATURA_PUBLISHED
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
