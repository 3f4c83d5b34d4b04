"""The API server `ingest serve` runs: retrieval's HTTP API plus the ingestion jobs that
only the process owning the embedded store can run (a run, or a round of due refreshes)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi import FastAPI

from ingest.ops.schedule import run_due
from ingest.pipeline import run
from ingest.settings import Settings
from retrieval.api import JobRequest, create_app


def ingestion_job(request: JobRequest, load: Callable[[], Settings], progress: Callable[[str, int, int], None]):
    """One job, with the settings read when it starts: a run's report, or a round's outcomes."""
    if request.kind == "run":
        report = run(request.site, load(), business=request.business, max_pages=request.max_pages, progress=progress)
        return report.model_dump(mode="json")
    return run_due(load, run)


def create_server_app(
    settings: Settings | None = None, announce_url: str | None = None, load: Callable[[], Settings] | None = None
) -> FastAPI:
    return create_app(settings, announce_url, load, work=ingestion_job)
