"""Extract: a page's HTML to Markdown with its main content, chrome and metadata
(html), a fast bs4 tree (soup), and the site-wide template stripped and kept once (templates)."""
