"""The eight ways a site can fail intake (R-2.4), each with a sentence for a business owner."""

from __future__ import annotations

from typing import Literal

ProblemKind = Literal["invalid", "not_found", "blocked", "private", "timeout", "tls", "empty", "error"]

SENTENCES: dict[str, str] = {
    "invalid": "That doesn't look like a website address. Enter a domain like example.com or a full address like https://example.com/.",
    "not_found": "We couldn't find a website at that address. Check the spelling of the domain, and that it is registered and online.",
    "blocked": "Your website refused our visit. If you use a firewall or bot protection (such as Cloudflare), allow our crawler, or set up the proxy setting.",
    "private": "That address points to a private or internal network, which we don't crawl. Give us the public address of your website.",
    "timeout": "Your website took too long to answer. Check that it is up and reachable from the internet, then try again.",
    "tls": "Your website's security certificate is invalid or expired, so we couldn't connect safely. Renew or fix the HTTPS certificate, then try again.",
    "empty": "We reached your website but found almost no readable text; it may build its pages with JavaScript only. Make sure the content is in the page's HTML, or give us an address with text.",
    "error": "Your website answered with an error, or not at all. Check that the homepage opens in a browser, then try again.",
}


class SiteProblem(Exception):
    """A site-level failure to report to the user (exit status 2), never a traceback."""

    def __init__(self, kind: ProblemKind, detail: str = "") -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"{kind}: {self.message}")

    @property
    def message(self) -> str:
        sentence = SENTENCES[self.kind]
        return f"{sentence} ({self.detail})" if self.detail else sentence
