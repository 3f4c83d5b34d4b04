"""crawler-commons' URL normalizer vectors (../shared/corpora/vectors), read in place.

Cases we deliberately treat differently, and why:
- non-http(s) schemes (ftp:, file:) and URLs without a host (`http:////`) give None:
  a website crawler fetches only http(s) pages with a host;
- a scheme-less `foo.com/index.html` gives None without a base: inside a page it is a
  relative link (browsers read it so), and the user's typed domain goes through intake.
"""

import csv

import pytest
from conftest import CORPORA_MISSING, VECTORS

from ingest.crawl.urls import normalize_url

if CORPORA_MISSING:
    pytest.skip(CORPORA_MISSING, allow_module_level=True)

NORMALIZER = VECTORS / "crawler-commons" / "normalizer"
DELIBERATE = {
    "file:///foo/bar.txt",
    "ftp:/",
    "http:////",
    "http:///////",
    "foo.com/index.html",
    "ftp://foo.com/index.html",
    "file:/path/index.html",
    "file:/var/www/html/////./bar/index.html",
    "file:/var/www/html/foo/../bar/index.html",
}


def _pairs():
    lines = [
        line
        for line in (NORMALIZER / "weirdToNormalizedUrls.csv").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    return [tuple(cell.strip() for cell in row[:2]) for row in csv.reader(lines, skipinitialspace=True)]


PAIRS = _pairs()


def test_the_vector_file_is_all_there():
    assert len(PAIRS) == 112


@pytest.mark.parametrize("weird, normalized", [p for p in PAIRS if p[0] not in DELIBERATE])
def test_normalizer_pairs(weird, normalized):
    assert normalize_url(weird) == normalized


@pytest.mark.parametrize("weird", sorted(DELIBERATE))
def test_deliberate_differences_are_not_crawlable(weird):
    assert normalize_url(weird) is None


def test_invalid_urls_give_none_never_an_exception():
    lines = [
        l.strip()
        for l in (NORMALIZER / "invalidUrls.csv").read_text(encoding="utf-8").splitlines()
        if l.strip() and not l.startswith("#")
    ]
    assert lines
    for url in lines:
        assert normalize_url(url) is None, url
