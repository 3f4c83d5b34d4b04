"""Spend guard and circuit breaker (R-9.1, R-9.2).

Every paid unit goes into a ledger in the state database; daily caps (per business and
in total, per UTC day) are checked before each paid call, which is refused with
BudgetExceeded naming the cap; what was already paid for is kept. The check and a
reservation of the call's estimate are one transaction (`spending`), so workers sharing a
PostgreSQL state cannot pass a cap together. The breaker, kept in
the same database so a restart does not reset it, stops new jobs for 60 minutes when the
provider says the credit is gone, and for 30 minutes after two quota errors in a row or
eight failed jobs within 30 minutes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime

from ingest.kb.db import connect
from ingest.settings import Settings

CREDIT_PAUSE_S = 60 * 60
QUOTA_PAUSE_S = 30 * 60
FAILURE_PAUSE_S = 30 * 60
QUOTA_ERRORS_IN_A_ROW = 2
FAILED_JOBS_TO_OPEN = 8
FAILED_JOBS_WINDOW_S = 30 * 60


class BudgetExceeded(RuntimeError):
    """A daily spend cap would be passed; the message says which and by how much."""


class UsageExhausted(RuntimeError):
    """The plan's monthly allowance of an action is used up."""


class BreakerOpen(RuntimeError):
    """No new jobs start while the circuit breaker is open; the message says why and until when."""


def _day_start(now: float) -> float:
    day = datetime.fromtimestamp(now, UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


def _month_start(now: float) -> float:
    day = datetime.fromtimestamp(now, UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


@dataclass
class SpendGuard:
    settings: Settings
    clock: object = time.time  # injected in tests: a callable returning epoch seconds
    shared: bool = False  # the connection may be closed (or used, serialised) from another thread
    busy_s: float = 30.0  # how long a write waits for another's lock (SQLite)

    def __post_init__(self) -> None:
        self._db = connect(self.settings.state_location, shared=self.shared, busy_s=self.busy_s)

    def close(self) -> None:
        self._db.close()

    def spent_today(self, business: str | None = None, kind: str | None = None) -> float:
        """What was spent today (UTC): by one business, on one kind of paid unit, or both."""
        since = _day_start(self.clock())
        query, params = "SELECT COALESCE(SUM(usd), 0) FROM spend WHERE at >= ?", [since]
        for column, value in (("business", business), ("kind", kind)):
            if value is not None:
                query += f" AND {column} = ?"
                params.append(value)
        return float(self._db.execute(query, params).fetchone()[0])

    def check(self, business: str, estimate_usd: float = 0.0) -> None:
        """Raises BudgetExceeded when `estimate_usd` more would pass a daily cap."""
        mine, total = self.spent_today(business), self.spent_today()
        if mine + estimate_usd > self.settings.daily_cap_business_usd:
            raise BudgetExceeded(
                f"business {business!r} has spent ${mine:.4f} today; ${estimate_usd:.4f} more would pass its daily "
                f"cap of ${self.settings.daily_cap_business_usd:.2f} (SITEKB_DAILY_CAP_BUSINESS_USD)"
            )
        if total + estimate_usd > self.settings.daily_cap_total_usd:
            raise BudgetExceeded(
                f"this installation has spent ${total:.4f} today; ${estimate_usd:.4f} more would pass the daily "
                f"cap of ${self.settings.daily_cap_total_usd:.2f} (SITEKB_DAILY_CAP_TOTAL_USD)"
            )

    @contextmanager
    def spending(
        self, business: str, job: str, kind: str, estimate_usd: float
    ) -> Iterator[Callable[[int, float], None]]:
        """Around one paid call: checks the caps and reserves `estimate_usd` in the ledger in
        one transaction that every process doing the same waits its turn for (SQLite's write
        lock, or a PostgreSQL advisory lock), so workers spending at once cannot all pass a
        check that only one of them fits. Yields `settle(units, usd)` to replace the
        reservation with what the call cost; a call that fails, or is never settled, leaves
        nothing in the ledger (a process killed during the call leaves its reservation,
        which errs on the side of the cap). A cap can be passed only by what one call costs
        beyond its estimate."""
        with self._db.transaction(lock="sitekb-spend"):
            self.check(business, estimate_usd)
            row = self._db.execute(
                "INSERT INTO spend (business, job, kind, units, usd, at) VALUES (?, ?, ?, 0, ?, ?) RETURNING id",
                (business, job, kind, estimate_usd, self.clock()),
            ).fetchone()
        reservation, settled = row[0], False

        def settle(units: int, usd: float) -> None:
            nonlocal settled
            settled = True
            if usd > 0:
                self._db.execute("UPDATE spend SET units=?, usd=? WHERE id=?", (units, usd, reservation))
            else:
                self._db.execute("DELETE FROM spend WHERE id=?", (reservation,))

        try:
            yield settle
        finally:
            if not settled:
                self._db.execute("DELETE FROM spend WHERE id=?", (reservation,))

    def record(self, business: str, job: str, kind: str, units: int, usd: float) -> None:
        if usd > 0:  # the local model and unpriced proxies cost nothing: no ledger noise
            self._db.execute(
                "INSERT INTO spend (business, job, kind, units, usd, at) VALUES (?, ?, ?, ?, ?, ?)",
                (business, job, kind, units, usd, self.clock()),
            )

    # Plan usage: 3 brief runs a month on Free, 150 on Business.
    def brief_runs_left(self, business: str) -> int:
        """Brief runs left this month; raises UsageExhausted when none are."""
        allowance = self.settings.plans.get(self.settings.plan)
        if allowance is None:
            raise UsageExhausted(f"unknown plan {self.settings.plan!r}; plans are {sorted(self.settings.plans)}")
        used = self._db.execute(
            "SELECT COUNT(*) FROM brief_runs WHERE business=? AND at >= ?", (business, _month_start(self.clock()))
        ).fetchone()[0]
        if used >= allowance:
            raise UsageExhausted(
                f"{business!r} has used its {allowance} brief runs for this month on the "
                f"{self.settings.plan!r} plan; more become available on the 1st of next month"
            )
        return allowance - used

    def record_brief_run(self, business: str) -> None:
        self._db.execute("INSERT INTO brief_runs (business, at) VALUES (?, ?)", (business, self.clock()))

    # Circuit breaker
    def breaker(self) -> tuple[float, str | None]:
        """(open until, reason); open while `open until` is in the future."""
        until, reason = self._db.execute("SELECT open_until, reason FROM breaker WHERE id=1").fetchone()
        return float(until), reason

    def check_breaker(self) -> None:
        until, reason = self.breaker()
        if until > self.clock():
            when = datetime.fromtimestamp(until, UTC).strftime("%Y-%m-%d %H:%M UTC")
            raise BreakerOpen(f"no new jobs until {when}: {reason}")

    def _open(self, seconds: float, reason: str) -> str:
        until = self.clock() + seconds
        self._db.execute(
            "UPDATE breaker SET open_until=CASE WHEN open_until > ? THEN open_until ELSE ? END, reason=?, "
            "quota_streak=0 WHERE id=1",
            (until, until, reason),
        )
        return reason

    def credit_exhausted(self) -> str:
        """Opens the breaker for 60 minutes; returns the reason (for the alert)."""
        return self._open(CREDIT_PAUSE_S, "the embedding/model provider says the account is out of credit")

    def quota_error(self) -> str | None:
        """Counts a quota error; the second in a row opens the breaker for 30 minutes."""
        self._db.execute("UPDATE breaker SET quota_streak = quota_streak + 1 WHERE id=1")
        streak = self._db.execute("SELECT quota_streak FROM breaker WHERE id=1").fetchone()[0]
        if streak >= QUOTA_ERRORS_IN_A_ROW:
            return self._open(QUOTA_PAUSE_S, f"{streak} quota errors in a row from the provider")
        return None

    def provider_ok(self) -> None:
        self._db.execute("UPDATE breaker SET quota_streak=0 WHERE id=1")

    def job_failed(self) -> str | None:
        """Counts a failed job; the eighth within 30 minutes opens the breaker for 30 minutes."""
        now = self.clock()
        self._db.execute("INSERT INTO job_failures (at) VALUES (?)", (now,))
        recent = self._db.execute(
            "SELECT COUNT(*) FROM job_failures WHERE at > ?", (now - FAILED_JOBS_WINDOW_S,)
        ).fetchone()[0]
        if recent >= FAILED_JOBS_TO_OPEN:
            self._db.execute("DELETE FROM job_failures")
            return self._open(FAILURE_PAUSE_S, f"{recent} jobs failed within 30 minutes")
        return None
