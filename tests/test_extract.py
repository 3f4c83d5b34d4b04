from ingest.extract import parse_html

PAGE = b"""<!doctype html><html lang="en"><head><title>Prices - Acme</title>
<link rel="canonical" href="/prices/"><script>var x = 1;</script><style>p{}</style></head>
<body><header><nav><a href="/">Home</a> <a href="/prices/">Prices</a></nav><p>Call +1 555 0100</p></header>
<main><h1>Prices <a class="headerlink" href="#p">&para;</a></h1><p>Our <a href="/rooms/">rooms</a> are cheap.</p>
<h2>Table</h2><table><tr><th>Room</th><th>Price</th></tr><tr><td>Single</td><td>85</td></tr></table>
<ul><li>One</li><li>Two</li></ul><form><input name=q><button>Go</button></form></main>
<footer><p>12 Quay Street</p></footer></body></html>"""


def test_markdown_keeps_structure_and_drops_code_and_forms():
    doc = parse_html(PAGE, "https://acme.com/prices/")
    assert doc.title == "Prices - Acme" and doc.lang == "en"
    assert "# Prices\n" in doc.markdown + "\n"
    assert "## Table" in doc.markdown
    assert "| Room | Price |" in doc.markdown and "| Single | 85 |" in doc.markdown
    assert "- One" in doc.markdown
    assert "Our rooms are cheap." in doc.markdown  # link text kept, URL dropped
    assert "var x" not in doc.markdown and "Go" not in doc.markdown and "¶" not in doc.markdown


def test_header_and_footer_become_chrome_not_content():
    doc = parse_html(PAGE, "https://acme.com/prices/")
    assert "12 Quay Street" not in doc.markdown and "12 Quay Street" in doc.chrome
    assert "+1 555 0100" in doc.chrome


def test_links_canonical_and_noindex():
    doc = parse_html(PAGE, "https://acme.com/prices/")
    assert "https://acme.com/rooms/" in doc.links
    assert doc.canonical == "https://acme.com/prices/"
    assert not doc.noindex
    noindex = parse_html(b'<html><head><meta name="robots" content="noindex, follow"></head><body>x</body></html>', "https://a.com/")
    assert noindex.noindex

