#!/usr/bin/env python3
"""Latency of the retrieval API (POST /v1/search) over loopback, with concurrent clients.

    .venv/bin/python scripts/bench_latency.py [--layout 1x2000 --layout 100x1000] [--clients 8] [--requests 2000]
        [--site-language es]

Every request asks a question not asked before (the server caches query vectors).
For each layout (businesses x chunks each) a knowledge base is built in a temporary data
folder on the embedded defaults: chunk texts are sentences drawn from the bundled
sample site's words, vectors are random unit vectors (HNSW and filtering cost the
same whatever the vectors mean; real embedding of 100k chunks would take over an hour
here). The server (`ingest serve`) runs in its own process; clients spread requests
over all businesses with their own keys. Reported: client-side p50/p95/p99 and
throughput over HTTP (query embedding with the local model included), the same search
in-process with the query vector given (embedding excluded), the embedding alone, and
the server's peak memory. Prints JSON; docs/benchmarks.md records it.

`--site-language es` writes every business's pages in that language and asks English
questions ("how much is the ..."): the path a caller in another language than the site
takes (dense hits then carry their vectors for the hub penalty, retrieval/search.py).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx
import numpy as np

REPO = Path(__file__).resolve().parent.parent


def _vocabulary() -> list[str]:
    text = " ".join(p.read_text(encoding="utf-8") for p in (REPO / "scripts" / "demo_site").rglob("*.html"))
    words = re.findall(r"[A-Za-zÀ-ÿ£0-9]{3,}", re.sub(r"<[^>]+>", " ", text))
    return sorted(set(words))


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2)


def build(
    data_dir: Path, businesses: int, chunks: int, vocab: list[str], rng: random.Random, lang: str = ""
) -> dict[str, str]:
    """Fill state and store (pages in `lang` when given); returns business -> API key."""
    os.environ["SITEKB_DATA_DIR"] = str(data_dir)
    from ingest.kb.embed import make_embedder
    from ingest.kb.lexical import SCHEME
    from ingest.kb.state import ChunkRecord, StateStore
    from ingest.kb.store import StoredPoint, open_store
    from ingest.settings import load_settings

    settings = load_settings()
    embedder = make_embedder(settings)  # the configured local model (SITEKB_LOCAL_MODEL)
    state = StateStore(settings.state_location)
    store = open_store(settings, embedder.id, embedder.dimensions)
    keys = {}
    np_rng = np.random.default_rng(rng.randrange(2**32))
    for b in range(businesses):
        business = f"biz{b:03d}"
        source_id = state.sources.ensure(business, f"{business}.example")
        state.businesses.set_embedder(business, embedder.id)
        if lang:
            state.businesses.set_lexical(business, SCHEME, {lang})
        vectors = np_rng.standard_normal((chunks, embedder.dimensions)).astype(np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        points, rows = [], []
        for i in range(chunks):
            text = f"Page {i % 50} > Section {i % 7}\n\n" + " ".join(rng.choice(vocab) for _ in range(60))
            pid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"{business}/{i}"))
            url = f"https://{business}.example/page-{i % 50}/"
            points.append(
                StoredPoint(
                    pid,
                    vectors[i].tolist(),
                    {
                        "business": business,
                        "url": url,
                        "title": f"Page {i % 50}",
                        "heading_path": f"Page {i % 50}",
                        "text": text,
                        "position": i // 50,
                        "fingerprint": pid,
                        "embedder": embedder.id,
                        **({"lang": lang} if lang else {}),
                    },
                )
            )
            rows.append(ChunkRecord(pid, url, pid, f"Page {i % 50}", i // 50, 100, embedder.id))
        for start in range(0, chunks, 1000):
            store.upsert(points[start : start + 1000])
        state.chunks.add(source_id, rows)
        keys[business] = state.keys.create(business, "bench")[1]
    store.close()
    state.close()
    return keys


async def load(
    base: str, keys: dict[str, str], queries: list[str], clients: int, requests: int
) -> tuple[list[float], float]:
    latencies: list[float] = []
    businesses = list(keys)
    counter = iter(range(requests))

    async def client(n: int) -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            for i in counter:
                business = businesses[(i * 7 + n) % len(businesses)]
                started = time.perf_counter()
                response = await http.post(
                    "/v1/search",
                    json={"query": queries[i % len(queries)], "top_k": 5},
                    headers={"Authorization": f"Bearer {keys[business]}"},
                )
                latencies.append((time.perf_counter() - started) * 1000)
                response.raise_for_status()

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return latencies, time.perf_counter() - started


async def load_lean(
    base: str, keys: dict[str, str], queries: list[str], clients: int, requests: int
) -> tuple[list[float], float]:
    """`load` with a client that costs the shared cores next to nothing: each request's
    bytes are written before its clock starts, and the response is read on a kept-open
    connection without parsing more than its status line and length. httpx's client
    takes ~2 ms of CPU a request, on the 2 cores the server needs (docs/benchmarks.md,
    tenth round); a caller's assistant sends its questions from another machine."""
    host, port = base.removeprefix("http://").rsplit(":", 1)
    latencies: list[float] = []
    businesses = list(keys)
    counter = iter(range(requests))

    def request(business: str, query: str) -> bytes:
        body = json.dumps({"query": query, "top_k": 5}).encode()
        head = (
            f"POST /v1/search HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {keys[business]}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        return head.encode() + body

    async def client(n: int) -> None:
        reader, writer = await asyncio.open_connection(host, int(port))
        try:
            for i in counter:
                raw = request(businesses[(i * 7 + n) % len(businesses)], queries[i % len(queries)])
                started = time.perf_counter()
                writer.write(raw)
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
                await reader.readexactly(length)
                latencies.append((time.perf_counter() - started) * 1000)
                if not head.startswith(b"HTTP/1.1 200"):
                    status = head.split(b"\r\n", 1)[0].decode()
                    raise RuntimeError(f"the server answered {status}")
        finally:
            writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(client(n) for n in range(clients)))
    return latencies, time.perf_counter() - started


def in_process(data_dir: Path, keys: dict[str, str], queries: list[str], n: int) -> dict:
    os.environ["SITEKB_DATA_DIR"] = str(data_dir)
    from ingest.kb.embed import make_embedder
    from ingest.settings import load_settings
    from retrieval.search import Searcher

    embedder = make_embedder(load_settings())
    embedder.embed_query("warm up")
    vectors = [embedder.embed_query(q) for q in queries]
    embed_ms = []
    for q in queries[:200]:
        started = time.perf_counter()
        embedder.embed_query(q)
        embed_ms.append((time.perf_counter() - started) * 1000)
    search_ms = []
    businesses = list(keys)
    with Searcher(load_settings()) as searcher:
        searcher.search(businesses[0], queries[0], 5, vector=vectors[0])
        for i in range(n):
            started = time.perf_counter()
            searcher.search(
                businesses[i % len(businesses)], queries[i % len(queries)], 5, vector=vectors[i % len(vectors)]
            )
            search_ms.append((time.perf_counter() - started) * 1000)
    return {
        "search_without_embedding_ms": {
            "p50": _percentile(search_ms, 0.5),
            "p95": _percentile(search_ms, 0.95),
            "p99": _percentile(search_ms, 0.99),
        },
        "query_embedding_ms": {"p50": _percentile(embed_ms, 0.5), "p95": _percentile(embed_ms, 0.95)},
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layout", action="append", default=None, help="BUSINESSESxCHUNKS, e.g. 100x1000")
    parser.add_argument("--clients", type=int, action="append", default=None, help="concurrent clients (repeatable)")
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument(
        "--client",
        choices=["lean", "httpx"],
        default="lean",
        help="lean: raw HTTP/1.1 on kept-open connections (the server's time); httpx: httpx's AsyncClient "
        "(the figures before 2026-12-04's tenth round)",
    )
    parser.add_argument("--site-language", default="", help="the pages' language; questions are asked in English")
    args = parser.parse_args()
    rng = random.Random(7)
    vocab = _vocabulary()
    # Every request asks a question not asked before: the server caches query vectors,
    # and a repeated question would measure the cache, not the model.
    levels = args.clients or [1, 4, 8]
    needed = 50 + args.requests * len(levels)
    openings = ["what is the", "do you have a", "how much is the", "where can I find the", "is there a"]
    queries = list(
        dict.fromkeys(
            (f"{rng.choice(openings)} " if args.site_language else "")
            + " ".join(rng.choice(vocab) for _ in range(rng.randint(3, 8)))
            for _ in range(needed * 2)
        )
    )
    assert len(queries) >= needed, "the vocabulary is too small for that many distinct questions"
    results = []
    for layout in args.layout or ["1x2000", "100x1000"]:
        businesses, chunks = (int(x) for x in layout.split("x"))
        data_dir = Path(tempfile.mkdtemp(prefix="sitekb-latency-"))
        started = time.perf_counter()
        keys = build(data_dir, businesses, chunks, vocab, rng, args.site_language)
        build_s = time.perf_counter() - started
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        env = {**os.environ, "SITEKB_DATA_DIR": str(data_dir), "HF_HUB_OFFLINE": "1"}
        server = subprocess.Popen(
            [sys.executable, "-m", "ingest.cli", "serve", "--port", str(port)], env=env, stderr=subprocess.DEVNULL
        )
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(200):
                try:
                    httpx.get(base + "/healthz")
                    break
                except httpx.ConnectError:
                    time.sleep(0.1)
            asyncio.run(load(base, keys, queries[:50], 4, 50))  # warm-up: model load, caches
            http = {}
            for level, clients in enumerate(levels):
                fresh = queries[50 + level * args.requests : 50 + (level + 1) * args.requests]
                latencies, seconds = asyncio.run(
                    (load if args.client == "httpx" else load_lean)(base, keys, fresh, clients, args.requests)
                )
                http[f"{clients}_clients"] = {
                    "p50_ms": _percentile(latencies, 0.5),
                    "p95_ms": _percentile(latencies, 0.95),
                    "p99_ms": _percentile(latencies, 0.99),
                    "throughput_qps": round(len(latencies) / seconds, 1),
                }
            status = Path(f"/proc/{server.pid}/status").read_text()
            peak_mb = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) // 1024
        finally:
            server.terminate()
            server.wait(timeout=10)
        results.append(
            {
                "layout": layout,
                "site_language": args.site_language or None,
                "client": args.client,
                "chunks_total": businesses * chunks,
                "build_s": round(build_s, 1),
                "http_with_embedding": http,
                "server_peak_rss_mb": peak_mb,
                **in_process(data_dir, keys, queries, 1000),
            }
        )
    print(json.dumps({"cpus": os.cpu_count(), "results": results}, indent=2))


if __name__ == "__main__":
    main()
