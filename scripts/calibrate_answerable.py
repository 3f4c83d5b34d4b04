#!/usr/bin/env python3
"""Fits the `answerable` model (retrieval/search.py CONFIDENCE_WEIGHTS) on the question
sets in scripts/questions/: a logistic regression over the answer signals of every
question, labelled by whether the site answers it, then the threshold that flags the
most unanswerable questions while flagging at most 5% of the answerable ones. A question
whose first passage holds the kind of value it asks for (`asked_held`) is never flagged
(retrieval/search.py: answer_confidence), so the threshold is set on the others.

    .venv/bin/python scripts/calibrate_answerable.py [--sites ...] [--models ...] [--keep DIR]

Prints the weights, the threshold and, per site, leave-one-site-out results (fitted on
the other sites): the figures that say whether the model carries to a site it never saw.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from bench_retrieval import KEPT_PORT_BASE, SITES, ingest  # noqa: E402

FEATURES = ["dense_top", "dense_z", "coverage", "site_coverage", "agreement", "cross_language"]
MAX_FLAGGED_ANSWERABLE = 0.05


def fit(rows: list[tuple[list[float], int]], l2: float = 0.01, steps: int = 3000, lr: float = 0.5) -> list[float]:
    """Logistic regression by gradient descent on standardised signals; the weights
    returned apply to the raw signals (weights[0] is the bias)."""
    columns = list(zip(*(x for x, *_ in rows)))
    means = [sum(c) / len(c) for c in columns]
    stds = [math.sqrt(sum((v - m) ** 2 for v in c) / len(c)) or 1.0 for c, m in zip(columns, means)]
    scaled = [([(v - m) / sd for v, m, sd in zip(x, means, stds)], y) for x, y, *_ in rows]
    w = _fit_scaled(scaled, l2, steps, lr)
    raw = [wi / sd for wi, sd in zip(w[1:], stds)]
    return [w[0] - sum(r * m for r, m in zip(raw, means)), *raw]


def _fit_scaled(rows, l2: float, steps: int, lr: float) -> list[float]:
    w = [0.0] * (len(FEATURES) + 1)
    n = len(rows)
    positives = sum(y for _, y in rows)
    # Balance the classes: unanswerable questions are few.
    weight = {1: n / (2 * max(positives, 1)), 0: n / (2 * max(n - positives, 1))}
    for _ in range(steps):
        grad = [0.0] * len(w)
        for x, y in rows:
            z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x))
            p = 1 / (1 + math.exp(-max(-30, min(30, z))))
            err = (p - y) * weight[y]
            grad[0] += err
            for i, xi in enumerate(x, 1):
                grad[i] += err * xi
        for i in range(len(w)):
            w[i] -= lr * (grad[i] / n + (l2 * w[i] if i else 0.0))
    return w


def prob(w: list[float], x: list[float]) -> float:
    z = w[0] + sum(wi * xi for wi, xi in zip(w[1:], x))
    return 1 / (1 + math.exp(-max(-30, min(30, z))))


def threshold(w: list[float], rows) -> float:
    """The highest threshold that flags at most 5% of the answerable questions."""
    answerable = sorted(prob(w, x) for x, y, held in rows if y and not held)
    allowed = int(MAX_FLAGGED_ANSWERABLE * sum(y for _, y, _ in rows))  # a share of all answerable ones
    return answerable[allowed] if answerable else 0.5


def judge(w, t, rows) -> dict:
    flagged_un = sum(prob(w, x) < t and not held for x, y, held in rows if not y)
    flagged_ans = sum(prob(w, x) < t and not held for x, y, held in rows if y)
    un = sum(1 for _, y, _ in rows if not y)
    ans = len(rows) - un
    return {
        "unanswerable_flagged": f"{flagged_un}/{un}",
        "answerable_flagged": f"{flagged_ans}/{ans}",
        "precision": round(flagged_un / (flagged_un + flagged_ans), 3) if flagged_un + flagged_ans else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", nargs="*", default=list(SITES))
    parser.add_argument("--models", nargs="*", default=None)
    parser.add_argument("--keep")
    parser.add_argument("--features", nargs="*", default=FEATURES[:], help="fit on these signals only")
    parser.add_argument("--max-flagged", type=float, default=0.05, help="share of answerable questions flagged")
    args = parser.parse_args()
    global MAX_FLAGGED_ANSWERABLE
    MAX_FLAGGED_ANSWERABLE = args.max_flagged
    FEATURES[:] = args.features
    from ingest.settings import load_settings
    from retrieval.search import Searcher

    models = args.models or [load_settings().local_model]
    by_site: dict[str, list] = {}
    for model in models:
        data_dir = Path(args.keep) / model if args.keep else Path(tempfile.mkdtemp(prefix="sitekb-calibrate-"))
        data_dir.mkdir(parents=True, exist_ok=True)
        for site in args.sites:
            questions_file = REPO / "scripts" / "questions" / f"{site}.json"
            if not SITES[site][0].exists() or not questions_file.exists():
                continue
            ingest(site, model, data_dir, KEPT_PORT_BASE + list(SITES).index(site) if args.keep else 0)
            with Searcher(load_settings()) as searcher:
                for q in json.loads(questions_file.read_text(encoding="utf-8")):
                    s = searcher.answer(site, q["question"], 5).signals
                    by_site.setdefault(f"{site}/{model}", []).append(
                        ([getattr(s, f) for f in FEATURES], int(bool(q["expected"])), bool(s.asked_held))
                    )
    rows = [r for site_rows in by_site.values() for r in site_rows]
    w = fit(rows)
    t = threshold(w, rows)
    print(json.dumps({"weights": dict(zip(("bias", *FEATURES), (round(v, 3) for v in w))), "threshold": round(t, 3)}))
    print("all, in-sample:", judge(w, t, rows))
    for site, site_rows in by_site.items():
        others = [r for other, rr in by_site.items() if other != site for r in rr]
        if others:
            wo = fit(others)
            print(f"{site}, fitted without it:", judge(wo, threshold(wo, others), site_rows))


if __name__ == "__main__":
    main()
