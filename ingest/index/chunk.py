"""Chunking on Markdown structure with `Page title > H1 > H2` heading paths (R-7.1 … R-7.3).

Sections split at headings; inside a section, blocks (paragraphs, whole lists,
whole tables) are packed up to the token budget. A block too big on its own is
split: tables by rows with the header repeated (R-7.3), lists by items,
paragraphs by sentences, then words.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ingest.extract.markdown import HEADING, in_code
from ingest.index.tokens import count_tokens
from ingest.models import Chunk, Document

CHUNKING_VERSION = "1"
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_WORD = re.compile(r"\w")
_EMPHASIS = re.compile(r"\*\*|__|`")
# Text before a block too big for one chunk leads the block's first piece when it takes
# at most 1/SMALL_LEAD_SHARE of the budget (an introduction); longer, it is a chunk of its own. *ours*
SMALL_LEAD_SHARE = 3
# A sentence ends at . ! ? or 。 before a space, but not after a lone number: "jeder 3.
# Dienstag im Monat", "am 24. August" are one sentence (split there, the tail
# "Dienstag im Monat um 19 Uhr)." became a passage of its own). Nor after a short word
# before a number: "τηλ. 210 654 3210", "Tel. +49 …", "Nr. 5" (split there, a web host's
# number began a passage without the host's name). *ours*
_ABBREVIATED = "[A-Za-zÀ-ɏͰ-ϿЀ-ӿ]"  # Latin, Greek, Cyrillic: a Korean "…입니다." ends a sentence
_SENTENCE_END = re.compile(
    r"(?<!\b\d\.)(?<!\b\d\d\.)(?<=[.!?。])"
    rf"(?:(?<!\b{_ABBREVIATED}\.)(?<!\b{_ABBREVIATED}{{2}}\.)(?<!\b{_ABBREVIATED}{{3}}\.)(?<!\b{_ABBREVIATED}{{4}}\.)"
    r"|(?!\s+[\d+(]))\s+"
)


def _sections(markdown: str) -> Iterator[tuple[tuple[str, ...], list[str]]]:
    """(path of H1/H2 headings, body lines) per section; H3+ headings stay in the body."""
    h1 = h2 = None
    lines: list[str] = []
    for line, code in in_code(markdown.splitlines()):
        match = None if code else HEADING.match(line)  # "# install" in a code block is code
        if match and len(match.group(1)) <= 2:
            if any(l.strip() for l in lines):
                yield tuple(h for h in (h1, h2) if h), lines
            lines = []
            heading = _EMPHASIS.sub("", match.group(2)).strip()
            if len(match.group(1)) == 1:
                h1, h2 = heading, None
            else:
                h2 = heading
        else:
            lines.append(line)
    if any(l.strip() for l in lines):
        yield tuple(h for h in (h1, h2) if h), lines


def _blocks(lines: list[str]) -> list[str]:
    """Paragraphs, lists, tables and fenced code blocks as units; a heading line starts a new block."""
    blocks: list[list[str]] = []
    current: list[str] = []
    kind = None
    for line in lines:
        stripped = line.strip()
        if kind == "code":  # a fenced code block is one unit, blank lines and all
            current.append(line)
            if stripped.startswith("```"):
                blocks.append(current)
                current, kind = [], None
            continue
        if stripped.startswith("```"):
            if current:
                blocks.append(current)
            current, kind = [line], "code"
            continue
        if not stripped:
            if kind != "list":
                if current:
                    blocks.append(current)
                current, kind = [], None
            continue
        line_kind = (
            "table"
            if stripped.startswith("|")
            else (
                "list"
                if _LIST_ITEM.match(line) or (kind == "list" and line.startswith(" "))
                else "heading"
                if HEADING.match(line)
                else "text"
            )
        )
        if current and (line_kind != kind or line_kind == "heading"):
            blocks.append(current)
            current = []
        current.append(line)
        kind = line_kind
    if current:
        blocks.append(current)
    return ["\n".join(b).strip("\n") for b in blocks if any(l.strip() for l in b)]


def _split_block(block: str, budget: int) -> list[str]:
    """Split one oversized block into smaller units; each strategy applies only when it
    yields more than one unit, so recursion always works on strictly smaller pieces."""
    lines = block.splitlines()
    is_table = lines[0].lstrip().startswith("|") and len(lines) > 3
    if is_table and set(lines[1].replace("|", "").strip()) <= set("-: "):
        return _pack(lines[2:], budget, header="\n".join(lines[:2]))
    items: list[str] = []
    for line in lines:
        if _LIST_ITEM.match(line) or not items:
            items.append(line)
        else:
            items[-1] += "\n" + line
    if len(items) > 1:
        return _pack(items, budget)
    sentences = _SENTENCE_END.split(block)
    if len(sentences) > 1:
        return _pack(sentences, budget, joiner=" ")
    pieces, current = [], []
    for word in block.split():
        current.append(word)
        if len(current) > 1 and count_tokens(" ".join(current)) > budget:
            current.pop()
            pieces.append(" ".join(current))
            current = [word]
    if current:
        pieces.append(" ".join(current))
    return pieces


def _pack(units: list[str], budget: int, header: str = "", joiner: str = "\n") -> list[str]:
    """Greedy packing of units under `budget` tokens; oversized units are split further."""
    pieces: list[str] = []
    current: list[str] = []
    header_tokens = count_tokens(header) if header else 0
    for unit in units:
        candidate = joiner.join([*current, unit])
        if count_tokens(candidate) + header_tokens <= budget:
            current.append(unit)
            continue
        lead = count_tokens(joiner.join(current)) + 2 if current else 0
        # A block too big for any chunk is split, and the few words before it lead its
        # first piece: "… please respect these rules:" stays with the rules, not alone.
        if count_tokens(unit) + header_tokens <= budget or lead > budget // SMALL_LEAD_SHARE:
            # A heading belongs with the text under it: the last subsection ("### Sophie
            # Brülhart", her title) moves on with the block that continues it when they fit
            # a chunk together, instead of ending this one cut off from its text; a heading
            # that ends the chunk leads what follows, split or not.
            at = next((i for i in range(len(current) - 1, 0, -1) if HEADING.match(current[i])), None)
            carried: list[str] = []
            if at is not None and (
                at == len(current) - 1 or count_tokens(joiner.join([*current[at:], unit])) + header_tokens <= budget
            ):
                carried, current = current[at:], current[:at]
            if current:
                pieces.append(joiner.join(current))
            current = carried
            if count_tokens(joiner.join([*current, unit])) + header_tokens <= budget:
                current.append(unit)
                continue
            lead = count_tokens(joiner.join(current)) + 2 if current else 0
        split = _split_block(unit, budget - header_tokens - lead)
        if current:
            split[0] = joiner.join([*current, split[0]])
        pieces.extend(split[:-1])
        current = [split[-1]]  # what follows may join the last piece
    if current:
        pieces.append(joiner.join(current))
    return [f"{header}\n{p}" if header else p for p in pieces]


def body_of(text: str, heading: str) -> str:
    """A passage's text without its heading path (Chunk.text starts with it when the
    passage has one)."""
    prefix = f"{heading}\n\n"
    return text[len(prefix) :] if heading and text.startswith(prefix) else text


def chunk_document(doc: Document, max_tokens: int) -> list[Chunk]:
    """Chunks whose full text (heading path + body) stays within `max_tokens`."""
    chunks: list[Chunk] = []
    title = doc.title.strip()
    for headings, lines in _sections(doc.markdown):
        path = [title] if title else []
        for heading in headings:
            if not path or heading.casefold() != path[-1].casefold():
                path.append(heading)
        heading_path = tuple(path)
        budget = max(32, max_tokens - count_tokens(" > ".join(heading_path)) - 2)
        for body in _pack(_blocks(lines), budget, joiner="\n\n"):
            if not _WORD.search(body):
                continue  # "..." or a lone separator says nothing a caller could ask about
            chunk = Chunk(
                url=doc.url,
                title=title,
                heading_path=heading_path,
                body=body.strip(),
                position=len(chunks),
                tokens=0,
                lang=doc.lang,
            )
            chunks.append(replace(chunk, tokens=count_tokens(chunk.text)))
    return chunks
