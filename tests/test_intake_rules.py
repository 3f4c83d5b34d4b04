"""The homepage rules of R-2.2 and R-2.3 with a scripted fetcher: DNS cannot be faked on
loopback, so the fetcher stands in for the network and the rules are what is tested."""

import asyncio

import pytest

from ingest.crawl.intake import find_homepage
from ingest.models import Page
from ingest.problems import SiteProblem


class ScriptedFetcher:
    def __init__(self, answers: dict[str, Page]) -> None:
        self.answers, self.asked = answers, []

    async def fetch(self, url, *args, **kwargs) -> Page:
        self.asked.append(url)
        return self.answers[url]


def _fail(url, error, status=0):
    return Page(url=url, final_url=url, status=status, error=error)


def _ok(url):
    return Page(url=url, final_url=url, status=200, content_type="text/html", body=b"<p>hi</p>")


A, W, H = "https://acme.com/", "https://www.acme.com/", "http://acme.com/"


def _run(answers):
    fetcher = ScriptedFetcher(answers)
    try:
        return asyncio.run(find_homepage("acme.com", fetcher)), fetcher.asked
    except SiteProblem as problem:
        return problem, fetcher.asked


def test_first_answer_wins():
    page, asked = _run({A: _ok(A)})
    assert page.url == A and asked == [A]


def test_www_is_tried_second():
    page, asked = _run({A: _fail(A, "dns"), W: _ok(W)})
    assert page.url == W and asked == [A, W]


def test_plain_http_after_connection_and_tls_failures_only():
    page, asked = _run({A: _fail(A, "tls"), W: _fail(W, "connect"), H: _ok(H)})
    assert page.url == H and asked == [A, W, H]


@pytest.mark.parametrize(
    "error, status, kind", [("timeout", 0, "timeout"), (None, 403, "blocked"), (None, 500, "error")]
)
def test_no_plain_http_after_other_failures(error, status, kind):
    problem, asked = _run({A: _fail(A, error, status), W: _fail(W, "connect"), H: _ok(H)})
    assert isinstance(problem, SiteProblem) and problem.kind == kind
    assert H not in asked


def test_not_found_only_when_every_attempt_failed_dns():
    problem, asked = _run({A: _fail(A, "dns"), W: _fail(W, "dns"), H: _fail(H, "dns")})
    assert problem.kind == "not_found" and asked == [A, W, H]


def test_apex_without_dns_but_www_refusing_is_not_a_typo():
    problem, _ = _run({A: _fail(A, "dns"), W: _fail(W, None, 403), H: _fail(H, "dns")})
    assert problem.kind == "blocked"


@pytest.mark.parametrize("status", [401, 403, 429, 451, 503])
def test_blocking_statuses(status):
    problem, _ = _run({A: _fail(A, None, status), W: _fail(W, None, status)})
    assert problem.kind == "blocked"


def test_tls_everywhere_is_tls():
    problem, _ = _run({A: _fail(A, "tls"), W: _fail(W, "tls"), H: _fail(H, "connect")})
    assert problem.kind == "tls"


def test_challenge_on_the_homepage_is_blocked():
    problem, _ = _run({A: _fail(A, "challenge", 200), W: _fail(W, "challenge", 200)})
    assert problem.kind == "blocked"
