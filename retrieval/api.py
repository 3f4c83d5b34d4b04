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
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Literal, TypeVar

from fastapi import APIRouter, Depends, FastAPI, HTTPException, Query, Request, status
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from ingest.kb.db import database_unreachable
from ingest.kb.state import StateStore
from ingest.ops.jobs import JobRunner, announce, withdraw
from ingest.ops.queue import QueueJobs
from ingest.settings import Settings, load_settings
from retrieval.search import MAX_QUERY_CHARS, Answer, Searcher, UnknownBusiness

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
    answerable: bool = Field(
        description="False when the passages most likely do not answer the question: say you don't know."
    )
    confidence: float = Field(ge=0, le=1, description="How likely the passages answer the question.")
    judged_by: Literal["signals", "model"] = Field(
        "signals",
        description="Who judged `answerable`: the local signals, or a chat model that read the passages "
        "(SITEKB_ANSWER_CHECK=openai; the signals judge whenever the model cannot).",
    )


class Fact(BaseModel):
    kind: str = Field(description="phone, whatsapp, chat (another messenger), email, address, hours or booking.")
    value: str
    label: str = Field(description='What the site calls it ("Reception", "WhatsApp"), if it says.')
    url: str = Field(description="The page it is stated on.")
    pages: int = Field(description="On how many pages the site states it.")


class Facts(BaseModel):
    business: str
    facts: list[Fact]


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
_UNAUTHORIZED = {"WWW-Authenticate": "Bearer"}
T = TypeVar("T")


class Services:
    """What the server holds open for its lifetime: the searcher (and through it the
    stores, which admit one opener), a state connection, the job runner and the admin
    token it announced."""

    def __init__(
        self, settings: Settings, announce_url: str | None, load: Callable[[], Settings], work: JobWork | None
    ) -> None:
        self.settings, self.load, self.work = settings, load, work
        self.searcher = Searcher(settings)
        self._state = StateStore(settings.state_location, shared=True)
        self._lock = threading.Lock()
        # With a shared database the workers run the jobs (ops/queue.py); this process only serves.
        self.jobs = QueueJobs(settings) if settings.database_url else JobRunner()
        self.admin_token = announce(settings, announce_url) if announce_url else None
        # The first caller would wait ~1-2 s for the model, the store and the off-topic
        # questions' vectors: loaded beside the serving instead (a search arriving
        # meanwhile waits for the part it needs, as it would have).
        self._warm_up = threading.Thread(target=self.searcher.warm_up, name="warm-up", daemon=True)
        self._warm_up.start()

    def state(self, call: Callable[[StateStore], T]) -> T:
        """One state call at a time: the connection is shared by the server's threads."""
        with self._lock:
            return call(self._state)

    def search(self, business: str, query: str, k: int, mode: str = "hybrid") -> Answer:
        """The one search behind /v1/search and /v1/admin/search; errors become HTTP errors."""
        try:
            return self.searcher.answer(business, query, k, mode=mode)
        except UnknownBusiness as exc:
            raise HTTPException(status.HTTP_404_NOT_FOUND, str(exc)) from None
        except ValueError as exc:
            raise HTTPException(422, str(exc)) from None

    def close(self) -> None:
        if self.admin_token:
            withdraw(self.settings, self.admin_token)
        self.jobs.close()
        self._warm_up.join()  # it may be opening a store that close() must close
        self.searcher.close()
        self._state.close()


async def services(request: Request) -> Services:
    """Async, as the other dependencies of a business route: a plain `def` dependency
    costs a hop to the thread pool and back for every request."""
    return request.app.state.services


def _key_of(authorization: str | None) -> str | None:
    scheme, _, key = (authorization or "").partition(" ")
    return (key.strip() or None) if scheme.lower() == "bearer" else None


def _authorize(svc: Services, authorization: str | None) -> str:
    """The business a bearer key belongs to: the key alone decides it."""
    key = _key_of(authorization)
    if key is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "missing bearer key", headers=_UNAUTHORIZED)
    business = svc.state(lambda state: state.keys.business_for(key))
    if business is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "unknown or revoked key", headers=_UNAUTHORIZED)
    return business


async def business_of(
    request: Request,
    credentials: HTTPAuthorizationCredentials | None = Depends(_bearer),  # documents the scheme in OpenAPI
    svc: Services = Depends(services),
) -> str:
    """The business of the request's key, as the key-first middleware found it (or
    found now, in a thread, for a route it does not cover)."""
    found = getattr(request.state, "business", None)
    if found is not None:
        return found
    return await run_in_threadpool(_authorize, svc, request.headers.get("authorization"))


class _KeyFirst:
    """A business route's key is checked before its body is read or parsed: a request
    without a valid key costs no JSON parsing (FastAPI reads the body before it solves
    dependencies). A body declared over the limit is left to FastAPI's 413, which reads
    nothing either. Plain ASGI: Starlette's BaseHTTPMiddleware added ~3 ms a request."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path.startswith("/v1/") and not path.startswith("/v1/admin"):
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
            declared = headers.get("content-length", "")
            app_state = scope["app"].state
            if not (declared.isdigit() and int(declared) > app_state.max_body_bytes):
                svc = app_state.services
                try:
                    if svc.settings.database_url:  # a network round trip: never on the event loop
                        business = await run_in_threadpool(_authorize, svc, headers.get("authorization"))
                    else:  # a local SQLite lookup (~0.1 ms) is cheaper than the hop to a thread
                        business = _authorize(svc, headers.get("authorization"))
                except HTTPException as exc:
                    await JSONResponse({"detail": exc.detail}, exc.status_code, headers=exc.headers)(
                        scope, receive, send
                    )
                    return
                except Exception as exc:
                    if not database_unreachable(exc):
                        raise
                    await _unavailable()(scope, receive, send)
                    return
                scope.setdefault("state", {})["business"] = business
        await self.app(scope, receive, send)


def require_admin(
    credentials: HTTPAuthorizationCredentials | None = Depends(_bearer), svc: Services = Depends(services)
) -> None:
    """The token this server wrote to server.json, never a business key."""
    token = svc.admin_token
    if (
        token is None
        or credentials is None
        or credentials.scheme.lower() != "bearer"
        or not hmac.compare_digest(credentials.credentials.encode(), token.encode())
    ):
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED, "admin endpoints take the token in server.json", headers=_UNAUTHORIZED
        )


public = APIRouter()
admin = APIRouter(prefix="/v1/admin", include_in_schema=False, dependencies=[Depends(require_admin)])


@public.get("/healthz")
def healthz() -> dict:
    return {"status": "ok"}


def _search_response(svc: Services, business: str, body: SearchRequest) -> SearchResponse:
    answer = svc.search(business, body.query, body.top_k)
    return SearchResponse(
        business=business,
        hits=[
            Hit(text=h.text, heading_path=h.heading_path, url=h.url, title=h.title, score=h.score, position=h.position)
            for h in answer.hits
        ],
        answerable=answer.answerable,
        confidence=answer.confidence,
        judged_by=answer.judged_by,
    )


@public.post("/v1/search", response_model=SearchResponse)
async def search(
    body: SearchRequest, business: str = Depends(business_of), svc: Services = Depends(services)
) -> SearchResponse:
    """One hop to the thread pool for the search (it blocks: the model, the store), where
    a plain `def` endpoint took four: each sync dependency, the endpoint and the check of
    its response each went to a thread and back."""
    return await run_in_threadpool(_search_response, svc, business, body)


@public.get("/v1/facts", response_model=Facts)
def facts(business: str = Depends(business_of), svc: Services = Depends(services)) -> Facts:
    """The business's contact card: phone numbers, e-mail, address, opening hours,
    WhatsApp and booking links, as its site states them; no search needed."""
    found = svc.state(lambda state: state.sources.facts_of(business))
    return Facts(business=business, facts=[Fact(**f.to_dict()) for f in found])


@public.get("/v1/chunks", response_model=PageChunks)
def chunks(
    url: str = Query(min_length=1, max_length=2048, description="A hit's url."),
    business: str = Depends(business_of),
    svc: Services = Depends(services),
) -> PageChunks:
    try:
        store = svc.searcher.store_for(business)
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


@public.get("/v1/sources", response_model=Sources)
def sources(business: str = Depends(business_of), svc: Services = Depends(services)) -> Sources:
    def when(at: float | None) -> datetime | None:
        return datetime.fromtimestamp(at, UTC) if at else None

    rows = [asdict(row) for row in svc.state(lambda state: state.sources.summaries(business))]
    return Sources(
        business=business,
        sources=[Source(**{**row, "last_refreshed_at": when(row["last_refreshed_at"])}) for row in rows],
    )


@admin.get("/ping")
def ping(svc: Services = Depends(services)) -> dict:
    return {"status": "ok", "data_dir": str(svc.settings.data_dir)}


@admin.post("/jobs", status_code=202)
def submit_job(body: JobRequest, svc: Services = Depends(services)) -> dict:
    work = svc.work
    if work is None:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, "this server runs no ingestion jobs")
    if body.kind == "run" and not body.site:
        raise HTTPException(422, "a run job needs `site`")
    job = svc.jobs.submit(
        body.kind, body.model_dump(exclude_none=True), lambda progress: work(body, svc.load, progress)
    )
    return job.to_dict()


@admin.get("/jobs/{job_id}")
def job_status(job_id: str, svc: Services = Depends(services)) -> dict:
    job = svc.jobs.get(job_id)
    if job is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"no job {job_id!r} (jobs are kept while the server runs)")
    return job.to_dict()


@admin.post("/search")
def admin_search(body: AdminSearchRequest, svc: Services = Depends(services)) -> dict:
    answer = svc.search(body.business, body.query, body.k, body.mode)
    return {
        "answerable": answer.answerable,
        "confidence": answer.confidence,
        "judged_by": answer.judged_by,
        "hits": [h.to_dict() for h in answer.hits],
    }


async def _invalid_request(request: Request, exc: RequestValidationError) -> JSONResponse:
    """422 naming each field and what is wrong with it, never echoing the input back (it
    may be megabytes long, or not even text)."""
    detail = [{"loc": list(error["loc"]), "msg": error["msg"], "type": error["type"]} for error in exc.errors()]
    return JSONResponse({"detail": detail}, status_code=422)


async def _internal_error(request: Request, exc: Exception) -> JSONResponse:
    if database_unreachable(exc):
        return _unavailable()
    return JSONResponse({"detail": "internal error"}, status_code=500)  # never a stack trace to a caller


def _unavailable() -> JSONResponse:
    return JSONResponse(
        {"detail": "the knowledge base's database is unreachable; try again shortly"},
        status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
        headers={"Retry-After": "5"},
    )


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

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        svc = app.state.services = Services(settings, announce_url, load or (lambda: settings), work)
        app.state.searcher, app.state.admin_token = svc.searcher, svc.admin_token
        try:
            yield
        finally:
            svc.close()

    app = FastAPI(
        title="sitekb retrieval API",
        version="1",
        lifespan=lifespan,
        max_body_size=settings.api_max_body_bytes,  # 413 before the body is read, whatever the key
        description="Search a business's website knowledge base. Authenticate with a bearer key.",
    )
    app.state.max_body_bytes = settings.api_max_body_bytes
    app.add_middleware(_KeyFirst)
    app.include_router(public)
    app.include_router(admin)
    app.add_exception_handler(RequestValidationError, _invalid_request)
    app.add_exception_handler(Exception, _internal_error)
    return app
