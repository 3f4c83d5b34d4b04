"""The contact card (ingest/extract/facts.py) and a page's language from its words
(ingest/extract/language.py)."""

from ingest.extract.facts import card_markdown, contact_card
from ingest.extract.html import parse_html
from ingest.extract.language import text_language

FOOTER = (
    '<footer><p>Reception: <a href="tel:+4930123456">+49 30 123456</a> · '
    '<a href="mailto:hallo@example.de?subject=Hi">hallo@example.de</a> · '
    '<a href="https://wa.me/4915112345678">WhatsApp</a></p></footer>'
)


def page(body: str, head: str = "", lang: str = "de") -> str:
    return f'<html lang="{lang}"><head><title>t</title>{head}</head><body><main>{body}</main>{FOOTER}</body></html>'


def test_links_give_phone_email_and_whatsapp_with_their_labels():
    doc = parse_html(page("<h1>Willkommen</h1><p>Schön, dass du da bist.</p>"), "https://example.de/")
    facts = {(f.kind, f.value, f.label) for f in doc.facts}
    assert ("phone", "+49 30 123456", "Reception") in facts  # as the page writes it, labelled by the words before
    assert ("email", "hallo@example.de", "") in facts  # the subject is not part of the address
    assert ("whatsapp", "+4915112345678", "WhatsApp") in facts


def test_json_ld_gives_address_hours_and_contact_points():
    ld = """<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [{"@type": "Bakery",
      "name": "Forn", "telephone": "+34 961 440 218",
      "address": {"@type": "PostalAddress", "streetAddress": "Carrer de la Pau 4", "postalCode": "46002",
                  "addressLocality": "València"},
      "openingHoursSpecification": [{"dayOfWeek": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"],
                                     "opens": "07:00", "closes": "14:00"}],
      "contactPoint": {"@type": "ContactPoint", "telephone": "+34 600 000 111", "contactType": "Orders"}}]}</script>"""
    doc = parse_html(page("<h1>Forn</h1>", head=ld, lang="es"), "https://forn.example/")
    facts = {(f.kind, f.value, f.label) for f in doc.facts if f.structured}
    assert ("address", "Carrer de la Pau 4, 46002 València", "Forn") in facts
    assert ("hours", "Monday–Friday 07:00–14:00", "Forn") in facts
    assert ("phone", "+34 600 000 111", "Orders") in facts


def test_labelled_lines_of_text_are_read_and_dates_are_not_phone_numbers():
    text = (
        "<h1>Kontakt</h1><p>Telefon: 030 / 987 654 32</p><p>Öffnungszeiten: Mo–Fr 9:00–18:00</p>"
        "<p>Grünberger Str. 16</p><p>10243 Berlin</p><p>Tel. Sprechstunde 2019-2020</p>"
        "<p>Am 12.03.2024 von 10:00 bis 12:00 Workshop</p>"
    )
    doc = parse_html(page(text), "https://example.de/kontakt/")
    facts = {(f.kind, f.value) for f in doc.facts}
    assert ("phone", "030 / 987 654 32") in facts
    assert ("hours", "Öffnungszeiten: Mo–Fr 9:00–18:00") in facts
    assert ("address", "Grünberger Str. 16, 10243 Berlin") in facts
    assert not any(kind == "phone" and "2019" in value for kind, value in facts)
    assert not any(kind == "hours" and "2024" in value for kind, value in facts)  # a dated event is not hours


def test_the_card_keeps_the_business_facts_and_drops_a_blog_posts():
    site = [
        ("https://example.de/", parse_html(page("<h1>Start</h1>"), "https://example.de/").facts),
        ("https://example.de/blog/1/", parse_html(page("<h1>Post</h1>"), "https://example.de/blog/1/").facts),
        ("https://example.de/team/", parse_html(page("<h1>Team</h1>"), "https://example.de/team/").facts),
        (
            "https://example.de/blog/2/",
            parse_html(
                page('<h1>Gast</h1><p>Schreib an <a href="mailto:gast@other.example">Maria</a></p>'),
                "https://example.de/blog/2/",
            ).facts,
        ),
    ]
    card = contact_card(site)
    values = [f.value for f in card]
    assert "hallo@example.de" in values and "+49 30 123456" in values  # on every page: the footer
    assert "gast@other.example" not in values  # one blog post's address is someone else's
    markdown = card_markdown(card, ["de"])
    assert "Telefon / Phone: +49 30 123456 (Reception)" in markdown
    assert markdown.startswith("# Kontakt / Contact")


def test_a_page_in_another_language_than_it_declares_is_read_in_its_own():
    german = "Wir sind ein offener Raum für alle, die mit Technik basteln wollen, und wir freuen uns auf dich. " * 3
    assert text_language(german, "en") == "de"
    assert (
        text_language("We are an open space for everyone who wants to tinker, and we look forward to it.", "en") == "en"
    )
    assert text_language("1 So 2 Mo 3 Di 4 Mi 5 Do 6 Fr 7 Sa 8 So 9 Mo 10 Di " * 5, "de") == "de"  # a calendar
    assert text_language("영업시간은 오전 9시부터 오후 6시까지입니다.", "en") == "ko"
    assert text_language("kurz", "") == ""


def test_a_label_stays_with_its_page_and_the_contact_page_is_the_one_shown():
    contact = parse_html(
        page(
            "<h1>Kontakt</h1><p>info@example.de</p><h2>Telefon</h2><p>Wir gehen selten ran.</p><p>+49 30-57714272</p>"
        ),
        "https://example.de/de/contact/",
    )
    blog = parse_html(
        page('<h1>Post</h1><p>Schreib <a href="mailto:info@example.de">kurze Mail an Felix</a></p>'),
        "https://example.de/de/blog/2016/",
    )
    about = parse_html(page("<h1>Über uns</h1><p>Mail: info@example.de</p>"), "https://example.de/de/about/")
    card = contact_card([(d.url, d.facts) for d in (blog, about, contact)])
    email = next(f for f in card if f.value == "info@example.de")
    assert email.url == "https://example.de/de/contact/" and email.label == ""  # not "kurze Mail an Felix"
    # A number on its own line under a "Telefon" heading, a paragraph between them.
    assert ("phone", "+49 30-57714272") in {(f.kind, f.value) for f in contact.facts}
