"""PDFs the tests build, with the text each was written with (for recall): a menu with a
price table, a two-column leaflet, a price list with an outline, a scanned page (an
image, no text layer), and a bomb (a page tree that claims a million pages in 2 KB).

reportlab (a dev dependency) writes all but the bomb, which is written by hand."""

from __future__ import annotations

import io
import re
import zlib
from dataclasses import dataclass

from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import cm
from reportlab.platypus import (
    BaseDocTemplate,
    Frame,
    PageTemplate,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)


@dataclass(frozen=True)
class BuiltPdf:
    body: bytes
    words: tuple[str, ...]  # every word written into the text layer, in order
    tables: tuple[tuple[tuple[str, ...], ...], ...] = ()  # the tables' rows, as written
    passages: tuple[str, ...] = ()  # paragraphs that must come out whole and in order


def words_of(text: str) -> list[str]:
    return re.findall(r"\w+(?:[.,']\w+)*", text.lower())


def recall(expected: tuple[str, ...], markdown: str) -> float:
    """Share of the written words found in the Markdown (as a multiset)."""
    have: dict[str, int] = {}
    for word in words_of(markdown):
        have[word] = have.get(word, 0) + 1
    found = 0
    for word in expected:
        if have.get(word, 0) > 0:
            have[word] -= 1
            found += 1
    return found / len(expected) if expected else 1.0


def in_order(expected: str, markdown: str) -> bool:
    """The passage's words appear in the Markdown as one run, in order (a two-column page
    read across the columns breaks every such run)."""
    return " ".join(words_of(expected)) in " ".join(words_of(markdown))


class _Writer:
    def __init__(self) -> None:
        self.styles = getSampleStyleSheet()
        self.story: list = []
        self.words: list[str] = []
        self.tables: list[tuple[tuple[str, ...], ...]] = []

    def para(self, text: str, style: str = "BodyText") -> None:
        self.story.append(Paragraph(text, self.styles[style]))
        self.words += words_of(text)

    def table(self, rows: list[tuple[str, ...]]) -> None:
        table = Table(rows, hAlign="LEFT")
        table.setStyle(
            TableStyle(
                [
                    ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                    ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                ]
            )
        )
        self.story.append(table)
        self.story.append(Spacer(1, 0.4 * cm))
        self.tables.append(tuple(rows))
        for row in rows:
            for cell in row:
                self.words += words_of(cell)


def menu_pdf(title: str = "Casa Lola Menu") -> BuiltPdf:
    """A restaurant's menu: a title, sections, and price tables with ruled cells."""
    w = _Writer()
    w.para(title, "Title")
    w.para("Tapas and wines from Seville, served every evening from six o'clock.")
    sections = {
        "Starters": [
            ("Dish", "Description", "Price"),
            ("Gazpacho", "Cold tomato soup with cucumber", "6.50 EUR"),
            ("Croquetas de jamon", "Six ham croquettes", "8.00 EUR"),
            ("Pimientos de Padron", "Fried green peppers with sea salt", "7.20 EUR"),
        ],
        "Mains": [
            ("Dish", "Description", "Price"),
            ("Paella valenciana", "Rice with chicken and rabbit, for two", "32.00 EUR"),
            ("Pulpo a la gallega", "Octopus with paprika and potatoes", "19.50 EUR"),
            ("Berenjenas con miel", "Fried aubergine with cane honey", "9.90 EUR"),
        ],
        "Desserts": [
            ("Dish", "Description", "Price"),
            ("Crema catalana", "Custard with burnt sugar", "5.50 EUR"),
            ("Tarta de Santiago", "Almond cake from Galicia", "6.00 EUR"),
        ],
    }
    for heading, rows in sections.items():
        w.para(heading, "Heading1")
        w.table(rows)
    w.para("Allergens", "Heading2")
    w.para(
        "Please tell your waiter about any allergy. The croquettes contain milk and gluten; "
        "the Tarta de Santiago contains almonds. Vegetarian dishes are the gazpacho, the peppers "
        "and the aubergine."
    )
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, title=title).build(w.story)
    return BuiltPdf(out.getvalue(), tuple(w.words), tuple(w.tables))


_LEAFLET = [
    (
        "Opening hours",
        "The clinic is open Monday to Friday from eight in the morning until seven in the evening, "
        "and on Saturday mornings from nine until one. Emergency appointments are kept free every "
        "morning at half past eight; call before nine to take one.",
    ),
    (
        "Your first visit",
        "Bring your insurance card and a list of the medicines you take. The first examination "
        "takes about forty minutes and includes two X-ray images of your teeth. Children under "
        "twelve are seen by Doctor Aydin, who has a separate waiting room with toys.",
    ),
    (
        "Cleaning and whitening",
        "A professional cleaning costs ninety euros and takes one hour. Whitening is done in two "
        "sessions one week apart; the gel is applied with a tray we make for your teeth. Sensitive "
        "teeth are treated with fluoride varnish first.",
    ),
    (
        "Payment",
        "We accept cash, debit cards and bank transfer. Treatments over five hundred euros can be "
        "paid in six monthly instalments without interest. Private insurance invoices are sent "
        "directly to the insurer when you ask us to.",
    ),
    (
        "Cancellations",
        "Please cancel at least twenty-four hours before your appointment. A missed appointment "
        "without notice is charged at thirty euros, which goes to the children's dental fund.",
    ),
    (
        "Parking and access",
        "There are four parking spaces behind the building, reached from Linden Street. The "
        "practice is on the ground floor, with a step-free entrance and a lift to the garden level.",
    ),
]


def two_column_pdf() -> BuiltPdf:
    """A leaflet set in two columns per page: reading order must go down each column."""
    w = _Writer()
    w.para("Smile Dental Clinic patient guide", "Title")
    passages = []
    for edition in ("Main practice", "Harbour branch", "Hill branch"):  # three pages of it
        for heading, text in _LEAFLET:
            w.para(f"{heading}, {edition}", "Heading2")
            passages.append(f"{text} This is how it works at the {edition}.")
            w.para(passages[-1])
    out = io.BytesIO()
    doc = BaseDocTemplate(out, pagesize=A4, title="Smile Dental Clinic patient guide")
    gap, width = 1 * cm, (A4[0] - doc.leftMargin - doc.rightMargin - 1 * cm) / 2
    frames = [
        Frame(doc.leftMargin, doc.bottomMargin, width, doc.height, id="left"),
        Frame(doc.leftMargin + width + gap, doc.bottomMargin, width, doc.height, id="right"),
    ]
    doc.addPageTemplates([PageTemplate(id="two", frames=frames)])
    doc.build(w.story)
    return BuiltPdf(out.getvalue(), tuple(w.words), passages=tuple(passages))


def outlined_pdf() -> BuiltPdf:
    """A price list whose headings are in the PDF's outline (bookmarks), body text in one size."""
    w = _Writer()
    entries: list[tuple[str, int]] = []
    sections = [
        ("Room rates", "A double room costs 120 euros a night with breakfast; a single room 85 euros."),
        ("Check-in and check-out", "Check-in is from three in the afternoon; check-out by eleven."),
        ("Pets", "Dogs are welcome in the garden rooms for 15 euros a night; other pets are not."),
        ("Cancellation terms", "Free cancellation until two days before arrival; later, the first night is charged."),
    ]
    for heading, text in sections:
        w.para(heading, "BodyText")  # the same size as the text: only the outline says it is a heading
        entries.append((heading, len(w.story) - 1))
        w.para(text)

    class _Doc(SimpleDocTemplate):
        def afterFlowable(self, flowable) -> None:
            text = getattr(flowable, "getPlainText", lambda: "")()
            if any(text == heading for heading, _ in entries):
                key = f"h{hash(text) & 0xFFFF}"
                self.canv.bookmarkPage(key)
                self.canv.addOutlineEntry(text, key, level=0)

    out = io.BytesIO()
    _Doc(out, pagesize=A4, title="Hotel Miramar terms").build(w.story)
    return BuiltPdf(out.getvalue(), tuple(w.words))


def scanned_pdf() -> BuiltPdf:
    """A page that is only a picture of text: no text layer to read."""
    from PIL import Image, ImageDraw
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    image = Image.new("L", (800, 400), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(["MENU DEL DIA", "Sopa de ajo 5.00", "Merluza 14.00", "Flan 4.00"]):
        draw.text((40, 40 + 60 * n), line, fill=0)
    out = io.BytesIO()
    pdf = canvas.Canvas(out, pagesize=A4)
    pdf.drawImage(ImageReader(image), 2 * cm, 15 * cm, width=16 * cm, height=8 * cm)
    pdf.showPage()
    pdf.save()
    return BuiltPdf(out.getvalue(), ())


def _pdf_of(objects: list[bytes]) -> bytes:
    """A PDF file of these objects (numbered from 1, the first the catalog), with its xref."""
    out = io.BytesIO()
    out.write(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(out.tell())
        out.write(b"%d 0 obj\n%s\nendobj\n" % (number, body))
    xref = out.tell()
    out.write(b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1))
    for offset in offsets:
        out.write(b"%010d 00000 n \n" % offset)
    out.write(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref))
    return out.getvalue()


def flate_bomb_pdf(inflated: int = 1_200_000_000) -> BuiltPdf:
    """One page whose content stream is ~1 MB compressed and `inflated` bytes inflated."""
    packer = zlib.compressobj(9)
    block = b" " * 10_000_000
    stream = b"".join([*(packer.compress(block) for _ in range(inflated // len(block))), packer.flush()])
    return BuiltPdf(
        _pdf_of(
            [
                b"<< /Type /Catalog /Pages 2 0 R >>",
                b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
                b"<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream" % (len(stream), stream),
            ]
        ),
        (),
    )


def bomb_pdf(pages: int = 20_000) -> BuiltPdf:
    """A PDF of `pages` distinct pages that share one content stream: a few hundred KB
    that a reader walking every page pays for in full."""
    content = b"BT /F1 12 Tf 72 720 Td (The same line on every page of a bomb) Tj ET"
    first_page = 5
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [%s] /Count %d >>"
        % (b" ".join(b"%d 0 R" % (first_page + n) for n in range(pages)), pages),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    page = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>"
    objects += [page] * pages
    return BuiltPdf(_pdf_of(objects), ())
