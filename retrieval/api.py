"""The retrieval HTTP API for the voice assistant (FastAPI).

Every request carries a per-business bearer key; the key alone decides which
business is searched, so nothing in a request can reach another business's chunks.
The server owns the vector stores for its lifetime (embedded stores admit one
process per data folder).
"""
from __future__ import annotations

import threading
from contextlib import asynccontextmanager
from datetime import datetime, timezone

from fastapi import Depends, FastAPI, HTTPException, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from ingest.settings import Settings, load_settings
from ingest.state import StateStore
from retrieval.search import MAX_QUERY_CHARS, Searcher, UnknownBusiness

MAX_TOP_K = 50


class SearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="What the caller asked.")
    top_k: int = Field(5, ge=1, le=MAX_TOP_K, description="How many passages to return.")


class Hit(BaseModel):
    text: str = Field(description="The passage, starting with its heading path.")
    heading_path: str
    url: str
    title: str
    score: float = Field(description="Reciprocal-rank-fusion score: higher is better, comparable within one answer.")
    position: int = Field(description="The passage's index within its page: fetch neighbours with /v1/chunks.")


class SearchResponse(BaseModel):
    business: str
    hits: list[Hit]


class Chunk(BaseModel):
    text: str
    heading_path: str
    position: int


class PageChunks(BaseModel):
    url: str
    chunks: list[Chunk]


class Source(BaseModel):
    site: str
    root_url: str | None
    status: str
    pages: int
    chunks: int
    last_refreshed_at: datetime | None


class Sources(BaseModel):
    business: str
    sources: list[Source]


_bearer = HTTPBearer(auto_error=False, description="A key from `ingest keys create --business ID`.")


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or load_settings()
    holder: dict = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        holder["searcher"] = app.state.searcher = Searcher(settings)
        holder["state"] = StateStore(settings.state_path, shared=True)
        holder["lock"] = threading.Lock()
        try:
            yield
        finally:
            holder["searcher"].close()
            holder["state"].close()

    app = FastAPI(title="sitekb retrieval API", version="1", lifespan=lifespan,
                  description="Search a business's website knowledge base. Authenticate with a bearer key.")

    def state_call(method: str, *args):
        with holder["lock"]:
            return getattr(holder["state"], method)(*args)

    def business_of(credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> str:
        unauthorized = {"WWW-Authenticate": "Bearer"}
        if credentials is None or credentials.scheme.lower() != "bearer":
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing bearer key", headers=unauthorized)
        business = state_call("business_for_key", credentials.credentials)
        if business is None:
            raise HTTPException(status.HTTP_401_UNAUTHORIZED, "unknown or revoked key", headers=unauthorized)
        return business

    @app.get("/healthz")
    def healthz() -> dict:
        return {"status": "ok"}

    @app.post("/v1/search", response_model=SearchResponse)
    def search(body: SearchRequest, business: str = Depends(business_of)) -> SearchResponse:
        try:
            hits = holder["searcher"].search(business, body.query, body.top_k)
        except UnknownBusiness as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None
        return SearchResponse(business=business, hits=[Hit(**h.to_dict()) for h in hits])

    @app.get("/v1/chunks", response_model=PageChunks)
    def chunks(url: str = Query(min_length=1, max_length=2048, description="A hit's url."),
               business: str = Depends(business_of)) -> PageChunks:
        try:
            store = holder["searcher"].store_for(business)
        except UnknownBusiness as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        payloads = store.page_chunks(business, url) if store else []
        if not payloads:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no page {url!r} in this knowledge base")
        return PageChunks(url=url, chunks=[Chunk(text=p["text"], heading_path=p.get("heading_path", ""),
                                                 position=p.get("position", 0)) for p in payloads])

    @app.get("/v1/sources", response_model=Sources)
    def sources(business: str = Depends(business_of)) -> Sources:
        rows = state_call("source_summaries", business)
        return Sources(business=business, sources=[
            Source(**{**row, "last_refreshed_at": datetime.fromtimestamp(row["last_refreshed_at"], timezone.utc)
                      if row["last_refreshed_at"] else None}) for row in rows])

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception):  # never a stack trace to a caller
        from fastapi.responses import JSONResponse

        return JSONResponse({"detail": "internal error"}, status_code=500)

    return app
