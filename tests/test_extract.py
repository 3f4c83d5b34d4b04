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



LONG = " ".join(f"Sentence {i} of the real content, with enough words to matter." for i in range(30))


def test_a_form_wrapping_the_whole_page_is_unwrapped_not_dropped():
    page = f"<html><body><form id='aspnetForm'><h1>Electricians</h1><p>{LONG}</p><input name=x></form></body></html>"
    doc = parse_html(page.encode(), "https://a.com/")
    assert "Sentence 29 of the real content" in doc.markdown
    search = f"<html><body><main><p>{LONG}</p><form><label>Search the site</label><input></form></main></body></html>"
    assert "Search the site" not in parse_html(search.encode(), "https://a.com/").markdown


def test_noscript_with_the_page_in_it_is_read_and_a_pixel_is_not():
    discourse = f"<html><body><div id='app'></div><noscript><h1>Topic</h1><p>{LONG}</p></noscript></body></html>"
    assert "Sentence 29" in parse_html(discourse.encode(), "https://a.com/").markdown
    pixel = f"<html><body><main><p>{LONG}</p></main><noscript><p>Please enable JavaScript.</p></noscript></body></html>"
    assert "enable JavaScript" not in parse_html(pixel.encode(), "https://a.com/").markdown


def test_a_tiny_article_is_not_mistaken_for_the_content():
    page = (f"<html><body><div><h1>Aluminium wallet</h1><p>{LONG}</p></div>"
            "<article class='review'><p>Great wallet!</p></article></body></html>")
    doc = parse_html(page.encode(), "https://a.com/")
    assert "Sentence 29" in doc.markdown and "Aluminium wallet" in doc.markdown


def test_furniture_is_dropped_but_a_layout_container_named_like_it_is_kept():
    page = (f"<html><body><main><div class='main-container fixed-sidebar'><h1>Pans</h1><p>{LONG[:300]}</p>"
            "</div><div class='share-buttons'>Share on Facebook Share on X</div>"
            "<div class='related-posts'><a href='/a'>Another post</a></div></main></body></html>")
    md = parse_html(page.encode(), "https://a.com/").markdown
    assert "# Pans" in md and "Sentence 1 " in md
    assert "Share on Facebook" not in md and "Another post" not in md
