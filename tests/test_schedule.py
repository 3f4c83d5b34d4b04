"""The refresh rules together (R-10.1, R-10.2, R-9.4): every combination of source state
and timing, written out as a table rather than derived from the code under test."""

import pytest

from ingest.ops.schedule import is_due

H, D = 3600, 86400
NOW = 1_000 * D
WEEK = 7 * D

# status, last success (seconds ago or None), last attempt (seconds ago or None), due?
CASES = [
    # a source that refreshed fine: weekly
    ("ok", None, None, True),
    ("ok", 1 * D, 1 * D, False),
    ("ok", 6 * D, 6 * D, False),
    ("ok", 8 * D, 8 * D, True),
    # stopped by its page cap: refreshed like any other
    ("capped", 1 * D, 1 * D, False),
    ("capped", 8 * D, 8 * D, True),
    ("capped", None, None, True),
    # paused by the spend budget: never automatically, however old
    ("paused_budget", 1 * D, 2 * H, False),
    ("paused_budget", 8 * D, 30 * H, False),
    ("paused_budget", None, 30 * D, False),
    # a failed refresh waits 24 h ...
    ("failed", 8 * D, 2 * H, False),
    ("failed", 1 * D, 2 * H, False),
    ("failed", None, 2 * H, False),
    # ... then is retried, even if its last success is recent
    ("failed", 8 * D, 30 * H, True),
    ("failed", 2 * D, 30 * H, True),
    ("failed", None, 30 * H, True),
    # a site problem (timeout, blocked...) is a failed refresh too
    ("problem:timeout", 8 * D, 2 * H, False),
    ("problem:timeout", 8 * D, 30 * H, True),
    ("problem:blocked", None, 2 * H, False),
]


@pytest.mark.parametrize("status, success_ago, attempt_ago, expected", CASES)
def test_refresh_rules_in_combination(status, success_ago, attempt_ago, expected):
    success = NOW - success_ago if success_ago is not None else None
    attempt = NOW - attempt_ago if attempt_ago is not None else None
    due, reason, next_at = is_due(status, success, attempt, NOW, WEEK, 24 * H)
    assert due is expected, reason
    if not due and status != "paused_budget":
        assert next_at is not None and next_at > NOW


def test_a_failed_source_comes_back_after_exactly_a_day():
    due, _, next_at = is_due("failed", NOW - 8 * D, NOW - 2 * H, NOW, WEEK, 24 * H)
    assert not due and next_at == NOW - 2 * H + 24 * H
