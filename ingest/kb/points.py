"""What every vector store speaks (kb/store.py, kb/pgstore.py): points, hits, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

DENSE = "dense"
SPARSE = "bm25"
SearchMode = Literal["hybrid", "dense", "lexical"]
Ranking = Literal["dense", "lexical"]


class StoreError(RuntimeError):
    """The vector store cannot be opened or used; the message says why."""


@dataclass(frozen=True)
class StoredPoint:
    id: str
    vector: list[float] = field(repr=False)
    payload: dict[str, Any] = field(default_factory=dict)

    @property
    def text(self) -> str:
        return self.payload.get("text", "")


@dataclass(frozen=True)
class Hit:
    id: str
    score: float
    payload: dict[str, Any]
    vector: list[float] | None = None  # a dense hit's own vector, when asked for
