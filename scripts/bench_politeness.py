#!/usr/bin/env python3
"""Politeness benchmark (R-4.1): 40 pages behind a simulated firewall on 127.0.0.1.

    .venv/bin/python scripts/bench_politeness.py [--pages 40] [--latency 0.2] [--threshold 2]

The server answers each request after a fixed latency and returns 403 at once when
more than `threshold` requests are in flight (the seeds' WAF, which blocked a crawler
at concurrency 4 within 28 ms). Three schedules fetch the same pages in one run with
sitekb's Fetcher: fixed concurrency 1, fixed 4, and the adaptive default (2 → 4, 1 on
pushback). The fastest schedule the server allows is ceil(pages / threshold) × latency.
Prints a JSON summary; docs/benchmarks.md records it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from ingest.crawl import fetch
from ingest.settings import load_settings


class Firewall:
    def __init__(self, latency: float, threshold: int) -> None:
        self.latency, self.threshold = latency, threshold
        self.in_flight = self.blocks = self.served = 0
        self.lock = threading.Lock()
        firewall = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out in two writes; without this, Nagle's algorithm and
            # delayed ACKs add ~40 ms to every response on loopback.
            disable_nagle_algorithm = True

            def log_message(self, *args) -> None:
                pass

            def do_GET(self) -> None:
                with firewall.lock:
                    firewall.in_flight += 1
                    blocked = firewall.in_flight > firewall.threshold
                    firewall.blocks += blocked
                try:
                    if not blocked:
                        time.sleep(firewall.latency)
                    body = b"<h1>Blocked</h1>" if blocked else f"<h1>{self.path}</h1>".encode()
                    self.send_response(403 if blocked else 200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                finally:
                    with firewall.lock:
                        firewall.in_flight -= 1
                        firewall.served += not blocked

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address) -> None:
                pass  # the client closing a blocked connection early is expected here

        self.server = Server(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


class FixedThrottle(fetch.HostThrottle):
    """No adaptation: the schedules the adaptive one is compared with."""

    def record(self, status, retry_after, sent_at=None) -> None:
        if status in fetch.THROTTLE_STATUSES:
            self.pushbacks += 1


async def crawl(base: str, pages: int, start: int, ceiling: int, fixed: bool) -> tuple[int, float, list[int]]:
    os.environ.update(
        SITEKB_ALLOW_PRIVATE_HOSTS="true",
        SITEKB_CONCURRENCY_START=str(start),
        SITEKB_CONCURRENCY_MAX=str(ceiling),
        SITEKB_DATA_DIR=tempfile.mkdtemp(),
    )
    settings = load_settings()
    queue: asyncio.Queue[str] = asyncio.Queue()
    for i in range(pages):
        queue.put_nowait(f"{base}/page/{i}")
    ok = 0
    started = time.monotonic()
    async with fetch.Fetcher(settings) as fetcher:
        host = "127.0.0.1"
        if fixed:
            fetcher._throttles[host] = FixedThrottle(start, ceiling)

        async def worker() -> None:
            nonlocal ok
            while not queue.empty():
                page = await fetcher.fetch(queue.get_nowait())
                ok += page.status == 200

        await asyncio.gather(*(worker() for _ in range(ceiling)))
        levels = [fetcher.throttle(host).limit, fetcher.throttle(host).ceiling]
    return ok, round(time.monotonic() - started, 2), levels


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--threshold", type=int, default=2)
    args = parser.parse_args()
    fastest = math.ceil(args.pages / args.threshold) * args.latency
    results = {
        "pages": args.pages,
        "latency_s": args.latency,
        "threshold": args.threshold,
        "fastest_allowed_s": round(fastest, 2),
        "schedules": {},
    }
    for name, start, ceiling, fixed in (("fixed-1", 1, 1, True), ("fixed-4", 4, 4, True), ("adaptive", 2, 4, False)):
        firewall = Firewall(args.latency, args.threshold)
        ok, seconds, levels = asyncio.run(crawl(firewall.base, args.pages, start, ceiling, fixed))
        results["schedules"][name] = {
            "pages_ok": ok,
            "blocked_responses": firewall.blocks,
            "seconds": seconds,
            "x_fastest": round(seconds / fastest, 2),
            "final_limit_and_ceiling": levels,
        }
        firewall.server.shutdown()
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
