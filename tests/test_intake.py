import asyncio

import pytest

from ingest.crawl.fetch import Fetcher
from ingest.crawl.intake import find_homepage, homepage_candidates
from ingest.problems import SENTENCES, SiteProblem


def test_the_three_homepage_attempts_in_order():
    assert homepage_candidates("acme.com") == ["https://acme.com/", "https://www.acme.com/", "http://acme.com/"]
    assert homepage_candidates(" ACME.com/about ")[0] == "https://acme.com/"
    assert homepage_candidates("http://127.0.0.1:8000/") == ["http://127.0.0.1:8000/"]


@pytest.mark.parametrize("text", ["", "not a site", "ftp://acme.com", "acme", "-acme.com", "acme..com", "http://"])
def test_invalid_inputs(text):
    with pytest.raises(SiteProblem) as err:
        homepage_candidates(text)
    assert err.value.kind == "invalid"


def test_every_problem_kind_has_a_sentence():
    assert set(SENTENCES) == {"invalid", "not_found", "blocked", "private", "timeout", "tls", "empty", "error"}
    assert all(sentence.endswith(".") and len(sentence) > 40 for sentence in SENTENCES.values())


def _homepage(settings, site):
    async def go():
        async with Fetcher(settings) as fetcher:
            return await find_homepage(site, fetcher)

    return asyncio.run(go())


def test_unresolvable_name_is_not_found(settings):
    with pytest.raises(SiteProblem) as err:
        _homepage(settings, "no-such-host.invalid")
    assert err.value.kind == "not_found"


def test_blocked_homepage(site_dir_server, settings):
    (site_dir_server.root_dir / "index.html").write_text("<p>hi</p>")
    with pytest.raises(SiteProblem) as err:
        _homepage(settings, site_dir_server.base + "/missing-home/")
    assert err.value.kind == "error"  # 404 on the homepage is an error, not a block


def test_a_server_that_refuses_the_connection_is_named(settings):
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(SiteProblem) as err:
        _homepage(settings, f"http://127.0.0.1:{port}/")
    assert err.value.kind == "error"
    assert f"no connection to http://127.0.0.1:{port}/" in err.value.message  # not "answered with an error"


def test_loopback_refused_without_the_setting(site_dir_server, settings, monkeypatch):
    from ingest.settings import load_settings

    monkeypatch.setenv("SITEKB_ALLOW_PRIVATE_HOSTS", "false")
    with pytest.raises(SiteProblem) as err:
        _homepage(load_settings(), site_dir_server.base + "/")
    assert err.value.kind == "private"
