"""Weekly refresh (R-10.1, R-10.2, R-9.4): which sources are due, and the loop that runs them.

A refresh is a full run (every page, not only pending ones). A source stopped by its page
cap is refreshed like any other; one paused by the spend budget is not (a person runs it
by hand, which resumes it); one whose last refresh failed waits 24 hours.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from ingest.kb.state import StateStore
from ingest.kb.store import vectors_lost
from ingest.models import RunReport
from ingest.settings import Settings

DAY = 24 * 3600


@dataclass(frozen=True)
class Due:
    business: str
    site: str
    root_url: str | None
    due: bool
    reason: str
    next_at: float | None


def is_due(
    status: str,
    last_success_at: float | None,
    last_attempt_at: float | None,
    now: float,
    interval_s: float,
    failed_retry_s: float,
) -> tuple[bool, str, float | None]:
    """(due?, why, when it will be due). The whole rule set in one place, tested together."""
    if status == "paused_budget":
        return False, "paused by the spend budget: run it by hand to resume", None
    failed = status == "failed" or status.startswith("problem:")
    if failed and last_attempt_at is not None and now - last_attempt_at < failed_retry_s:
        return False, "the last refresh failed: waiting 24 h before trying again", last_attempt_at + failed_retry_s
    if last_success_at is None:
        return True, "never refreshed successfully", now
    next_at = last_success_at + interval_s
    if failed:
        next_at = min(next_at, (last_attempt_at or 0) + failed_retry_s)
    if now >= next_at:
        return True, "weekly refresh due" if not failed else "retrying after a failed refresh", next_at
    return False, "refreshed recently", next_at


def due_sources(settings: Settings, now: float) -> list[Due]:
    if not settings.state_exists():
        return []
    state = StateStore(settings.state_location)
    try:
        rows = state.sources.refresh_history()
        lost = {b for b in {row.business for row in rows} if vectors_lost(settings, state.businesses.embedder_of(b))}
    finally:
        state.close()
    result = []
    for row in rows:
        due, reason, next_at = is_due(
            row.status,
            row.last_success_at,
            row.last_attempt_at,
            now,
            settings.resync_interval_days * DAY,
            settings.failed_retry_hours * 3600,
        )
        if row.business in lost:  # the knowledge base answers nothing until a run rebuilds it
            due, reason, next_at = True, "its vector store is missing: the run rebuilds it", now
        result.append(Due(row.business, row.site, row.root_url, due, reason, next_at))
    return result


def run_due(
    load: Callable[[], Settings], runner: Callable[..., RunReport], clock: Callable[[], float] = time.time
) -> list[dict]:
    """Refreshes every due source with `runner` (the pipeline's `run`), one after another.
    Settings are read again before each job (R-10.3), so a change takes effect at the next
    job without a restart."""
    outcomes = []
    for due in due_sources(load(), clock()):
        if not due.due or not due.root_url:
            continue
        settings = load()
        report = runner(due.root_url, settings, business=due.business, clock=clock)
        outcomes.append(json.loads(report.model_dump_json()))
        if report.error_kind == "BreakerOpen":
            break  # no new jobs while the breaker is open
    return outcomes


def scheduler(run_round: Callable[[], list[dict]], interval_s: float, stop: threading.Event, on_round=None) -> None:
    """The long-running form of `ingest resync --due`: one round (`run_round`: `run_due`,
    or a round handed to a running server), then wait, until stopped."""
    while not stop.is_set():
        outcomes = run_round()
        if on_round:
            on_round(outcomes)
        stop.wait(interval_s)
