"""Which pages are rendered (R-15.1), and what the browser may fetch while rendering;
the browser itself is exercised in tests/e2e/test_render.py."""

from __future__ import annotations

import pytest

from ingest.crawl.render import find_browser, is_tracker, needs_rendering, refusal
from ingest.crawl.urls import Scope
from ingest.extract.html import parse_html

SCOPE = Scope.from_config("https://www.casalola.example/", {})


def _needs(html: str) -> bool:
    return needs_rendering(html.encode(), parse_html(html, "https://www.casalola.example/"))


@pytest.mark.parametrize(
    "html",
    [
        '<html><head><script src="/app.js"></script></head><body><div id="root"></div></body></html>',
        '<html><body><div id="__next"></div><script src="/_next/main.js"></script></body></html>',
        "<html><body><app-root></app-root><script src='main.js'></script></body></html>",
        '<html><body><noscript>You need to enable JavaScript to run this app.</noscript><script src="/b.js"></script>'
        "<p>Loading the menu</p></body></html>",
        # no mount point, but no text at all and a script that writes one
        "<html><body><script>" + "document.write('<p>' + 'x'.repeat(20) + '</p>');" * 8 + "</script></body></html>",
    ],
)
def test_shells_are_rendered(html):
    assert _needs(html)


TEXT = "<p>Casa Lola is a tapas bar in Triana, open every evening from six; call +34 954 123 456 to book.</p>"


@pytest.mark.parametrize(
    "html",
    [
        # a real page with an analytics script
        f'<html><body><main><h1>Menu</h1>{TEXT * 4}</main><script src="https://www.googletagmanager.com/gtag/js"></script></body></html>',
        # a short contact page with a map script: some text, no mount point
        f'<html><body><main><h1>Contact</h1>{TEXT}</main><script src="/map.js"></script></body></html>',
        # a section index of a docs site: a title and the menu, no text of its own, the theme's scripts
        '<html><body><nav><a href="/a">Onboarding guide</a> <a href="/b">Team rituals</a> '
        '<a href="/c">Tools we use</a></nav><main><h1>Community</h1></main><script src="/theme.js"></script></body></html>',
        # an empty page with no scripts: nothing a browser would add
        "<html><body><div id='root'></div></body></html>",
        # structured data is not a script that writes the page
        '<html><body><div id="root"></div><script type="application/ld+json">{"@type": "Restaurant"}</script></body></html>',
    ],
)
def test_pages_with_their_text_or_without_scripts_are_not(html):
    assert not _needs(html)


def test_what_the_browser_may_fetch():
    site = "https://www.casalola.example"
    assert refusal(f"{site}/app.js", "script", SCOPE) is None
    assert refusal(f"{site}/api/menu.json", "fetch", SCOPE) is None
    assert refusal("https://casalola.example/style.css", "stylesheet", SCOPE) is None  # apex and www are one site
    assert refusal("https://api.casalola.example/menu", "xhr", SCOPE) is None  # a host of the same domain
    assert refusal("https://unpkg.com/react@18/umd/react.production.min.js", "script", SCOPE) is None
    assert refusal(f"{site}/logo.png", "image", SCOPE) == "image"
    assert refusal("https://fonts.example/x.woff2", "font", SCOPE) == "font"
    assert refusal(f"{site}/intro.mp4", "media", SCOPE) == "media"
    assert refusal("https://cdn.example/site.css", "stylesheet", SCOPE) == "other_host"
    assert refusal("https://maps.example/embed", "document", SCOPE) == "other_host"  # another host's frame
    assert refusal("https://www.googletagmanager.com/gtm.js", "script", SCOPE) == "tracker"
    assert refusal("https://static.hotjar.com/c/hotjar.js", "script", SCOPE) == "tracker"
    assert refusal("file:///etc/passwd", "fetch", SCOPE) == "scheme"


def test_trackers_match_on_the_host_and_its_parents():
    assert is_tracker("www.google-analytics.com") and is_tracker("connect.facebook.net")
    assert not is_tracker("analytics.casalola.example") and not is_tracker("com")


def test_browser_path_setting(settings, tmp_path):
    assert find_browser(settings.model_copy(update={"browser_path": str(tmp_path / "nothing")})) is None
    fake = tmp_path / "chrome"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    assert find_browser(settings.model_copy(update={"browser_path": str(fake)})) == str(fake)
