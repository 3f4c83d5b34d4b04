#!/usr/bin/env python3
"""Scale-out benchmark (#15): many small business sites, PostgreSQL, 1, 2 and 4 workers.

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/bench_scale.py --wait-quiet 60 [--sites 200] [--json out.json]

(~10-11 minutes with 200 sites on 2 cores; `--wait-quiet S` waits, before each round, up
to S seconds for other processes to leave the CPUs idle, and every round reports the
CPU other processes used while it ran.)

What runs, all on loopback:
- `--sites` synthetic business sites (a homepage linking 5-8 pages of a few paragraphs,
  robots.txt, sitemap.xml, real ETag/Last-Modified/304), each on its own address
  (127.0.1.x, 127.0.2.x, ...), served by one asyncio server in this process that answers
  every request after a random 50-100 ms and keeps a per-host request log: every
  request's start, end, method, path and status, and the most requests it ever had in
  flight at once.
- A fake OpenAI-compatible embedder (POST /v1/embeddings, base64 or float answers,
  `--embed-latency-ms` per call) that counts tokens with cl100k (as OpenAI does) and
  bills them at SITEKB_OPENAI_PRICE_PER_MTOK; it keeps every text it was sent.
- PostgreSQL 16 with pgvector (pgserver): state, job queue and vectors.
- `ingest worker` processes, each with a data folder of its own (its raw-response cache),
  new for every round by default (`--cache cold`: every round does the same work, as new
  worker machines would; `--cache kept` keeps them across rounds).

Scenarios, on one database:
1. initial ingest of every site (4 workers; reported, not the result);
2. a weekly resync round with 1, then 2, then 4 workers: before each round one page of
   every site gets a new paragraph, `enqueue_due(now + 8 days)` queues every site, and
   the round is timed from the enqueue to the last job's end;
3. a round with 4 workers of which one is killed with SIGKILL when ~30% of the jobs are
   done (the one waiting for an embedding call, found by its socket; `--kill-when any`:
   the last one, whatever it does): every job must finish, the vector table must hold exactly the chunks the state
   records, and no text may be paid for twice (except the call in flight at the kill);
4. a "redesign" round (every page of every site changes) with 4 workers and a total
   daily cap set so that it trips about halfway: the ledger's total must not pass the
   cap by more than one batch's worst case (EMBED_BATCH x chunk tokens x price).

Politeness: a violation is any moment with more requests in flight to one host than
the crawler allows (settings.concurrency_max), in any scenario.
Results: a table on stdout, `--json PATH` for all figures; docs/benchmarks.md records them.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import collections
import email.utils
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import numpy as np

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ingest.index.tokens import count_tokens  # noqa: E402
from ingest.indexer import EMBED_BATCH  # noqa: E402
from ingest.kb.embed import OPENAI_CHUNK_TOKENS  # noqa: E402
from ingest.ops.queue import QueueJobs, enqueue_due  # noqa: E402
from ingest.settings import load_settings  # noqa: E402

DIMENSIONS = 1536
DAY = 86400.0

# -- synthetic business sites ------------------------------------------------------------

KINDS = [
    "Bakery",
    "Dental Care",
    "Bike Repair",
    "Florist",
    "Yoga Studio",
    "Bistro",
    "Hair Salon",
    "Garage",
    "Bookshop",
    "Vet Clinic",
]
PREFIXES = [
    "Harbour",
    "Elm",
    "Juniper",
    "Copper",
    "Saffron",
    "Meadow",
    "Granite",
    "Willow",
    "Cobalt",
    "Hazel",
    "Marigold",
    "Northgate",
    "Bramble",
    "Larch",
    "Quayside",
    "Thistle",
    "Amber",
    "Foxglove",
    "Kestrel",
    "Ironbridge",
]
TOWNS = ["Exeter", "Leeds", "Bristol", "Bath", "York", "Derby", "Lincoln", "Truro", "Durham", "Norwich"]
TOPICS = [
    "Opening hours",
    "Prices",
    "Booking",
    "Parking and access",
    "Delivery",
    "Returns and refunds",
    "Gift cards",
    "Allergies and safety",
    "Our team",
    "Frequently asked questions",
]
NOUNS = [
    "appointment",
    "order",
    "visit",
    "service",
    "voucher",
    "deposit",
    "consultation",
    "repair",
    "menu",
    "team",
    "weekend",
    "holiday",
    "card payment",
    "invoice",
    "refund",
    "guarantee",
    "wheelchair access",
    "car park",
    "bus stop",
    "newsletter",
    "group booking",
    "discount",
    "season",
    "collection",
    "estimate",
]
VERBS = [
    "includes",
    "covers",
    "needs",
    "starts with",
    "comes with",
    "is confirmed by",
    "can be moved to",
    "is free for",
    "is explained in",
    "is handled by",
]
ADJ = ["friendly", "local", "seasonal", "quick", "careful", "independent", "family", "flexible", "quiet", "busy"]


def _sentence(rng: random.Random, name: str) -> str:
    a, b = rng.sample(NOUNS, 2)
    return (
        f"At {name}, every {rng.choice(ADJ)} {a} {rng.choice(VERBS)} a {rng.choice(ADJ)} {b}, "
        f"usually within {rng.randint(2, 48)} hours and for about £{rng.randint(5, 400)}."
    )


def _paragraph(rng: random.Random, name: str, sentences: int) -> str:
    return " ".join(_sentence(rng, name) for _ in range(sentences))


@dataclass
class Site:
    index: int
    name: str
    rng: random.Random
    pages: dict[str, tuple[bytes, float]] = field(default_factory=dict)  # path -> (body, mtime)
    page_paths: list[str] = field(default_factory=list)
    paragraphs: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # path -> [(heading, text)]
    # the per-host request log and in-flight figures
    in_flight: int = 0
    max_in_flight: int = 0
    log: list[tuple[float, float, str, str, int]] = field(default_factory=list)

    def render_page(self, path: str) -> None:
        i = self.page_paths.index(path)
        topic = TOPICS[i % len(TOPICS)]
        sections = "".join(f"<h2>{h}</h2><p>{t}</p>" for h, t in self.paragraphs[path])
        body = (
            f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{topic} | {self.name}</title>"
            f"</head><body><header><nav><a href='/'>Home</a></nav></header><main><h1>{topic}</h1>{sections}"
            f"</main><footer>{self.name}, {TOWNS[self.index % len(TOWNS)]}</footer></body></html>"
        ).encode()
        self.pages[path] = (body, time.time())

    def change(self, path: str, tag: str) -> None:
        """A new paragraph replaces the first one of `path` (a week's edit)."""
        heading, _ = self.paragraphs[path][0]
        self.paragraphs[path][0] = (heading, f"Update {tag}: " + _paragraph(self.rng, self.name, 4))
        self.render_page(path)

    def redesign(self, tag: str) -> None:
        """Every paragraph of every page rewritten: everything must be embedded again."""
        for path in self.page_paths:
            self.paragraphs[path] = [
                (h, f"New for {tag}: " + _paragraph(self.rng, self.name, 5)) for h, _ in self.paragraphs[path]
            ]
            self.render_page(path)


def make_site(index: int, seed: int) -> Site:
    rng = random.Random(seed * 100_003 + index)
    name = f"{PREFIXES[index % len(PREFIXES)]} {KINDS[(index // len(PREFIXES)) % len(KINDS)]}"
    if index >= len(PREFIXES) * len(KINDS):
        name += f" {index // (len(PREFIXES) * len(KINDS)) + 1}"
    site = Site(index, name, rng)
    count = rng.randint(5, 8)
    site.page_paths = [f"/{TOPICS[i].lower().replace(' ', '-')}.html" for i in range(count)]
    for i, path in enumerate(site.page_paths):
        site.paragraphs[path] = [
            (f"{TOPICS[i]}: part {j + 1}", _paragraph(rng, name, rng.randint(3, 6))) for j in range(rng.randint(2, 4))
        ]
        site.render_page(path)
    links = "".join(f"<li><a href='{p}'>{TOPICS[i]}</a></li>" for i, p in enumerate(site.page_paths))
    home = (
        f"<!doctype html><html lang='en'><head><meta charset='utf-8'><title>{name}</title></head><body>"
        f"<h1>{name}</h1><p>{name} is a {rng.choice(ADJ)} business in {TOWNS[index % len(TOWNS)]} since "
        f"{rng.randint(1950, 2020)}. Call us on +44 20 7946 {index:04d}.</p><ul>{links}</ul></body></html>"
    )
    site.pages["/"] = (home.encode(), time.time())
    return site


# -- one asyncio HTTP/1.1 server for every site and the embedder ----------------------------


class Farm:
    """Sites on 127.0.1.1, 127.0.1.2, ... and the fake embedder, on one event loop thread."""

    def __init__(
        self,
        sites: list[Site],
        latency_s: tuple[float, float],
        embed_latency_s: float,
        price_per_mtok: float,
        seed: int,
    ) -> None:
        self.sites = sites
        self.latency_s = latency_s
        self.embed_latency_s = embed_latency_s
        self.price_per_mtok = price_per_mtok
        self.rng = random.Random(seed)
        self.loop = asyncio.new_event_loop()
        self.bases: list[str] = []
        self.embed_base = ""
        # every embeddings request: (start, end or None, inputs, tokens)
        self.embed_requests: list[dict] = []
        self.embed_in_flight = 0
        self._servers = []
        self._writers: set[asyncio.StreamWriter] = set()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def __enter__(self) -> Farm:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self.loop).result(timeout=60)
        return self

    def __exit__(self, *exc) -> None:
        async def stop():
            for server in self._servers:
                server.close()
            for writer in list(self._writers):  # connections still open (keep-alive)
                writer.close()
            await asyncio.sleep(0.05)

        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(timeout=30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=10)

    async def _start(self) -> None:
        for site in self.sites:
            address = f"127.0.{1 + site.index // 250}.{1 + site.index % 250}"
            server = await asyncio.start_server(lambda r, w, s=site: self._serve(r, w, s), address, 0)
            self._servers.append(server)
            self.bases.append(f"http://{address}:{server.sockets[0].getsockname()[1]}")
        server = await asyncio.start_server(lambda r, w: self._serve(r, w, None), "127.0.0.1", 0)
        self._servers.append(server)
        self.embed_base = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, site: Site | None) -> None:
        self._writers.add(writer)
        sock = writer.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            while True:
                line = await reader.readline()
                if not line.strip():
                    break
                method, target, _ = line.decode("latin-1").split(" ", 2)
                headers: dict[str, str] = {}
                while True:
                    h = await reader.readline()
                    if h in (b"\r\n", b"\n", b""):
                        break
                    k, _, v = h.decode("latin-1").partition(":")
                    headers[k.strip().lower()] = v.strip()
                body = await reader.readexactly(int(headers["content-length"])) if "content-length" in headers else b""
                if site is None:
                    response = await self._embeddings(method, target, body, writer.get_extra_info("peername"))
                else:
                    response = await self._page(site, method, target, headers)
                writer.write(response)
                await writer.drain()
                if headers.get("connection", "").lower() == "close":
                    break
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _page(self, site: Site, method: str, target: str, headers: dict[str, str]) -> bytes:
        start = time.monotonic()
        site.in_flight += 1
        site.max_in_flight = max(site.max_in_flight, site.in_flight)
        try:
            await asyncio.sleep(self.rng.uniform(*self.latency_s))
            path = urlsplit(target).path or "/"
            status, ctype, extra, payload = self._resource(site, path, headers)
            head = [
                f"HTTP/1.1 {status} {_REASONS[status]}",
                f"Content-Type: {ctype}",
                f"Content-Length: {len(payload)}",
                *(f"{k}: {v}" for k, v in extra.items()),
                "",
                "",
            ]
            out = "\r\n".join(head).encode() + (payload if method != "HEAD" and status != 304 else b"")
        finally:
            site.in_flight -= 1
        site.log.append((start, time.monotonic(), method, path, status))
        return out

    def _resource(self, site: Site, path: str, headers: dict[str, str]) -> tuple[int, str, dict, bytes]:
        base = self.bases[site.index]
        if path == "/robots.txt":
            return (
                200,
                "text/plain; charset=utf-8",
                {},
                f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n".encode(),
            )
        if path == "/sitemap.xml":
            urls = "".join(f"<url><loc>{base}{p}</loc></url>" for p in ["/", *site.page_paths])
            xml = f"<?xml version='1.0' encoding='UTF-8'?><urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>{urls}</urlset>"
            return 200, "application/xml; charset=utf-8", {}, xml.encode()
        if path in ("/index.html",):
            path = "/"
        if path not in site.pages:
            return 404, "text/html; charset=utf-8", {}, b"<html><body><h1>Not found</h1></body></html>"
        body, mtime = site.pages[path]
        etag = '"' + hashlib.sha1(body).hexdigest()[:16] + '"'
        extra = {"ETag": etag, "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}
        if headers.get("if-none-match") == etag:
            return 304, "text/html; charset=utf-8", extra, b""
        return 200, "text/html; charset=utf-8", extra, body

    async def _embeddings(self, method: str, target: str, body: bytes, peer) -> bytes:
        record = {"start": time.monotonic(), "end": None, "inputs": [], "tokens": 0, "port": peer[1]}
        self.embed_in_flight += 1
        try:
            request = json.loads(body or b"{}")
            inputs = request.get("input", [])
            inputs = [inputs] if isinstance(inputs, str) else inputs
            record["inputs"] = inputs
            self.embed_requests.append(record)
            await asyncio.sleep(self.embed_latency_s)
            tokens = sum(count_tokens(t) for t in inputs)
            record["tokens"] = tokens
            as_b64 = request.get("encoding_format") == "base64"
            data = []
            for i, text in enumerate(inputs):
                vector = _bag_of_words(text)
                embedding = base64.b64encode(vector.tobytes()).decode() if as_b64 else vector.tolist()
                data.append({"object": "embedding", "index": i, "embedding": embedding})
            payload = json.dumps(
                {
                    "object": "list",
                    "model": request.get("model"),
                    "data": data,
                    "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
                }
            ).encode()
        finally:
            self.embed_in_flight -= 1
        record["end"] = time.monotonic()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n"
        return head.encode() + payload

    def call(self, fn):
        """Run `fn` on the loop thread (the figures it reads are the loop's own)."""

        async def wrapped():
            return fn()

        return asyncio.run_coroutine_threadsafe(wrapped(), self.loop).result(timeout=60)


_REASONS = {200: "OK", 304: "Not Modified", 404: "Not Found"}


def _bag_of_words(text: str) -> np.ndarray:
    vector = np.zeros(DIMENSIONS, dtype=np.float32)
    for word in re.findall(r"\w+", text.lower()):
        vector[zlib.crc32(word.encode()) % DIMENSIONS] += 1.0
    norm = float(np.linalg.norm(vector)) or 1.0
    return vector / norm


# -- PostgreSQL, workers ---------------------------------------------------------------------


_CONNECTIONS: dict[str, object] = {}


def sql(dsn: str, query: str, params=()) -> list[tuple]:
    """One statement on this process's own connection to `dsn` (kept open: the bench polls)."""
    import psycopg

    conn = _CONNECTIONS.get(dsn)
    if conn is None or conn.closed:
        conn = _CONNECTIONS[dsn] = psycopg.connect(dsn, autocommit=True)
    cur = conn.execute(query, params)
    return cur.fetchall() if cur.description else []


def _socket_owner(port: int, pids: list[int]) -> int | None:
    """The process (among `pids`) whose TCP socket has local port `port`, from /proc."""
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port:
            inodes.add(f"socket:[{fields[9]}]")
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                try:
                    if os.readlink(fd) in inodes:
                        return pid
                except OSError:
                    continue
        except OSError:
            continue
    return None


def _proc_cpu(pid: int, children: bool = False) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def _busy_cores_s() -> tuple[float, float]:
    """(busy CPU seconds, total CPU seconds) over all cores since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    idle = values[3] + values[4]
    return (sum(values) - idle) / tick, sum(values) / tick


class Bench:
    def __init__(self, args) -> None:
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="skbs"))
        self.settings_kw: dict = {}
        self.extra_env: dict[str, str] = {}
        self.harness_settings = None
        # Worker data folders (each worker's raw-response cache): new ones every round
        # ("cold", as new worker machines; the rounds do the same work), or kept.
        self.cache_round = "kept"
        self.rounds_started = 0

    # PostgreSQL
    def start_pg(self) -> None:
        import pgserver

        self.pg_dir = tempfile.mkdtemp(prefix="skbpg")
        self.pg = pgserver.get_server(self.pg_dir, cleanup_mode="stop")
        sql(self.pg.get_uri(), "CREATE DATABASE scale")
        self.dsn = self.pg.get_uri("scale")
        self.postmaster = int((Path(self.pg_dir) / "postmaster.pid").read_text().split()[0])

    def pg_cpu(self) -> float:
        total = _proc_cpu(self.postmaster, children=True)
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid == self.postmaster:
                    total += _proc_cpu(int(entry.name))
        return total

    def worker_env(self, name: str, fake_base: str, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SITEKB_")}
        env.update(
            HF_HUB_OFFLINE="1",
            SITEKB_DATABASE_URL=self.dsn,
            SITEKB_DATA_DIR=str(self.tmp / "workers" / self.cache_round / name),
            SITEKB_ALLOW_PRIVATE_HOSTS="true",
            SITEKB_EMBEDDER="openai",
            OPENAI_API_KEY="sk-test",
            OPENAI_BASE_URL=fake_base,
            SITEKB_OPENAI_PRICE_PER_MTOK=str(self.args.price),
            SITEKB_WORKER_HEARTBEAT_S="1",
            SITEKB_WORKER_STALLED_S="5",
            SITEKB_DUE_CHECK_CRON="0 0 1 1 *",  # the periodic due check stays out: the bench queues
        )
        env.update(extra or {})
        return env

    def start_workers(self, count: int, fake_base: str, extra: dict[str, str] | None = None) -> list[subprocess.Popen]:
        db_now = sql(self.dsn, "SELECT now()")[0][0]
        procs = []
        for i in range(count):
            name = f"w{i + 1}"
            log = open(self.tmp / f"{name}.log", "a")  # noqa: SIM115 (closed with the process)
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "ingest.cli", "worker", "--name", name],
                    env=self.worker_env(name, fake_base, extra),
                    cwd=REPO,
                    stdout=log,
                    stderr=log,
                )
            )
        deadline = time.monotonic() + 120
        while True:  # every worker registered with the queue before the clock starts
            alive = sql(self.dsn, "SELECT count(*) FROM procrastinate_workers WHERE last_heartbeat >= %s", (db_now,))
            if alive[0][0] >= count:
                break
            if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                raise RuntimeError(f"workers did not start: see {self.tmp}/w*.log")
            time.sleep(0.1)
        return procs

    @staticmethod
    def stop_workers(procs: list[subprocess.Popen]) -> None:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def job_states(self, ids: list[int]) -> dict[int, tuple[str, int]]:
        rows = sql(self.dsn, "SELECT id, status::text, attempts FROM procrastinate_jobs WHERE id = ANY(%s)", (ids,))
        return {r[0]: (r[1], r[2]) for r in rows}

    def spent_today(self) -> float:
        from datetime import UTC, datetime

        day = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0).timestamp()
        return float(sql(self.dsn, "SELECT COALESCE(SUM(usd), 0) FROM spend WHERE at >= %s", (day,))[0][0])


def wait_quiet(limit_s: float, cores: float = 0.3, window_s: float = 3.0) -> dict:
    """Between rounds nothing of the bench runs: wait (up to `limit_s`) until the machine's
    other load over `window_s` falls below `cores`; the waiting and the load are reported."""
    start = time.monotonic()
    while True:
        busy0, _ = _busy_cores_s()
        time.sleep(window_s)
        load = (_busy_cores_s()[0] - busy0) / window_s
        if load < cores or time.monotonic() - start > limit_s:
            return {"waited_s": round(time.monotonic() - start, 1), "other_load_cores": round(load, 2)}


# -- one round ---------------------------------------------------------------------------------


def run_round(
    bench: Bench,
    farm: Farm,
    label: str,
    workers: int,
    *,
    initial: bool = False,
    kill_fraction: float | None = None,
    extra_env: dict[str, str] | None = None,
    timeout_s: float = 900,
) -> dict:
    args = bench.args
    sites = farm.sites

    def reset():
        for s in sites:
            s.max_in_flight = s.in_flight
            s.log = []
        n = len(farm.embed_requests)
        return n

    embed_from = farm.call(reset)

    if args.wait_quiet:
        row_wait = wait_quiet(args.wait_quiet)
    else:
        row_wait = None
    bench.rounds_started += 1
    if args.cache == "cold":
        bench.cache_round = f"round{bench.rounds_started}"
    procs = bench.start_workers(workers, farm.embed_base, extra_env)
    spent_before = bench.spent_today()
    workers0 = sum(_proc_cpu(p.pid) for p in procs)
    (busy0, _), harness0, pg0 = _busy_cores_s(), time.process_time(), bench.pg_cpu()
    victim_cpu = 0.0
    wall0, epoch0 = time.monotonic(), time.time()
    if initial:
        ids = [
            int(bench.jobs.submit("run", {"site": base + "/", "business": f"site{s.index:03d}"}).id)
            for s, base in zip(sites, farm.bases, strict=True)
        ]
    else:
        queued = enqueue_due(bench.harness_settings, now=time.time() + 8 * DAY)
        ids = [int(q["job"]) for q in queued]
    enqueued_s = time.monotonic() - wall0
    killed = None
    kill_at = None
    done_statuses = {"succeeded", "failed", "cancelled", "aborted"}
    while True:
        states = bench.job_states(ids)
        finished = sum(1 for st, _ in states.values() if st in done_statuses)
        if kill_fraction is not None and killed is None and finished >= kill_fraction * len(ids):
            # The hardest moment: a worker waiting for an embedding call it has sent (paid
            # for at the provider, not yet received); with --kill-when any, whoever is last.
            victim = procs[-1]
            if args.kill_when == "embedding" and time.monotonic() - wall0 < timeout_s / 2:
                calls = farm.call(lambda: [r["port"] for r in farm.embed_requests[embed_from:] if r["end"] is None])
                owners = [_socket_owner(port, [p.pid for p in procs]) for port in calls]
                victim = next((p for p in procs for pid in owners if p.pid == pid), None)
            if victim is not None:
                victim_cpu = _proc_cpu(victim.pid)
                doing_before = {j for j, (st, _) in states.items() if st == "doing"}
                os.kill(victim.pid, signal.SIGKILL)
                kill_at = time.monotonic()
                victim.wait()
                in_flight_embed = farm.call(
                    lambda at=kill_at: sum(
                        1 for r in farm.embed_requests[embed_from:] if r["start"] <= at <= (r["end"] or 1e18)
                    )
                )
                killed = {
                    "worker": f"w{procs.index(victim) + 1}",
                    "pid": victim.pid,
                    "after_done": finished,
                    "at_s": round(kill_at - wall0, 2),
                    "jobs_running": len(doing_before),
                    "embedding_calls_in_flight": in_flight_embed,
                }
        if finished == len(ids):
            break
        if time.monotonic() - wall0 > timeout_s:
            raise RuntimeError(f"{label}: {len(ids) - finished} jobs not finished after {timeout_s} s")
        time.sleep(0.1)
    wall_end = time.monotonic()
    # the last job's own end (its result row) is more precise than the poll
    last_at = sql(bench.dsn, "SELECT max(at) FROM job_results WHERE job_id = ANY(%s)", (ids,))[0][0]
    wall_s = (last_at - epoch0) if last_at else (wall_end - wall0)
    busy1, _ = _busy_cores_s()
    pg1, harness1 = bench.pg_cpu(), time.process_time()
    workers1 = sum(_proc_cpu(p.pid) for p in procs if p.poll() is None) + victim_cpu
    spent_after = bench.spent_today()
    bench.stop_workers(procs)

    results = {
        r[0]: (json.loads(r[1]) if r[1] else None, r[2])
        for r in sql(bench.dsn, "SELECT job_id, result, error FROM job_results WHERE job_id = ANY(%s)", (ids,))
    }
    states = bench.job_states(ids)
    reports = [results.get(j, (None, None))[0] for j in ids]
    ok = [r for r in reports if r and not r.get("error") and not r.get("problem")]
    errors = collections.Counter(
        (r or {}).get("error_kind") or ((r or {}).get("problem")) or ("no result" if r is None else None)
        for r in reports
    )
    errors.pop(None, None)

    def snapshot():
        logs = [list(s.log) for s in sites]
        return logs, [s.max_in_flight for s in sites], farm.embed_requests[embed_from:]

    logs, max_in_flight, embed = farm.call(snapshot)
    statuses = collections.Counter(st for log in logs for *_, st in log)
    methods = collections.Counter(m for log in logs for _, _, m, _, _ in log)
    texts = [t for r in embed for t in r["inputs"]]
    tokens = sum(r["tokens"] for r in embed)
    row = {
        "label": label,
        "workers": workers,
        "sites": len(sites),
        "jobs": len(ids),
        "jobs_ok": len(ok),
        "job_errors": dict(errors),
        "jobs_retried": sum(1 for _, a in states.values() if a > 1),
        "enqueue_s": round(enqueued_s, 2),
        "wall_s": round(wall_s, 2),
        "sites_per_min": round(len(ids) / wall_s * 60, 1),
        "job_seconds_mean": round(sum(r["seconds"] for r in ok) / len(ok), 3) if ok else None,
        "requests": sum(len(log) for log in logs),
        "statuses": {str(k): v for k, v in sorted(statuses.items())},
        # a 304 whose page is then fetched again in full: the job ran on a worker whose own
        # raw-response cache lacks the page (each worker's data folder is its own)
        "refetched_after_304": sum(_refetched(log) for log in logs),
        "homepage_requests": sum(1 for log in logs for _, _, _, path, _ in log if path == "/"),
        "methods": dict(methods),
        "max_in_flight_per_host": max(max_in_flight),
        "hosts_over_allowed": sum(1 for m in max_in_flight if m > args.allowed),
        "allowed_in_flight": args.allowed,
        "embedding_calls": len(embed),
        "texts_embedded": len(texts),
        "tokens_billed": tokens,
        "provider_bill_usd": tokens * args.price / 1e6,
        "ledger_spend_usd": spent_after - spent_before,
        "chunks_added": sum(r["chunks"]["added"] for r in ok),
        "chunks_unchanged": sum(r["chunks"]["unchanged"] for r in ok),
        "cpu_busy_cores": round((busy1 - busy0) / (wall_end - wall0), 2),
        "cpu_s": {
            "workers": round(workers1 - workers0, 1),
            "postgres": round(pg1 - pg0, 1),
            "harness": round(harness1 - harness0, 1),
            # everything else on the machine (other processes, the kernel): should be ~0
            "other": round((busy1 - busy0) - (workers1 - workers0) - (pg1 - pg0) - (harness1 - harness0), 1),
            "all": round(busy1 - busy0, 1),
        },
        "ids": ids,
        "waited_for_quiet": row_wait,
        "_embed": embed,
        "_kill_at": kill_at,
        "killed": killed,
        "spent_before_usd": spent_before,
        "spent_after_usd": spent_after,
    }
    print(
        f"  {label}: {len(ids)} jobs, {len(ok)} ok, {wall_s:.1f} s, {row['sites_per_min']} sites/min, "
        f"max in flight {row['max_in_flight_per_host']}, {len(embed)} embedding calls, "
        f"CPU busy {row['cpu_busy_cores']} cores, errors {dict(errors) or 0}",
        flush=True,
    )
    return row


def _refetched(log: list[tuple[float, float, str, str, int]]) -> int:
    seen_304: set[str] = set()
    count = 0
    for _, _, method, path, status in sorted(log):
        if status == 304:
            seen_304.add(path)
        elif status == 200 and method == "GET" and path in seen_304:
            seen_304.discard(path)
            count += 1
    return count


# -- checks after the kill --------------------------------------------------------------------


def store_check(bench: Bench) -> dict:
    tables = [
        r[0]
        for r in sql(
            bench.dsn,
            "SELECT tablename FROM pg_tables WHERE tablename LIKE 'skbv\\_%%' AND tablename NOT LIKE '%%\\_terms'",
        )
    ]
    chunk_ids = {r[0] for r in sql(bench.dsn, "SELECT point_id FROM chunks")}
    chunk_rows = sql(bench.dsn, "SELECT count(*) FROM chunks")[0][0]
    point_rows = 0
    point_ids: set[str] = set()
    for t in tables:
        point_rows += sql(bench.dsn, f"SELECT count(*) FROM {t}")[0][0]
        point_ids |= {r[0] for r in sql(bench.dsn, f"SELECT id FROM {t}")}
    pending = sql(bench.dsn, "SELECT count(*) FROM pending_vectors")[0][0]
    return {
        "vector_tables": tables,
        "chunk_rows": chunk_rows,
        "point_rows": point_rows,
        "duplicate_points": point_rows - len(point_ids),
        "points_without_chunk": len(point_ids - chunk_ids),
        "chunks_without_point": len(chunk_ids - point_ids),
        "pending_vectors_left": pending,
    }


def repaid(row: dict) -> dict:
    """Texts sent to the embedder more than once in the round; the ones first sent in a call
    still in flight at the kill (started before it, answered after it or never) are apart."""
    first: dict[str, dict] = {}
    again: collections.Counter = collections.Counter()
    for req in row["_embed"]:
        for text in req["inputs"]:
            if text in first:
                again[text] += 1
            else:
                first[text] = req
    kill_at = row["_kill_at"]
    in_flight = [
        t
        for t in again
        if kill_at is not None
        and first[t]["start"] <= kill_at
        and (first[t]["end"] is None or first[t]["end"] >= kill_at)
    ]
    calls_in_flight = {id(first[t]) for t in in_flight}
    return {
        "texts_sent_twice": len(again),
        "resent_from_call_in_flight_at_kill": len(in_flight),
        "calls_in_flight_resent": len(calls_in_flight),
        "repaid_not_in_flight": len(again) - len(in_flight),
    }


# -- main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sites", type=int, default=200)
    parser.add_argument("--workers", default="1,2,4", help="worker counts of the timed rounds")
    parser.add_argument("--latency-ms", default="50,100", help="each site request waits uniform(lo, hi) ms")
    parser.add_argument("--embed-latency-ms", type=float, default=200.0)
    parser.add_argument("--price", type=float, default=0.02, help="USD per 1M tokens (SITEKB_OPENAI_PRICE_PER_MTOK)")
    parser.add_argument("--kill-at", type=float, default=0.3, help="fraction of jobs done when a worker is killed")
    parser.add_argument(
        "--kill-when",
        choices=["embedding", "any"],
        default="embedding",
        help="kill the worker waiting for an embedding call (default), or the last one whatever it does",
    )
    parser.add_argument(
        "--cache",
        choices=["cold", "kept"],
        default="cold",
        help="workers start every round with empty data folders (default) or keep them across rounds",
    )
    parser.add_argument(
        "--wait-quiet",
        type=float,
        default=0.0,
        metavar="S",
        help="before each round, wait up to S seconds for other processes to leave the CPUs idle",
    )
    parser.add_argument("--cap-fraction", type=float, default=0.5, help="where in the cap round the cap should trip")
    parser.add_argument("--skip", default="", help="comma-separated: kill,cap")
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--keep", action="store_true", help="keep the temporary folders (worker logs)")
    args = parser.parse_args()
    args.allowed = load_settings().concurrency_max
    lo, hi = (float(x) / 1000 for x in args.latency_ms.split(","))
    skip = set(filter(None, args.skip.split(",")))
    counts = [int(x) for x in args.workers.split(",")]
    started = time.monotonic()

    bench = Bench(args)
    print(
        f"{os.cpu_count()} cores; {args.sites} sites, {lo * 1000:.0f}-{hi * 1000:.0f} ms per request, "
        f"embedder {args.embed_latency_ms:.0f} ms per call at ${args.price}/Mtok; temp {bench.tmp}",
        flush=True,
    )
    bench.start_pg()
    bench.harness_settings = load_settings(
        database_url=bench.dsn, data_dir=bench.tmp / "harness", allow_private_hosts=True
    )
    bench.jobs = QueueJobs(bench.harness_settings)  # sitekb's and the queue's tables, before any worker
    sites = [make_site(i, args.seed) for i in range(args.sites)]
    out: dict = {
        "machine": {"cores": os.cpu_count()},
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    }
    rows = []
    try:
        with Farm(sites, (lo, hi), args.embed_latency_ms / 1000, args.price, args.seed) as farm:
            print("initial ingest (4 workers, not the result)", flush=True)
            initial = run_round(bench, farm, "initial ingest", 4, initial=True)
            rows.append(initial)
            for n in counts:
                farm.call(lambda n=n: [s.change(s.page_paths[n % len(s.page_paths)], f"round {n}") for s in sites])
                rows.append(run_round(bench, farm, f"resync, {n} worker{'s' * (n > 1)}", n))
            if "kill" not in skip:
                farm.call(lambda: [s.change(s.page_paths[-1], "kill round") for s in sites])
                kill = run_round(bench, farm, "resync, 4 workers, 1 killed", 4, kill_fraction=args.kill_at)
                kill["store"] = store_check(bench)
                kill["repaid"] = repaid(kill)
                rows.append(kill)
            if "cap" not in skip:
                farm.call(lambda: [s.redesign("the redesign") for s in sites])
                expected = initial["ledger_spend_usd"]  # the redesign embeds as much text as the first ingest
                cap = bench.spent_today() + args.cap_fraction * expected
                cap_row = run_round(
                    bench, farm, "redesign, 4 workers, cap", 4, extra_env={"SITEKB_DAILY_CAP_TOTAL_USD": f"{cap:.8f}"}
                )
                worst = EMBED_BATCH * OPENAI_CHUNK_TOKENS * args.price / 1e6
                biggest_call = max((r["tokens"] for r in cap_row["_embed"]), default=0) * args.price / 1e6
                cap_row["cap"] = {
                    "cap_usd": cap,
                    "expected_round_usd": expected,
                    "spent_today_usd": cap_row["spent_after_usd"],
                    "overshoot_usd": cap_row["spent_after_usd"] - cap,
                    "one_batch_worst_case_usd": worst,
                    "biggest_call_usd": biggest_call,
                    "stopped_by_cap": cap_row["job_errors"].get("BudgetExceeded", 0),
                    "paused_budget_sources": sql(
                        bench.dsn, "SELECT count(*) FROM sources WHERE status='paused_budget'"
                    )[0][0],
                }
                rows.append(cap_row)
    finally:
        try:
            for conn in _CONNECTIONS.values():
                conn.close()
            bench.pg.cleanup()
        finally:
            if not args.keep:
                shutil.rmtree(bench.tmp, ignore_errors=True)
                shutil.rmtree(bench.pg_dir, ignore_errors=True)
    out["runtime_s"] = round(time.monotonic() - started, 1)
    out["rounds"] = [{k: v for k, v in r.items() if not k.startswith("_") and k != "ids"} for r in rows]
    report(out, counts)
    if args.json:
        args.json.write_text(json.dumps(out, indent=2, default=str))


def report(out: dict, counts: list[int]) -> None:
    rounds = out["rounds"]
    timed = {r["workers"]: r for r in rounds if r["label"].startswith("resync, ") and "killed" not in r["label"]}
    base = timed.get(counts[0])
    print(
        "\n| round | workers | jobs ok | wall | sites/min | speedup | max in flight/host (allowed) | requests "
        "(200/304/404) | embedding calls / texts | CPU busy (of 2 cores) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        speed = f"{r['sites_per_min'] / base['sites_per_min']:.2f}×" if base and r in timed.values() else "–"
        st = r["statuses"]
        print(
            f"| {r['label']} | {r['workers']} | {r['jobs_ok']}/{r['jobs']} | {r['wall_s']:.1f} s | "
            f"{r['sites_per_min']} | {speed} | {r['max_in_flight_per_host']} ({r['allowed_in_flight']}) | "
            f"{r['requests']} ({st.get('200', 0)}/{st.get('304', 0)}/{st.get('404', 0)}) | "
            f"{r['embedding_calls']} / {r['texts_embedded']} | {r['cpu_busy_cores']} |"
        )
    violations = sum(r["hosts_over_allowed"] for r in rounds)
    print(
        f"\npoliteness violations (a host with more than {rounds[0]['allowed_in_flight']} requests in flight): "
        f"{violations}"
    )
    for r in rounds:
        if r.get("killed"):
            print(f"kill: {r['killed']}")
            print(f"      store: {r['store']}")
            print(f"      re-paid: {r['repaid']}; job errors: {r['job_errors'] or 0}; retried: {r['jobs_retried']}")
        if r.get("cap"):
            c = r["cap"]
            print(
                f"cap: cap ${c['cap_usd']:.6f}, spent ${c['spent_today_usd']:.6f}, overshoot "
                f"${c['overshoot_usd']:.6f} vs one batch's worst case ${c['one_batch_worst_case_usd']:.6f} "
                f"(biggest call ${c['biggest_call_usd']:.6f}); {c['stopped_by_cap']} jobs stopped by the cap, "
                f"{c['paused_budget_sources']} sources paused; jobs ok {r['jobs_ok']}/{r['jobs']}"
            )
    print(
        "\n| round | mean job s | CPU s: workers / postgres / harness / other | 304 then refetched | "
        "ledger spend | provider bill |"
    )
    print("|---|---|---|---|---|---|")
    for r in rounds:
        c = r["cpu_s"]
        print(
            f"| {r['label']} | {r['job_seconds_mean']} | {c['workers']} / {c['postgres']} / {c['harness']} / "
            f"{c['other']} | {r['refetched_after_304']} | ${r['ledger_spend_usd']:.6f} | ${r['provider_bill_usd']:.6f} |"
        )
    print(f"\nruntime {out['runtime_s']:.0f} s")


if __name__ == "__main__":
    main()
