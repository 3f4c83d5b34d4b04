"""The fast tree builder builds the tree bs4's own lxml builder builds, on real pages."""

import gzip

import pytest
from bs4 import BeautifulSoup, Tag
from bs4.element import Comment, Doctype, NavigableString, ProcessingInstruction, Script, Stylesheet
from conftest import HANDBOOK, SHARED, needs_corpora

from ingest.extract import soup as html_tree

WCXB_HTML = SHARED / "corpora" / "wcxb-dev" / "html"


def _reference(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "lxml", multi_valued_attributes=None)


def _shape(node) -> list:
    """The tree in document order: each node's type, name or text, attributes and depth.
    A valueless boolean attribute (`checked`) is "" in bs4 and its name in libxml2's
    tree: both count as "", as does `checked="checked"`. Doctypes and processing
    instructions are left out, with the blank line after them: libxml2's tree keeps
    only the first doctype and reads `<?xml ...?>` in the body as a comment; neither
    is text."""
    out = []

    def walk(el, depth):
        after_doctype = False
        for child in el.contents:
            if isinstance(child, Tag):
                attrs = {k: ("" if v == k else v) for k, v in child.attrs.items()}
                out.append(("tag", child.name, attrs, depth))
                walk(child, depth + 1)
            elif isinstance(child, (Doctype, ProcessingInstruction)):
                after_doctype = True
                continue
            elif child.strip() or not (depth == 0 or after_doctype):  # blanks between top-level elements
                out.append((type(child).__name__, str(child), depth))
            after_doctype = False

    walk(node, 0)
    return out


def _linked(soup: BeautifulSoup) -> None:
    """Every link bs4's navigation and mutation use agrees with the contents lists."""
    order = []

    def walk(el):
        for child in el.contents:
            order.append(child)
            assert child.parent is el
            if isinstance(child, Tag):
                walk(child)

    walk(soup)
    assert soup.next_element is None  # bs4 does not link the soup itself into the chain
    node = None
    for expected in order:
        assert expected.previous_element is node
        if node is not None:
            assert node.next_element is expected
        node = expected
    assert node is None or node.next_element is None
    for el in [soup] + [n for n in order if isinstance(n, Tag)]:
        for left, right in zip(el.contents, el.contents[1:]):
            assert left.next_sibling is right and right.previous_sibling is left
        if el.contents:
            assert el.contents[0].previous_sibling is None and el.contents[-1].next_sibling is None


def _wcxb_pages():
    pages = sorted(WCXB_HTML.glob("*.html.gz"))
    return pages[:: max(1, len(pages) // 25)]


def _same(html: str) -> None:
    fast, reference = html_tree.parse(html), _reference(html)
    assert _shape(fast) == _shape(reference)
    assert fast.get_text(" ", strip=True) == reference.get_text(" ", strip=True)
    _linked(fast)


@needs_corpora
@pytest.mark.parametrize("path", _wcxb_pages(), ids=lambda p: p.name)
def test_same_tree_as_bs4_on_real_pages(path):
    _same(gzip.decompress(path.read_bytes()).decode("utf-8", "replace"))


@needs_corpora
def test_same_tree_as_bs4_on_the_handbook():
    pages = sorted(HANDBOOK.rglob("*.html"))[:20]
    assert pages
    for path in pages:
        _same(path.read_text(encoding="utf-8"))


def _deepest(soup) -> int:
    def depth(tag):
        return sum(1 for _ in tag.parents)

    return max(depth(t) for t in soup.find_all(True))


def test_nesting_up_to_max_depth_is_bs4s_tree():
    # Old forums leave a <font> per post unclosed.
    html = "<body>" + "<font size=2><p>Post</p>" * (html_tree.MAX_DEPTH - 10) + "<p>The last words.</p>"
    _same(html)


@pytest.mark.parametrize("depth", [html_tree.MAX_DEPTH + 50, 3000])
def test_deeper_nesting_is_flattened_and_loses_no_text(depth):
    html = "<body>" + "<font size=2><p>Post</p>" * depth + "<p>The last words.</p>"
    fast = html_tree.parse(html)
    assert fast.get_text(" ").split() == _reference(html).get_text(" ").split()  # every word, in order, apart
    assert fast.get_text().count("Post") == depth and "The last words." in fast.get_text()
    assert _deepest(fast) <= html_tree.MAX_DEPTH
    _linked(fast)


def test_twenty_thousand_levels_are_flattened_whole():
    """Past libxml2's own tree (it stops near 2,000 levels) no text is lost either."""
    html = "<body>" + "<div><p>Post</p>" * 20_000 + "</div>" * 20_000
    fast = html_tree.parse(html)
    assert fast.get_text().count("Post") == 20_000 and _deepest(fast) <= html_tree.MAX_DEPTH


def test_text_over_ten_megabytes_loses_nothing():
    fast = html_tree.parse("<p>" + "A" * 11_000_000 + "</p><p>after</p>")
    assert fast.find_all("p")[-1].get_text() == "after"


def test_string_types_and_whitespace_follow_bs4():
    html = (
        "<!DOCTYPE html><html><head><style>p{}</style>"
        '<script type=\'application/ld+json\'>{"@type": "Product"}</script></head>'
        "<body>  \n <p>a <b>b</b>\t</p><!-- note --><pre>  x\n\n  </pre>"
        "<textarea>  </textarea><template><i>t</i></template></body></html>"
    )
    fast = html_tree.parse(html)
    assert _shape(fast) == _shape(_reference(html))
    assert isinstance(fast.contents[0], Doctype)
    assert isinstance(fast.find("style").string, Stylesheet)
    assert isinstance(fast.find("script").string, Script)
    assert fast.find("script").get_text() == '{"@type": "Product"}'
    assert any(isinstance(s, Comment) for s in fast.body.contents)
    assert fast.find("pre").string == "  x\n\n  "  # kept as written
    assert fast.body.contents[0] == "\n"  # whitespace collapsed, as bs4 does
    assert type(fast.find("b").string) is NavigableString
    _linked(fast)


def test_no_doctype_is_invented():
    assert not any(isinstance(n, Doctype) for n in html_tree.parse("<p>x</p>").contents)


def test_tags_have_the_cheap_hot_paths():
    fast = html_tree.parse("<div><pre><code>x</code></pre></div>")
    code = fast.find("code")
    assert isinstance(code, html_tree.SoupTag)
    assert code.find_parent("pre") is fast.find("pre")
    with pytest.raises(AttributeError):
        code._decomposed  # noqa: B018 - not a search for a <_decomposed> child
    fast.find("pre").decompose()
    assert fast.get_text() == ""


@pytest.mark.parametrize(
    "html",
    [
        "plain text",
        "<p =x>y</p>",
        "<p>a<p>b",
        "<td>cell</td>",
        "<li>x<li>y</ul>z",
        "<table><tr><td>a<div>b</table>c",
        "<select><option>1<p>2</select>3",
    ],
)
def test_odd_input(html):
    _same(html)


@pytest.mark.parametrize("html", ["", "   ", "</p>"])
def test_nothing_to_build_is_an_empty_tree(html):
    fast = html_tree.parse(html)  # libxml2 makes no tree of these: bs4's own build
    assert isinstance(fast, BeautifulSoup) and fast.get_text(strip=True) == ""


def test_template_placeholder_as_an_attribute_name():
    # WCXB page 0586: <li data-category="${category.id}"> written without its quotes
    fast = html_tree.parse('<li data-category=$ {category.id} role="menuitem">item</li>')
    li = fast.find("li")
    assert li["role"] == "menuitem" and li.get_text() == "item"
