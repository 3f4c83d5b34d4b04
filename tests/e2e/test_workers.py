"""Past one machine, end to end: PostgreSQL (pgserver) holds the state, the vectors
(pgvector) and the job queue; `ingest worker` processes take the jobs; `ingest run`
and `ingest search` run as other processes, each with a data folder of its own, so
nothing can pass between them but the database. Sites are real HTTP servers on
127.0.0.1; the embedding provider is the local OpenAI-compatible fake, which counts
every text it is paid to embed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from conftest import ingest_serve
from fake_openai import FakeOpenAI
from serve_site import StaticSite

from ingest.indexer import EMBED_BATCH
from ingest.kb.state import StateStore
from ingest.kb.store import open_existing_store
from ingest.ops.queue import QueueJobs
from ingest.settings import load_settings

TOPICS = ["opening hours", "parking", "prices", "booking", "delivery", "returns", "gift cards", "allergies"]


def write_site(root: Path, name: str, pages: int) -> None:
    """A small business site: a homepage linking `pages` pages of a few paragraphs each."""
    links = "".join(f'<li><a href="/p{i}.html">{TOPICS[i % len(TOPICS)]} {i}</a></li>' for i in range(pages))
    (root / "index.html").write_text(
        f"<html lang='en'><head><title>{name}</title></head><body><h1>{name}</h1>"
        f"<p>Welcome to {name}, a family business on the harbour since 1982. Our phone number: <a href='tel:+442079460{pages:03d}'>+44 20 7946 0{pages:03d}</a>.</p>"
        f"<ul>{links}</ul></body></html>"
    )
    for i in range(pages):
        topic = TOPICS[i % len(TOPICS)]
        paragraphs = "".join(
            f"<h2>{topic.title()} detail {j}</h2><p>{name} page {i} section {j} explains {topic} for guests: "
            + " ".join(f"word{i}x{j}x{k}" for k in range(60))
            + "</p>"
            for j in range(3)
        )
        (root / f"p{i}.html").write_text(
            f"<html lang='en'><head><title>{topic} {i} | {name}</title></head><body><h1>{topic.title()} {i}</h1>"
            f"{paragraphs}</body></html>"
        )


def _pending(pg_url: str) -> int:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        exists = conn.execute("SELECT to_regclass('pending_vectors') IS NOT NULL").fetchone()[0]
        return conn.execute("SELECT COUNT(*) FROM pending_vectors").fetchone()[0] if exists else 0


def _env(pg_url: str, data_dir: Path, fake: FakeOpenAI) -> dict[str, str]:
    env = os.environ.copy()
    env.update(
        SITEKB_DATABASE_URL=pg_url,
        SITEKB_DATA_DIR=str(data_dir),
        SITEKB_ALLOW_PRIVATE_HOSTS="true",
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=fake.base_url,
        SITEKB_WORKER_HEARTBEAT_S="0.5",
        SITEKB_WORKER_STALLED_S="2",
        SITEKB_DUE_CHECK_CRON="0 0 1 1 *",  # the periodic due check stays out of these tests
    )
    return env


@contextmanager
def worker(env: dict[str, str], name: str):
    proc = subprocess.Popen(
        [sys.executable, "-m", "ingest.cli", "worker", "--name", name],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def cli(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ingest.cli", *args], env=env, capture_output=True, text=True, timeout=timeout
    )


def _settings(env: dict[str, str]):
    with pytest.MonkeyPatch.context() as patch:
        for key in ("SITEKB_DATABASE_URL", "SITEKB_DATA_DIR", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
            patch.setenv(key, env[key])
        return load_settings()


@pytest.fixture
def fake():
    with FakeOpenAI() as f:
        yield f


def test_workers_run_queued_jobs_and_any_process_searches_the_result(pg_url, tmp_path, fake):
    for name in ("harbour", "corner"):
        (tmp_path / name).mkdir()
        write_site(tmp_path / name, f"The {name.title()} Cafe", 4)
    with StaticSite(tmp_path / "harbour") as harbour, StaticSite(tmp_path / "corner") as corner:
        client = _env(pg_url, tmp_path / "client", fake)
        queued = [  # before any worker runs: the jobs wait in the queue
            json.loads(cli(client, "run", site.base + "/", "--business", b, "--no-wait", "--json").stdout)
            for site, b in ((harbour, "harbour"), (corner, "corner"))
        ]
        again = json.loads(
            cli(client, "run", harbour.base + "/", "--business", "harbour", "--no-wait", "--json").stdout
        )
        assert again["job"] == queued[0]["job"]  # still waiting: the same job, not a second one
        with worker(_env(pg_url, tmp_path / "w1", fake), "w1"), worker(_env(pg_url, tmp_path / "w2", fake), "w2"):
            jobs = QueueJobs(_settings(client))
            for q in queued:
                done = jobs.wait(q["job"], poll_s=0.2, timeout_s=240)
                assert done.status == "done", done.error
                assert done.result["error"] is None and done.result["chunks"]["added"] > 0
            waited = cli(client, "run", corner.base + "/", "--business", "corner", "--json")  # queues and waits
            assert waited.returncode == 0, waited.stderr
            report = json.loads(waited.stdout)
            assert report["business"] == "corner" and report["error"] is None
            assert report["chunks"]["added"] == 0 and report["chunks"]["unchanged"] > 0  # a resync: nothing new
        searcher = _env(pg_url, tmp_path / "searcher", fake)
        found = cli(searcher, "search", "--business", "harbour", "--json", "what is your phone number")
        assert found.returncode == 0, found.stderr
        hits = json.loads(found.stdout)["hits"]
        assert any("7946 0004" in h["text"] for h in hits), [h["text"][:80] for h in hits]
        # The API apart from the workers: its own process and data folder, a key made elsewhere.
        secret = cli(client, "keys", "create", "--business", "corner").stdout.strip()
        api_env = _env(pg_url, tmp_path / "api", fake)
        with pytest.MonkeyPatch.context() as patch:
            for key, value in api_env.items():
                patch.setenv(key, value)
            with ingest_serve() as base:
                answer = httpx.post(
                    base + "/v1/search",
                    json={"query": "what is your phone number"},
                    headers={"Authorization": f"Bearer {secret}"},
                ).json()
                admin = json.loads((tmp_path / "api" / "server.json").read_text())["token"]
                queued = httpx.post(
                    base + "/v1/admin/jobs",
                    json={"kind": "run", "site": corner.base + "/", "business": "corner"},
                    headers={"Authorization": f"Bearer {admin}"},
                ).json()
        assert any("7946 0004" in h["text"] for h in answer["hits"])
        assert queued["status"] == "queued"  # no worker runs now: the server only queued it
        assert QueueJobs(_settings(client)).get(queued["id"]).status == "queued"
    for folder in ("w1", "w2", "client", "searcher", "api"):  # nothing of the knowledge base on any process's disk
        assert not (tmp_path / folder / "state.sqlite3").exists()
        assert not (tmp_path / folder / "vectors").exists()


def test_a_worker_killed_mid_job_leaves_it_to_another_which_pays_for_nothing_twice(pg_url, tmp_path, fake):
    root = tmp_path / "site"
    root.mkdir()
    write_site(root, "The Slow Bakery", 50)  # ~150 chunks: three embedding batches
    fake.delay_s = 1.5
    with StaticSite(root) as site:
        first_env = _env(pg_url, tmp_path / "w1", fake)
        jobs = QueueJobs(_settings(first_env))
        job = jobs.submit("run", {"site": site.base + "/", "business": "bakery"})
        with worker(first_env, "w1") as doomed:
            deadline = time.monotonic() + 120
            while _pending(pg_url) < EMBED_BATCH:  # the first batch is paid for and saved
                assert time.monotonic() < deadline, "the first worker never embedded"
                time.sleep(0.05)
            os.kill(doomed.pid, signal.SIGKILL)  # the second batch is in flight
            doomed.wait()
        saved_before_kill = [text for batch in fake.requests for text in batch]
        assert len(saved_before_kill) == EMBED_BATCH
        assert jobs.get(job.id).status == "running"  # the queue has not noticed yet
        fake.delay_s = 0.0
        with worker(_env(pg_url, tmp_path / "w2", fake), "w2"):
            done = jobs.wait(job.id, poll_s=0.2, timeout_s=120)
        assert done.status == "done", done.error
        assert done.result["error"] is None
    settings = _settings(first_env)
    state = StateStore(settings.state_location)
    try:
        recorded = state.chunks.ids("bakery")
        embedder_id = state.businesses.embedder_of("bakery")
        interrupted = state._db.execute(
            "SELECT COUNT(*) FROM runs WHERE business='bakery' AND report LIKE '%Interrupted%'"
        ).fetchone()[0]
    finally:
        state.close()
    store = open_existing_store(settings, embedder_id)
    try:
        stored = store.point_ids("bakery")
    finally:
        store.close()
    assert len(recorded) > 2 * EMBED_BATCH
    assert stored == recorded  # every chunk once: no duplicates, none missing
    later = [text for batch in fake.requests[1:] for text in batch]
    assert not set(saved_before_kill) & set(later)  # what was paid for and received is never paid again
    # Only the call in flight when the worker died was paid for without being received.
    assert len(recorded) <= fake.inputs_embedded <= len(recorded) + EMBED_BATCH
    assert interrupted == 1  # the killed worker's run is closed as interrupted


def test_without_a_worker_the_cli_runs_the_job_itself(pg_url, tmp_path, fake):
    """A newcomer who sets SITEKB_DATABASE_URL and runs `make ingest` before starting any
    worker gets the run, not a wait for ever."""
    (tmp_path / "site").mkdir()
    write_site(tmp_path / "site", "The Lone Cafe", 3)
    with StaticSite(tmp_path / "site") as site:
        client = _env(pg_url, tmp_path / "client", fake)
        ran = cli(client, "run", site.base + "/", "--business", "lone", "--json", timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert "no worker is running" in ran.stderr
        report = json.loads(ran.stdout)
        assert report["error"] is None and report["chunks"]["added"] > 0
        queued = cli(client, "run", site.base + "/", "--business", "lone", "--no-wait", "--json")
        assert json.loads(queued.stdout)["job"] and "start one with `ingest worker`" in queued.stderr


def test_a_worker_stopped_with_sigterm_finishes_its_job_and_nobody_runs_it_again(pg_url, tmp_path, fake):
    """SIGTERM stops the worker's heartbeat while it finishes the job in hand; another
    worker's sweep must see the job's own lock still held and leave it alone."""
    root = tmp_path / "site"
    root.mkdir()
    write_site(root, "The Patient Inn", 12)
    with StaticSite(root) as site:
        site.delay_s = 0.4  # one page at a time: ~6 s of crawling, three times the stall limit
        first_env = _env(pg_url, tmp_path / "w1", fake) | {
            "SITEKB_CONCURRENCY_START": "1",
            "SITEKB_CONCURRENCY_MAX": "1",
        }
        jobs = QueueJobs(_settings(first_env))
        job = jobs.submit("run", {"site": site.base + "/", "business": "inn"})
        with worker(first_env, "w1") as stopping:
            deadline = time.monotonic() + 60
            while jobs.get(job.id).status != "running":
                assert time.monotonic() < deadline
                time.sleep(0.1)
            with worker(_env(pg_url, tmp_path / "w2", fake), "w2"):
                stopping.send_signal(signal.SIGTERM)  # w1 stops heartbeating and finishes the job
                done = jobs.wait(job.id, poll_s=0.2, timeout_s=120)
                time.sleep(3)  # w2's sweeps go on after it: they must not take the finished job up again
    assert done.status == "done" and done.result["error"] is None
    assert _events(pg_url, job.id).count("started") == 1  # run once, never queued again
    state = StateStore(_settings(first_env).state_location)
    try:
        runs = state._db.execute("SELECT COUNT(*) FROM runs WHERE business='inn'").fetchone()[0]
    finally:
        state.close()
    assert runs == 1


def test_a_job_whose_business_is_busy_waits_its_turn(pg_url, tmp_path, fake):
    """Another spelling of one site, or a run started by hand, holds the business: the
    queued job tries again later instead of finishing with 'busy'."""
    import psycopg

    (tmp_path / "site").mkdir()
    write_site(tmp_path / "site", "The Busy Bistro", 2)
    with StaticSite(tmp_path / "site") as site:
        env = _env(pg_url, tmp_path / "w1", fake) | {"SITEKB_WORKER_BUSY_RETRY_S": "1"}
        jobs = QueueJobs(_settings(env))
        with psycopg.connect(pg_url, autocommit=True) as holder:
            holder.execute("SELECT pg_advisory_lock(hashtextextended('sitekb-business:bistro', 0))")
            job = jobs.submit("run", {"site": site.base + "/", "business": "bistro"})
            with worker(env, "w1"):
                deadline = time.monotonic() + 60
                while "deferred_for_retry" not in _events(pg_url, job.id):
                    assert time.monotonic() < deadline, _events(pg_url, job.id)
                    time.sleep(0.1)
                assert jobs.get(job.id).status in ("queued", "running")  # not finished as busy
                holder.execute("SELECT pg_advisory_unlock(hashtextextended('sitekb-business:bistro', 0))")
                done = jobs.wait(job.id, poll_s=0.2, timeout_s=60)
    assert done.status == "done" and done.result["error"] is None and done.result["chunks"]["added"] > 0


def _events(pg_url: str, job_id: str) -> list[str]:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        rows = conn.execute("SELECT type FROM procrastinate_events WHERE job_id=%s ORDER BY id", (int(job_id),))
        return [r[0] for r in rows]


def test_due_refreshes_can_be_queued_on_a_database_nothing_has_used_yet(pg_url, tmp_path, fake):
    env = _env(pg_url, tmp_path / "cron", fake)
    queued = cli(env, "resync", "--due", "--json")
    assert queued.returncode == 0, queued.stderr
    assert json.loads(queued.stdout) == []
    status = cli(env, "status")
    assert status.returncode == 0 and "nothing ingested yet in postgresql://" in status.stdout


@pytest.mark.parametrize(
    ("attempts", "held", "expected"),
    [(1, False, "retried"), (2, False, "retried"), (3, False, "failed"), (1, True, None)],
    ids=["dead-worker-retried", "second-stall-retried", "third-stall-given-up", "lock-held-left-alone"],
)
def test_the_sweep_retries_a_dead_workers_job_gives_up_on_a_poisoned_one_and_spares_a_live_one(
    pg_url, tmp_path, attempts, held, expected
):
    """A job marked running by a worker that is gone: queued again on its first stalls,
    given up after worker_max_attempts (3) runs, and left alone while its run's lock is held."""
    import asyncio

    import psycopg

    from ingest.ops.queue import _job_key, _sweep_once, make_app

    settings = load_settings(
        data_dir=tmp_path / "data", database_url=pg_url, worker_stalled_s=1, worker_heartbeat_s=0.5
    )
    jobs = QueueJobs(settings)
    job = jobs.submit("run", {"site": "http://127.0.0.1:9/", "business": "ghost"})
    with psycopg.connect(pg_url, autocommit=True) as other:
        other.execute(  # taken by a worker that has since vanished (no worker row: stalled at once)
            "UPDATE procrastinate_jobs SET status='doing', attempts=%s, worker_id=NULL WHERE id=%s",
            (attempts, int(job.id)),
        )
        if held:
            other.execute("SELECT pg_advisory_lock(hashtextextended(%s, 0))", (_job_key(int(job.id)),))

        async def sweep():
            app = make_app(settings)
            async with app.open_async(), await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
                return await _sweep_once(app, settings, conn)

        done = asyncio.run(sweep())
    assert done == ([(int(job.id), expected)] if expected else [])
    assert jobs.get(job.id).status == {"retried": "queued", "failed": "failed", None: "running"}[expected]


def test_a_resync_on_another_worker_asks_each_page_once(pg_url, tmp_path, fake):
    """Validators live in the shared state, raw bodies in each worker's own folder: a
    worker that never read a page must not send validators it cannot use (a 304 it would
    have to follow with a full GET)."""
    (tmp_path / "site").mkdir()
    write_site(tmp_path / "site", "The Shared Cafe", 6)
    with StaticSite(tmp_path / "site") as site:
        ran = cli(_env(pg_url, tmp_path / "a", fake), "run", site.base + "/", "--business", "shared", "--json")
        assert ran.returncode == 0, ran.stderr
        before = site.requests
        again = cli(_env(pg_url, tmp_path / "b", fake), "run", site.base + "/", "--business", "shared", "--json")
        assert again.returncode == 0, again.stderr
        report = json.loads(again.stdout)
        assert report["chunks"]["added"] == 0 and report["embedding"]["calls"] == 0
        assert report["pages"]["status_counts"].get("304", 0) == 0
        assert site.requests - before == ran_requests(ran)  # the same requests as the first run, no more


def ran_requests(completed: subprocess.CompletedProcess) -> int:
    counts = json.loads(completed.stdout)["pages"]["status_counts"]
    return sum(counts.values())
