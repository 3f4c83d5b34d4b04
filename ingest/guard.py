"""Spend guard (R-9.1): every paid unit goes into a ledger in the state database, and
daily caps (per business and in total) are checked before each paid call.

Caps are per UTC day. A call that would pass a cap is refused before it is made, with
BudgetExceeded naming the cap; what was already paid for is kept.
"""
from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from ingest.settings import Settings

SCHEMA = """
CREATE TABLE IF NOT EXISTS spend (
    id INTEGER PRIMARY KEY,
    business TEXT NOT NULL,
    job TEXT NOT NULL,
    kind TEXT NOT NULL,
    units INTEGER NOT NULL,
    usd REAL NOT NULL,
    at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS spend_by_time ON spend (at);
CREATE TABLE IF NOT EXISTS brief_runs (
    business TEXT NOT NULL,
    at REAL NOT NULL
);
"""


class BudgetExceeded(RuntimeError):
    """A daily spend cap would be passed; the message says which and by how much."""


class UsageExhausted(RuntimeError):
    """The plan's monthly allowance of an action is used up."""


def _day_start(now: float) -> float:
    day = datetime.fromtimestamp(now, timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


def _month_start(now: float) -> float:
    day = datetime.fromtimestamp(now, timezone.utc).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    return day.timestamp()


@dataclass
class SpendGuard:
    settings: Settings
    clock: object = time.time  # injected in tests: a callable returning epoch seconds

    def __post_init__(self) -> None:
        path: Path = self.settings.state_path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30, isolation_level=None)
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        self._db.close()

    def spent_today(self, business: str | None = None) -> float:
        since = _day_start(self.clock())
        query, params = "SELECT COALESCE(SUM(usd), 0) FROM spend WHERE at >= ?", [since]
        if business is not None:
            query += " AND business = ?"
            params.append(business)
        return float(self._db.execute(query, params).fetchone()[0])

    def check(self, business: str, estimate_usd: float = 0.0) -> None:
        """Raises BudgetExceeded when `estimate_usd` more would pass a daily cap."""
        mine, total = self.spent_today(business), self.spent_today()
        if mine + estimate_usd > self.settings.daily_cap_business_usd:
            raise BudgetExceeded(
                f"business {business!r} has spent ${mine:.4f} today; ${estimate_usd:.4f} more would pass its daily "
                f"cap of ${self.settings.daily_cap_business_usd:.2f} (SITEKB_DAILY_CAP_BUSINESS_USD)")
        if total + estimate_usd > self.settings.daily_cap_total_usd:
            raise BudgetExceeded(
                f"this installation has spent ${total:.4f} today; ${estimate_usd:.4f} more would pass the daily "
                f"cap of ${self.settings.daily_cap_total_usd:.2f} (SITEKB_DAILY_CAP_TOTAL_USD)")

    def record(self, business: str, job: str, kind: str, units: int, usd: float) -> None:
        if usd or units:
            self._db.execute("INSERT INTO spend (business, job, kind, units, usd, at) VALUES (?, ?, ?, ?, ?, ?)",
                             (business, job, kind, units, usd, self.clock()))

    # Plan usage (seed 000: 3 brief runs a month on Free, 150 on Business).
    def brief_runs_left(self, business: str) -> int:
        """Brief runs left this month; raises UsageExhausted when none are."""
        allowance = self.settings.plans.get(self.settings.plan)
        if allowance is None:
            raise UsageExhausted(f"unknown plan {self.settings.plan!r}; plans are {sorted(self.settings.plans)}")
        used = self._db.execute("SELECT COUNT(*) FROM brief_runs WHERE business=? AND at >= ?",
                                (business, _month_start(self.clock()))).fetchone()[0]
        if used >= allowance:
            raise UsageExhausted(f"{business!r} has used its {allowance} brief runs for this month on the "
                                 f"{self.settings.plan!r} plan; more become available on the 1st of next month")
        return allowance - used

    def record_brief_run(self, business: str) -> None:
        self._db.execute("INSERT INTO brief_runs (business, at) VALUES (?, ?)", (business, self.clock()))
