"""The job queue past one machine: procrastinate on the PostgreSQL database of
SITEKB_DATABASE_URL (docs/architecture.md says why procrastinate), and the workers
that take its jobs (`ingest worker`).

- A run job carries the site and the business. Its procrastinate `lock` is the
  business, so across all workers one job per business runs at a time (and so the
  per-host politeness of one crawl holds without coordination); its `queueing_lock`
  keeps a business from being queued twice while it waits.
- `ingest run`, `ingest resync --due`, the scheduler, the API's admin endpoint and a
  periodic check inside the workers only enqueue; `ingest run` and the API can wait for
  the job's report, which the job stores in the `job_results` table.
- A worker killed mid-job stops sending heartbeats; every worker looks for such stalled
  jobs and queues them again (up to `worker_max_attempts` times: a site that kills
  its worker each time cannot hold the workers forever). The pipeline resumes from the
  saved pages and the vectors already paid for (pending_vectors): nothing is paid twice,
  and point ids are content hashes, so nothing is written twice.
- A job's wall time is bounded by the pipeline's own `run_budget_s`.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from ingest.kb.db import connect, session_lock
from ingest.ops.jobs import Job
from ingest.settings import Settings, load_settings

QUEUE = "sitekb"
RUN_TASK = "sitekb.run"
DUE_TASK = "sitekb.enqueue_due"
POLL_S = 0.5
_STATUS = {
    "todo": "queued",
    "doing": "running",
    "succeeded": "done",
    "failed": "failed",
    "cancelled": "failed",
    "aborted": "failed",
}
log = logging.getLogger("sitekb.queue")


class QueueUnavailable(RuntimeError):
    """The queue needs PostgreSQL (SITEKB_DATABASE_URL); the message says what to set."""


def job_lock(business: str | None, site: str) -> str:
    """The lock a run job holds: its business, or, when none is named, the host the
    business will be named after (as `ingest brief` names it). A job that still finds its
    business busy (another spelling of one site) waits and tries again (BusinessBusyRetry)."""
    if business:
        return f"business:{business}"
    from urllib.parse import urlsplit

    from ingest.crawl.intake import homepage_candidates
    from ingest.crawl.urls import site_host
    from ingest.problems import SiteProblem

    try:
        host = site_host(urlsplit(homepage_candidates(site)[0]).hostname or site)
    except SiteProblem:
        host = site.strip().lower()
    return f"business:{host}"


class BusinessBusyRetry(RuntimeError):
    """The job's business is being refreshed by another job: procrastinate runs it again later."""


def _job_key(job_id: int) -> str:
    """The advisory lock a job's run holds while it runs: the sign that it is alive."""
    return f"sitekb-job:{job_id}"


def make_app(settings: Settings, runner=None):
    """The procrastinate app with sitekb's tasks, on the configured database. `runner` (the
    pipeline's `run`, given by the worker) runs a site; without it the app only queues."""
    if not settings.database_url:
        raise QueueUnavailable(
            "the job queue and its workers need PostgreSQL: set SITEKB_DATABASE_URL=postgresql://... "
            "(without it, `ingest run` and `ingest serve` run jobs in their own process)"
        )
    try:
        import procrastinate
    except ImportError:
        raise QueueUnavailable("the job queue needs procrastinate: pip install 'sitekb[postgres]'") from None

    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=settings.database_url))

    busy_retry = procrastinate.RetryStrategy(wait=settings.worker_busy_retry_s, retry_exceptions={BusinessBusyRetry})

    @app.task(name=RUN_TASK, queue=QUEUE, pass_context=True, retry=busy_retry)
    def run_site(context, site: str, business: str | None = None, max_pages: int | None = None) -> None:
        if runner is None:
            raise QueueUnavailable("this process only queues jobs; `ingest worker` runs them")
        _run_job(runner, context.job.id, site, business, max_pages)

    @app.periodic(cron=settings.due_check_cron, periodic_id="due")
    @app.task(name=DUE_TASK, queue=QUEUE, queueing_lock="sitekb-enqueue-due", pass_context=True)
    def enqueue_due_task(context, timestamp: int) -> None:
        _store_result(load_settings(), context.job.id, enqueue_due(load_settings(), app=app))

    app.run_site = run_site
    return app


def ensure_schema(settings: Settings, app, db) -> None:
    """procrastinate's tables, created once (under an advisory lock, so workers starting
    together do not race), beside sitekb's own, which `db` (kb/db.connect) has migrated."""
    with session_lock(settings.database_url, "sitekb-queue-schema"):
        if db.execute("SELECT to_regclass('procrastinate_jobs') IS NULL").fetchone()[0]:
            with app.open():
                app.schema_manager.apply_schema()


def _run_job(runner, job_id: int, site: str, business: str | None, max_pages: int | None) -> None:
    """Runs the site while holding the job's advisory lock on a connection of its own: a
    worker that stops heartbeating while it finishes a job (SIGTERM) still holds it, so
    no sweeper takes that job for dead; a killed worker's connection drops, and the lock
    with it."""
    settings = load_settings()  # read again per job
    with session_lock(settings.database_url, _job_key(job_id)):
        try:
            report = runner(site, settings, business=business, max_pages=max_pages)
        except Exception as exc:
            _store_result(settings, job_id, None, error=f"{type(exc).__name__}: {exc}")
            raise
        if report.error_kind == "BusinessBusy":
            raise BusinessBusyRetry(f"{report.error}; trying again in {settings.worker_busy_retry_s} s")
        _store_result(settings, job_id, report.model_dump(mode="json"))


def _store_result(settings: Settings, job_id: int, result: Any, error: str | None = None) -> None:
    db = connect(settings.database_url)
    try:
        db.execute(
            "INSERT INTO job_results (job_id, result, error, at) VALUES (?, ?, ?, ?) ON CONFLICT (job_id) "
            "DO UPDATE SET result=excluded.result, error=excluded.error, at=excluded.at",
            (job_id, json.dumps(result, ensure_ascii=False), error, time.time()),
        )
    finally:
        db.close()


def _active_locks(db) -> set[str]:
    rows = db.execute("SELECT lock FROM procrastinate_jobs WHERE status IN ('todo', 'doing') AND lock IS NOT NULL")
    return {r[0] for r in rows}


def enqueue_due(settings: Settings, app=None, now: float | None = None) -> list[dict]:
    """A run job for every due source not already queued or running; returns what was queued."""
    from ingest.ops.schedule import due_sources

    own = app is None
    db = connect(settings.database_url)
    try:
        if own:
            app = make_app(settings)
            ensure_schema(settings, app, db)  # a database no worker or API has used yet
        active = _active_locks(db)
    finally:
        db.close()
    queued = []
    for due in due_sources(settings, time.time() if now is None else now):
        lock = job_lock(due.business, due.root_url or due.site)
        if not due.due or not due.root_url or lock in active:
            continue
        job_id = _defer(app, due.root_url, due.business, None, own)
        active.add(lock)
        queued.append({"business": due.business, "site": due.site, "job": job_id, "reason": due.reason})
    return queued


def _defer(app, site: str, business: str | None, max_pages: int | None, open_app: bool) -> int:
    import procrastinate.exceptions

    lock = job_lock(business, site)
    task = app.tasks[RUN_TASK]

    def defer() -> int:
        try:
            return task.configure(lock=lock, queueing_lock=lock).defer(
                site=site, business=business, max_pages=max_pages
            )
        except procrastinate.exceptions.AlreadyEnqueued:
            return _waiting_job(app, lock)

    if not open_app:
        return defer()
    with app.open():
        return defer()


def _waiting_job(app, lock: str) -> int:
    """The job already queued under `lock` (the same business asked for twice); it may
    have started in the meantime."""
    jobs = [j for j in app.job_manager.list_jobs(queueing_lock=lock) if j.status in ("todo", "doing")]
    if not jobs:
        raise QueueUnavailable(f"a job for {lock} was queued but could not be found; try again")
    return max(int(j.id) for j in jobs)


class QueueJobs:
    """The JobRunner interface (submit, get, close) over the queue: the API and the CLI
    enqueue and read a job's state; the workers run it."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.app = make_app(settings)
        # One connection for the polls of `wait` (connect() checks the migrations each time).
        self._db = connect(settings.database_url)
        try:
            ensure_schema(settings, self.app, self._db)
        except BaseException:
            self._db.close()
            raise

    def submit(self, kind: str, params: dict[str, Any], work: Any = None) -> Job:
        if kind == "run":
            job_id = _defer(self.app, params["site"], params.get("business"), params.get("max_pages"), True)
        else:
            import procrastinate.exceptions

            with self.app.open():
                try:
                    job_id = self.app.tasks[DUE_TASK].defer(timestamp=int(time.time()))
                except procrastinate.exceptions.AlreadyEnqueued:
                    job_id = _waiting_job(self.app, "sitekb-enqueue-due")
        return self.get(str(job_id)) or Job(id=str(job_id), kind=kind, params=params)

    def get(self, job_id: str) -> Job | None:
        try:
            number = int(job_id)
        except ValueError:
            return None
        row = self._db.execute(
            "SELECT j.status, j.task_name, j.args, r.result, r.error, r.at, j.attempts "
            "FROM procrastinate_jobs j LEFT JOIN job_results r ON r.job_id = j.id WHERE j.id = ?",
            (number,),
        ).fetchone()
        if row is None:
            return None
        status, task, args, result, error, at, attempts = row
        job = Job(id=str(number), kind="run" if task == RUN_TASK else "resync_due", params=dict(args or {}))
        job.status = _STATUS.get(status, status)
        job.result = json.loads(result) if result else None
        job.error = error or (f"the job {status} after {attempts} attempts" if job.status == "failed" else None)
        job.finished_at = at if job.status in ("done", "failed") else None
        return job

    def wait(self, job_id: str, on_change=None, poll_s: float = POLL_S, timeout_s: float | None = None) -> Job:
        """Polls until the job is done or failed; `on_change(job)` on each status change.
        TimeoutError after `timeout_s` (None: no limit; the job goes on either way)."""
        seen = None
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while True:
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} did not finish within {timeout_s:g} s")
            job = self.get(job_id)
            if job is None:
                raise QueueUnavailable(f"job {job_id} is gone from the queue")
            if job.status != seen and on_change:
                on_change(job)
            seen = job.status
            if job.status in ("done", "failed"):
                return job
            time.sleep(poll_s)

    def workers_alive(self, within_s: float) -> int:
        return self._db.execute(
            "SELECT COUNT(*) FROM procrastinate_workers WHERE last_heartbeat > NOW() - make_interval(secs => ?)",
            (within_s,),
        ).fetchone()[0]

    def close(self, wait_s: float = 0.0) -> None:
        """Nothing runs here (the workers own the jobs): closes the connection."""
        self._db.close()


# -- the worker ------------------------------------------------------------------------


def run_worker(settings: Settings, runner, name: str | None = None, once: bool = False) -> None:
    """Takes jobs and runs each with `runner` (the pipeline's `run`) until SIGTERM/SIGINT
    (or, with `once`, until the queue is empty). Beside it, a sweeper queues again the
    jobs of workers that stopped sending heartbeats."""
    app = make_app(settings, runner)
    db = connect(settings.database_url)
    try:
        ensure_schema(settings, app, db)
    finally:
        db.close()
    asyncio.run(_work(app, settings, name, once))


async def _work(app, settings: Settings, name: str | None, once: bool) -> None:
    async with app.open_async():
        sweeper = asyncio.create_task(_sweep(app, settings))
        try:
            await app.run_worker_async(
                queues=[QUEUE],
                concurrency=1,  # a run is CPU-heavy (extraction, the local model): scale with processes
                name=name,
                wait=not once,
                update_heartbeat_interval=settings.worker_heartbeat_s,
                stalled_worker_timeout=settings.worker_stalled_s,
                delete_jobs="never",
            )
        finally:
            sweeper.cancel()


async def _sweep(app, settings: Settings) -> None:
    """Every heartbeat interval: one worker at a time (an advisory lock) looks for jobs
    whose worker has been silent for worker_stalled_s. A job whose run still holds its
    advisory lock is alive (its worker is finishing it after SIGTERM, or is slow to
    heartbeat) and is left alone; the others are queued again, or given up after
    worker_max_attempts."""
    import psycopg

    while True:
        try:
            async with await psycopg.AsyncConnection.connect(settings.database_url, autocommit=True) as conn:
                while True:
                    await _sweep_once(app, settings, conn)
                    await asyncio.sleep(settings.worker_heartbeat_s)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 (the database went away: try again; the worker goes on)
            log.warning("stalled-job sweep failed: %s", exc)
            await asyncio.sleep(settings.worker_heartbeat_s)


async def _try_lock(conn, key: str) -> bool:
    cursor = await conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 0))", (key,))
    return bool((await cursor.fetchone())[0])


async def _unlock(conn, key: str) -> None:
    await conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 0))", (key,))


async def _sweep_once(app, settings: Settings, conn) -> list[tuple[int, str]]:
    """One sweep; returns what it did to which job ((id, "retried" | "failed"))."""
    from procrastinate.jobs import Status

    done: list[tuple[int, str]] = []
    if not await _try_lock(conn, "sitekb-sweep"):
        return done  # another worker is sweeping
    try:
        for job in await app.job_manager.get_stalled_jobs(
            queue=QUEUE, seconds_since_heartbeat=settings.worker_stalled_s
        ):
            if not await _try_lock(conn, _job_key(job.id)):
                continue  # its run still holds the lock: alive
            try:
                # procrastinate counts an attempt when a worker takes the job: this is the
                # number of runs so far, the one that stalled included.
                if job.attempts >= settings.worker_max_attempts:
                    log.warning(
                        "job %s stalled on its run %s of %s; giving it up",
                        job.id,
                        job.attempts,
                        settings.worker_max_attempts,
                    )
                    await app.job_manager.finish_job_by_id_async(job.id, status=Status.FAILED, delete_job=False)
                    done.append((job.id, "failed"))
                else:
                    log.warning("job %s's worker stopped answering; queueing it again", job.id)
                    await app.job_manager.retry_job(job)
                    done.append((job.id, "retried"))
            finally:
                await _unlock(conn, _job_key(job.id))
    finally:
        await _unlock(conn, "sitekb-sweep")
    return done
