"""The shape of the Markdown extraction writes and chunking reads."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# An ATX heading: its level (the #s) and its text.
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def in_code(lines: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(line, whether it is part of a fenced code block, its fences included)."""
    fenced = False
    for line in lines:
        fence = line.lstrip().startswith("```")
        if fence:
            fenced = not fenced
        yield line, fenced or fence
