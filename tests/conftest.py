"""Shared fixtures: settings in a temporary data dir, and real HTTP servers on 127.0.0.1."""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from ingest.crawl.render import BROWSERS
from ingest.settings import Settings, load_settings

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
HANDBOOK = SHARED / "corpora" / "sites" / "handbook"
VECTORS = SHARED / "corpora" / "vectors"
DEMO_SITE = REPO / "scripts" / "demo_site"
# Real material written by others (WCXB pages, two real websites, URL/robots/sitemap
# vectors) lives in the shared/ folder beside the repository, never in it. Without it
# the tests that read it skip and say why; CI always has it, so there they must run.
CORPORA_MISSING = (
    None
    if (SHARED / "corpora").is_dir()
    else (f"needs the test corpora in {SHARED / 'corpora'} (the shared/ folder beside the repository)")
)
if CORPORA_MISSING and os.environ.get("CI"):
    raise RuntimeError(f"CI runs every test: {CORPORA_MISSING}")
needs_corpora = pytest.mark.skipif(CORPORA_MISSING is not None, reason=CORPORA_MISSING or "")
# Rendering tests drive Debian's chromium (`.ci/run` installs it); without it they skip
# and say what to install, except in CI, where they must run.
BROWSER_MISSING = (
    None
    if any(shutil.which(name) for name in BROWSERS) and importlib.util.find_spec("playwright") is not None
    else "needs a browser for rendering: apt-get install chromium, and Playwright (pip install -e '.[dev]')"
)
if BROWSER_MISSING and os.environ.get("CI"):
    raise RuntimeError(f"CI runs every test: {BROWSER_MISSING}")
needs_browser = pytest.mark.skipif(BROWSER_MISSING is not None, reason=BROWSER_MISSING or "")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(REPO / "scripts"))
from serve_site import StaticSite  # noqa: E402


def shared_static_site():
    """The shared corpora's server (real validators, 304, the site's 404 page)."""
    path = SHARED / "tools" / "serve_site.py"
    if not path.exists():
        raise RuntimeError(f"{path} is missing: tests need ../shared beside the repository")
    spec = importlib.util.spec_from_file_location("shared_serve_site", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.StaticSite


def stored_payloads(settings: Settings, business: str) -> list[dict]:
    """Every point the business has in its knowledge base (payloads: url, text, heading...)."""
    from ingest.kb.state import StateStore
    from ingest.kb.store import open_existing_store

    state = StateStore(settings.state_location)
    try:
        embedder_id = state.businesses.embedder_of(business)
    finally:
        state.close()
    store = open_existing_store(settings, embedder_id)
    try:
        return list(store.payloads(business).values())
    finally:
        store.close()


@pytest.fixture
def settings(tmp_path, monkeypatch, request) -> Settings:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
    if os.environ.get("SITEKB_TEST_BACKEND") == "postgresql":  # the whole suite on PostgreSQL
        monkeypatch.setenv("SITEKB_DATABASE_URL", request.getfixturevalue("pg_url"))
    return load_settings()


@pytest.fixture
def demo_site():
    with StaticSite(DEMO_SITE, rewrite_hosts=("www.harbourlight.example", "harbourlight.example")) as site:
        yield site


@pytest.fixture
def site_dir_server(tmp_path):
    """Serve a folder the test writes (and may change between runs)."""
    root = tmp_path / "site"
    root.mkdir()
    with StaticSite(root) as site:
        site.root_dir = root
        yield site


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(base: str) -> None:
    import time

    import httpx

    for _ in range(200):
        try:
            if httpx.get(base + "/healthz").status_code == 200:
                return
        except httpx.ConnectError:
            pass
        time.sleep(0.05)
    raise AssertionError(f"no server at {base}")


@contextmanager
def ingest_serve():
    """`ingest serve` in its own process on a free port, on the environment's data folder;
    yields its base URL once it answers."""
    import subprocess

    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "ingest.cli", "serve", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_healthy(base)
        yield base
    finally:
        server.terminate()
        server.wait(timeout=20)


@contextmanager
def crawl_env(data_dir: Path):
    """For module-scoped fixtures: a data folder, loopback crawling allowed, the local
    embedder (no OpenAI key); the environment is restored afterwards."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SITEKB_DATA_DIR", str(data_dir))
        patch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")
        patch.delenv("OPENAI_API_KEY", raising=False)
        yield


# -- PostgreSQL ------------------------------------------------------------------------
# The pgserver wheel (a dev dependency) carries PostgreSQL 16 with pgvector; the tests
# start one server per session in a short temporary folder (its Unix socket lives there)
# and give each test a database of its own.


@pytest.fixture(scope="session")
def pg_server():
    import shutil
    import tempfile

    try:
        import pgserver
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip("needs the pgserver package (pip install -e '.[dev]') for the PostgreSQL tests")
    folder = tempfile.mkdtemp(prefix="skbpg")
    server = pgserver.get_server(folder, cleanup_mode="stop")
    yield server
    server.cleanup()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_url(pg_server) -> str:
    """A DSN for an empty database of this test's own."""
    import uuid

    import psycopg

    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(pg_server.get_uri(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    return pg_server.get_uri(name)


@pytest.fixture(params=["sqlite", "postgresql"])
def state_location(request, tmp_path) -> Path | str:
    """The state database's location on each backend: a SQLite file, a PostgreSQL DSN."""
    if request.param == "sqlite":
        return tmp_path / "state.sqlite3"
    return request.getfixturevalue("pg_url")
