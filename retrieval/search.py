"""Hybrid search (dense + BM25, fused with RRF) within one business's chunks."""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ingest.embed import make_embedder
from ingest.settings import Settings, load_settings
from ingest.state import StateStore
from ingest.store import open_store


class UnknownBusiness(LookupError):
    pass


@dataclass(frozen=True)
class SearchHit:
    text: str
    heading_path: str
    url: str
    title: str
    score: float
    position: int

    def to_dict(self) -> dict:
        return asdict(self)


def search(business: str, query: str, k: int = 5, settings: Settings | None = None) -> list[SearchHit]:
    """Top-k chunks of `business` for `query`. Raises UnknownBusiness when nothing was ingested for it."""
    settings = settings or load_settings()
    query = query.strip()
    if not query:
        raise ValueError("the query is empty")
    if not settings.state_path.exists():
        raise UnknownBusiness(f"no knowledge base for {business!r} (nothing ingested under {settings.data_dir})")
    state = StateStore(settings.state_path)
    try:
        embedder_id = state.embedder_of(business)
    finally:
        state.close()
    if embedder_id is None:
        raise UnknownBusiness(f"no knowledge base for {business!r}; run `ingest run SITE --business {business}` first")
    embedder = make_embedder(settings, recorded_id=embedder_id)
    vector = embedder.embed_query(query)
    store = open_store(settings, embedder_id, embedder.dimensions)
    try:
        hits = store.search(business, vector, query, k)
    finally:
        store.close()
    return [SearchHit(text=h.payload.get("text", ""), heading_path=h.payload.get("heading_path", ""),
                      url=h.payload.get("url", ""), title=h.payload.get("title", ""), score=round(h.score, 6),
                      position=int(h.payload.get("position", 0))) for h in hits]
