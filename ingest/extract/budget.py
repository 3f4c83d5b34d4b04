"""A page's extraction time budget: checked as the tree is built and as it is written
as Markdown, the two passes whose time grows with the page. A page over its budget
raises PageTooSlow; the crawler skips it (`too_slow`) and goes on (#19)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_deadline: ContextVar[float | None] = ContextVar("extract_deadline", default=None)


class PageTooSlow(RuntimeError):
    """The page took longer than its extraction budget."""


@contextmanager
def page_budget(seconds: float | None) -> Iterator[None]:
    """Extraction within this block stops with PageTooSlow after `seconds` (None: no budget)."""
    token = _deadline.set(None if seconds is None else time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def check() -> None:
    deadline = _deadline.get()
    if deadline is not None and time.monotonic() > deadline:
        raise PageTooSlow("the page took longer than its extraction budget (setting page_budget_s)")
