"""The retrieval HTTP API for the voice assistant (FastAPI).

Every request carries a per-business bearer key; the key alone decides which
business is searched, so nothing in a request can reach another business's chunks.
The server owns the vector stores for its lifetime (embedded stores admit one
process per data folder) and, given the work to do (`ingest.server` gives the
pipeline's), runs ingestion jobs itself (ingest.ops.jobs), so a resync never takes
the API down. The admin endpoints under /v1/admin take the token the
server writes to `<data dir>/server.json`, never a business key; they are left out of
the OpenAPI document, which describes the assistant's API.
"""

from __future__ import annotations

import hmac
import threading
from collections.abc import Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Literal

from fastapi import Depends, FastAPI, HTTPException, Query, Request, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from ingest.kb.state import StateStore
from ingest.ops.jobs import JobRunner, announce, withdraw
from ingest.settings import Settings, load_settings
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


class JobRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["run", "resync_due"]
    site: str | None = Field(None, min_length=1, max_length=2048)
    business: str | None = Field(None, min_length=1, max_length=200)
    max_pages: int | None = Field(None, ge=1)


class AdminSearchRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    business: str = Field(min_length=1, max_length=200)
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS)
    k: int = Field(5, ge=1, le=100)
    mode: Literal["hybrid", "dense", "lexical"] = "hybrid"


_bearer = HTTPBearer(auto_error=False, description="A key from `ingest keys create --business ID`.")
# What an ingestion job does: the request, a function that reads the settings afresh
# when the job starts, and a progress callback (phase, done, total) -> a JSON-able result.
JobWork = Callable[[JobRequest, Callable[[], Settings], Callable[[str, int, int], None]], object]


def create_app(
    settings: Settings | None = None,
    announce_url: str | None = None,
    load: Callable[[], Settings] | None = None,
    work: JobWork | None = None,
) -> FastAPI:
    """`announce_url`: write server.json so the CLI hands its jobs to this server.
    `load`: reads the settings again before each job (R-10.3); default: `settings`.
    `work`: runs an ingestion job; without it the server takes no jobs (503)."""
    settings = settings or load_settings()
    load = load or (lambda: settings)
    holder: dict = {}

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        holder["searcher"] = app.state.searcher = Searcher(settings)
        holder["state"] = StateStore(settings.state_path, shared=True)
        holder["lock"] = threading.Lock()
        holder["jobs"] = app.state.jobs = JobRunner()
        holder["token"] = app.state.admin_token = announce(settings, announce_url) if announce_url else None
        try:
            yield
        finally:
            if holder["token"]:
                withdraw(settings, holder["token"])
            holder["jobs"].close()
            holder["searcher"].close()
            holder["state"].close()

    app = FastAPI(
        title="sitekb retrieval API",
        version="1",
        lifespan=lifespan,
        description="Search a business's website knowledge base. Authenticate with a bearer key.",
    )

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

    def run_search(business: str, query: str, k: int, mode: str = "hybrid") -> list:
        """The one search behind /v1/search and /v1/admin/search; errors become HTTP errors."""
        try:
            return holder["searcher"].search(business, query, k, mode=mode)
        except UnknownBusiness as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None

    def admin(credentials: HTTPAuthorizationCredentials | None = Depends(_bearer)) -> None:
        token = holder.get("token")
        if (
            token is None
            or credentials is None
            or credentials.scheme.lower() != "bearer"
            or not hmac.compare_digest(credentials.credentials.encode(), token.encode())
        ):
            raise HTTPException(
                status.HTTP_401_UNAUTHORIZED,
                "admin endpoints take the token in server.json",
                headers={"WWW-Authenticate": "Bearer"},
            )

    @app.get("/v1/admin/ping", include_in_schema=False, dependencies=[Depends(admin)])
    def ping() -> dict:
        return {"status": "ok", "data_dir": str(settings.data_dir)}

    @app.post("/v1/admin/jobs", include_in_schema=False, dependencies=[Depends(admin)], status_code=202)
    def submit_job(body: JobRequest) -> dict:
        if work is None:
            raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "this server runs no ingestion jobs")
        if body.kind == "run" and not body.site:
            raise HTTPException(422, "a run job needs `site`")
        return (
            holder["jobs"]
            .submit(body.kind, body.model_dump(exclude_none=True), lambda progress: work(body, load, progress))
            .to_dict()
        )

    @app.get("/v1/admin/jobs/{job_id}", include_in_schema=False, dependencies=[Depends(admin)])
    def job_status(job_id: str) -> dict:
        job = holder["jobs"].get(job_id)
        if job is None:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no job {job_id!r} (jobs are kept while the server runs)")
        return job.to_dict()

    @app.post("/v1/admin/search", include_in_schema=False, dependencies=[Depends(admin)])
    def admin_search(body: AdminSearchRequest) -> list[dict]:
        return [h.to_dict() for h in run_search(body.business, body.query, body.k, body.mode)]

    @app.get("/healthz")
    def healthz() -> dict:
        return {"status": "ok"}

    @app.post("/v1/search", response_model=SearchResponse)
    def search(body: SearchRequest, business: str = Depends(business_of)) -> SearchResponse:
        hits = run_search(business, body.query, body.top_k)
        return SearchResponse(business=business, hits=[Hit(**h.to_dict()) for h in hits])

    @app.get("/v1/chunks", response_model=PageChunks)
    def chunks(
        url: str = Query(min_length=1, max_length=2048, description="A hit's url."),
        business: str = Depends(business_of),
    ) -> PageChunks:
        try:
            store = holder["searcher"].store_for(business)
        except UnknownBusiness as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        payloads = store.page_chunks(business, url) if store else []
        if not payloads:
            raise HTTPException(status.HTTP_404_NOT_FOUND, f"no page {url!r} in this knowledge base")
        return PageChunks(
            url=url,
            chunks=[
                Chunk(text=p["text"], heading_path=p.get("heading_path", ""), position=p.get("position", 0))
                for p in payloads
            ],
        )

    @app.get("/v1/sources", response_model=Sources)
    def sources(business: str = Depends(business_of)) -> Sources:
        rows = state_call("source_summaries", business)
        return Sources(
            business=business,
            sources=[
                Source(
                    **{
                        **row,
                        "last_refreshed_at": datetime.fromtimestamp(row["last_refreshed_at"], UTC)
                        if row["last_refreshed_at"]
                        else None,
                    }
                )
                for row in rows
            ],
        )

    @app.exception_handler(Exception)
    async def internal_error(request: Request, exc: Exception):  # never a stack trace to a caller
        from fastapi.responses import JSONResponse

        return JSONResponse({"detail": "internal error"}, status_code=500)

    return app
