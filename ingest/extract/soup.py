"""An HTML page as Beautiful Soup's tree, built fast.

`BeautifulSoup(html, "lxml")` has libxml2 call back into Python for every start tag,
end tag and piece of text, and runs bs4's bookkeeping on each, which was two fifths of
the extraction time (docs/benchmarks.md). Here libxml2 (the same parser, through lxml) builds its
tree in C, and one walk of it makes the bs4 objects with their links set directly.
The tree is bs4's own (Tag, NavigableString, Comment; Script/Stylesheet strings in
<script>/<style>/<template>; blank strings and comments collapsed to " " or "\n"
outside <pre> and <textarea>), so everything downstream (markdownify included) reads
it as it would read bs4's. What differs, none of it text: a valueless boolean
attribute (`<input checked>`) holds its name where bs4 holds ""; a second doctype or an
`<?xml ...?>` inside the body is dropped or kept as a comment, and a blank next to it
may move; blanks between top-level elements (after `</html>`) are not kept; an
attribute named like `{category.id}` (a template's placeholder) keeps that name.
A page nested deeper than MAX_DEPTH levels is parsed again into a tree flattened to
MAX_DEPTH levels (_Flattening), so that nothing downstream recurses out of Python's stack.
tests/test_soup.py compares the two trees node by node.
"""

from __future__ import annotations

import re

from bs4 import BeautifulSoup, Tag
from bs4.element import Comment, Doctype, NavigableString, ProcessingInstruction
from lxml import etree

from ingest.extract import budget

_ASCII_SPACES = " \t\n\x0c\r"  # what bs4 collapses (not \xa0)
_DOCTYPE = re.compile(r"<!doctype", re.I)


class SoupTag(Tag):
    """bs4's Tag with two hot paths made cheap (profiled on WCXB dev):
    - an unset private attribute (`tag.decomposed` reads `_decomposed`) is an
      AttributeError, not a search of the whole subtree for a child tag of that name
      (Tag.__getattr__'s `soup.div`-style lookup): a quarter of the extraction time;
    - `find_parent("pre")`, which markdownify asks of every tag, walks the parents
      instead of building a matcher per call: a sixth of it."""

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        return super().__getattr__(name)

    def find_parent(self, name=None, attrs=None, **kwargs):
        if isinstance(name, str) and not attrs and not kwargs:
            parent = self.parent
            while parent is not None:
                if parent.name == name:
                    return parent
                parent = parent.parent
            return None
        return super().find_parent(name, attrs, **kwargs)


def _empty_soup(html: str = "") -> BeautifulSoup:
    """bs4's own build of `html` (empty: a soup for the fast builder to fill).
    Attributes stay strings (class="a b" is not split into a list): the rules match
    class names with regular expressions, and it is a tenth of bs4's parse time."""
    return BeautifulSoup(html, "lxml", element_classes={Tag: SoupTag}, multi_valued_attributes=None)


def parse(html: str) -> BeautifulSoup:
    """The page's tree; the same tree `BeautifulSoup(html, "lxml")` builds (see above)."""
    # huge_tree: without it libxml2 silently stops at 255 levels of nesting (old forums'
    # unclosed <font>s) and at 10 MB of text, where bs4's build goes on.
    parser = etree.HTMLParser(recover=True, huge_tree=True)
    try:
        parser.feed(html)
        root = parser.close()
    except (etree.LxmlError, ValueError):  # nothing to build a tree of (an empty page)
        root = None
    if root is not None:
        has_doctype = bool(_DOCTYPE.search(html, 0, 4096))
        try:
            return _Builder(_empty_soup()).build(root, has_doctype=has_doctype)
        except _TooDeep:
            return _Builder(_empty_soup()).build(_flattened(html, MAX_DEPTH), has_doctype=has_doctype)
    return _empty_soup(html)


class _TooDeep(Exception):
    """Nested deeper than MAX_DEPTH levels."""


# *ours*: markdownify converts recursively, a few frames a level, and stops with a
# RecursionError near 350 levels; WCXB dev's deepest page has 55.
MAX_DEPTH = 250


class _Flattening:
    """An lxml parser target that builds the page's tree with every element deeper than
    `limit` levels (the document above <html> counted, as bs4 counts) left out, its text
    kept in the ancestor at that depth (old forums nest a <font> per post, unclosed). A
    block (a paragraph, a list item, a row) leaves a line break, so its words stay apart.
    It reads the parser's events as they come, so it is linear however deep the page
    (libxml2's own tree stops near 2,000 levels, and bs4's unwrap was quadratic)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.depth, self.builder = limit, 0, etree.TreeBuilder()

    def start(self, tag, attrib) -> None:
        self.depth += 1
        if self.depth <= self.limit:
            self.builder.start(tag, attrib)
        elif tag in _BLOCKS:
            self.builder.data("\n")

    def end(self, tag) -> None:
        if self.depth <= self.limit:
            self.builder.end(tag)
        elif tag in _BLOCKS:
            self.builder.data("\n")
        self.depth -= 1

    def data(self, data) -> None:
        self.builder.data(data)

    def close(self):
        return self.builder.close()


def _flattened(html: str, limit: int):
    """The page's tree, nested at most `limit` levels deep (see _Flattening)."""
    parser = etree.HTMLParser(recover=True, huge_tree=True, target=_Flattening(limit))
    parser.feed(html)
    return parser.close()


_BLOCKS = frozenset(
    [
        "address",
        "article",
        "aside",
        "blockquote",
        "br",
        "dd",
        "div",
        "dl",
        "dt",
        "fieldset",
        "figcaption",
        "figure",
        "footer",
        "form",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "header",
        "hr",
        "li",
        "main",
        "nav",
        "ol",
        "p",
        "pre",
        "section",
        "table",
        "tbody",
        "td",
        "tfoot",
        "th",
        "thead",
        "tr",
        "ul",
    ]
)


def _collapsed(text: str, keep_spaces: bool) -> str:
    """A blank string (or comment) outside <pre>/<textarea> becomes one newline or space, as in bs4."""
    if keep_spaces or text.strip(_ASCII_SPACES):
        return text
    return "\n" if "\n" in text else " "


class _Builder:
    def __init__(self, soup: BeautifulSoup) -> None:
        self.soup = soup
        builder = soup.builder
        self.builder = builder
        self.containers = builder.string_containers
        self.preserve = builder.preserve_whitespace_tags
        self.empty = builder.empty_element_tags
        self.attr_dict = builder.attribute_dict_class
        # What Tag.__init__ sets from the builder, the same on every tag.
        self.fixed = {
            "parser_class": type(soup),
            "namespace": None,
            "_namespaces": soup._namespaces,
            "prefix": None,
            "sourceline": None,
            "sourcepos": None,
            "attribute_value_list_class": builder.attribute_value_list_class,
            "known_xml": False,
            "hidden": False,
            "cdata_list_attributes": builder.cdata_list_attributes,
            "preserve_whitespace_tags": builder.preserve_whitespace_tags,
        }
        self.last = None  # the element made last, in document order (bs4 links none to the soup itself)

    def build(self, root, has_doctype: bool) -> BeautifulSoup:
        soup = self.soup
        info = root.getroottree().docinfo
        if has_doctype and info.doctype:  # libxml2 gives a page without one HTML 4.0's
            self._add(Doctype.for_name_and_ids(info.root_name, info.public_id, info.system_url), soup)
        top = root
        while top.getprevious() is not None:
            top = top.getprevious()
        while top is not None:  # comments before <html>, the <html> libxml2 opens for text after </html>
            self._element(top, soup, NavigableString, False, 0)
            top = top.getnext()
        return soup

    def _add(self, node, parent) -> None:
        contents = parent.contents
        sibling = contents[-1] if contents else None
        node.parent, node.previous_element, node.previous_sibling = parent, self.last, sibling
        node.next_element = node.next_sibling = None
        if sibling is not None:
            sibling.next_sibling = node
        if self.last is not None:
            self.last.next_element = node
        self.last = node
        contents.append(node)

    def _text(self, value: str, parent, container, keep_spaces: bool) -> None:
        node = str.__new__(container, _collapsed(value, keep_spaces))  # NavigableString(value) without its setup()
        node.hidden = False
        self._add(node, parent)

    def _element(self, el, parent, container, keep_spaces: bool, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise _TooDeep
        budget.check()
        name = el.tag
        if not isinstance(name, str):
            if name is etree.Comment:
                self._add(Comment(_collapsed(el.text or "", keep_spaces)), parent)
            elif name is etree.ProcessingInstruction:
                self._add(ProcessingInstruction(f"{el.target} {el.text or ''}"), parent)
            return
        tag = object.__new__(SoupTag)  # Tag.__init__'s work, without asking the builder per tag
        special = self.containers.get(name)  # <script>, <style>, <template>: their own string type
        tag.__dict__ = {
            **self.fixed,
            "name": name,
            "attrs": self.attr_dict(el.items()),
            "contents": [],
            "can_be_empty_element": name in self.empty,
            "interesting_string_types": {special} if special else Tag.MAIN_CONTENT_STRING_TYPES,
        }
        self._add(tag, parent)
        if name == "meta":
            self.builder.set_up_substitutions(tag)  # as bs4 does: <meta charset> follows the output encoding
        if special:
            container = special
        keep_spaces = keep_spaces or name in self.preserve
        if el.text:
            self._text(el.text, tag, container, keep_spaces)
        for child in el:
            self._element(child, tag, container, keep_spaces, depth + 1)
            if child.tail:
                self._text(child.tail, tag, container, keep_spaces)
