"""Extraction: HTML → Markdown of the page's main content, plus its template chrome.

Links are dropped (their text is kept): a voice assistant reads text, and URLs in
chunks only dilute embeddings. Headings are ATX (`#`), so the chunker sees them.

Content a main-content extractor loses is kept on purpose (R-5.2): callout and
warning boxes (`<aside>` inside the content that is not a list of links), hidden tab
panels (nothing is dropped for being hidden), the whole list of cards on a listing
page (a card is never taken for the page's content), and a product's schema.org
facts from JSON-LD when the visible page lacks them. Recovered blocks are listed in
`Document.recovered`, so the site-level template rule judges them whole.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, urljoin

from bs4 import BeautifulSoup, NavigableString, Tag
from markdownify import MarkdownConverter

from ingest.extract import budget
from ingest.extract import soup as html_tree
from ingest.extract.facts import page_facts, tag_facts
from ingest.extract.language import text_language
from ingest.extract.markdown import HEADING, in_code
from ingest.models import Document

REMOVE_TAGS = (
    "script",
    "style",
    "template",
    "iframe",
    "svg",
    "canvas",
    "button",
    "input",
    "select",
    "textarea",
    "object",
    "embed",
    "dialog",
    "img",
    "picture",
    "video",
    "audio",
    "map",
)
# Per-page cookie/consent overlays: matched on id/class attributes only.
_OVERLAY = re.compile(r"cookie|consent|gdpr", re.I)
# Per-page furniture inside the content area, recognised by class or id: sharing
# buttons, related posts, breadcrumbs, sign-up boxes, ads, sidebars, post meta.
# Not comments: on a forum they are the content (dropping them cost forum pages; the
# figures of this and the rules below are in docs/benchmarks.md, "extraction rules").
# Only blocks that are short or mostly links are dropped, so a page wrapped in a
# misleadingly named container keeps its text.
_FURNITURE = re.compile(
    r"(?:^|[-_\s])(?:share|sharing|social|related|breadcrumbs?|newsletter|subscribe|signup|"
    r"sidebar|advert|ads|ad-slot|promo|popup|modal|pagination|pager|tags|tag-list|post-meta|"
    r"entry-meta|byline|author-box|skip-link|screen-reader-text|sr-only|visually-hidden)(?:$|[-_\s])",
    re.I,
)
FURNITURE_MAX_CHARS = 1500
# Blocks about other things than the page: a post's comment thread, customer reviews,
# recommendations, "also bought" carousels. Dropped whatever their size (product pages
# gained most); the plural only, since class="review"
# marks review articles and class="comment" a forum's posts, which are its content.
_ELSEWHERE = re.compile(
    r"(?:^|[-_\s])(?:comments|comment-list|commentlist|comments-area|comment-respond|"
    r"disqus_thread|trackbacks|pingbacks|"
    r"reviews|customer-reviews|review-list|recommendations|recommended|"
    r"also-(?:bought|viewed|like)|cross-?sells?|upsells?|similar-products)(?:$|[-_\s])",
    re.I,
)
FURNITURE_MAX_SHARE = 0.3
# A <main> or <article> with less than this share of the page's text is not its content. *ours*
MIN_REGION_SHARE = 0.2
NOSCRIPT_MIN_CHARS = 200
_SELF_LINK_TEXT = {"¶", "#", "§", "🔗", "link"}
# A link that says only "read more" carries no words of its own: on a blog's index it
# became a passage "Blog > Post title / Weiterlesen" that ranked for the post's subject
# (12 such passages on xhain). In the callers' languages. *ours*
_READ_MORE = re.compile(
    r"^\W*(?:read more|read the (?:full )?(?:post|article|story)|continue reading|more|learn more|"
    r"weiterlesen|mehr(?: lesen| erfahren)?|zum (?:artikel|beitrag)|leer más|ver más|seguir leyendo|"
    r"devamını oku|daha fazla(?: bilgi)?|lire la suite|en savoir plus|leggi (?:di )?più|continua a leggere|"
    r"ler mais|saiba mais|더 ?보기|자세히 ?보기)\W*$",
    re.IGNORECASE,
)
# An <aside> whose text is mostly link text is navigation (a table of contents, related
# links); otherwise it is a callout or a warning box and part of the content. *ours*
CALLOUT_MAX_LINK_SHARE = 0.5
PRODUCT_FACTS_HEADING = "Product details"
_WORDS = re.compile(r"\w+")
_LINE_NUMBERS = re.compile(r"[\d\s]*")
# `(?=[\s/>])`: not the custom elements <svg-icon>, <script-loader>. A script holding
# "<!--" (old document.write('<script>...</script>') tricks) is kept for the parser,
# whose rules for it are subtler than the first </script>; so is a self-closing <svg/>.
_UNPARSED = re.compile(
    r"<script(?=[\s/>])(?![^>]*application/ld\+json)[^>]*>.*?</script\s*>"
    r"|<style(?=[\s/>]).*?</style\s*>|<!--.*?-->|<svg(?=[\s/>])[^>]*(?<!/)>.*?</svg\s*>",
    re.I | re.S,
)
_SVG_HREF = re.compile(r"<a\b[^>]*?\s(?:xlink:)?href\s*=\s*[\"']([^\"']*)", re.I)


def _cut_unparsed(html: str) -> tuple[str, list[str]]:
    """The HTML without scripts (but JSON-LD), styles, comments and inline SVG, and the
    hrefs of the links inside those SVGs (for discovery; their text never reaches the
    Markdown, and their many <path>s would cost the parser)."""
    svg_hrefs: list[str] = []

    def cut(match: re.Match) -> str:
        found = match.group(0)
        kind = found[:4].lower()
        if kind == "<svg":
            svg_hrefs.extend(_SVG_HREF.findall(found))
        elif kind == "<scr" and "<!--" in found:
            return found  # a scan for "<!--" inside the pattern cost twice as much
        return ""

    return _UNPARSED.sub(cut, html), svg_hrefs


MAX_FACT_CHARS = 1000
_BLANK_RUNS = re.compile(r"\n{3,}")
_ROBOTS_META = re.compile(r"^(robots|sitekb)$", re.I)
# `<meta http-equiv="refresh" content="0; url=/de/">`: the delay, then the target.
_REFRESH = re.compile(r"^\s*(\d+(?:\.\d*)?)\s*(?:[;,]\s*(?:url\s*=\s*)?(.*))?$", re.I | re.S)
# A refresh this soon is a redirect to the reader (a stub page); a slower one reloads a live page.
REFRESH_REDIRECT_SECONDS = 10
_TRAILING = re.compile(r"[ \t]+\n")


class _Converter(MarkdownConverter):
    def process_text(self, *args, **kwargs):
        budget.check()  # per text node, a leaf: a check per tag would deepen markdownify's recursion
        return super().process_text(*args, **kwargs)

    def convert_a(self, el, text, *args, **kwargs):
        return text

    def convert_hr(self, el, text, *args, **kwargs):
        return "\n\n"

    def convert_hN(self, n, el, text, parent_tags):
        """A heading inside a list item (an FAQ accordion's question) is the item's bold
        first line: Markdown has no heading there, and "- #### Do you groom cats?" is
        neither a heading to chunking nor something to read to a caller."""
        if "li" in parent_tags and "_inline" not in parent_tags:
            text = " ".join(text.replace("**", "").split())  # bold within: the whole line is
            return f"\n\n**{text}**\n\n" if text else ""
        return super().convert_hN(n, el, text, parent_tags)


def _to_markdown(node: Tag) -> str:
    md = _Converter(
        heading_style="ATX",
        bullets="-",
        strip=["img"],
        escape_underscores=False,
        escape_asterisks=False,
        table_infer_header=True,
    ).convert_soup(node)
    lines = [line.rstrip() for line in md.replace("\xa0", " ").splitlines()]
    text = "\n".join(lines)
    text = _TRAILING.sub("\n", text)
    return _BLANK_RUNS.sub("\n\n", text).strip()


def _gone(tag: Tag) -> bool:
    return tag.__dict__.get("_decomposed", False)


class _Tags:
    """Every tag of the page by name, from one walk of the tree: bs4's find_all builds
    a matcher and walks the whole tree per call, ~2 ms a page each, a dozen calls."""

    def __init__(self, root: Tag) -> None:
        self.all: list[Tag] = [el for el in root.descendants if isinstance(el, Tag)]
        self._order = {id(t): i for i, t in enumerate(self.all)}
        self._by_name: dict[str, list[Tag]] = {}
        self._renamed = False
        for tag in self.all:
            self._by_name.setdefault(tag.name, []).append(tag)

    def rename(self, tag: Tag, name: str) -> None:
        """`<div role="contentinfo">` becomes the <footer> it is."""
        self._by_name[tag.name].remove(tag)
        self._renamed = True
        tag.name = name
        self._by_name.setdefault(name, []).append(tag)

    def __call__(self, *names: str, within: Tag | None = None) -> list[Tag]:
        """Live tags with these names, in document order (optionally inside `within`)."""
        found = [t for name in names for t in self._by_name.get(name, ()) if not _gone(t)]
        if len(names) > 1 or self._renamed:
            found.sort(key=lambda t: self._order[id(t)])
        if within is not None:
            found = [t for t in found if t is not within and _inside(t, within)]
        return found


def _inside(tag: Tag, ancestor: Tag) -> bool:
    parent = tag.parent
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def _id_and_class(tag: Tag) -> str:
    return f"{tag.get('id') or ''} {tag.get('class') or ''}"


def _rel(tag: Tag) -> list[str]:
    return (tag.get("rel") or "").lower().split()


def _link_chars(tag: Tag) -> int:
    """Characters of `tag`'s text that are link text."""
    return sum(len(a.get_text(" ", strip=True)) for a in tag.find_all("a"))


def _wraps_content(tag: Tag) -> bool:
    """Holds the page's heading or its <main>/<article>: a layout container, whatever its name."""
    return tag.find(["main", "article", "h1"]) is not None


def _is_overlay(tag: Tag) -> bool:
    """A cookie or consent banner, however long its list of purposes (a length limit let
    consent walls through), unless it wraps the page's heading or content."""
    return bool(_OVERLAY.search(_id_and_class(tag))) and not _wraps_content(tag)


def _is_furniture(tag: Tag, page_chars: int) -> bool:
    if "class" not in tag.attrs and "id" not in tag.attrs:
        return False  # most tags: decided without building a string
    attrs = _id_and_class(tag)
    elsewhere = bool(_ELSEWHERE.search(attrs))
    if not (elsewhere or _FURNITURE.search(attrs)):
        return False
    # A container named like furniture ("main-container fixed-sidebar") that holds the
    # page's heading or a good share of its text is layout, not furniture.
    if _wraps_content(tag):
        return False
    if elsewhere:
        return True  # reviews can outweigh the product's own text
    text = tag.get_text(" ", strip=True)
    if len(text) > FURNITURE_MAX_SHARE * page_chars:
        return False
    if len(text) < FURNITURE_MAX_CHARS:
        return True
    return _link_chars(tag) > 0.5 * len(text)


# An element that holds most of the page is a wrapper, whatever its name: an unclosed
# <button> in a site's menu, or a <nav> or <header> the markup never ends, which the
# parser stretches over the whole page (articles came out empty without this rule).
WRAPPER_SHARE = 0.5
_MAY_HOLD_PAGE = frozenset({"button", "dialog", "object", "map", "video", "audio", "canvas", "picture"})


def _holds_page(tag: Tag, page_chars: int) -> bool:
    """More than half the page's text, and not mostly links (a docs sidebar on a short page)."""
    chars = len(tag.get_text(" ", strip=True))
    return chars > WRAPPER_SHARE * page_chars and _link_chars(tag) < 0.5 * chars


_ROLE_CHROME = {"banner": "header", "contentinfo": "footer", "navigation": "nav", "complementary": "aside"}
# "hd", "ft", "gnb" (global navigation bar), "lnb", "snb", "tnb": gnuboard's names, the
# template most Korean small-business sites are built on.
_CLASS_CHROME = re.compile(
    r"(?:^|\s)(?:(?:site|page|global|main)[-_])?(header|footer|navbar|nav|navigation|menu|masthead|hd|ft|gnb|lnb|snb|tnb)"
    r"(?=\s|$)",
    re.I,
)
_CLASS_NAME = {"header": "header", "masthead": "header", "hd": "header", "footer": "footer", "ft": "footer"}


def _name_chrome(tags: _Tags, page_chars: int) -> None:
    """Header, footer and navigation built from <div>s, named by ARIA role or by a class
    or id that is exactly such a name ("site-header", "footer", "navbar"), become the
    elements they stand for, so the chrome rules below apply to them; a <header>, <nav>
    or <aside> the parser stretched over the page becomes a plain <div>."""
    for tag in list(tags.all):
        if _gone(tag):
            continue
        if tag.name in ("header", "nav", "aside"):  # not <footer>: what follows it is little
            if _holds_page(tag, page_chars):
                tags.rename(tag, "div")
            continue
        if tag.name not in ("div", "section", "ul", "span", "table", "td"):
            continue
        role = (tag.get("role") or "").strip().lower()
        name = _ROLE_CHROME.get(role)
        if name is None:
            match = _CLASS_CHROME.search(_id_and_class(tag))
            if match:
                name = _CLASS_NAME.get(match.group(1).lower(), "nav")
        if name is None:
            continue
        if _wraps_content(tag):
            continue
        # A footer with the business's details (registration, address, hours, branches)
        # is most of a short page's text: a Korean clinic's hours page, 42% footer.
        share = WRAPPER_SHARE if name == "footer" else FURNITURE_MAX_SHARE
        if len(tag.get_text(" ", strip=True)) > share * page_chars:
            continue
        tags.rename(tag, name)


def _is_aria_dialog(tag: Tag) -> bool:
    """A <div role="dialog"> or aria-modal="true": the ARIA spelling of a <dialog>."""
    if "role" not in tag.attrs and "aria-modal" not in tag.attrs:
        return False
    return (
        not _DIALOG_ROLES.isdisjoint((tag.get("role") or "").lower().split())
        or (tag.get("aria-modal") or "").strip().lower() == "true"
    )


_DIALOG_ROLES = frozenset({"dialog", "alertdialog"})


def _clean(soup: BeautifulSoup, tags: _Tags) -> None:
    """Everything that is never content goes, in order: popups, scripts and the like,
    forms, noscript notes, code tables' line numbers, then chrome and furniture."""
    page_chars = _drop_dialogs(soup, tags)
    for tag in tags(*REMOVE_TAGS):
        if tag.name in _MAY_HOLD_PAGE and _holds_page(tag, page_chars):
            tag.unwrap()
        elif tag.name == "button" and tag.find_parent(_HEADING_TAGS) and _LETTER.search(tag.get_text()):
            tag.unwrap()  # an accordion's question as Bootstrap and Squarespace write it: <h4><button>…</button></h4>
        else:
            tag.decompose()
    # Forms are search boxes and sign-ups, unless the page itself is one (ASP.NET wraps
    # the whole body in a <form>): then the form is unwrapped and its inputs go below.
    _unwrap_or_drop(tags("form"), lambda chars: chars > FURNITURE_MAX_SHARE * page_chars)
    # <noscript> usually holds a tracking pixel or "please enable JavaScript", but some
    # platforms (Discourse forums, for one) put the whole page there for crawlers.
    _unwrap_or_drop(tags("noscript"), lambda chars: chars >= NOSCRIPT_MIN_CHARS)
    _code_tables(tags)
    _name_chrome(tags, page_chars)
    for tag in tags.all:
        if _gone(tag) or tag.parent is None or not tag.attrs:
            continue
        if (
            tag.name in ("div", "section", "aside")
            and _is_overlay(tag)
            or tag.name not in ("html", "body", "main", "article")
            and _is_furniture(tag, page_chars)
        ):
            tag.decompose()
    for a in tags("a"):
        href = a.get("href") or ""
        text = a.get_text(" ", strip=True)
        if (href.startswith("#") and text in _SELF_LINK_TEXT) or (_READ_MORE.match(text) and _ends_its_block(a)):
            a.decompose()


# A <summary> longer than this is a teaser, not the question of an FAQ's <details>. *ours*
SUMMARY_QUESTION_MAX_CHARS = 200


_HEADING_TAGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _summaries_with_answers(soup: BeautifulSoup, tags: _Tags) -> None:
    """An FAQ's question in <details><summary>, or in an accordion's title (the ARIA
    pattern: a title with `aria-controls` naming its answer's panel, as Elementor,
    Bootstrap and Gutenberg write them), is written in bold at the start of its answer's
    first paragraph, so no passage can end with a question whose answer begins the
    next. (As headings, each question and answer became a passage of its own, and such
    question-headed passages drew other questions: dentist and tapas hit@1 fell.) A title
    inside a heading stays the heading the site made it."""
    pairs = [(summary, summary.parent) for summary in tags("summary")]
    twins: list[Tag] = []
    live = [t for t in tags.all if not getattr(t, "decomposed", False) and t.attrs is not None]
    controls = [t for t in live if t.get("aria-controls")]
    if controls:
        by_id = {str(t["id"]): t for t in live if t.get("id")}
        answered: dict[int, Tag] = {}  # one question a panel: a tab and its twin for small screens name one
        for title in controls:
            panel = by_id.get(str(title["aria-controls"]).split()[0])
            if panel is None or title in panel.descendants or panel in title.descendants:
                continue
            if title.name in _HEADING_TAGS or title.find_parent(_HEADING_TAGS) or title.find(_HEADING_TAGS):
                continue
            if id(panel) in answered:
                if title.get_text(strip=True) == answered[id(panel)].get_text(strip=True):
                    twins.append(title)
                continue
            answered[id(panel)] = title
            pairs.append((title, panel))
    for question_tag, answer in pairs:
        if getattr(question_tag, "decomposed", False) or answer is None:
            continue
        text = " ".join(question_tag.get_text().split())  # "Where are <em>we</em>?", no space before "?"
        if not text or len(text) > SUMMARY_QUESTION_MAX_CHARS:
            continue
        if question_tag.name == "summary" and answer.name != "details":
            continue
        first = None
        for child in answer.children:  # the answer's first paragraph, with nothing said before it
            if child is question_tag or (isinstance(child, NavigableString) and not child.strip()):
                continue
            if isinstance(child, Tag) and child.name == "p" and not child.get_text(strip=True):
                continue
            first = child
            break
        if isinstance(first, Tag) and first.name == "p":
            _open_with(soup, first, question_tag, text)
    for twin in twins:
        if not getattr(twin, "decomposed", False):
            twin.decompose()


_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(?:bold|[6-9]00)", re.IGNORECASE)
_GREEK = re.compile(r"[\u0370-\u03ff]")


def _bold(node: NavigableString, stop: Tag) -> bool:
    """The text is set in bold: inside <strong>/<b> or a bold style, up to `stop`."""
    for parent in node.parents:
        if parent.name in ("strong", "b") or _BOLD_STYLE.search(parent.get("style") or ""):
            return True
        if parent is stop:
            return False
    return False


def _bold_questions_with_answers(soup: BeautifulSoup, tags: _Tags) -> None:
    """An FAQ written as paragraphs: a question in bold ("Otopark var mı?", by <strong>
    or a page builder's font-weight) then its answer's paragraph. The question opens
    the answer's paragraph, as a <details> question does: apart, a question ended one
    passage and its answer began the next, and the question alone ranked first."""
    for p in tags("p"):
        if getattr(p, "decomposed", False) or p.parent is None:
            continue
        text = " ".join(p.get_text().split())
        question = text.endswith(("?", "？")) or (text.endswith((";", "\u037e")) and _GREEK.search(text))
        if not question or len(text) > SUMMARY_QUESTION_MAX_CHARS:
            continue
        strings = [t for t in p.find_all(string=True) if t.strip()]
        if not strings or not all(_bold(t, p) for t in strings):
            continue
        answer = p.next_sibling
        while isinstance(answer, NavigableString) and not answer.strip():
            answer = answer.next_sibling
        if not isinstance(answer, Tag) or answer.name != "p" or not answer.get_text(strip=True):
            continue
        if " ".join(answer.get_text().split()).endswith(("?", "？")):
            continue  # a list of questions, not a question and its answer
        _open_with(soup, answer, p, text)


def _open_with(soup: BeautifulSoup, answer: Tag, question_tag: Tag, text: str) -> None:
    """The question `text` in bold at the start of its answer's paragraph, its own tag gone."""
    question = soup.new_tag("strong")
    question.string = text
    answer.insert(0, " ")
    answer.insert(0, question)
    question_tag.decompose()


# Inline elements a page builder sets side by side with CSS, no space between them in
# the HTML: Elementor's price list "<span>Κλέφτικο</span><span></span><span>16,00
# €</span>" read "Κλέφτικο16,00 €". Not <sup>/<sub> ("m²", "CO₂"). *ours*
_SIDE_BY_SIDE = frozenset({"span", "a", "b", "strong", "em", "i", "small", "label", "mark", "bdi", "data", "time"})
_WORD_THEN_PRICE = re.compile(r"[^\W\d_]$")
_PRICE_START = re.compile(r"^[\d€$£¥₺]")


def _spaced_siblings(tags: _Tags) -> None:
    """A space between a side-by-side element ending in a letter and the next starting
    with a digit or a currency sign (empty elements between them skipped)."""
    for tag in tags("span"):
        if getattr(tag, "decomposed", False) or tag.parent is None:
            continue
        text = tag.get_text()
        if not text or not _WORD_THEN_PRICE.search(text):
            continue
        nxt = tag.next_sibling
        while isinstance(nxt, Tag) and nxt.name in _SIDE_BY_SIDE and not nxt.get_text():
            nxt = nxt.next_sibling
        if isinstance(nxt, Tag) and nxt.name in _SIDE_BY_SIDE and _PRICE_START.match(nxt.get_text()):
            tag.insert_after(" ")


def _ends_its_block(a: Tag) -> bool:
    """A link standing alone, or closing its block after a finished sentence ("… Berlin.
    Mehr erfahren"), not one inside a sentence ("we have <a>more</a> than forty")."""

    def text_of(siblings) -> str:
        parts = []
        for s in siblings:
            if not isinstance(s, Tag):
                parts.append(str(s))
            elif not (s.name == "a" and _READ_MORE.match(s.get_text())):  # other read-more links do not count
                parts.append(s.get_text())
        return "".join(parts).strip()

    after, before = text_of(a.next_siblings), text_of(reversed(list(a.previous_siblings)))
    return not after.strip(" →»>.…|·") and (not before or before[-1] in ".!?…:|·")


def _drop_dialogs(soup: BeautifulSoup, tags: _Tags) -> int:
    """Modal dialogs, however spelled, are popups: sign-ups, carts, log-ins, privacy
    centres, a shop's "trouble connecting" notice. Not one that holds the page or its
    heading. Returns the page's size in characters, measured without them."""
    page_chars = len(soup.get_text(" ", strip=True)) or 1
    dialogs = [
        t
        for t in tags.all
        if t.name not in ("html", "body")
        and _is_aria_dialog(t)
        and not (_holds_page(t, page_chars) or _wraps_content(t))
    ]
    if not dialogs:
        return page_chars
    for tag in dialogs:
        if not _gone(tag):  # not inside one already gone
            tag.decompose()
    return len(soup.get_text(" ", strip=True)) or 1


def _unwrap_or_drop(found: list[Tag], keeps: Callable[[int], bool]) -> None:
    """Each tag still in the tree is unwrapped when `keeps(its text length)`, else dropped."""
    for tag in found:
        if _gone(tag):
            continue
        if keeps(len(tag.get_text(" ", strip=True))):
            tag.unwrap()
        else:
            tag.decompose()


def _code_tables(tags: _Tags) -> None:
    """A table laid out around code (Pygments' "highlighttable": a line-number gutter
    beside a <pre>) is a code listing, not data: keep the code, drop the numbers."""
    for table in tags("table"):
        pres = [] if _gone(table) else table.find_all("pre")
        if pres:
            for pre in pres:
                if not _LINE_NUMBERS.fullmatch(pre.get_text()):
                    table.insert_before(pre.extract())
            table.decompose()


def _main_region(body: Tag, tags: _Tags) -> Tag | None:
    """The page's main content element, or None to fall back to the whole body. A
    <main> or a lone <article> holding little of the page's text (a review widget, a
    product card) is not the content."""
    body_chars = len(body.get_text(" ", strip=True))

    def substantial(tag: Tag) -> bool:
        return len(tag.get_text(" ", strip=True)) >= MIN_REGION_SHARE * body_chars

    mains = tags("main") or [t for t in tags.all if not _gone(t) and t.get("role") == "main"]
    mains = [m for m in mains if substantial(m)]
    scope = mains[0] if len(mains) == 1 else body
    articles = tags("article", within=scope)
    if len(articles) == 1 and substantial(articles[0]) and not _one_of_a_run(articles[0]):
        # A <main> whose one H1 stands above its lone <article> (the post's title and
        # date, then its body) is the content: the article alone loses the title.
        if scope is not body and not tags("h1", within=articles[0]) and len(tags("h1", within=scope)) == 1:
            return scope
        return articles[0]
    # A container named for the content ("entry-content", "post-body", id="content")
    # holding a good share of the text, when it is the only one (the outermost of nested
    # ones).
    named = [
        t
        for t in tags("div", "section", within=None if scope is body else scope)
        if _CONTENT_NAME.search(_id_and_class(t)) and len(t.get_text(" ", strip=True)) >= CONTENT_SHARE * body_chars
    ]
    outer = [t for t in named if not any(o is not t and _inside(t, o) for o in named)]
    if len(outer) == 1:
        return _with_its_panels(outer[0])
    return scope if scope is not body else None


CONTENT_SHARE = 0.3  # *ours*: 0.3, 0.4 and 0.6 scored alike on WCXB dev
_CONTENT_NAME = re.compile(
    r"(?:^|\s)(?:(?:entry|post|article|story|page|main|blog|single)[-_]?(?:content|body|text)|"
    r"(?:content|article|post)[-_]?body|main[-_]?content|content)(?:$|\s)",
    re.I,
)


def _with_its_panels(tag: Tag) -> Tag:
    """The container itself, or its parent when it is one of several panels named alike
    (tabs: "content-1 content active" beside "content-2 content") and the others hold
    text of their own (R-5.2: hidden tab panels are content)."""
    name = _CONTENT_NAME.search(_id_and_class(tag)).group().strip()
    others = sum(
        len(sib.get_text(" ", strip=True))
        for sib in tag.parent.children
        if isinstance(sib, Tag) and sib is not tag and sib.name == tag.name and name in _id_and_class(sib).split()
    )
    return tag.parent if others >= PANELS_SHARE * len(tag.get_text(" ", strip=True)) else tag


PANELS_SHARE = 0.2


def _one_of_a_run(tag: Tag) -> bool:
    """A card among alike siblings (`<article class="card">` beside `<div class="card">`):
    the list is the content, not the one card that happens to be an <article>."""
    classes = tag.get("class")
    if not classes or tag.parent is None:
        return False
    alike = sum(1 for sib in tag.parent.children if isinstance(sib, Tag) and sib.get("class") == classes)
    return alike >= 3


def decode_html(html: bytes) -> str:
    """Bytes as bs4 would read them: a BOM or <meta charset>, else UTF-8, else cp1252."""
    from bs4.dammit import EncodingDetector

    for encoding in EncodingDetector(html, is_html=True).encodings:
        try:
            return html.decode(encoding)
        except (UnicodeDecodeError, LookupError):
            continue
    return html.decode("utf-8", "replace")


def parse_html(html: bytes | str, url: str, budget_s: float | None = None) -> Document:
    """The page as a Document. With `budget_s`, a page whose extraction takes longer
    raises budget.PageTooSlow."""
    with budget.page_budget(budget_s):
        return _parse_html(html, url)


def _parse_html(html: bytes | str, url: str) -> Document:
    if isinstance(html, bytes):
        html = decode_html(html)
    # Scripts (but JSON-LD), styles, comments and SVG never reach the text; cut
    # before parsing, they cost bs4 nothing. Each ends where HTML says it ends (the
    # first </script>, </style>, -->), so the cut is the parser's own.
    html, svg_hrefs = _cut_unparsed(html)
    soup = html_tree.parse(html)
    tags = _Tags(soup)
    head = _head(tags, url)
    joined: dict[str, str] = {}  # menus repeat their hrefs; urljoin is slow
    links = tuple(
        joined[href] if href in joined else joined.setdefault(href, urljoin(head.base, href))
        for a in tags("a")
        if (href := a.get("href")) is not None and "nofollow" not in _rel(a)
    ) + tuple(urljoin(head.base, href) for href in svg_hrefs)
    product_data = _json_ld_products(tags)
    found = tag_facts(tags("a"), tags("script"), [t for t in tags.all if t.get("itemprop")], url)
    _clean(soup, tags)
    _summaries_with_answers(soup, tags)
    _bold_questions_with_answers(soup, tags)
    _spaced_siblings(tags)
    if len(product_data) == 1:
        _drop_other_products(tags)
    markdown, chrome, recovered = _content(soup, tags)
    product = _product_facts(product_data, markdown, chrome)
    if product:
        markdown = f"{markdown}\n\n{product}"
        recovered.append(product)
    return Document(
        url=url,
        title=head.title or _first_heading(markdown),
        markdown=markdown,
        chrome=chrome,
        lang=text_language(markdown, head.lang),
        links=links,
        canonical=head.canonical,
        noindex=head.noindex,
        refresh=head.refresh,
        alternates=head.alternates,
        recovered=tuple(r for r in recovered if r and r in markdown),
        facts=page_facts(found, markdown, chrome, url),
    )


@dataclass(frozen=True)
class _Head:
    """What a page says about itself, outside its text."""

    title: str
    lang: str
    base: str  # what its relative links resolve against
    canonical: str | None
    noindex: bool
    refresh: str | None
    alternates: tuple[tuple[str, str], ...]


def _head(tags: _Tags, url: str) -> _Head:
    titles, html_tags = tags("title"), tags("html")
    base = url
    base_tag = next((t for t in tags("base") if t.get("href") is not None), None)
    if base_tag is not None:
        base = urljoin(url, base_tag["href"])
    canonical = next(
        (
            urljoin(base, link["href"])
            for link in tags("link")
            if link.get("href") is not None and "canonical" in _rel(link)
        ),
        None,
    )
    return _Head(
        title=titles[0].get_text(" ", strip=True) if titles else "",
        lang=(html_tags[0].get("lang") or "").split("-")[0].lower() if html_tags else "",
        base=base,
        canonical=canonical,
        noindex=any(
            "noindex" in (meta.get("content") or "").lower()
            for meta in tags("meta")
            if _ROBOTS_META.match(meta.get("name") or "")
        ),
        refresh=_refresh_target(tags, base),
        alternates=_alternates(tags, base),
    )


def _content(soup, tags: _Tags) -> tuple[str, str, list[str]]:
    """(the main content as Markdown, the chrome around it, the blocks recovered into it)."""
    body = soup.body or soup
    region = _main_region(body, tags)
    chrome_parts: list[str] = []
    if region is None:
        for tag in tags("header", "footer", "nav", "aside", within=body):
            if _gone(tag):
                continue
            if tag.name in ("header", "footer"):
                chrome_parts.append(_to_markdown(tag))
            tag.decompose()
        region = body
    else:
        for tag in tags("header", "footer", within=body):
            inside = tag is region or _inside(tag, region)
            if not _gone(tag) and not inside:
                chrome_parts.append(_to_markdown(tag))
        for tag in tags("nav", within=region):
            tag.decompose()
        for tag in tags("aside", within=region):
            if not _gone(tag) and not _is_callout(tag):
                tag.decompose()
    recovered = [_to_markdown(tag) for tag in tags("aside", within=region) if not _gone(tag)]
    above, markdown = _split_at_title(_to_markdown(region))
    markdown = _said_once(markdown)
    if above:
        chrome_parts.insert(0, above)
    return markdown, "\n\n".join(p for p in chrome_parts if p), recovered


def _refresh_target(tags: _Tags, base: str) -> str | None:
    """Where a meta refresh sends the reader at once (a redirect stub), or None."""
    for meta in tags("meta"):
        if (meta.get("http-equiv") or "").strip().lower() != "refresh":
            continue
        match = _REFRESH.match(meta.get("content") or "")
        if match and match.group(2) and float(match.group(1)) <= REFRESH_REDIRECT_SECONDS:
            target = match.group(2).strip().strip("'\"").strip()
            return _joined(base, target) if target else None
    return None


def _joined(base: str, href: str) -> str | None:
    try:
        return urljoin(base, href)
    except ValueError:  # "http://[x": no URL at all
        return None


def _alternates(tags: _Tags, base: str) -> tuple[tuple[str, str], ...]:
    """(language, URL) of each translation the page declares (`<link rel="alternate" hreflang>`)."""
    found: dict[str, str] = {}
    for link in tags("link"):
        lang, href = (link.get("hreflang") or "").strip().lower(), link.get("href")
        if lang and href and "alternate" in _rel(link) and (url := _joined(base, href.strip())):
            found.setdefault(lang, url)
    return tuple(found.items())


def _split_at_title(markdown: str) -> tuple[str, str]:
    """(what is above the page's heading, the rest). The page's one H1 opens its content:
    above it, the region shows breadcrumbs, announcement bars, promo strips and sub-menus,
    unless that part outweighs the rest (then the H1 is a logo or a sidebar's title).
    A "# comment" line in a code block is not a heading. *ours*"""
    starts, offset = [], 0
    for line, code in in_code(markdown.split("\n")):
        if not code and line.startswith("# "):
            starts.append(offset)
        offset += len(line) + 1
    if len(starts) != 1 or starts[0] == 0:
        return "", markdown
    above, rest = markdown[: starts[0]].strip(), markdown[starts[0] :]
    if len(above) >= len(rest) or any(len(line) >= PROSE_LINE_CHARS for line in above.splitlines()):
        return "", markdown
    return above, rest


PROSE_LINE_CHARS = 200


_PRICE = re.compile(r"[$€£¥₹]\s?\d|(?<![\d.,])[.,]*+\d[\d.,]*+\s?(?:€|EUR|USD|GBP|kr|zł|Kč)(?!\w)")


def _drop_other_products(tags: _Tags) -> None:
    """On a page about one product (it declares one schema.org Product), a run of at least
    3 alike cards that each link somewhere and show a price lists other products:
    "you may also like", "customers also viewed". (og:type=product is no such sign:
    shops put it on their category pages too.)"""
    for tag in tags.all:
        if _gone(tag):
            continue
        cards = [c for c in tag.children if isinstance(c, Tag)]
        if len(cards) < 3:
            continue
        classes = Counter(c.get("class") for c in cards if c.get("class"))
        if not classes:
            continue
        cls, n = classes.most_common(1)[0]
        if n < 3:
            continue
        alike = [c for c in cards if c.get("class") == cls]
        if all(c.find("a") is not None and _PRICE.search(c.get_text(" ", strip=True)) for c in alike):
            tag.decompose()


def _said_once(markdown: str) -> str:
    """The Markdown with what it repeats verbatim kept where it first appears: a section
    under the same headings, a paragraph-length block within a section, a
    paragraph-length line anywhere (each >= REPEAT_MIN_CHARS, not code, not a table).
    Pages repeat themselves: the mobile and the desktop layout of a section (a seller's
    profile and feedback, twice), a sticky summary, an offer's terms under each offer, a
    plan's list of what it includes shown twice. The second copy tells the assistant
    nothing and takes a search result's place. Shorter lines and blocks stay, however
    often they repeat, and so does a block under other headings: they are per-item facts
    ("$30.00", "Cap Type: Screw Cap", the same features under "Resume packages" and
    "CV packages") that belong to each item. Repeats are typical of mobile and desktop
    copies of one block, and of a seller's profile shown twice on marketplace pages. *ours*"""
    seen_lines: set[str] = set()
    seen_sections: set[tuple] = set()

    def again(text: str, seen: set) -> bool:
        if len(text) < REPEAT_MIN_CHARS or text.startswith("|"):
            return False
        if text in seen:
            return True
        seen.add(text)
        return False

    out: list[str] = []
    path: list[tuple[int, str]] = []  # the headings this section is under, its own last
    dropped: list[tuple[int, str]] = []  # headings of repeated sections, in case a subsection stays
    for heading, blocks in _under_headings(_blocks_of(markdown)):
        texts = ["\n".join(line.strip() for line in block) for block, _ in blocks]
        if heading is not None:
            level = len(HEADING.match(heading).group(1))
            while path and path[-1][0] >= level:
                path.pop()
            path.append((level, heading.strip()))
            while dropped and dropped[-1][0] >= level:
                dropped.pop()
        key = (tuple(path), "\n\n".join(texts))
        if len(f"{heading or ''}{key[1]}") >= REPEAT_MIN_CHARS and key in seen_sections:
            if heading is not None:
                dropped.append((level, heading))
            continue
        seen_sections.add(key)
        out.extend(line for _, line in dropped)  # the repeated parents of a new subsection
        dropped = []
        if heading is not None and not again(heading.strip(), seen_lines):
            out.append(heading)
        seen_blocks: set[str] = set()
        for (block, code), text in zip(blocks, texts):
            if code:
                out.append("\n".join(block))
            elif len(block) == 1 or not again(text, seen_blocks):
                out.append("\n".join(line for line in block if not again(line.strip(), seen_lines)))
    return "\n\n".join(b for b in out if b)


def _under_headings(blocks: list[tuple[list[str], bool]]) -> list[tuple[str | None, list[tuple[list[str], bool]]]]:
    """The blocks grouped under their heading: (heading line or None, the blocks up to the next heading)."""
    sections: list[tuple[str | None, list]] = [(None, [])]
    for block, code in blocks:
        if not code and len(block) == 1 and HEADING.match(block[0]):
            sections.append((block[0], []))
        else:
            sections[-1][1].append((block, code))
    return [sec for sec in sections if sec[0] is not None or sec[1]]


def _blocks_of(markdown: str) -> list[tuple[list[str], bool]]:
    """The Markdown's blocks (paragraphs, lists, tables, code blocks), split at blank lines
    outside code, each with whether it holds code."""
    blocks: list[tuple[list[str], bool]] = []
    fresh = True
    for line, code in in_code(markdown.split("\n")):
        if not code and not line.strip():
            fresh = True
            continue
        if fresh:
            blocks.append(([], False))
            fresh = False
        lines, had_code = blocks[-1]
        lines.append(line)
        if code and not had_code:
            blocks[-1] = (lines, True)
    return blocks


REPEAT_MIN_CHARS = 100


def _is_callout(aside: Tag) -> bool:
    text = aside.get_text(" ", strip=True)
    if not _LETTER.search(text):
        return False  # empty, or only dates and numbers: a page's revision dates (MkDocs' md-source-file)
    return _link_chars(aside) <= CALLOUT_MAX_LINK_SHARE * len(text)


_LETTER = re.compile(r"[^\W\d_]")


def _json_ld_products(tags: _Tags) -> list[dict]:
    """schema.org Product objects from the page's JSON-LD (read before scripts go)."""
    found: list[dict] = []

    def walk(node) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict):
            kind = node.get("@type")
            kinds = kind if isinstance(kind, list) else [kind]
            if any(isinstance(k, str) and k.rsplit("/", 1)[-1] in ("Product", "ProductGroup") for k in kinds):
                found.append(node)
            else:
                walk(node.get("@graph"))
                walk(node.get("mainEntity"))

    for script in tags("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            walk(json.loads(script.get_text() or "null"))
        except ValueError:
            continue  # broken JSON-LD is common; the visible page still counts
    return found


def _text_of(value) -> str:
    if isinstance(value, dict):
        value = value.get("name") or value.get("@value") or ""
    if isinstance(value, list):
        value = ", ".join(_text_of(v) for v in value if _text_of(v))
    text = str(value or "")
    if " " not in text and "%20" in text:
        text = unquote(text)  # a description written URL-encoded ("An%20elegant%20sofa")
    for _ in range(2):  # HTML escaped once or twice ("L&amp;#8217;atelier")
        text = html_lib.unescape(text)
    text = _MARKUP.sub(" ", text)  # not "screens < 15 in. and > 10 in."
    return re.sub(r"\s+", " ", text).strip()[:MAX_FACT_CHARS]


_MARKUP = re.compile(r"</?[a-zA-Z][^<>]*>")


def _offer_facts(offers) -> list[tuple[str, str]]:
    offer = offers[0] if isinstance(offers, list) and offers else offers
    if not isinstance(offer, dict):
        return []
    currency = _text_of(offer.get("priceCurrency"))
    facts = []
    if offer.get("price") not in (None, ""):
        facts.append(("Price", f"{_text_of(offer.get('price'))} {currency}".strip()))
    elif offer.get("lowPrice") not in (None, ""):
        high = f" to {_text_of(offer.get('highPrice'))}" if offer.get("highPrice") not in (None, "") else ""
        facts.append(("Price", f"from {_text_of(offer.get('lowPrice'))}{high} {currency}".strip()))
    availability = _text_of(offer.get("availability")).rsplit("/", 1)[-1]
    if availability:
        facts.append(("Availability", re.sub(r"(?<=[a-z])(?=[A-Z])", " ", availability).capitalize()))
    return facts


def _product_facts(products: list[dict], markdown: str, chrome: str) -> str:
    """A "Product details" section with the JSON-LD facts the visible page does not show.
    A name or brand the chrome shows (the shop's header) is shown: it stays answerable
    from the site-wide document. A name holding the page's H1 is shown: JSON-LD adds the
    shop's name or SEO words to it."""
    visible = " ".join(markdown.split()).lower()
    with_chrome = f"{visible} {' '.join(chrome.split()).lower()}"
    visible_words = set(_WORDS.findall(visible))
    with_chrome_words = set(_WORDS.findall(with_chrome))
    heading = " ".join(_first_heading(markdown).split()).lower()
    named = re.compile(rf"(?<!\w){re.escape(heading)}(?!\w)") if len(heading.split()) >= NAME_MIN_WORDS else None
    lines: list[str] = []
    for product in products[:3]:
        facts = [
            ("Name", _text_of(product.get("name"))),
            ("Brand", _text_of(product.get("brand"))),
            ("SKU", _text_of(product.get("sku"))),
            ("Description", _text_of(product.get("description"))),
        ]
        facts += _offer_facts(product.get("offers"))
        rating = product.get("aggregateRating")
        if isinstance(rating, dict) and rating.get("ratingValue") not in (None, ""):
            count = rating.get("reviewCount") or rating.get("ratingCount")
            facts.append(
                (
                    "Rating",
                    f"{_text_of(rating.get('ratingValue'))}"
                    + (f" ({_text_of(count)} reviews)" if count not in (None, "") else ""),
                )
            )
        for label, value in facts:
            number = re.sub(r"[^\d.,]", "", value) if label == "Price" else ""
            number = re.sub(r"[.,]0+$", "", number)  # "599.00" is shown as "$599"
            words = _WORDS.findall(value.lower())
            seen_in, seen_words = (
                (with_chrome, with_chrome_words) if label in ("Name", "Brand") else (visible, visible_words)
            )
            shown = (
                value.lower() in seen_in
                or (number and number in visible)
                or (len(words) >= 4 and sum(w in seen_words for w in words) >= 0.7 * len(words))
                or (label == "Name" and named is not None and named.search(value.lower()) is not None)
            )
            if value and not shown and f"- {label}: {value}" not in lines:
                lines.append(f"- {label}: {value}")
    return f"## {PRODUCT_FACTS_HEADING}\n\n" + "\n".join(lines) if lines else ""


NAME_MIN_WORDS = 3  # an H1 of one or two words ("Necklaces") names a category, not the product


def _first_heading(markdown: str) -> str:
    for line in markdown.splitlines():
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def markdown_to_text(markdown: str) -> str:
    """The Markdown without markup: headings on their own lines, table cells space-joined."""
    out: list[str] = []
    for line in markdown.splitlines():
        stripped = line.strip()
        if re.fullmatch(r"\|?[\s:|-]+\|?", stripped) and "-" in stripped:
            continue  # a table's header separator row
        heading = re.match(r"^#{1,6}\s+", stripped)
        stripped = stripped[heading.end() :] if heading else re.sub(r"^(?:[-*+]|\d+\.)\s+", "", stripped)
        if stripped.startswith("|"):
            stripped = " ".join(c.strip() for c in stripped.strip("|").split("|") if c.strip())
        stripped = re.sub(r"(\*\*|__|`)", "", stripped)
        out.append(stripped)
    return _BLANK_RUNS.sub("\n\n", "\n".join(out)).strip()
