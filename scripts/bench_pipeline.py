#!/usr/bin/env python3
"""Benchmark a whole ingest of a real site served on 127.0.0.1: first run, unchanged
resync, and search latency, each in a fresh process so peak memory is per phase.

    .venv/bin/python scripts/bench_pipeline.py [SITE_DIR] [--rewrite HOST]

Defaults to ../shared/corpora/sites/handbook (rewriting 23people.io). Prints a JSON
summary; docs/benchmarks.md records the numbers and the machine.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402

QUERIES = ["¿Cuáles son los valores de 23people?", "seguro complementario de salud", "beneficios",
           "how do we work with customers", "vacaciones y días libres", "metodología de trabajo",
           "quiénes somos", "proceso de selección", "teletrabajo", "contacto"]


def _phase(code: str, env: dict) -> dict:
    """Run `code` in a child process; return its JSON output plus wall time and peak RSS."""
    started = time.monotonic()
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {**json.loads(out), "wall_s": round(time.monotonic() - started, 2), "peak_rss_mb_so_far": usage.ru_maxrss // 1024}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site_dir", nargs="?", default=str(REPO.parent / "shared/corpora/sites/handbook"))
    parser.add_argument("--rewrite", action="append", default=None)
    args = parser.parse_args()
    rewrite = tuple(args.rewrite or ["23people.io"])
    data = tempfile.mkdtemp(prefix="sitekb-bench-")
    env = {**os.environ, "SITEKB_DATA_DIR": data, "SITEKB_ALLOW_PRIVATE_HOSTS": "true", "HF_HUB_OFFLINE": "1"}
    env.pop("OPENAI_API_KEY", None)
    with StaticSite(args.site_dir, rewrite_hosts=rewrite) as site:
        run_code = ("import json; from ingest.settings import load_settings; from ingest.pipeline import run; "
                    f"r = run({site.base + '/'!r}, load_settings(), business='bench'); print(r.model_dump_json())")
        first = _phase(run_code, env)
        second = _phase(run_code, env)
    search_code = (
        "import json, time, statistics; from ingest.settings import load_settings; from retrieval import search\n"
        "s = load_settings(); search('bench', 'warm up', 5, s)\n"
        f"lat = []\nfor q in {QUERIES!r} * 3:\n    t = time.perf_counter(); search('bench', q, 5, s); lat.append((time.perf_counter() - t) * 1000)\n"
        "lat.sort(); print(json.dumps({'n': len(lat), 'p50_ms': round(statistics.median(lat), 1), "
        "'p95_ms': round(lat[int(len(lat) * 0.95) - 1], 1)}))")
    searches = _phase(search_code, env)
    summary = {
        "site": args.site_dir,
        "first_run": {k: first[k] for k in ("pages", "chunks", "embedding", "seconds", "bytes_transferred", "wall_s")},
        "first_run_peak_rss_mb": first["peak_rss_mb_so_far"],
        "unchanged_resync": {k: second[k] for k in ("pages", "chunks", "embedding", "seconds", "bytes_transferred", "wall_s")},
        "search_in_process": {k: searches[k] for k in ("n", "p50_ms", "p95_ms")},
        "cpus": os.cpu_count(),
    }
    print(json.dumps(summary, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
