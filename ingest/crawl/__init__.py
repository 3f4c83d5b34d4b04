"""Crawl: from what the user typed to the site's pages, fetched politely (intake, URL
normalization and scope, robots and sitemaps, the frontier, the layered fetcher, the
raw-response store, and the site signals judged as hints)."""
