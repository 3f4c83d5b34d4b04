"""PDFs as pages (R-15.2): a menu, a price list or a brochure the site links to, as
Markdown with headings and tables, page numbers in the heading paths.

pdfplumber (MIT, on pdfminer.six) reads the text layer: pdfminer's layout analysis puts
the text boxes in reading order (down one column, then the next), pdfplumber finds the
ruled tables, which become Markdown tables where they stand. Headings come from the
font size (lines set larger than the body text) and from the PDF's outline (bookmarks).
A document without headings gets one section per page ("Page 3"); one with headings
says on which page each starts ("Mains (page 2)"). A PDF with no text layer but
pictures is a scan: reported (`ScannedPdf`), never guessed at.

Reading runs in a child process (`read_pdf`) with a memory cap and the page budget as
its time limit: a PDF is a program of sorts, and a hostile or broken one (a page tree of
a million pages, a compressed stream that inflates to gigabytes, a parser loop) costs at
most that, while the crawl goes on. At most `max_pages` pages are read.
"""

from __future__ import annotations

import asyncio
import io
import itertools
import json
import re
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from urllib.parse import unquote, urlsplit

# A line set this much larger than the body text is a heading. *ours*
HEADING_RATIO = 1.18
# Longer than this, a large line is display text, not a heading. *ours*
MAX_HEADING_CHARS = 120
# Running heads and feet live in this share of the page at its top and bottom. *ours*
MARGIN = 0.1
# A page number in a running line: "3", "- 3 -", "Page 3", "Seite 3 von 12", "3 / 12".
_PAGE_NUMBER = re.compile(
    r"^[-–—\s]*\d+[-–—\s]*$"
    r"|\b(?:page|seite|página|pagina|sayfa|sida|side|p\.|s\.)\s*\d+(?:\s*(?:of|von|de|di|/|sur)\s*\d+)?"
    r"|\b\d+\s*(?:/|of|von|de|sur)\s*\d+\b"
)
# The child's address-space cap: pdfplumber with a parsed page needs ~100 MB. *ours*
CHILD_MEMORY_MB = 1024
_BULLET = re.compile(r"^[•·▪◦‣●■\-–]\s+")
_JUNK_TITLE = re.compile(r"^(untitled|document\d*|microsoft word\b.*|.*\.(docx?|odt|pdf|indd|pages))$", re.I)


class PdfError(Exception):
    """The PDF could not be read (damaged, encrypted, over its limits)."""


class ScannedPdf(PdfError):
    """Pictures of pages, no text layer: reading it would be OCR's guess (R-15.2)."""


def is_pdf(body: bytes) -> bool:
    """The `%PDF-` header, which may follow some junk bytes (the format allows 1,024)."""
    return b"%PDF-" in body[:1024]


@dataclass
class PdfText:
    title: str
    markdown: str
    pages_read: int
    pages_total: int
    # Tables found, as rows (tests and the benchmark check them).
    tables: list[list[list[str]]] = field(default_factory=list)


@dataclass
class _Line:
    text: str
    size: float
    top: float
    box: int = 0  # the pdfminer text box it is in: a box is a paragraph
    margin: bool = False  # in the page's top or bottom tenth, where running heads and feet are


@dataclass
class _Table:
    rows: list[list[str]]
    size: float = 0.0  # the size most of its text is set in (price lists are mostly tables)


def _clean_title(title: object) -> str:
    if isinstance(title, bytes):
        title = title.decode("utf-8", "replace")
    text = " ".join(str(title or "").split())
    text = re.sub(r"^Microsoft (Word|PowerPoint) - ", "", text)
    return "" if not text or _JUNK_TITLE.match(text) else text


def title_from_url(url: str) -> str:
    """ "Speisekarte_2024-Sommer.pdf" -> "Speisekarte 2024 Sommer"."""
    name = unquote(urlsplit(url).path.rsplit("/", 1)[-1])
    name = re.sub(r"\.pdf$", "", name, flags=re.I)
    return " ".join(re.sub(r"[_\-+.]+", " ", name).split()) or "PDF"


def _line_size(line) -> float:
    sizes = [round(ch.size, 1) for ch in line if hasattr(ch, "size") and not ch.get_text().isspace()]
    return statistics.median(sizes) if sizes else 0.0


def _page_items(page) -> tuple[list[_Line | _Table], int, int]:
    """A page's lines and tables in reading order, its character count and its pictures."""
    from pdfminer.layout import LTTextBox, LTTextLine

    tables = []
    for found in page.find_tables():
        rows = [[" ".join((cell or "").split()) for cell in row] for row in found.extract()]
        rows = [row for row in rows if any(row)]
        if len(rows) >= 2 and max(len(row) for row in rows) >= 2:
            tables.append((found.bbox, rows))

    def table_at(x: float, top: float) -> int | None:
        return next((i for i, ((x0, t, x1, b), _) in enumerate(tables) if x0 <= x <= x1 and t <= top <= b), None)

    table_sizes: list[Counter[float]] = [Counter() for _ in tables]

    items: list[_Line | _Table] = []
    chars = 0
    height = page.height
    for number, box in enumerate(page.layout):
        if not isinstance(box, LTTextBox):
            continue
        for line in box:
            if not isinstance(line, LTTextLine):
                continue
            text = " ".join(line.get_text().split())
            if not text:
                continue
            top = height - line.y1
            inside = table_at((line.x0 + line.x1) / 2, (top + height - line.y0) / 2)
            if inside is not None:  # the table carries it; its size still tells the body's
                table_sizes[inside][_line_size(line)] += len(text)
                continue
            chars += len(text)
            margin = top < MARGIN * height or height - line.y0 > (1 - MARGIN) * height
            items.append(_Line(text, _line_size(line), top, number, margin))
    for index in sorted(range(len(tables)), key=lambda i: tables[i][0][1]):
        (_, _, _, bottom), rows = tables[index]
        sizes = table_sizes[index]
        chars += sum(len(cell) for row in rows for cell in row)
        after = next(
            (i for i, item in enumerate(items) if isinstance(item, _Line) and item.top >= bottom),
            len(items),
        )
        items.insert(after, _Table(rows, sizes.most_common(1)[0][0] if sizes else 0.0))
    return items, chars, len(page.images)


def _markdown_table(rows: list[list[str]]) -> str:
    width = max(len(row) for row in rows)

    def line(row: list[str]) -> str:
        cells = [cell.replace("|", "\\|") for cell in row] + [""] * (width - len(row))
        return "| " + " | ".join(cells) + " |"

    return "\n".join([line(rows[0]), "| " + " | ".join(["---"] * width) + " |", *(line(row) for row in rows[1:])])


def _outline_levels(document) -> dict[str, int]:
    """Bookmark titles (casefolded) and their levels, 1 at the top."""
    try:
        return {" ".join(str(title).split()).casefold(): level for level, title, *_ in document.get_outlines()}
    except Exception:  # no outline (PDFNoOutlines), or a damaged one: headings by size only
        return {}


def pdf_to_markdown(body: bytes, max_pages: int, url: str = "") -> PdfText:
    """The PDF's first `max_pages` pages as Markdown; ScannedPdf or PdfError when there is
    no text to give."""
    import pdfplumber
    from pdfminer.pdfpage import PDFPage
    from pdfplumber.page import Page

    try:
        pdf = pdfplumber.open(io.BytesIO(body), laparams={})
    except Exception as exc:  # pdfminer's many parse errors: damaged, or encrypted
        raise PdfError(f"not a readable PDF ({type(exc).__name__}: {' '.join(str(exc).split())[:160]})") from None
    with pdf:
        try:
            total = int(pdf.doc.catalog["Pages"].resolve().get("Count", 0))  # what the file claims
        except Exception:
            total = 0
        pages: list[list[_Line | _Table]] = []
        chars = images = 0
        doctop = 0.0
        try:
            for number, page_obj in enumerate(itertools.islice(PDFPage.create_pages(pdf.doc), max_pages), 1):
                page = Page(pdf, page_obj, page_number=number, initial_doctop=doctop)
                doctop += page.height
                items, page_chars, page_images = _page_items(page)
                pages.append(items)
                chars, images = chars + page_chars, images + page_images
                page.close()
        except Exception as exc:
            if _caused_by(exc, MemoryError):  # pdfplumber wraps it: the memory cap, not a damaged file
                raise MemoryError from None
            if not pages:
                raise PdfError(f"not a readable PDF ({type(exc).__name__})") from None
        if chars == 0:
            if images:
                raise ScannedPdf("the PDF's pages are pictures with no text layer")
            raise PdfError("the PDF has no text")
        title = _clean_title(pdf.metadata.get("Title"))
        outline = _outline_levels(pdf.doc)
    markdown, title = _write(pages, outline, title)
    return PdfText(
        title=title or title_from_url(url),
        markdown=markdown,
        pages_read=len(pages),
        pages_total=max(total, len(pages)),
        tables=[item.rows for items in pages for item in items if isinstance(item, _Table)],
    )


def _write(pages: list[list[_Line | _Table]], outline: dict[str, int], title: str) -> tuple[str, str]:
    """The Markdown, and the title: the file's own, else the first page's largest line."""
    counts: Counter[float] = Counter()
    for items in pages:
        for item in items:
            if isinstance(item, _Line):
                counts[item.size] += len(item.text)
            elif item.size:
                counts[item.size] += sum(len(cell) for row in item.rows for cell in row)
    body_size = counts.most_common(1)[0][0] if counts else 0.0
    pages = _without_running_lines(pages)

    def is_large(line: _Line) -> bool:
        return (
            line.size >= body_size * HEADING_RATIO
            and len(line.text) <= MAX_HEADING_CHARS
            and any(ch.isalpha() for ch in line.text)
            and not line.text.endswith((".", ","))
        )

    sizes = sorted({line.size for items in pages for line in items if isinstance(line, _Line) and is_large(line)})
    sizes.reverse()
    if not title and pages and sizes:  # no title in the file: the first page's largest line(s), if alone
        first = [item for item in pages[0] if isinstance(item, _Line)]
        top = next((i for i, line in enumerate(first) if line.size == sizes[0]), None)
        if top is not None:
            run = [first[top]]
            for line in first[top + 1 :]:
                if line.size != sizes[0] or line.box != run[0].box:
                    break
                run.append(line)
            others = [line for items in pages for line in items if isinstance(line, _Line) and line.size == sizes[0]]
            if len(others) == len(run):  # set once: a title; more often: the sections' level
                title = " ".join(line.text for line in run)

    def level(line: _Line) -> int:
        if line.text.casefold() in outline:
            return min(outline[line.text.casefold()], 3)
        return min(sizes.index(line.size) + 1, 3) if is_large(line) else 0

    # Headings other than the title (which names the document and is not a section).
    def names_document(line: _Line, page: int) -> bool:
        """The title itself, or (on the first page, in the title's size) one of its lines."""
        text, name = line.text.casefold(), title.casefold()
        return text == name or (page == 0 and bool(sizes) and line.size == sizes[0] and text in name)

    has_headings = any(
        level(line) and not names_document(line, page)
        for page, items in enumerate(pages)
        for line in items
        if isinstance(line, _Line)
    )
    out: list[str] = []
    paragraph: list[str] = []
    pending: list = []  # [level, text, page, box]: a heading may be set on two lines

    def flush() -> None:
        if pending:
            depth, text, page, _ = pending
            if not (title and text.casefold() == title.casefold()):  # the title names the document
                out.append(f"{'#' * depth} {text}{f' (page {page})' if depth <= 2 else ''}")
            pending.clear()
        if paragraph:
            out.append(_join(paragraph))
            paragraph.clear()

    for number, items in enumerate(pages, 1):
        flush()
        if not has_headings:
            out.append(f"# Page {number}")
        box = None
        for item in items:
            heading = level(item) if isinstance(item, _Line) else 0
            if heading:
                if pending and pending[0] == heading and pending[3] == item.box and not paragraph:
                    pending[1] += f" {item.text}"  # the heading's next line, in its text box
                else:
                    flush()
                    pending.extend([heading, item.text, number, item.box])
                continue
            if isinstance(item, _Table):
                flush()
                out.append(_markdown_table(item.rows))
            elif _BULLET.match(item.text):
                flush()
                out.append(_BULLET.sub("- ", item.text))
            else:
                if pending or item.box != box:
                    flush()  # a text box of its own is a paragraph of its own
                paragraph.append(item.text)
            box = getattr(item, "box", None)
    flush()
    return "\n\n".join(out) + "\n", title


def _caused_by(exc: BaseException | None, kind: type[BaseException]) -> bool:
    while exc is not None:
        if isinstance(exc, kind):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def _without_running_lines(pages: list[list[_Line | _Table]]) -> list[list[_Line | _Table]]:
    """Without running headers and footers: a line alone in its text box, in the top or
    bottom tenth of the page, with the same words on more than half of the pages (at
    least three). Only a page number may differ ("Page 3 of 12", "- 3 -"): "Day 1" ...
    "Day 5" or "Room 4: 95 euros" are text, not furniture."""
    if len(pages) < 3:
        return pages
    boxes = [Counter(item.box for item in items if isinstance(item, _Line)) for items in pages]

    def candidate(item: _Line | _Table, page: int) -> bool:
        return isinstance(item, _Line) and item.margin and boxes[page][item.box] == 1

    def key(line: _Line) -> str:
        return _PAGE_NUMBER.sub("#", " ".join(line.text.casefold().split()))

    seen: Counter[str] = Counter()
    for page, items in enumerate(pages):
        seen.update({key(item) for item in items if candidate(item, page)})
    running = {text for text, n in seen.items() if n * 2 > len(pages)}
    kept = [
        [item for item in items if not (candidate(item, page) and key(item) in running)]
        for page, items in enumerate(pages)
    ]
    # A document that is one line on every page is that line, not a footer.
    return kept if any(isinstance(item, _Line) for items in kept for item in items) else pages


def _join(lines: list[str]) -> str:
    text = ""
    for line in lines:
        if text.endswith("-") and text[-2:-1].isalpha() and line[:1].islower():
            text += line  # a word broken at the line's end: "instal-" "ments"
        else:
            text = f"{text} {line}" if text else line
    return text


# -- the child process -----------------------------------------------------------------


async def read_pdf(body: bytes, url: str, max_pages: int, budget_s: float) -> PdfText:
    """pdf_to_markdown in a child process, under a memory cap and `budget_s` seconds."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "ingest.extract.pdf",
        str(max_pages),
        str(CHILD_MEMORY_MB),
        url,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(body), budget_s)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise PdfError(f"reading the PDF took longer than {budget_s:g} s (setting page_budget_s)") from None
    except asyncio.CancelledError:
        process.kill()
        raise
    try:
        answer = json.loads(out)
    except ValueError:
        last = (err.decode("utf-8", "replace").strip().splitlines() or ["no output"])[-1]
        raise PdfError(f"the PDF reader stopped ({'out of memory' if 'MemoryError' in last else last[:160]})") from None
    if "error" in answer:
        raise (ScannedPdf if answer["error"] == "scanned" else PdfError)(answer["detail"])
    return PdfText(**answer)


def _child(argv: list[str]) -> None:
    import resource

    max_pages, memory_mb, url = int(argv[0]), int(argv[1]), argv[2]
    limit = memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    body = sys.stdin.buffer.read()
    try:
        text = pdf_to_markdown(body, max_pages, url)
        answer: dict = text.__dict__
    except ScannedPdf as exc:
        answer = {"error": "scanned", "detail": str(exc)}
    except PdfError as exc:
        answer = {"error": "unreadable", "detail": str(exc)}
    except MemoryError:
        answer = {"error": "unreadable", "detail": f"the PDF needs more than {memory_mb} MB to read"}
    sys.stdout.write(json.dumps(answer))


if __name__ == "__main__":
    _child(sys.argv[1:])
