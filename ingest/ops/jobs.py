"""Ingestion jobs inside the process that owns the knowledge base.

Embedded stores admit one process per data folder, and a resync must never take the
retrieval API down: ingestion and serving run at the same time. So `ingest serve` owns the stores and runs ingestion jobs
itself, one at a time, on a worker thread; `ingest run`, `ingest resync --due`, the
scheduler and `ingest search` hand their work to it when it runs (`ServerLink`), and
open the stores themselves when it does not.

The server announces itself in `<data dir>/server.json` (its URL, pid and a random
admin token; readable by the folder's owner only). Whoever can read the data folder
can run jobs; the admin endpoints take that token, never a business key.
"""

from __future__ import annotations

import hashlib
import json
import os
import queue
import secrets
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from pydantic import SecretStr

from ingest.models import RunReport
from ingest.settings import Settings

SERVER_FILE = "server.json"
KEEP_FINISHED = 200
POLL_S = 0.3


@dataclass
class Job:
    id: str
    kind: str
    params: dict[str, Any]
    status: str = "queued"  # queued, running, done, failed
    progress: dict[str, list[int]] = field(default_factory=dict)
    result: Any = None
    error: str | None = None
    created_at: float = field(default_factory=time.time)
    finished_at: float | None = None

    def to_dict(self) -> dict:
        return {
            "id": self.id,
            "kind": self.kind,
            "params": self.params,
            "status": self.status,
            "progress": self.progress,
            "result": self.result,
            "error": self.error,
            "created_at": self.created_at,
            "finished_at": self.finished_at,
        }


class JobRunner:
    """A queue of jobs run one after another on one worker thread (each job is a full
    pipeline run: running two at once would only compete for the same CPU and network)."""

    def __init__(self) -> None:
        self._jobs: dict[str, Job] = {}
        self._queue: queue.Queue[tuple[Job, Callable] | None] = queue.Queue()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._work, name="sitekb-jobs", daemon=True)
        self._thread.start()

    def submit(self, kind: str, params: dict[str, Any], work: Callable[[Callable[[str, int, int], None]], Any]) -> Job:
        """`work(progress)` runs on the worker thread; what it returns must be JSON-able."""
        job = Job(id=uuid.uuid4().hex[:12], kind=kind, params=params)
        with self._lock:
            self._jobs[job.id] = job
            finished = [j for j in self._jobs.values() if j.finished_at is not None]
            for old in sorted(finished, key=lambda j: j.finished_at)[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._jobs[old.id]
        self._queue.put((job, work))
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def close(self, wait_s: float = 0.0) -> None:
        """Takes no more jobs. A job still running finishes if the process lives long
        enough; if not, the next run resumes it without paying twice (pipeline)."""
        self._queue.put(None)
        self._thread.join(wait_s)

    def _work(self) -> None:
        while (item := self._queue.get()) is not None:
            job, work = item

            def progress(phase: str, done: int, total: int, job: Job = job) -> None:
                job.progress[phase] = [done, total]

            job.status = "running"
            try:
                job.result = work(progress)
                job.status = "done"
            except Exception as exc:  # reported to whoever asked; the server keeps serving
                job.error = f"{type(exc).__name__}: {exc}"
                job.status = "failed"
            job.finished_at = time.time()


# -- the announcement file -------------------------------------------------------------


def server_file(settings: Settings) -> Path:
    return settings.data_dir / SERVER_FILE


def announce(settings: Settings, url: str) -> str:
    """Writes server.json for this process; returns the admin token."""
    token = secrets.token_urlsafe(32)
    path = server_file(settings)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        json.dump({"url": url, "pid": os.getpid(), "token": token, "settings": settings_digests(settings)}, handle)
    tmp.replace(path)
    return token


def settings_digests(settings: Settings) -> dict[str, str]:
    """Each setting this process loaded (environment, .env and config/ alike) as a digest
    of its value: a command handing work to the server can tell which of its settings
    the server does not share, and server.json holds no value (an API key, a password)."""
    digests = {}
    for name, value in settings:
        if name in _LOCATING_SETTINGS:
            continue
        if isinstance(value, SecretStr):
            value = value.get_secret_value()
        text = json.dumps(value, default=str, sort_keys=True)
        digests[name] = hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return digests


def settings_not_shared(settings: Settings, server: dict[str, str] | None) -> list[str]:
    """The settings this process loaded with another value than the server did, as their
    SITEKB_ names; [] when the server did not say (an older server.json)."""
    if not isinstance(server, dict):
        return []
    mine = settings_digests(settings)
    return sorted(f"SITEKB_{name.upper()}" for name, digest in mine.items() if server.get(name, digest) != digest)


# Where the data is: the command found the server through them, so they match.
_LOCATING_SETTINGS = {"data_dir", "database_url"}


def withdraw(settings: Settings, token: str) -> None:
    """Removes server.json if it is still this process's."""
    path = server_file(settings)
    try:
        if json.loads(path.read_text()).get("token") == token:
            path.unlink()
    except (OSError, ValueError):
        pass


class ServerError(RuntimeError):
    """The running server refused or failed the work; the message says why. `status` is
    the HTTP status of a refusal and `detail` the server's own words for it."""

    def __init__(self, message: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.status, self.detail = status, detail or message


class ServerLink:
    """The client side: hands work to the `ingest serve` that owns this data folder."""

    def __init__(self, url: str, token: str, not_shared: list[str] | None = None) -> None:
        self.url = url.rstrip("/")
        self.not_shared = not_shared or []  # settings this process has and the server has otherwise
        self._client = httpx.Client(base_url=self.url, headers={"Authorization": f"Bearer {token}"}, timeout=30)

    def close(self) -> None:
        self._client.close()

    def _call(self, method: str, path: str, **kwargs) -> Any:
        try:
            response = self._client.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise ServerError(f"the server at {self.url} did not answer: {exc}") from None
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text[:200]
            detail = _detail_text(detail)
            raise ServerError(
                f"the server at {self.url} refused the request ({response.status_code}): {detail}",
                response.status_code,
                detail,
            )
        return response.json()

    def _job(self, params: dict, progress: Callable[[str, int, int], None] | None) -> Any:
        job = self._call("POST", "/v1/admin/jobs", json=params)
        while True:
            job = self._call("GET", f"/v1/admin/jobs/{job['id']}")
            if progress:
                for phase, (done, total) in job["progress"].items():
                    progress(phase, done, total)
            if job["status"] == "done":
                return job["result"]
            if job["status"] == "failed":
                raise ServerError(f"the server's job {job['id']} failed: {job['error']}")
            time.sleep(POLL_S)

    def run(
        self,
        site: str,
        business: str | None = None,
        max_pages: int | None = None,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> RunReport:
        result = self._job({"kind": "run", "site": site, "business": business, "max_pages": max_pages}, progress)
        return RunReport.model_validate(result)

    def resync_due(self) -> list[dict]:
        return self._job({"kind": "resync_due"}, None)

    def search(self, business: str, query: str, k: int, mode: str = "hybrid") -> dict:
        """{"answerable": bool, "confidence": float, "judged_by": str, "hits": [hit dicts]}"""
        return self._call("POST", "/v1/admin/search", json={"business": business, "query": query, "k": k, "mode": mode})


def _detail_text(detail: Any) -> str:
    """A refusal's detail as a sentence: FastAPI's list of field errors as "query: String
    should have at least 1 character"."""
    if isinstance(detail, list):
        return "; ".join(
            f"{'.'.join(str(part) for part in e.get('loc', [])[1:])}: {e.get('msg', '')}"
            if isinstance(e, dict)
            else str(e)
            for e in detail
        )
    return str(detail)


def find_server(settings: Settings) -> ServerLink | None:
    """The live server announced in this data folder, or None (none, or a stale file)."""
    try:
        info = json.loads(server_file(settings).read_text())
        url, token, pid = info["url"], info["token"], int(info["pid"])
        announced = info.get("settings")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None
    if pid == os.getpid():
        return None  # this process is the server: it opens the stores itself
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None  # a server that died without cleaning up
    except PermissionError:
        pass
    link = ServerLink(url, token, settings_not_shared(settings, announced))
    try:
        link._call("GET", "/v1/admin/ping")
    except ServerError:
        link.close()
        return None
    return link
