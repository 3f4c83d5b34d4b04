"""Site-level template stripping (R-6.1 … R-6.4).

Statistical and language-free: a short line that appears verbatim on more than
half of a site's pages (or of the pages sharing one language, R-6.1b) is
template. It is dropped from every page and kept once in a site-wide document,
so the phone number in the footer stays answerable (R-6.3).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, replace

from ingest.extract.facts import contact_page
from ingest.models import Document, TemplateReport

MAX_TEMPLATE_LINE_CHARS = 200
# Below this many pages "more than half" means one or two pages: too little evidence. *ours*
MIN_PAGES_FOR_TEMPLATE = 4
# Safety valve: a page left with less own text than this keeps its lines,
# judged on the text that remains, never on the share dropped. *ours*
MIN_REMAINING_CHARS = 80
# A template line that stands in the main content of a contact page and of no more than
# this many pages in all is the contact page's own: its address and e-mail, which the
# footer repeats on every page, stay there (they were cut, and the page's "Find us" lost
# its address). Elsewhere such lines are a footer the page's markup did not mark. *ours*
OWN_LINE_MAX_PAGES = 2
TITLE_SEPARATORS = (" - ", " | ", " – ", " — ", " · ", " :: ", " » ")
SITE_DOCUMENT_TITLE = "Site-wide information"
# The site-wide document is stored under the homepage URL with this fragment.
SITE_DOCUMENT_FRAGMENT = "#site-wide"
# Its blocks (the address, the contact lines, opening hours, a newsletter box, a menu)
# become passages of their own. A block of fewer words joins the next, and a copyright
# line the block before it, so "© 2024 Acme" never stands alone and ranks for whatever it
# shares a word with (a first split into footer blocks lost figures that way). *ours*
SITE_BLOCK_MIN_WORDS = 6


@dataclass(frozen=True)
class TemplateResult:
    documents: list[Document]
    site_document: Document | None
    template_lines: frozenset[str]
    report: TemplateReport


def _candidate(line: str) -> str | None:
    text = line.strip()
    # Table rows stay: a repeated header row ("| Name | Price |") is what makes a table readable.
    if not text or len(text) >= MAX_TEMPLATE_LINE_CHARS or text.startswith("|"):
        return None
    return text


def _page_lines(doc: Document) -> set[str]:
    lines = set()
    for line in (doc.markdown + "\n" + doc.chrome).splitlines():
        candidate = _candidate(line)
        if candidate:
            lines.add(candidate)
    return lines


def _recovered_blocks(doc: Document) -> set[str]:
    return {" ".join(block.split()) for block in doc.recovered if block.strip()}


def find_template_lines(documents: list[Document]) -> frozenset[str]:
    """Lines present on more than half of all pages, or of the pages of one language.
    A recovered block (ingest.extract.html) is judged whole, whatever its length: one found
    on more than half of the pages contributes all its lines (R-5.2, R-6.1)."""
    groups: dict[str, list[Document]] = defaultdict(list)
    for doc in documents:
        groups[doc.lang or ""].append(doc)
    template: set[str] = set()
    for group in [documents, *groups.values()] if len(groups) > 1 else [documents]:
        if len(group) < MIN_PAGES_FOR_TEMPLATE:
            continue
        counts = Counter(line for doc in group for line in _page_lines(doc))
        template.update(line for line, n in counts.items() if n * 2 > len(group))
        blocks = Counter(block for doc in group for block in _recovered_blocks(doc))
        repeated = {block for block, n in blocks.items() if n * 2 > len(group)}
        for doc in group:
            for block in doc.recovered:
                if " ".join(block.split()) in repeated:
                    template.update(line.strip() for line in block.splitlines() if line.strip())
    return frozenset(template)


def _common_title_suffix(documents: list[Document]) -> str | None:
    counts: Counter[str] = Counter()
    for doc in documents:
        for sep in TITLE_SEPARATORS:
            if sep in doc.title:
                counts[sep + doc.title.rsplit(sep, 1)[1]] += 1
    if not counts or len(documents) < MIN_PAGES_FOR_TEMPLATE:
        return None
    suffix, n = counts.most_common(1)[0]
    return suffix if n * 2 > len(documents) else None


def strip_templates(documents: list[Document], homepage_url: str | None = None) -> TemplateResult:
    template = find_template_lines(documents)
    suffix = _common_title_suffix(documents)
    report = TemplateReport(template_lines=len(template))
    in_content = Counter(
        text for doc in documents for text in {raw.strip() for raw in doc.markdown.splitlines()} if text in template
    )
    stripped: list[Document] = []
    for doc in documents:
        kept, dropped_chars = [], 0
        own = contact_page(doc.url)
        for line in doc.markdown.splitlines():
            text = line.strip()
            if text in template and not (own and in_content[text] <= OWN_LINE_MAX_PAGES):
                dropped_chars += len(text)
            else:
                kept.append(line)
        remaining = "\n".join(kept).strip()
        if dropped_chars and sum(len(l.strip()) for l in kept) < MIN_REMAINING_CHARS:
            remaining, dropped_chars = doc.markdown, 0
        title = doc.title
        if suffix and title.endswith(suffix) and len(title) > len(suffix):
            title = title[: -len(suffix)].strip()
        report.chars_dropped += dropped_chars
        if dropped_chars:
            report.chars_dropped_per_page[doc.url] = dropped_chars
        stripped.append(replace(doc, markdown=_collapse_blank_lines(remaining), title=title))
    site_document = _site_document(documents, template, homepage_url, suffix)
    return TemplateResult(stripped, site_document, template, report)


def _site_document(
    documents: list[Document], template: frozenset[str], homepage_url: str | None, suffix: str | None
) -> Document | None:
    """The template read once, from the homepage, in page order (R-6.3): each block (the
    address, the contact lines, opening hours, a newsletter box, a menu) a section of its
    own, so a passage says one thing (#18). Nothing is left out: telling a menu from a
    list of opening hours or services takes evidence this document cannot keep stable
    (the pages a menu names come and go between runs)."""
    if not documents:
        return None
    home = next((d for d in documents if d.url == homepage_url), documents[0])
    seen: set[str] = set()
    blocks: list[list[str]] = []
    headings: list[str] = []  # heading lines waiting for the block they head
    for block in re.split(r"\n\s*\n", home.chrome + "\n\n" + home.markdown):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        lines = [t for t in lines if t in template or (not template and t in home.chrome)]
        if not lines:
            continue
        if all(_HEADING_LINE.match(line) for line in lines):
            headings += lines  # "##### Öffnungszeiten" above its list
            continue
        blocks.append(headings + lines)
        headings = []
    if headings:
        blocks.append(headings)
    unique: list[list[str]] = []  # each line once, in its first block
    for block in blocks:
        block = [line for line in block if line not in seen]
        seen.update(block)
        if block:
            unique.append(block)
    blocks = unique
    if not blocks:
        return None
    site_name = suffix.strip(" -|–—·:»") if suffix else home.title
    return Document(
        url=home.url + SITE_DOCUMENT_FRAGMENT,
        title=f"{site_name} – {SITE_DOCUMENT_TITLE}" if site_name else SITE_DOCUMENT_TITLE,
        markdown="\n\n".join(_section(block) for block in _joined_small(blocks)),
        lang=home.lang,
    )


_HEADING_LINE = re.compile(r"^(?:#{1,6}\s+(.+?)\s*#*|\*\*(.+?)\*\*)$")
_WORD = re.compile(r"\w+")
_COPYRIGHT = re.compile(r"^(?:©|\(c\)|copyright)", re.IGNORECASE)


def _joined_small(blocks: list[list[str]]) -> list[list[str]]:
    """Blocks of fewer than SITE_BLOCK_MIN_WORDS words joined to the next one (the last
    to the one before), and a copyright line to the block before it."""
    joined: list[list[str]] = []
    pending: list[str] = []
    for block in blocks:
        if _COPYRIGHT.match(block[0]) and (joined or pending):
            (pending or joined[-1]).extend(block)
            continue
        pending += block
        if len(_WORD.findall(" ".join(pending))) >= SITE_BLOCK_MIN_WORDS:
            joined.append(pending)
            pending = []
    if pending:
        if joined:
            joined[-1] += pending
        else:
            joined.append(pending)
    return joined


def _section(lines: list[str]) -> str:
    """A block as a section headed by its own heading, its short first line, or its first
    words. Headings inside it become its text (a section of only headings would be no
    passage at all, and "## Tel 0761 …" would be lost)."""
    lines = [_heading_text(line) or line for line in lines]
    words = lines[0].split()
    if len(words) <= 8 and len(lines) > 1:
        heading, body = lines[0], lines[1:]
    else:
        heading, body = " ".join(words[:6]) + (" …" if len(words) > 6 else ""), lines
    return f"## {heading}\n\n" + "\n".join(body)


def _heading_text(line: str) -> str | None:
    match = _HEADING_LINE.match(line)
    return (match.group(1) or match.group(2)).strip() if match else None


def _collapse_blank_lines(text: str) -> str:
    out: list[str] = []
    for line in text.splitlines():
        if not line.strip() and out and not out[-1].strip():
            continue
        out.append(line)
    return "\n".join(out).strip()
