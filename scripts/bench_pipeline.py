#!/usr/bin/env python3
"""Benchmark ingest and resync of a real site served on 127.0.0.1, side by side with
LangChain's indexing API when a Python with LangChain is given.

    .venv/bin/python scripts/bench_pipeline.py [SITE_DIR] [--rewrite HOST] [--edit N]
                                               [--langchain-python /tmp/peers/bin/python]

Phases, each in a fresh process (peak memory per phase): first ingest, unchanged
resync, resync after editing N pages (one sentence added to each), then in-process
search latency. The site is copied to a temporary folder, since the edit phase
changes files. Bytes and requests are counted by the server, so both tools are
measured the same way. Defaults: ../shared/corpora/sites/handbook, rewriting
23people.io, 5 edited pages. Prints a JSON summary (docs/benchmarks.md records it).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402

QUERIES = [
    "¿Cuáles son los valores de 23people?",
    "seguro complementario de salud",
    "beneficios",
    "how do we work with customers",
    "vacaciones y días libres",
    "metodología de trabajo",
    "quiénes somos",
    "proceso de selección",
    "teletrabajo",
    "contacto",
]
EDIT = " Este párrafo fue editado para el benchmark de resincronización."


# Runs one command and reports its own peak RSS: RUSAGE_CHILDREN of a process with a
# single child is that child's peak, where the benchmark's own would be the max of all.
_MEASURE = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(r.returncode)"
)


def _child(argv: list[str], env: dict) -> tuple[dict, float, int]:
    """Run a child process printing JSON; return it, its wall time and its peak RSS (MB)."""
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", _MEASURE, *argv], env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{argv[:3]} failed:\n{proc.stderr[-2000:]}")
    peak_kb = int(proc.stderr.strip().splitlines()[-1])
    return json.loads(proc.stdout.strip().splitlines()[-1]), round(time.monotonic() - started, 2), peak_kb // 1024


def _server_delta(site: StaticSite, before: tuple[int, int, dict]) -> dict:
    statuses = {str(k): v - before[2].get(k, 0) for k, v in site.statuses.items() if v - before[2].get(k, 0)}
    return {"requests": site.requests - before[0], "body_bytes": site.body_bytes_sent - before[1], "statuses": statuses}


def _snapshot(site: StaticSite) -> tuple[int, int, dict]:
    return site.requests, site.body_bytes_sent, dict(site.statuses)


def _edit_pages(root: Path, count: int) -> list[str]:
    """Add one sentence to the first paragraph of the first `count` content pages (sorted)."""
    edited = []
    for page in sorted(root.glob("*/**/index.html")):
        html = page.read_text(encoding="utf-8")
        changed, n = re.subn(
            r"(<article\b.*?<p>.*?)(</p>)", lambda m: m.group(1) + EDIT + m.group(2), html, count=1, flags=re.S
        )
        if n:
            page.write_text(changed, encoding="utf-8")
            edited.append(str(page.parent.relative_to(root)))
        if len(edited) == count:
            break
    return edited


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("site_dir", nargs="?", default=str(REPO.parent / "shared/corpora/sites/handbook"))
    parser.add_argument("--rewrite", action="append", default=None)
    parser.add_argument("--edit", type=int, default=5)
    parser.add_argument("--langchain-python", help="a Python with LangChain installed (see scripts/peer_langchain.py)")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="sitekb-bench-"))
    site_dir = work / "site"
    shutil.copytree(args.site_dir, site_dir)
    env = {
        **os.environ,
        "SITEKB_DATA_DIR": str(work / "data"),
        "SITEKB_ALLOW_PRIVATE_HOSTS": "true",
        "HF_HUB_OFFLINE": "1",
        "USER_AGENT": "sitekb-bench-peer",
    }
    env.pop("OPENAI_API_KEY", None)
    results: dict = {"site": args.site_dir, "cpus": os.cpu_count(), "sitekb": {}, "langchain": {}}
    with StaticSite(site_dir, rewrite_hosts=tuple(args.rewrite or ["23people.io"])) as site:
        run = [
            sys.executable,
            "-c",
            "from ingest.settings import load_settings; from ingest.pipeline import run; "
            f"print(run({site.base + '/'!r}, load_settings(), business='bench').model_dump_json())",
        ]
        peer = (
            [
                args.langchain_python,
                str(REPO / "scripts" / "peer_langchain.py"),
                site.base + "/sitemap.xml",
                str(work / "langchain"),
            ]
            if args.langchain_python
            else None
        )
        for phase in ("first", "unchanged", f"edited_{args.edit}"):
            if phase.startswith("edited"):
                results["edited_pages"] = _edit_pages(site_dir, args.edit)
            before = _snapshot(site)
            report, wall, rss = _child(run, env)
            results["sitekb"][phase] = {
                "wall_s": wall,
                "peak_rss_mb": rss,
                "server": _server_delta(site, before),
                "pages": {k: report["pages"][k] for k in ("fetched", "not_modified", "skipped")},
                "chunks": report["chunks"],
                "embedding": report["embedding"],
            }
            if peer:
                before = _snapshot(site)
                outcome, wall, rss = _child(peer, env)
                results["langchain"][phase] = {
                    "wall_s": wall,
                    "peak_rss_mb": rss,
                    "server": _server_delta(site, before),
                    **outcome,
                }
    search_code = (
        "import json, time, statistics; from ingest.settings import load_settings; from retrieval import search\n"
        "s = load_settings(); search('bench', 'warm up', 5, s)\n"
        f"lat = []\nfor q in {QUERIES!r} * 3:\n    t = time.perf_counter(); search('bench', q, 5, s); "
        "lat.append((time.perf_counter() - t) * 1000)\n"
        "lat.sort(); print(json.dumps({'n': len(lat), 'p50_ms': round(statistics.median(lat), 1), "
        "'p95_ms': round(lat[int(len(lat) * 0.95) - 1], 1)}))"
    )
    results["sitekb"]["search_in_process"] = _child([sys.executable, "-c", search_code], env)[0]
    print(json.dumps(results, indent=2, ensure_ascii=False))
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
