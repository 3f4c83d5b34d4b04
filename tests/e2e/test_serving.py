"""Ingestion while serving: the running API server owns the knowledge base and
runs ingestion jobs itself; the CLI hands its work to it; searches during a resync see
every page's old or new chunks, never neither."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import uvicorn
from conftest import free_port, ingest_serve, wait_healthy

from ingest.cli import main
from ingest.kb.state import StateStore
from ingest.kb.store import EdgeStore
from ingest.ops.jobs import ServerLink, find_server, server_file, settings_digests, settings_not_shared
from ingest.server import create_server_app
from ingest.settings import load_settings

PAGES = [f"room{i}" for i in range(12)]


WORDS = [
    "amber",
    "basalt",
    "cedar",
    "dune",
    "ember",
    "fjord",
    "garnet",
    "heather",
    "indigo",
    "juniper",
    "kelp",
    "lichen",
    "marram",
    "nettle",
    "ochre",
    "pebble",
    "quartz",
    "rowan",
    "samphire",
    "tansy",
    "umber",
    "violet",
    "willow",
    "yarrow",
]


def _write_site(root: Path, version: int) -> None:
    """Pages that share the words "Harbour guesthouse" and little else."""
    links = "".join(f'<a href="/{p}/">{p}</a> ' for p in PAGES)
    for n, page in enumerate(["index", *PAGES]):
        own = " ".join(WORDS[(n * 5 + i) % len(WORDS)] + str(n) for i in range(8))
        body = (
            f"<h1>{page.title()}</h1><p>{page} of the Harbour guesthouse: {own}, edition {version}.</p>"
            f"<h2>{page} notes</h2><p>{own[::-1]} for {page}, revised {version} times.</p>"
        )
        path = root / ("index.html" if page == "index" else f"{page}/index.html")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            f"<html lang='en'><head><title>{page.title()}</title></head><body><nav>{links}</nav>"
            f"<main>{body}</main></body></html>"
        )


@pytest.fixture
def served(settings):
    """`ingest serve` in its own process, owning the test's data folder; yields its port."""
    with ingest_serve() as base:
        yield int(base.rsplit(":", 1)[1])


def test_the_cli_hands_its_work_to_the_running_server(served, settings, demo_site, capsys, monkeypatch):
    assert server_file(settings).exists()
    assert main(["run", demo_site.base + "/", "--business", "demo"]) == 0
    out, err = capsys.readouterr()
    assert "handing the job to the server at" in err and "chunks:" in out
    assert "do not apply" not in err  # the server was started with this shell's settings

    assert main(["search", "--business", "demo", "what time is check-in?", "--json"]) == 0
    assert "15:00" in capsys.readouterr().out
    # What this process would refuse, the server's refusal says the same way: exit 2, the kind, no field dump.
    assert main(["search", "--business", "nobody", "anything", "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["problem"] == "not_found" and "no knowledge base for 'nobody'" in err
    assert main(["search", "--business", "demo", "x" * 5000]) == 2
    assert "the query is 5000 characters long; the limit is 1000" in capsys.readouterr().err
    assert main(["search", "--business", "demo", "   "]) == 2
    assert capsys.readouterr().err.strip() == "ingest: the query is empty"
    assert main(["keys", "create", "--business", "demo"]) == 0  # the state is shared, not locked
    secret = capsys.readouterr().out.split()[-1]
    response = httpx.post(
        f"http://127.0.0.1:{served}/v1/search",
        json={"query": "check-in time"},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert response.status_code == 200 and response.json()["hits"]

    monkeypatch.setenv("SITEKB_MAX_PAGES", "3")  # set after the server started: it runs without it
    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "true")  # as the server has it
    assert main(["run", demo_site.base + "/", "--business", "demo"]) == 0
    err = capsys.readouterr().err
    assert "SITEKB_MAX_PAGES as set here do not apply" in err and "ALLOW_PRIVATE" not in err
    monkeypatch.delenv("SITEKB_MAX_PAGES")
    assert main(["resync", "--due", "--json"]) == 0  # nothing is due a minute after a run
    assert capsys.readouterr().out.strip() == "[]"
    assert main(["run", "http://127.0.0.1:9/", "--business", "nothing"]) == 2  # a site problem, from the server
    assert "ingest: error: Your website answered with an error, or not at all" in capsys.readouterr().err
    assert main(["serve", "--port", str(free_port())]) == 2
    assert "already owns" in capsys.readouterr().err


def test_admin_endpoints_take_the_server_token_only(served, settings, demo_site, capsys):
    base = f"http://127.0.0.1:{served}"
    assert main(["run", demo_site.base + "/", "--business", "demo"]) == 0
    assert main(["keys", "create", "--business", "demo"]) == 0
    business_key = capsys.readouterr().out.split()[-1]
    for headers in ({}, {"Authorization": f"Bearer {business_key}"}, {"Authorization": "Bearer wrong"}):
        assert httpx.post(base + "/v1/admin/jobs", json={"kind": "resync_due"}, headers=headers).status_code == 401
        assert (
            httpx.post(base + "/v1/admin/search", json={"business": "demo", "query": "x"}, headers=headers).status_code
            == 401
        )
    assert not [p for p in httpx.get(base + "/openapi.json").json()["paths"] if "admin" in p]
    link = find_server(settings)
    assert link is not None
    with pytest.raises(Exception, match="422"):
        link._call("POST", "/v1/admin/jobs", json={"kind": "run"})  # a run needs a site
    link.close()


def test_a_stale_announcement_is_ignored(settings):
    server_file(settings).parent.mkdir(parents=True, exist_ok=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    server_file(settings).write_text(f'{{"url": "http://127.0.0.1:9", "pid": {dead.pid}, "token": "t"}}')
    assert find_server(settings) is None


@pytest.fixture
def inprocess_server(settings):
    port = free_port()
    app = create_server_app(settings, announce_url=f"http://127.0.0.1:{port}")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_healthy(f"http://127.0.0.1:{port}")
    try:
        yield app, port
    finally:
        server.should_exit = True
        thread.join(20)


def test_searches_during_a_resync_see_every_page(inprocess_server, settings, site_dir_server, monkeypatch):
    app, port = inprocess_server
    _write_site(site_dir_server.root_dir, 1)
    link = ServerLink(f"http://127.0.0.1:{port}", app.state.admin_token)
    first = link.run(site_dir_server.base + "/", business="harbour")
    assert first.problem is None and first.chunks.total >= 2 * len(PAGES)
    state = StateStore(settings.state_location)
    _, secret = state.keys.create("harbour")
    state.close()

    # Every page changes; every write now takes 50 ms after its page's delete, so a
    # search that could fall between the two would find that page missing.
    _write_site(site_dir_server.root_dir, 2)
    real_upsert = EdgeStore.upsert

    def slow_upsert(self, points):
        time.sleep(0.05)
        real_upsert(self, points)

    monkeypatch.setattr(EdgeStore, "upsert", slow_upsert)
    job = link._call(
        "POST", "/v1/admin/jobs", json={"kind": "run", "site": site_dir_server.base + "/", "business": "harbour"}
    )
    seen, searches = [], 0
    while (status := link._call("GET", f"/v1/admin/jobs/{job['id']}"))["status"] in ("queued", "running"):
        response = httpx.post(
            f"http://127.0.0.1:{port}/v1/search",
            json={"query": "harbour guesthouse", "top_k": 50},
            headers={"Authorization": f"Bearer {secret}"},
            timeout=30,
        )
        assert response.status_code == 200
        pages = {h["url"].rstrip("/").rsplit("/", 1)[-1] for h in response.json()["hits"]}
        seen.append(set(PAGES) - pages)
        searches += 1
    link.close()
    assert status["status"] == "done", status
    assert status["result"]["chunks"]["added"] >= len(PAGES) and status["result"]["chunks"]["deleted"] >= len(PAGES)
    assert searches >= 10
    assert not [missing for missing in seen if missing], "a search saw a page with neither its old nor new chunks"


def test_settings_are_compared_as_each_process_loaded_them(settings, tmp_path, monkeypatch):
    server = settings_digests(settings)
    assert all(len(d) == 16 for d in server.values()) and "data_dir" not in server  # digests, never values
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("SITEKB_MAX_PAGES=7\n")  # read from a .env file, not the environment
    monkeypatch.setenv("SITEKB_UNRELATED", "\udcff")  # not UTF-8 (surrogateescape): no setting, no crash
    assert settings_not_shared(load_settings(), server) == ["SITEKB_MAX_PAGES"]
    (tmp_path / ".env").unlink()
    assert settings_not_shared(load_settings(), server) == []
    assert settings_not_shared(load_settings(), None) == []  # an older server.json says nothing
