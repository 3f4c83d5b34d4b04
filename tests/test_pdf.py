"""PDF reading (R-15.2): text in reading order, headings, tables, scans refused, and the
child process's bounds on hostile files."""

from __future__ import annotations

import asyncio

import pytest
from pdfs import (
    bomb_pdf,
    flate_bomb_pdf,
    in_order,
    menu_pdf,
    outlined_pdf,
    recall,
    scanned_pdf,
    two_column_pdf,
)

from ingest.extract.pdf import PdfError, ScannedPdf, is_pdf, pdf_to_markdown, read_pdf, title_from_url


def test_menu_keeps_its_price_tables_as_tables():
    built = menu_pdf()
    text = pdf_to_markdown(built.body, 50, "https://casalola.example/menu.pdf")
    assert text.title == "Casa Lola Menu"
    assert [tuple(tuple(row) for row in table) for table in text.tables] == list(built.tables)
    assert recall(built.words, f"{text.title}\n{text.markdown}") >= 0.95
    assert "# Mains (page 1)\n\n| Dish | Description | Price |\n| --- | --- | --- |\n| Paella valenciana |" in (
        text.markdown
    )
    assert "## Allergens (page 1)" in text.markdown  # a smaller heading, one level down


def test_two_columns_are_read_down_each_column():
    built = two_column_pdf()
    text = pdf_to_markdown(built.body, 50)
    assert text.pages_read == text.pages_total >= 2
    assert recall(built.words, f"{text.title}\n{text.markdown}") >= 0.95
    assert all(in_order(passage, text.markdown) for passage in built.passages)
    assert "## Payment, Hill branch (page" in text.markdown


def test_outline_entries_are_headings_even_in_body_size():
    text = pdf_to_markdown(outlined_pdf().body, 50)
    assert "# Pets (page 1)\n\nDogs are welcome" in text.markdown


def test_a_document_without_headings_gets_a_section_per_page():
    text = pdf_to_markdown(bomb_pdf(pages=3).body, 50, "https://x.example/files/Speisekarte_Sommer-2024.pdf")
    assert text.title == "Speisekarte Sommer 2024"  # no title in the file: its name says it
    assert [line for line in text.markdown.splitlines() if line.startswith("#")] == ["# Page 1", "# Page 2", "# Page 3"]


def test_a_scan_is_refused_not_guessed():
    with pytest.raises(ScannedPdf):
        pdf_to_markdown(scanned_pdf().body, 50)


def test_not_a_pdf_is_a_clear_error():
    assert not is_pdf(b"<html>")
    with pytest.raises(PdfError, match="not a readable PDF"):
        pdf_to_markdown(b"%PDF-1.4\n garbage with no objects", 50)


def test_title_from_url():
    assert title_from_url("https://x.example/a/Price%20List_2025.PDF") == "Price List 2025"


def test_the_child_reads_at_most_max_pages_of_a_bomb():
    text = asyncio.run(read_pdf(bomb_pdf().body, "https://x.example/bomb.pdf", 25, 30))
    assert (text.pages_read, text.pages_total) == (25, 20_000)


def test_the_child_stops_at_its_time_budget():
    with pytest.raises(PdfError, match="longer than 0.5 s"):
        asyncio.run(read_pdf(bomb_pdf().body, "https://x.example/bomb.pdf", 20_000, 0.5))


def test_the_child_stops_at_its_memory_cap():
    """A 1 MB stream that inflates to 1.2 GB: the child hits its cap, the crawl gets an error."""
    with pytest.raises(PdfError, match="needs more than"):
        asyncio.run(read_pdf(flate_bomb_pdf().body, "https://x.example/bomb.pdf", 10, 60))


def _pdf(pages: list[list[tuple[str, str]]], title: str = "", header: str = "", footer: str = "") -> bytes:
    """A PDF of these pages, each a list of (style, text) paragraphs; `header` and `footer`
    are drawn in the margins of every page ("{page}" is the page's number)."""
    import io

    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, SimpleDocTemplate

    styles = getSampleStyleSheet()
    story = []
    for n, paragraphs in enumerate(pages):
        if n:
            story.append(PageBreak())
        story += [Paragraph(text, styles[style]) for style, text in paragraphs]

    def margins(canvas, doc) -> None:
        if header:
            canvas.drawString(72, A4[1] - 40, header.format(page=doc.page))
        if footer:
            canvas.drawString(72, 30, footer.format(page=doc.page))

    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4, title=title).build(story, onFirstPage=margins, onLaterPages=margins)
    return out.getvalue()


BODY = "The garden rooms look over the orchard and have their own terrace with two chairs and a table."


def test_a_document_whose_only_heading_is_its_title_gets_page_sections():
    body = _pdf([[("Title", "Hotel Miramar brochure"), ("BodyText", BODY)], [("BodyText", BODY + " Second page.")]])
    text = pdf_to_markdown(body, 50)
    assert text.title == "Hotel Miramar brochure"
    assert "# Page 1" in text.markdown and "# Page 2" in text.markdown


def test_running_headers_and_footers_are_dropped():
    rooms = ["Garden", "Orchard", "Tower", "Harbour"]
    pages = [
        [
            ("BodyText", f"The {room} room costs {90 + 10 * n} euros a night with breakfast."),
            ("BodyText", "Towels: fresh every day."),  # a line of the text on every page stays
        ]
        for n, room in enumerate(rooms)
    ]
    body = _pdf(pages, header="Hotel Miramar price list 2026", footer="Page {page} of 4")
    text = pdf_to_markdown(body, 50)
    assert "price list 2026" not in text.markdown and "of 4" not in text.markdown
    assert all(f"The {room} room costs" in text.markdown for room in rooms)
    assert text.markdown.count("Towels: fresh every day.") == 4


def test_two_headings_in_a_row_stay_two():
    body = _pdf([[("Heading1", "Starters"), ("Heading1", "Soups"), ("BodyText", BODY)]])
    text = pdf_to_markdown(body, 50)
    assert "# Starters (page 1)" in text.markdown and "# Soups (page 1)" in text.markdown


def test_lines_at_the_top_of_each_page_that_differ_are_text_not_running_heads():
    """Pages that start with "Day 1" ... "Day 5", or with a price line that differs only in
    its numbers, keep them: only a page number may differ in a running line."""
    days = [[("Heading2", f"Day {n}"), ("BodyText", f"{BODY} Walk number {n}.")] for n in range(1, 6)]
    text = pdf_to_markdown(_pdf(days, footer="{page}"), 50)
    assert all(f"Day {n}" in text.markdown for n in range(1, 6))
    assert not any(line.strip().isdigit() for line in text.markdown.splitlines())  # the page numbers went
    prices = [[("BodyText", f"Room {n}: {80 + 5 * n} euros a night"), ("BodyText", BODY)] for n in range(1, 5)]
    text = pdf_to_markdown(_pdf(prices), 50)
    assert all(f"Room {n}: {80 + 5 * n} euros a night" in text.markdown for n in range(1, 5))


def test_a_price_list_that_is_mostly_tables_keeps_its_headings():
    """The body size is the size most text is set in, table cells included: a price list
    whose words are nearly all in tables still has its section headings (seen on a
    physiotherapy practice's price list, where the headings outweighed the one sentence)."""
    import io

    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Table, TableStyle

    styles = getSampleStyleSheet()
    story = [
        Paragraph("Preisliste Selbstzahler 2026", styles["Title"]),
        Paragraph("Alle Preise inklusive MwSt.", styles["BodyText"]),
    ]
    for heading, rows in [
        ("Physiotherapie", [("Leistung", "Dauer", "Preis"), ("Krankengymnastik", "25 Minuten", "38,00 €")]),
        (
            "Osteopathie",
            [("Leistung", "Dauer", "Preis"), ("Osteopathie", "60 Minuten", "95,00 €"), ("Hausbesuch", "", "18,00 €")],
        ),
    ]:
        table = Table(rows)
        table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black)]))
        story += [Paragraph(heading, styles["Heading1"]), table]
    out = io.BytesIO()
    SimpleDocTemplate(out, pagesize=A4).build(story)
    text = pdf_to_markdown(out.getvalue(), 50, "https://physio.example/downloads/Preisliste%202026.pdf")
    assert "# Physiotherapie (page 1)\n\n| Leistung | Dauer | Preis |" in text.markdown
    assert "# Osteopathie (page 1)" in text.markdown and "# Page 1" not in text.markdown
