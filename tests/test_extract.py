from ingest.extract.html import parse_html

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
    noindex = parse_html(
        b'<html><head><meta name="robots" content="noindex, follow"></head><body>x</body></html>', "https://a.com/"
    )
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


def test_an_element_the_parser_stretches_over_the_page_is_a_wrapper_not_chrome():
    # "<div><div></button></div>": the misnested end tag is ignored, so the menu button
    # (or nav) stays open and the parser puts the whole page inside it.
    for opener, closer in (("<button class='menu'>", "</button>"), ("<nav>", "</nav>")):
        page = (
            f"<html><body><header>{opener}<div><div>{closer}</div><a href='/'>Logo</a></header>"
            f"<main><h1>Starting an LLC</h1><p>{LONG}</p></main><footer>Imprint</footer></body></html>"
        )
        md = parse_html(page.encode(), "https://a.com/").markdown
        assert "# Starting an LLC" in md and "Sentence 29 of the real content" in md
    # A docs sidebar holding most of a short page's text is still navigation.
    links = "".join(f"<li><a href='/docs/{i}'>Guide to topic number {i}</a></li>" for i in range(40))
    docs = (
        f"<html><body><nav class='sidebar'><ul>{links}</ul></nav>"
        "<div><h1>Workflows</h1><p>Workflows automate tasks.</p></div></body></html>"
    )
    md = parse_html(docs.encode(), "https://a.com/").markdown
    assert "Workflows automate tasks." in md and "topic number 7" not in md


def test_a_tiny_article_is_not_mistaken_for_the_content():
    page = (
        f"<html><body><div><h1>Aluminium wallet</h1><p>{LONG}</p></div>"
        "<article class='review'><p>Great wallet!</p></article></body></html>"
    )
    doc = parse_html(page.encode(), "https://a.com/")
    assert "Sentence 29" in doc.markdown and "Aluminium wallet" in doc.markdown


def test_furniture_is_dropped_but_a_layout_container_named_like_it_is_kept():
    page = (
        f"<html><body><main><div class='main-container fixed-sidebar'><h1>Pans</h1><p>{LONG[:300]}</p>"
        "</div><div class='share-buttons'>Share on Facebook Share on X</div>"
        "<div class='related-posts'><a href='/a'>Another post</a></div></main></body></html>"
    )
    md = parse_html(page.encode(), "https://a.com/").markdown
    assert "# Pans" in md and "Sentence 1 " in md
    assert "Share on Facebook" not in md and "Another post" not in md


def _page(main: str, head: str = "") -> bytes:
    return (
        f"<html lang='en'><head><title>T</title>{head}</head><body><header><nav><a href='/'>Home</a></nav>"
        f"</header><main>{main}</main><footer>12 Quay Street</footer></body></html>"
    ).encode()


def test_what_the_content_shows_above_its_one_h1_is_furniture_kept_as_chrome():
    doc = parse_html(
        _page(
            "<div class='announcement'>Free delivery on orders over 50 EUR</div>"
            "<ol class='crumbs'><li>Home</li><li>Chairs</li></ol>"
            f"<h1>Mesh office chair</h1><p>{LONG[:400]}</p>"
        ),
        "https://a.com/chair",
    )
    assert doc.markdown.startswith("# Mesh office chair") and "Sentence 3 " in doc.markdown
    assert "Free delivery" not in doc.markdown and "Free delivery on orders over 50 EUR" in doc.chrome
    # Prose above the H1, or a part as long as the rest, means the H1 is not the page's title.
    intro = f"<p>{LONG[:300]}</p><h1>Why people love it</h1><p>Reliability and tooling.</p>"
    assert "Sentence 1 " in parse_html(_page(intro), "https://a.com/").markdown
    menu = "".join(f"<p>Menu entry {i}</p>" for i in range(20))
    assert "Menu entry 7" in parse_html(_page(f"{menu}<h1>Short</h1><p>Only this.</p>"), "https://a.com/").markdown
    two = "<p>Kicker</p><h1>One</h1><p>Text one.</p><h1>Two</h1><p>Text two.</p>"
    assert "Kicker" in parse_html(_page(two), "https://a.com/").markdown


def test_a_callout_aside_is_content_and_a_link_list_aside_is_not():
    doc = parse_html(
        _page(
            "<h1>Implants</h1><p>We place implants under local anaesthetic in one visit of about two hours.</p>"
            "<aside class='warning'><p>Four implants are not automatically enough for every patient.</p></aside>"
            "<aside class='toc'><a href='#a'>Overview</a> <a href='#b'>Costs</a> <a href='#c'>Aftercare</a></aside>"
        ),
        "https://clinic.example/implants/",
    )
    assert "Four implants are not automatically enough for every patient." in doc.markdown
    assert "Aftercare" not in doc.markdown
    assert doc.recovered == ("Four implants are not automatically enough for every patient.",)


def test_hidden_tab_panels_are_kept():
    doc = parse_html(
        _page(
            "<h1>Rooms</h1><div role='tablist'><button>Summer</button><button>Winter</button></div>"
            "<div role='tabpanel' id='summer'><p>Summer rate: 120 euros a night.</p></div>"
            "<div role='tabpanel' id='winter' hidden><p>Winter rate: 90 euros a night.</p></div>"
            "<div class='tab-pane' style='display:none'><p>Christmas week: 150 euros a night.</p></div>"
        ),
        "https://hotel.example/rooms/",
    )
    for rate in ("Summer rate: 120", "Winter rate: 90", "Christmas week: 150"):
        assert rate in doc.markdown


def test_a_listing_keeps_every_card_not_the_one_that_is_an_article():
    featured = (
        "<article class='card'><h2>Harbour walk</h2><p>"
        + "A long featured story about the harbour. " * 12
        + "</p></article>"
    )
    cards = "".join(
        f"<div class='card'><h2>Story {i}</h2><p>Short teaser number {i} about the coast.</p></div>" for i in range(4)
    )
    doc = parse_html(
        f"<html><body><h1>Blog</h1><section class='list'>{featured}{cards}</section></body></html>".encode(),
        "https://a.example/blog/",
    )
    assert "Harbour walk" in doc.markdown
    assert all(f"Story {i}" in doc.markdown for i in range(4))


def test_a_lone_article_is_still_the_content_of_an_article_page():
    story = (
        "<article class='post'><h1>Harbour walk</h1><p>" + "A long story about the harbour. " * 20 + "</p></article>"
    )
    doc = parse_html(
        f"<html><body><div class='promo'><p>Subscribe to our newsletter for more.</p></div>{story}"
        f"<div class='widget'><p>Other things on this site worth a look sometime.</p></div></body></html>".encode(),
        "https://a.example/walk/",
    )
    assert doc.markdown.startswith("# Harbour walk") and "Other things" not in doc.markdown


PRODUCT_LD = """<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "WebPage", "name": "Desk"},
 {"@type": "Product", "name": "UPLIFT V3 Standing Desk", "sku": "UPL-V3-24", "brand": {"@type": "Brand", "name": "UPLIFT"},
  "offers": {"@type": "Offer", "price": "599.00", "priceCurrency": "USD", "availability": "https://schema.org/InStock"},
  "aggregateRating": {"ratingValue": "4.8", "reviewCount": "333"}}]}</script>
<script type="application/ld+json">{ broken json </script>"""


def test_json_ld_product_facts_the_page_does_not_show_are_added():
    doc = parse_html(
        _page("<h1>UPLIFT V3 Standing Desk</h1><p>A sturdy desk for every office, made in Texas.</p>", PRODUCT_LD),
        "https://shop.example/desk/",
    )
    assert "## Product details" in doc.markdown
    for fact in ("- SKU: UPL-V3-24", "- Price: 599.00 USD", "- Availability: In stock", "- Rating: 4.8 (333 reviews)"):
        assert fact in doc.markdown
    assert "- Name:" not in doc.markdown and "- Brand:" not in doc.markdown  # the heading already says them
    assert doc.recovered and doc.recovered[-1].startswith("## Product details")


def test_other_products_on_a_products_page_go_and_a_collections_cards_stay():
    cards = "".join(
        f"<div class='card'><a href='/p/{i}'>Desk frame {i}</a><span>${100 + i}</span></div>" for i in range(4)
    )
    main = (
        f"<h1>UPLIFT V3 Standing Desk</h1><p>{LONG[:300]}</p>"
        f"<section><h2>You may also like</h2><div class='grid'>{cards}</div></section>"
    )
    product = parse_html(_page(main, PRODUCT_LD), "https://shop.example/desk/").markdown
    assert "Sentence 3 " in product and "Desk frame 2" not in product
    # Without the page declaring one product, a run of priced cards is the page's list.
    assert "Desk frame 2" in parse_html(_page(main), "https://shop.example/desks/").markdown


def test_json_ld_facts_already_on_the_page_are_not_repeated():
    doc = parse_html(
        _page(
            "<h1>UPLIFT V3 Standing Desk</h1><p>Price $599. SKU UPL-V3-24 by UPLIFT. In stock. "
            "Rated 4.8 (333 reviews).</p>",
            PRODUCT_LD,
        ),
        "https://shop.example/desk/",
    )
    assert "Product details" not in doc.markdown and doc.recovered == ()


def test_a_code_listing_laid_out_as_a_table_becomes_a_code_block():
    listing = (
        "<table class='highlighttable'><tr><td class='linenos'><pre>1\n2\n3</pre></td>"
        "<td class='code'><pre><code>Senior: 4 días\nMidlevel: 2 días\nEntry: 1 día</code></pre></td></tr></table>"
    )
    data = "<table><tr><th>Nivel</th><th>Días</th></tr><tr><td>Senior</td><td>4</td></tr></table>"
    doc = parse_html(_page(f"<h1>Lead time</h1>{listing}{data}"), "https://a.example/lead/")
    assert "```\nSenior: 4 días\nMidlevel: 2 días\nEntry: 1 día\n```" in doc.markdown
    assert "1\n2\n3" not in doc.markdown and "| ```" not in doc.markdown
    assert "| Nivel | Días |" in doc.markdown and "| Senior | 4 |" in doc.markdown


def test_div_chrome_named_by_role_or_class_is_chrome():
    html = (
        b"<html><body><div role='banner'><p>Harbour Light Guesthouse</p></div>"
        b"<div class='site-nav'><a href='/'>Home</a> <a href='/rooms/'>Rooms</a> <a href='/faq/'>FAQ</a></div>"
        b"<div id='content'><h1>Rooms</h1><p>Six rooms, each with a view of the harbour and a kettle.</p></div>"
        b"<div class='footer'><p>12 Quay Street, Porthkerris</p></div>"
        b"<div role='contentinfo'><p>Phone +44 1736 555 0199</p></div></body></html>"
    )
    doc = parse_html(html, "https://a.example/rooms/")
    assert "Six rooms" in doc.markdown
    for chrome in ("Harbour Light Guesthouse", "12 Quay Street", "555 0199"):
        assert chrome not in doc.markdown and chrome in doc.chrome
    assert "FAQ" not in doc.markdown


def test_reviews_and_recommendations_are_not_the_products_content():
    reviews = "".join(
        f"<div class='review-item'><p>Review {i}: lovely desk, sturdy and quiet, would buy again.</p></div>"
        for i in range(40)
    )
    doc = parse_html(
        _page(
            "<h1>Standing desk</h1><p>Solid oak top, dual motors, 25-year warranty. Ships in two days.</p>"
            f"<section id='customer-reviews'><h2>Reviews</h2>{reviews}</section>"
            "<div class='recommendations'><h2>Customers also bought</h2><p>Monitor arm</p><p>Desk mat</p></div>"
        ),
        "https://shop.example/desk/",
    )
    assert "25-year warranty" in doc.markdown
    assert "Review 3" not in doc.markdown and "Monitor arm" not in doc.markdown


def test_a_review_article_is_content():
    body = "<p>" + "We tested the desk for a month; it is steady at full height and quiet. " * 10 + "</p>"
    doc = parse_html(
        f"<html><body><article class='review'><h1>Desk review</h1>{body}</article></body></html>".encode(),
        "https://blog.example/desk-review/",
    )
    assert "steady at full height" in doc.markdown


def test_scripts_styles_comments_and_svg_are_cut_before_parsing_without_losing_anything():
    html = (
        "<script>var a = '<p>not text</p>';</script><html lang='de'><head><style>p{}</style>"
        '<script type=\'application/ld+json\'>{"@type": "Product", "sku": "K-9"}</script></head><body>'
        "<main><h1>Karte</h1><!-- <p>commented out</p> --><p>Kaffee 3 Euro.</p>"
        "<svg-icon name='x'></svg-icon><p>Kuchen 4 Euro.</p><svg class='logo'/><p>Tee 2 Euro.</p>"
        "<svg viewBox='0 0 9 9'><a href='/map/'><text>Karte</text></a><path d='M0 0'/></svg>"
        "<script><!-- document.write('<script src=x></script>'); //--></script><p>Wasser 1 Euro.</p></main>"
        "</body></html>"
    )
    doc = parse_html(html, "https://cafe.example/karte/")
    assert doc.lang == "de"  # a script before <html> no longer hides its lang
    for item in ("Kaffee 3 Euro.", "Kuchen 4 Euro.", "Tee 2 Euro.", "Wasser 1 Euro."):
        assert item in doc.markdown
    assert (
        "not text" not in doc.markdown and "commented out" not in doc.markdown and "document.write" not in doc.markdown
    )
    assert "https://cafe.example/map/" in doc.links  # a link drawn in an SVG is still discovered
    assert "- SKU: K-9" in doc.markdown  # JSON-LD survives the cut


def test_a_posts_comment_thread_goes_and_a_forums_posts_stay():
    post = "<p>" + "How we brew our house blend, step by step, with water at 94 degrees. " * 8 + "</p>"
    comments = "".join(
        f"<li class='comment'><p>Comment {i}: thanks, tried it at home today!</p></li>" for i in range(30)
    )
    blog = parse_html(
        _page(
            f"<h1>House blend</h1>{post}<section id='comments' class='comments-area'>"
            f"<h2>30 Comments</h2><ol class='comment-list'>{comments}</ol></section>"
        ),
        "https://cafe.example/blog/house-blend/",
    )
    assert "water at 94 degrees" in blog.markdown and "Comment 3" not in blog.markdown
    forum = parse_html(
        _page(
            "<h1>Grinder settings?</h1>"
            + "".join(
                f"<div class='comment post'><p>Post {i}: I grind at setting {i} for espresso.</p></div>"
                for i in range(5)
            )
        ),
        "https://forum.example/t/grinder/",
    )
    assert all(f"Post {i}: I grind" in forum.markdown for i in range(5))


def test_text_format_keeps_numbers_that_are_part_of_a_heading():
    from ingest.extract.html import markdown_to_text

    text = markdown_to_text("### 1. Excelencia\n\n- one\n2. two\n\n| a | b |\n| --- | --- |\n| 1 | 2 |")
    assert text.splitlines()[0] == "1. Excelencia"
    assert "one" in text and "\ntwo" in text and "1 2" in text


def test_a_container_named_for_the_content_is_the_content():
    post = "<p>" + "Our sourdough rises for 36 hours before it is baked in the stone oven. " * 8 + "</p>"
    html = (
        f"<html><body><div class='topbar'><p>Free delivery over 30 euros this week only!</p></div>"
        f"<div class='layout'><div class='entry-content'><h1>Sourdough</h1>{post}</div>"
        f"<div class='widget-area'><p>Opening hours of our other shops and a few words about them.</p></div>"
        f"</div></body></html>"
    )
    doc = parse_html(html.encode(), "https://bakery.example/sourdough/")
    assert doc.markdown.startswith("# Sourdough") and "36 hours" in doc.markdown
    assert "Free delivery" not in doc.markdown and "other shops" not in doc.markdown
    # Two unrelated content-named blocks: no single one is the content, the page stays whole.
    twice = html.replace("<div class='widget-area'>", f"<div class='post-body'>{post}")
    whole = parse_html(twice.encode(), "https://bakery.example/sourdough/").markdown
    assert "# Sourdough" in whole and "other shops" in whole


def test_tab_panels_named_for_the_content_are_kept_together():
    tabs = (
        "<div class='tabs'><div class='tab active'>Description</div><div class='tab'>Features</div></div>"
        "<div class='content-wrapper'>"
        f"<div class='content-1 content active'><p>{LONG[:500]}</p></div>"
        "<div class='content-2 content'><ul><li>Moist ceramic heat from pure ceramic coils.</li>"
        "<li>Long-life AC motor of up to 2000 W, three heat and two speed settings.</li></ul></div></div>"
    )
    html = f"<html><body><div class='topbar'><a href='/'>Shop</a></div><h1>G3 Pro dryer</h1>{tabs}</body></html>"
    md = parse_html(html.encode(), "https://shop.example/dryer").markdown
    assert "Sentence 5 " in md and "Moist ceramic heat" in md


def test_a_consent_banner_goes_however_long_and_a_page_inside_a_cookie_named_wrapper_stays():
    purposes = "".join(
        f"<h3>Purpose {i}</h3><p>We and our {i} partners store cookies to measure audiences.</p>" for i in range(40)
    )
    page = _page(f"<h1>Opening hours</h1><p>{LONG[:300]}</p>").replace(
        b"<footer>", f"<div id='cookie-consent'><p>Privacy overview</p>{purposes}</div><footer>".encode()
    )
    md = parse_html(page, "https://a.com/hours").markdown
    assert "Sentence 3 " in md and "partners store cookies" not in md
    wrapped = f"<html><body><div class='cookies-accepted'><h1>Opening hours</h1><p>{LONG}</p></div></body></html>"
    assert "Sentence 29" in parse_html(wrapped.encode(), "https://a.com/").markdown


def test_prose_the_page_repeats_is_kept_once_and_per_item_facts_stay():
    terms = (
        "Book by 31 March for stays until October; the discount applies to the room rate only, not to meals or drinks."
    )
    cards = "".join(f"<div class='room'><h3>Room {i}</h3><p>Price: 90 euros</p><p>Sleeps 2</p></div>" for i in range(3))
    code = (
        "<pre><code>"
        + "print('the same long line of code that a tutorial repeats on purpose, twice')\n" * 2
        + "</code></pre>"
    )
    table = "<table><tr><th>Plan</th><th>Terms</th></tr>" + f"<tr><td>A</td><td>{terms}</td></tr>" * 2 + "</table>"
    main = (
        f"<h1>Offers</h1><div class='mobile'><p>{terms}</p></div><div class='desktop'><p>{terms}</p></div>"
        f"{cards}{code}{table}"
    )
    md = parse_html(_page(main), "https://hotel.example/offers").markdown
    assert md.count(terms) == 3  # once as prose, twice in the table's rows
    assert md.count("Price: 90 euros") == 3 and md.count("Sleeps 2") == 3
    assert md.count("repeats on purpose") == 2


def test_a_comment_in_a_code_block_is_not_the_pages_h1():
    page = (
        "<html><body><div><p>Install the client first.</p><pre><code># install the client\n"
        "pip install acme\n</code></pre>"
        + "<p>Then configure the key and the region for your account.</p>" * 12
        + "</div></body></html>"
    )
    assert "Install the client first." in parse_html(page.encode(), "https://docs.example/").markdown


def test_json_ld_facts_are_decoded_and_those_shown_in_the_name_or_chrome_are_not_repeated():
    ld = (
        '<script type="application/ld+json">{"@type": "Product", "name": "Newtwist: Warrior Princess Necklace - small, 18K gold",'
        ' "brand": "L&amp;#8217;atelier Nawbar", "sku": "N667FD", "material": "x",'
        ' "description": "An%20elegant%20sofa%20with%20a%20curved%20back.",'
        ' "offers": {"price": "25.00", "priceCurrency": "USD"}}</script>'
    )
    html = (
        f"<html><head>{ld}</head><body><header><p>Newtwist Jewellery</p></header><main><h1>Warrior Princess Necklace</h1>"
        f"<p>{LONG[:400]}</p></main><footer>Sold by Newtwist since 1987. © 2025</footer></body></html>"
    )
    md = parse_html(html.encode(), "https://shop.example/necklace").markdown
    assert "- Brand: L\u2019atelier Nawbar" in md
    assert "- Description: An elegant sofa with a curved back." in md
    assert "- SKU: N667FD" in md
    assert "- Price: 25.00 USD" in md  # the footer's "2025" is not the price
    assert "- Name:" not in md  # the page's heading names it; JSON-LD adds the shop's name
    shown_in_footer = ld.replace("L&amp;#8217;atelier Nawbar", "Newtwist")
    md = parse_html(html.replace(ld, shown_in_footer).encode(), "https://shop.example/necklace").markdown
    assert "- Brand:" not in md
    # A category's heading ("Necklaces") does not name the product.
    md = parse_html(
        html.replace("<h1>Warrior Princess Necklace</h1>", "<h1>Necklaces</h1>").encode(),
        "https://shop.example/necklace",
    ).markdown
    assert "- Name: Newtwist: Warrior Princess Necklace - small, 18K gold" in md


def test_json_ld_text_that_only_looks_encoded_is_kept_as_written():
    ld = (
        '<script type="application/ld+json">{"@type": "Product", "sku": "50%Acrylic/50%Wool",'
        ' "description": "Fits screens &lt; 15 in. and &gt; 10 in. wide, <b>in stock</b> now"}</script>'
    )
    md = parse_html(_page("<h1>Screen sleeve</h1><p>A soft sleeve.</p>", ld), "https://shop.example/sleeve").markdown
    assert "- SKU: 50%Acrylic/50%Wool" in md
    assert "- Description: Fits screens < 15 in. and > 10 in. wide, in stock now" in md


def test_a_section_repeated_under_the_same_headings_is_kept_once():
    seller = f"<h2>About this seller</h2><p>{LONG[:300]}</p><h3>Seller feedback</h3><p>Great seller, fast shipping, well packed, would buy from again any time.</p><p>{LONG[300:500]}</p>"
    md = parse_html(
        _page(
            f"<h1>Coin set</h1><p>Uncirculated 1980 set.</p><div class='desktop'>{seller}</div>"
            f"<div class='mobile'>{seller}</div>"
        ),
        "https://shop.example/item",
    ).markdown
    assert md.count("## About this seller") == 1 and md.count("Great seller") == 1


def test_a_new_subsection_under_a_repeated_section_keeps_its_heading():
    shipping = (
        "<h2>Shipping</h2><p>We ship from our workshop in Leeds with a tracked courier service, "
        "packed in recycled boxes and paper, insured to the full value of the order.</p>"
    )
    main = (
        f"<h1>Delivery</h1>{shipping}<h3>UK</h3><p>Two working days.</p><h2>Returns</h2><p>{LONG[:150]}</p>"
        f"{shipping}<h3>US</h3><p>Five working days.</p>"
    )
    md = parse_html(_page(main), "https://shop.example/delivery").markdown
    assert md.count("We ship from our workshop") == 1
    us = md.index("### US")
    assert md.rindex("## ", 0, us) == md.rindex("## Shipping", 0, us)  # not filed under "Returns"


def test_a_block_repeated_within_a_section_goes_but_not_under_other_headings():
    includes = "<ul><li>Access to all live, virtual classes</li><li>Q&amp;A time included in each class</li><li>Monthly community discussion sessions</li></ul>"
    plan = "<h3>Starter</h3><ul><li>Professionally written by experts</li><li>Formatted for success and keyword optimized</li><li>Cover letter included</li></ul>"
    main = (
        f"<h1>Membership</h1><p>$39.00 every month</p>{includes}<p>Cancel any time.</p>{includes}"
        f"<h2>Resume packages</h2><p>From $139</p>{plan}<h2>CV packages</h2><p>From $199</p>{plan}"
    )
    md = parse_html(_page(main), "https://shop.example/plans").markdown
    assert md.count("Access to all live") == 1
    assert md.count("Professionally written by experts") == 2  # what each package includes


def test_aria_dialogs_go_and_the_page_is_measured_without_them():
    privacy = (
        "<div role='dialog' aria-modal='true' aria-label='Privacy Preference Center'><h2>Privacy Preference Center</h2><p>"
        + "When you visit any website, it may store or retrieve information on your browser. " * 18
        + "</p></div>"
    )
    notice = (
        "<div class='lightbox' role='alertdialog'><p>Looks like we're having trouble connecting to our server.</p></div>"
        "<div class='drawer' aria-modal='true'><p>Your cart is empty.</p></div>"
    )
    # The thread sits in a form (a reply box around the posts): a form is kept when it
    # holds 30% of the page, which must not count the privacy centre's text.
    posts = (
        "<form action='/reply'>"
        + "".join(f"<div class='post'><p>Post {i}: {LONG[:180]}</p></div>" for i in range(6))
        + "</form>"
    )
    footer = (
        "<footer><p>" + "Quay Street shop, open daily from nine until five, call us any time. " * 25 + "</p></footer>"
    )
    md = parse_html(
        f"<html><body>{privacy}<h1>Which fan header?</h1>{notice}{posts}{footer}</body></html>".encode(),
        "https://forum.example/t/1",
    ).markdown
    assert "Post 5:" in md and "Post 0:" in md
    assert "Privacy Preference" not in md and "trouble connecting" not in md and "cart is empty" not in md
    # A page that is itself a dialog (a quick-view product page) keeps it: by its heading,
    # or, without one, by holding most of the page.
    quick = f"<html><body><div role='dialog'><h1>Desk</h1><p>{LONG[:300]}</p></div><p>{LONG}</p></body></html>"
    md = parse_html(quick.encode(), "https://shop.example/q").markdown
    assert "Sentence 29" in md and "# Desk" in md
    bare = f"<html><body><div role='dialog'><p>{LONG}</p></div><p>Footer note</p></body></html>"
    assert "Sentence 29" in parse_html(bare.encode(), "https://shop.example/q").markdown


def test_a_page_nested_a_thousand_levels_deep_is_read_whole():
    # markdownify converts recursively; past ~350 levels it ran out of Python's stack and
    # the page's error stopped the whole crawl.
    page = "<html><body>" + "<font size=2><p>Post about the harbour</p>" * 1000 + "<p>The last words.</p></body></html>"
    md = parse_html(page.encode(), "https://forum.example/t/2").markdown
    assert md.count("Post about the harbour") == 1000 and md.endswith("The last words.")
    assert "harbourPost" not in md  # the flattened posts' words stay apart


def test_an_aside_of_only_dates_is_not_a_callout():
    # MkDocs' revision-date plugin: an <aside> whose text is the page's dates; the labels
    # ("Last update") are only in title attributes.
    dates = (
        "<aside class='md-source-file'><span class='fact'><span title='Last update'></span>"
        "<span>2024-10-26</span></span> <span class='fact'><span title='Created'></span>"
        "<span>2024-09-07</span></span></aside>"
    )
    note = "<aside class='admonition'><p>Note: payroll closes on the 25th.</p></aside>"
    md = parse_html(
        _page(f"<article><h1>Leave</h1><p>{LONG}</p>{note}{dates}</article>"), "https://h.example/leave/"
    ).markdown
    assert "payroll closes on the 25th" in md
    assert "2024-10-26" not in md


def test_meta_refresh_stub_names_its_target_and_a_slow_refresh_does_not():
    stub = parse_html(
        b'<html><head><meta http-equiv="Refresh" content="0; URL=\'/de/\'"></head></html>', "https://a.com/"
    )
    assert stub.refresh == "https://a.com/de/"
    bare = parse_html(
        b'<html><head><meta http-equiv="refresh" content="3;https://b.com/x"></head></html>', "https://a.com/"
    )
    assert bare.refresh == "https://b.com/x"
    live = parse_html(
        b'<html><head><meta http-equiv="refresh" content="300"></head><body>news</body></html>', "https://a.com/"
    )
    slow = parse_html(b'<html><head><meta http-equiv="refresh" content="600; url=/"></head></html>', "https://a.com/")
    assert live.refresh is None and slow.refresh is None


def test_hreflang_alternates_are_read_with_their_languages():
    doc = parse_html(
        b'<html><head><link rel="alternate" hreflang="de-DE" href="/de/preise">'
        b'<link rel="alternate" hreflang="x-default" href="https://a.com/">'
        b'<link rel="alternate" type="application/rss+xml" href="/feed.xml"></head></html>',
        "https://a.com/prices/",
    )
    assert doc.alternates == (("de-de", "https://a.com/de/preise"), ("x-default", "https://a.com/"))


def test_a_refresh_or_hreflang_that_is_no_url_is_ignored():
    doc = parse_html(
        b'<html><head><meta http-equiv="refresh" content="0; url=http://[x">'
        b'<link rel="alternate" hreflang="de" href="http://[x"></head><body>Text</body></html>',
        "https://a.com/",
    )
    assert doc.refresh is None and doc.alternates == ()


def test_a_posts_title_above_its_article_in_main_is_kept():
    html = (
        "<html><body><header><nav><a href='/'>Home</a></nav></header><main>"
        "<h1>xHain vs. Virus - space rules</h1><p class='date'>2020-06-29</p>"
        "<article><p>"
        + "Wir haben uns auf die folgenden Regeln für die Wieder-Eröffnung geeinigt. "
        * 8
        + "</p></article>"
        "</main><footer><p>Impressum</p></footer></body></html>"
    )
    doc = parse_html(html, "https://x-hain.de/de/blog/space-rules/")
    assert doc.markdown.startswith("# xHain vs. Virus - space rules")
    assert "Impressum" not in doc.markdown


def test_read_more_links_are_not_content():
    html = (
        "<html lang='de'><head><title>Blog</title></head><body><main><h1>Blog</h1>"
        "<h2>Wer wir sind</h2><p>Als offene Werkstatt sind wir ein Treffpunkt in Berlin. "
        "<a href='/de/blog/wer/'>Mehr erfahren</a></p><p><a class='button' href='/de/blog/wer/'>Weiterlesen</a></p>"
        "<h2>Gespräch unter Bäumen</h2><p>Jule spricht über Selbstführung.</p>"
        "<p><a href='/de/blog/jule/'>Continue Reading →</a> <a href='/de/more/'>Devamını oku</a></p>"
        "<p>Siehe <a href='/de/spenden/'>unsere Spendenseite</a>.</p></main></body></html>"
    )
    md = parse_html(html, "https://x.example/de/blog/").markdown
    for phrase in ("Weiterlesen", "Mehr erfahren", "Continue Reading", "Devamını oku"):
        assert phrase not in md, md
    assert "unsere Spendenseite" in md and "Jule spricht über Selbstführung." in md
    # The same words inside a sentence are words of the sentence.
    html = (
        "<html><body><main><h1>Carta</h1><p>Our menu has <a href='/carta/'>more</a> than forty dishes; "
        "erfahren Sie <a href='/torten/'>mehr</a> auf der Tortenseite.</p></main></body></html>"
    )
    md = parse_html(html, "https://x.example/").markdown
    assert "Our menu has more than forty dishes; erfahren Sie mehr auf der Tortenseite." in md


def test_an_accordions_question_opens_its_answers_paragraph():
    # Elementor's FAQ accordion (a Greek hotel's): each question a title naming its
    # answer's panel by aria-controls. As separate paragraphs, a question was packed with
    # the answer before it, and "Can I bring my dog?" found no passage.
    items = [
        ("Επιτρέπονται τα κατοικίδια;", "Δεχόμαστε μικρά κατοικίδια με επιβάρυνση 10 €."),
        ("Υπάρχει χώρος στάθμευσης;", "Ναι, δωρεάν ιδιωτικό πάρκινγκ 50 μέτρα από το ξενοδοχείο."),
    ]
    accordion = "".join(
        f'<div class="elementor-accordion-item"><div class="elementor-tab-title" role="button" '
        f'aria-controls="tab-{i}" aria-expanded="false"><span class="icon"><i class="fas fa-plus"></i></span>'
        f'<a class="elementor-accordion-title">{q}</a></div>'
        f'<div id="tab-{i}" class="elementor-tab-content" role="region"><p>{a}</p></div></div>'
        for i, (q, a) in enumerate(items)
    )
    # A tab and its twin for small screens name one panel: the question is said once.
    twins = (
        '<div role="tab" aria-controls="p9">Windows</div><div class="mobile" aria-controls="p9">Windows</div>'
        '<div id="p9"><p>Run the installer.</p></div>'
    )
    # A heading that opens its section's panel stays a heading.
    chapter = (
        '<h2 aria-controls="c1">Why you should trust me</h2><div id="c1"><p>I reviewed 2,000 headphones.</p></div>'
    )
    md = parse_html(_page(f"<h1>Συχνές ερωτήσεις</h1>{accordion}{twins}{chapter}"), "https://x.example/faq/").markdown
    assert "**Επιτρέπονται τα κατοικίδια;** Δεχόμαστε μικρά κατοικίδια" in md
    assert "**Υπάρχει χώρος στάθμευσης;** Ναι, δωρεάν" in md
    assert "**Windows** Run the installer." in md and md.count("Windows") == 1
    assert "## Why you should trust me\n\nI reviewed" in md


def test_a_question_written_as_a_button_inside_a_heading_is_kept():
    # Squarespace's and Bootstrap's accordions put each question in a <button> inside a
    # heading; buttons are dropped as controls, so a dog groomer's FAQ kept its answers
    # under empty "####" headings. A heading's button with no words (a "copy link" 🔗)
    # still goes.
    faq = (
        '<ul class="accordion"><li><h4 class="accordion-item__title-wrapper" role="heading">'
        '<button class="accordion-item__click-target" aria-expanded="false" aria-controls="panel-0" type="button">'
        '<span class="accordion-item__title">How long does a groom take?</span>'
        '<div class="accordion-icon-container" aria-hidden="true"><div class="plus"></div></div></button></h4>'
        '<div class="accordion-item__dropdown" id="panel-0" role="region"><p>Most grooms take 2–4 hours.</p></div>'
        "</li></ul>"
        '<h2>Why events are different <button class="copy-link">🔗</button></h2><p>Teams change every week.</p>'
    )
    md = parse_html(_page(f"<h1>FAQ</h1>{faq}"), "https://x.example/faq/").markdown
    assert "How long does a groom take?" in md and "Most grooms take 2–4 hours." in md
    assert "## Why events are different\n" in md and "🔗" not in md


def test_a_heading_inside_a_list_item_is_its_bold_first_line():
    # FAQ accordions as lists of <li><h4>question</h4>answer</li>: "- #### Do you groom
    # cats?" was no heading to chunking and would be read out with its marks.
    faq = (
        "<h2>Questions</h2><ul><li><h4>Do you groom <b>cats</b>?</h4><p>Sorry, dogs only.</p></li>"
        "<li><h3>What do you accept?</h3>Cash and cards.</li></ul><h2>Prices</h2><p>From €45.</p>"
    )
    md = parse_html(_page(f"<h1>FAQ</h1>{faq}"), "https://x.example/faq/").markdown
    assert "- **Do you groom cats?**" in md and "- **What do you accept?**" in md
    assert not [line for line in md.splitlines() if line.lstrip().startswith("-") and "#" in line]
    assert "## Questions\n" in md and "## Prices\n" in md and "Sorry, dogs only." in md


def test_a_bold_question_paragraph_opens_its_answers_paragraph():
    # A Wix FAQ: each question a paragraph in a bold-styled <span>, its answer the next
    # paragraph. Apart, a question ended one passage and its answer began the next.
    def para(text: str, bold: bool = False) -> str:
        style = ' style="font-weight:bold;"' if bold else ""
        return f'<p class="font_8"><span{style}><span>{text}</span></span></p>'

    faq = (
        para("Otopark var m", True).replace("</span></span></p>", "</span><span>ı?</span></span></p>")
        + para("Salonumuzun önünde park yeri bulunmamaktadır.")
        + "<p><strong>Kredi kartı geçiyor mu?</strong></p>"
        + para("Evet, American Express hariç.")
        + "<p><b>Neden biz?</b></p><p><b>Neden şimdi?</b></p>"  # questions after questions: left
        + "<p>Sizce de öyle değil mi?</p><p>Bence öyle.</p>"  # a question not in bold: left
    )
    md = parse_html(_page(f"<h1>Sıkça Sorulan Sorular</h1>{faq}"), "https://x.example/sss").markdown
    assert "**Otopark var mı?** Salonumuzun önünde park yeri bulunmamaktadır." in md
    assert "**Kredi kartı geçiyor mu?** Evet, American Express hariç." in md
    assert "**Neden biz?**\n\n**Neden şimdi?**" in md
    assert "Sizce de öyle değil mi?\n\nBence öyle." in md


def test_a_name_and_a_price_set_side_by_side_keep_a_space():
    # Elementor's price list sets name and price apart with CSS: "Κλέφτικο16,00 €" matched
    # no question about kleftiko's price. Units stay written as they are ("m²", "CO₂").
    item = (
        '<li><div class="elementor-price-list-header"><span class="elementor-price-list-title">Κλέφτικο</span>'
        '<span class="elementor-price-list-separator"></span><span class="elementor-price-list-price">16,00 €</span>'
        "</div></li>"
    )
    md = parse_html(
        _page(f"<h1>Μενού</h1><ul>{item}</ul><p>Rooms of 25 m<sup>2</sup>, CO<sub>2</sub> neutral.</p>"),
        "https://x.example/menou/",
    ).markdown
    assert "Κλέφτικο 16,00 €" in md
    assert "Rooms of 25 m2, CO2 neutral." in md


def test_an_faqs_question_in_details_opens_its_answers_paragraph():
    # As separate paragraphs, a question could end one passage and its answer ("Nee")
    # begin the next, answering nothing a caller could read out.
    faq = "".join(
        f"<details><summary>{q}</summary><p>{a}</p></details>"
        for q, a in [
            ("Kan ik contant betalen?", "Nee, wij zijn een pinwinkel: pin, creditcard of contactloos."),
            ("Halen en brengen jullie fietsen op?", "Ja, binnen Utrecht voor € 15,00 heen en terug."),
        ]
    )
    teaser = f"<details><summary>{'Read the full terms and conditions of the rental agreement. ' * 4}</summary><p>{LONG[:200]}</p></details>"
    listed = "<details><summary>What do I bring?</summary><ul><li>Your ID</li><li>A deposit</li></ul></details>"
    md = parse_html(_page(f"<h1>Veelgestelde vragen</h1>{faq}{teaser}{listed}"), "https://fiets.example/faq/").markdown
    assert "**Kan ik contant betalen?** Nee, wij zijn een pinwinkel" in md
    assert "**Halen en brengen jullie fietsen op?** Ja, binnen Utrecht" in md
    assert "\n\nRead the full terms" in md  # a teaser is no question: left as it was
    assert "What do I bring?\n\n- Your ID" in md  # an answer that is no paragraph: left too
    odd = "<details><summary>Where are <em>we</em>?</summary><p></p><p>In Utrecht.</p></details>"
    md = parse_html(_page(f"<h1>FAQ</h1>{odd}"), "https://fiets.example/faq/").markdown
    assert "**Where are we?** In Utrecht." in md  # an empty paragraph skipped, no space before "?"
