"""The contact card (ingest/extract/facts.py) and a page's language from its words
(ingest/extract/language.py)."""

import json
import time

import pytest

from ingest.extract.facts import (
    _CLOSED,
    _clock_times,
    _times,
    card_markdown,
    contact_card,
    days_of,
    mentions_chat,
    mentions_email,
    mentions_phone,
    news_page,
    one_line_address,
    other_party,
)
from ingest.extract.html import parse_html
from ingest.extract.language import text_language
from ingest.models import Fact

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
    prose = parse_html(page('<p>We answer <a href="mailto:info@example.de">emails</a> faster.</p>'), "https://e.de/")
    assert ("email", "info@example.de", "") in {(f.kind, f.value, f.label) for f in prose.facts}  # "emails" is no label
    bistro = parse_html(page('<p>Tél. <a href="tel:+33388123456">03 88 12 34 56</a></p>', lang="fr"), "https://b.fr/")
    assert ("phone", "03 88 12 34 56", "") in {(f.kind, f.value, f.label) for f in bistro.facts}  # nor is "Tél."


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
    # a privacy page's section on those it hands data to holds their numbers, not the business's
    assert not mentions_phone("Политика за поверителност > 4. Получатели на данни\n\nуеб агенция, тел. 062 61 00 22")
    assert not mentions_phone("隱私權政策 > 三、委外處理\n\n- 禾森數位設計有限公司\n  電話：(02) 8772-4150")
    assert mentions_phone("Privacy > 6. Contact\n\nQuestions about your data: 062 62 34 56")
    # ... only on a page about privacy: a Tuesday, a third floor, a "tiers payant" are the business's
    for own in ("Kontakt > Τρίτη\n\nτηλ. 22850 12345", "Impressum > Im dritten Stock\n\nTel. 030 1234567"):
        assert mentions_phone(own), own
    assert mentions_phone("Tarifs > Tiers payant\n\nTél. 01 23 45 67 89")
    # a news listing's signature: its date, with blanks, held no phone for "what's your number?"
    assert not mentions_phone("MVDr. Zuzana Hrabovská · 19. 1. 2026 · 2 min čítania")
    assert mentions_phone("Tel. 055 625 48 17")


def test_register_and_tax_numbers_beside_the_phone_are_no_phones():
    """Footers write the company's register and tax numbers on the phone's line; the
    caller must get the phone, not "KvK: 12345678" read out as one."""
    lines = [
        ("KvK: 12345678 | BTW: NL123456789B01 | Tel. 020 123 4567", "020 123 4567"),
        ("Telefon: 030 987654 · USt-IdNr.: DE 123 456 789 · HRB 123456 B", "030 987654"),
        ("Tel: 0312 345 67 89 - Vergi No: 1234567890 - Mersis: 0123456789012345", "0312 345 67 89"),
        ("Org.nr 556677-8899, tel 031-12 34 56", "031-12 34 56"),
        ("Registered office phone: 01632 960123, company no. 01234567", "01632 960123"),
    ]
    for line, phone in lines:
        doc = parse_html(page(f"<h1>Kontakt</h1><p>{line}</p>"), "https://example.de/kontakt/")
        phones = {f.value for f in doc.facts if f.kind == "phone"} - {"+49 30 123456"}  # the footer's
        assert phones == {phone}, line


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


def test_the_card_is_labelled_in_the_languages_whose_contact_pages_it_reads():
    # An Italian caller asks for the "indirizzo": the pizzeria's card said only "Address",
    # and its passage was found by neither the question's words nor its meaning.
    card = [Fact("address", "Via dell'Indipendenza 24, 40121 Bologna"), Fact("hours", "Lunedì Chiuso")]
    assert "Indirizzo / Address: Via dell'Indipendenza 24" in card_markdown(card, ["it", "en"])
    assert "Orari di apertura / Opening hours: Lunedì Chiuso" in card_markdown(card, ["it"])
    assert "Adres / Address:" in card_markdown(card, ["nl"])
    assert card_markdown(card, ["pt"]).startswith("# Contato / Contact")
    # A Bergen salon's card: "Åpningstider" is what a Norwegian caller says, whichever
    # code the page declares.
    assert "Åpningstider / Opening hours: Lunedì Chiuso" in card_markdown(card, ["nb"])
    assert card_markdown(card, ["no"]) == card_markdown(card, ["nb"])
    assert "Otváracie hodiny / Opening hours:" in card_markdown(card, ["sk"])
    assert card_markdown(card, ["bg"]).startswith("# Контакти / Contact")
    assert "ساعات کاری / Opening hours:" in card_markdown(card, ["fa"])


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


def test_opening_hours_come_in_the_order_of_the_week_with_the_closed_days():
    rows = [("Lunes", "Cerrado", ""), ("Martes", "12:30 – 16:30", "20:00 – 23:30")]
    rows += [(day, "12:30 – 16:30", "20:00 – 00:30") for day in ("Miércoles", "Jueves", "Viernes", "Sábado")]
    rows += [("Domingo", "12:30 – 17:00", "Cerrado")]
    table = "".join(f"<tr><td>{a}</td><td>{b}</td><td>{c}</td></tr>" for a, b, c in rows)
    body = (
        f"<h1>Contacto</h1><h2>Horario</h2><table><tr><th>Día</th><th>Mediodía</th><th>Noche</th></tr>{table}</table>"
        "<p>Closed 24 – 26 December.</p><p>We are closed so please call before you come.</p>"
    )
    doc = parse_html(page(body, lang="es"), "https://taberna.example/contacto/")
    hours = [f.value for f in contact_card([(doc.url, doc.facts)]) if f.kind == "hours"]
    assert [h.split()[0] for h in hours] == ["Lunes", "Martes", "Miércoles", "Jueves", "Viernes", "Sábado", "Domingo"]
    assert hours[0] == "Lunes Cerrado"  # a day said to be closed is a fact a caller asks for
    assert hours[-1] == "Domingo Mediodía 12:30 – 17:00 Noche Cerrado"  # each time says when in the day


def test_the_card_says_the_week_once_per_language_from_the_place_that_says_it_best():
    # A Dutch bike shop states its hours in JSON-LD (English, no closed day), on its
    # contact page (a range and a late Thursday) and on its hours page (a line a day);
    # read from all three the card repeated days, mixed up the week and was cut at
    # MAX_HOURS mid-week.
    days = ("Dinsdag", "Woensdag", "Donderdag", "Vrijdag", "Zaterdag", "Zondag")
    rows = "".join(
        f"<tr><td>{d}</td><td>{'12.00 – 16.00' if d == 'Zondag' else '09.00 – 18.00'}</td></tr>" for d in days
    )
    hours_page = parse_html(
        page(f"<h1>Openingstijden</h1><table><tr><td>Maandag</td><td>Gesloten</td></tr>{rows}</table>"),
        "https://fiets.example/openingstijden/",
    )
    contact = parse_html(
        page(
            "<h1>Contact</h1><p>Maandag Gesloten</p><p>Dinsdag t/m vrijdag 09.00 – 18.00</p>"
            "<p>Donderdag (koopavond) 09.00 – 21.00</p><p>Zaterdag 09.00 – 18.00</p><p>Zondag 12.00 – 16.00</p>"
        ),
        "https://fiets.example/contact/",
    )
    spec = [{"dayOfWeek": d, "opens": "09:00", "closes": "18:00"} for d in ("Tuesday", "Wednesday", "Friday")]
    ld = json.dumps({"@context": "https://schema.org", "@type": "BikeStore", "openingHoursSpecification": spec})
    home = parse_html(
        page("<h1>Fiets</h1>", head=f'<script type="application/ld+json">{ld}</script>'), "https://fiets.example/"
    )
    hours = [
        f.value for f in contact_card([(d.url, d.facts) for d in (home, contact, hours_page)]) if f.kind == "hours"
    ]
    dutch = [h for h in hours if h.split()[0] in ("Maandag", *days)]
    assert [h.split()[0] for h in dutch] == ["Maandag", *days]  # the hours page's week, once, in order
    assert hours[: len(dutch)] == dutch and "Dinsdag t/m vrijdag 09.00 – 18.00" not in hours
    assert [h.split()[0] for h in hours[len(dutch) :]] == ["Tuesday", "Wednesday", "Friday"]  # English words follow


def test_days_an_hours_line_speaks_of():
    assert days_of("Dinsdag t/m vrijdag 09.00 – 18.00") == {1, 2, 3, 4}
    assert days_of("Du lundi au vendredi de 10h à 18h") == {0, 1, 2, 3, 4}
    assert days_of("Friday–Sunday 12–22") == {4, 5, 6}
    assert days_of("월-금 09:00~18:00, 토요일 10:00~14:00") == {0, 1, 2, 3, 4, 5}
    assert days_of("평일 09:00~18:00") == {0, 1, 2, 3, 4}
    assert days_of("A receção está aberta todos os dias das 8h00 às 22h00") == set(range(7))
    assert days_of("Orari di apertura 12-15") == set()  # "di" is Italian for "of", not Tuesday
    for line in (
        "Segunda-feira a sexta-feira 9h-18h",
        "월요일부터 금요일까지",
        "월요일~금요일",
        "Lun-Ven 9h-18h",
        "Ma t/m Vr",
    ):
        assert days_of(line) == {0, 1, 2, 3, 4}, line


def test_polish_czech_and_nordic_weeks_are_read():
    _days_are(
        ("Pon.–Pt. 8:00–18:00, Sob. 9:00–14:00", set(range(6))),
        ("od poniedziałku do piątku 8–16", set(range(5))),
        ("Wt–Czw 9–17", {1, 2, 3}),
        ("pondělí až pátek 8:00–16:00", set(range(5))),
        ("måndag–fredag 9–17", set(range(5))),
        ("Lördagar och söndagar stängt", {5, 6}),
        ("mandag til fredag 9-17", set(range(5))),
        ("om lørdagen lukker vi kl. 14", {5}),
        # Slovak, and the Czech and Slovak accusative of "v sobotu", "v neděli"
        ("Pondelok – Piatok 7:30 – 18:00", set(range(5))),
        ("operácie: utorok, štvrtok 8:00 – 11:00", {1, 3}),
        ("v sobotu 8:00 – 12:00, v neděli zavřeno", {5, 6}),
        ("Nedeľa zatvorené", {6}),
        # Bulgarian, whose Tuesday is Russian's
        ("Понеделник – почивен ден", {0}),
        ("вторник – неделя: 12:00 – 23:00", set(range(1, 7))),
        # Persian: Saturday, then the days counted from it, written with or without a
        # half-space; "پنج جمعه" is five Fridays
        ("شنبه تا چهارشنبه ۹:۰۰ تا ۱۴:۰۰ و ۱۷:۰۰ تا ۲۱:۰۰", {5, 6, 0, 1, 2}),
        ("پنجشنبه‌ها ۹:۰۰ تا ۱۴:۰۰", {3}),
        ("سه شنبه و یکشنبه", {1, 6}),
        ("جمعه تعطیل", {4}),
        ("پنج جمعه", set()),
        ("پنج\u200bشنبه ۹:۰۰ تا ۱۳:۰۰", {3}),  # a zero-width space for the half-space
        ("شنبه الی چهارشنبه ۸ الی ۱۴", {5, 6, 0, 1, 2}),
        # Czech and Slovak "a" is "and"; Spanish "a" is "to"
        ("utorok a štvrtok 8:00 – 11:00", {1, 3}),
        ("lunes a viernes 9–14", set(range(5))),
        # Russian's "week" is no Bulgarian Sunday
        ("Рабочая неделя: 9:00 – 18:00", set()),
        ("Неделя: почивен ден", {6}),
    )
    # A Kraków workshop's contact page: its week, Sunday closed, comes before the English page's.
    kontakt = parse_html(
        page(
            "<h1>Kontakt</h1><h2>Godziny otwarcia</h2><p>Pon.–Pt. 8:00–18:00</p><p>Sob. 9:00–13:00</p>"
            "<p>Niedz. nieczynne</p>",
            lang="pl",
        ),
        "https://auto.example/kontakt.html",
    )
    english = parse_html(
        page("<h1>In English</h1><p>Monday to Friday 8 am – 6 pm, Saturday 9 am – 1 pm.</p>"),
        "https://auto.example/en/",
    )
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in (kontakt, english)]) if f.kind == "hours"]
    assert hours[:3] == ["Pon.–Pt. 8:00–18:00", "Sob. 9:00–13:00", "Niedz. nieczynne"], hours
    # Nordic short names are words elsewhere: "man" and "ons" are no Monday and Wednesday.
    assert days_of("Wie man uns erreicht: ons team helpt 9–17") == set()


def test_a_greek_hotels_card_in_greek_with_each_week_named():
    # A Naxos hotel-taverna on WordPress: its Greek contact page (/epikoinonia/) lists
    # its address, numbers behind tel: links whose text carries the label, and three
    # weeks under three headings; its English page says less. The card had no address,
    # no Greek line, "Reception: +30 …" as a number, and nothing to tell the weeks apart.
    def item(href: str, text: str) -> str:
        return f'<li><a href="{href}"><span class="icon"></span><span class="text">{text}</span></a></li>'

    greek = parse_html(
        page(
            "<h1>Επικοινωνία</h1><h2>Στοιχεία επικοινωνίας</h2><ul><li>Οδός Απόλλωνος 12, 843 00 Νάξος</li>"
            + item("tel:+302285012345", "Ρεσεψιόν: +30 22850 12345")
            + item("tel:+302285012346", "Ταβέρνα – κρατήσεις τραπεζιού: +30 22850 12346")
            + "</ul><h2>Ωράριο</h2><h4>Ρεσεψιόν (Απρίλιος – Οκτώβριος)</h4><ul><li>Καθημερινά 08:00 – 22:00</li></ul>"
            "<h4>Ταβέρνα (Μάιος – Οκτώβριος)</h4><ul><li>Δευτέρα – Παρασκευή 12:00 – 23:00</li>"
            "<li>Κυριακή: κλειστά</li></ul><h4>Χειμερινό ωράριο γραφείου (Νοέμβριος – Μάρτιος)</h4>"
            "<ul><li>Δευ–Παρ 10:00 – 14:00</li><li>Σαβ–Κυρ: κλειστά</li></ul>",
            lang="el",
        ),
        "https://naxos.example/epikoinonia/",
    )
    english = parse_html(
        page(
            "<h1>Contact us</h1><ul><li>Apollonos Street 12, 843 00 Naxos (Chora), Greece</li>"
            + item("tel:+302285012345", "Reception: +30 22850 12345")
            + "</ul><h2>Reception hours</h2><p>Every day 8 am – 10 pm (April to October).</p>",
            lang="en",
        ),
        "https://naxos.example/en/contact/",
    )
    card = contact_card([(d.url, d.facts) for d in (english, greek)])
    phones = [(f.value, f.label) for f in card if f.kind == "phone"]
    assert phones[0] == ("+30 22850 12345", "Ρεσεψιόν")  # the site's own language first; the number alone
    assert ("+30 22850 12346", "Ταβέρνα – κρατήσεις τραπεζιού") in phones
    assert [f.value for f in card if f.kind == "address"] == ["Οδός Απόλλωνος 12, 843 00 Νάξος"]
    hours = [(f.value, f.label) for f in card if f.kind == "hours"]
    assert hours[:5] == [
        ("Καθημερινά 08:00 – 22:00", "Ρεσεψιόν (Απρίλιος – Οκτώβριος)"),
        ("Δευτέρα – Παρασκευή 12:00 – 23:00", "Ταβέρνα (Μάιος – Οκτώβριος)"),
        ("Κυριακή: κλειστά", "Ταβέρνα (Μάιος – Οκτώβριος)"),
        ("Δευ–Παρ 10:00 – 14:00", "Χειμερινό ωράριο γραφείου"),  # a long heading without its brackets
        ("Σαβ–Κυρ: κλειστά", "Χειμερινό ωράριο γραφείου"),
    ]
    assert days_of("Δευτέρα έως Παρασκευή 09:00 – 17:00") == set(range(5))
    assert "## Τηλέφωνο / Phone" in card_markdown(card, ["el", "en"])
    # The English address alone is read too: Greek, Swedish and Czech postcodes are "NNN NN".
    assert one_line_address("Apollonos Street 12, 843 00 Naxos (Chora), Greece") == "Apollonos Street 12, 843 00 Naxos"


def test_a_wix_salons_card_has_its_address_booking_button_and_whatsapp_as_written():
    # A Kadıköy salon on Wix: its footer gives the address on two lines, the city after a
    # slash; the e-mail link's text is split over two <span>s; "Randevu Al" books; the
    # WhatsApp button links wa.me's digits. The card had no address, the label
    # "info@ modasacguzellik.com", no Turkish booking link and the number twice written.
    contact = parse_html(
        page(
            "<h1>İletişim</h1><p>Caferağa Mah. Moda Cad. No: 45/2</p><p>34710 Kadıköy/İstanbul</p>"
            '<p>GSM / WhatsApp: <a href="tel:+905321234567">+90 532 123 45 67</a></p>'
            '<p><a href="mailto:info@modasacguzellik.com"><span>info@</span> <span>modasacguzellik.com</span></a></p>'
            '<a href="https://www.fresha.com/tr/a/moda-k7hq2v"><span>Randevu Al</span></a>'
            '<a href="https://wa.me/905321234567?text=Merhaba">WhatsApp</a>',
            lang="tr",
        ),
        "https://salon.example/iletisim",
    )
    card = {(f.kind, f.value): f.label for f in contact_card([(contact.url, contact.facts)])}
    assert ("address", "Caferağa Mah. Moda Cad. No: 45/2, 34710 Kadıköy/İstanbul") in card
    assert card[("email", "info@modasacguzellik.com")] == ""
    assert card[("booking", "https://www.fresha.com/tr/a/moda-k7hq2v")] == "Randevu Al"
    assert ("whatsapp", "+90 532 123 45 67") in card  # as the phone with the same digits is written
    # A number written without its country code may be another one ending alike: kept as linked.
    bakery = parse_html(
        page('<h1>Kontakt</h1><p>Tel. 0761 234 56 78</p><a href="https://wa.me/4917612345678">WhatsApp</a>'),
        "https://b.example/kontakt/",
    )
    assert ("whatsapp", "+4917612345678") in {(f.kind, f.value) for f in contact_card([(bakery.url, bakery.facts)])}


def test_ordinals_and_counts_are_no_hours_and_joined_up_hours_paths_are_hours_pages():
    for text in (
        "Estamos en la segunda planta, habitaciones 1 a 4.",
        "La quinta edizione del festival, dalle 18 alle 23.",
        "Je kunt elke dag 2 tot 4 fietsen reserveren.",
    ):
        doc = parse_html(page(f"<h1>Info</h1><p>{text}</p>"), "https://x.example/contact/")
        assert not [f for f in doc.facts if f.kind == "hours"], text
    hours = parse_html(page("<h1>Hours</h1><p>Monday to Friday 9:00-18:00</p>"), "https://x.example/openinghours/")
    other = parse_html(page("<h1>About</h1><p>We fix bikes.</p>"), "https://x.example/about/")
    card = contact_card([(d.url, d.facts) for d in (hours, other)])
    assert [f.value for f in card if f.kind == "hours"] == ["Monday to Friday 9:00-18:00"]
    # German slugs spell "ö" as "oe"; Austrian practices say "Ordinationszeiten".
    for path in ("/oeffnungszeiten/", "/ordinationszeiten/", "/sprechzeiten/"):
        hours = parse_html(page("<h1>Zeiten</h1><p>Mo, Mi 8–19 Uhr</p>"), f"https://x.example{path}")
        card = contact_card([(d.url, d.facts) for d in (hours, other)])
        assert [f.value for f in card if f.kind == "hours"] == ["Mo, Mi 8–19 Uhr"], path


def test_a_place_named_st_after_its_postcode_is_no_us_street():
    doc = parse_html(page("<h1>Kontakt</h1><p>Marktgasse 12<br>9000 St. Gallen</p>"), "https://x.example/kontakt/")
    assert ("address", "Marktgasse 12, 9000 St. Gallen") in {(f.kind, f.value) for f in doc.facts}


def test_hours_said_in_a_sentence_with_french_and_portuguese_times_reach_the_card():
    doc = parse_html(
        page(
            "<h1>Contactos</h1><p>A receção está aberta todos os dias das 8h00 às 22h00, exceto ao domingo, "
            "em que fecha às 18h00.</p>"
        ),
        "https://alfama.example/contactos/",
    )
    post = parse_html(
        page("<h1>Obras</h1><p>Respondemos ao telefone de segunda a sexta, das 10h00 às 17h00.</p>"),
        "https://alfama.example/noticias/encerramento-temporario/",  # "temporario" holds "orari"
    )
    hours = [f.value for f in contact_card([(doc.url, doc.facts), (post.url, post.facts)]) if f.kind == "hours"]
    assert hours == ["A receção está aberta todos os dias das 8h00 às 22h00, exceto ao domingo, em que fecha às 18h00."]
    bistro = parse_html(page("<h1>Contact</h1><p>Du lundi au vendredi de 10h à 18h</p>"), "https://b.example/contact/")
    assert [f.value for f in bistro.facts if f.kind == "hours"] == ["Du lundi au vendredi de 10h à 18h"]


def test_json_ld_hours_for_the_same_days_make_one_line():
    spec = [
        {"dayOfWeek": ["Friday", "Saturday"], "opens": "12:30", "closes": "16:30"},
        {"dayOfWeek": ["Tuesday", "Wednesday", "Thursday"], "opens": "12:30", "closes": "16:30"},
        {"dayOfWeek": ["Friday", "Saturday"], "opens": "20:00", "closes": "00:30"},
        {"dayOfWeek": "Sunday", "opens": "12:30", "closes": "17:00"},
    ]
    ld = json.dumps(
        {"@context": "https://schema.org", "@type": "Restaurant", "name": "T", "openingHoursSpecification": spec}
    )
    doc = parse_html(page("<h1>T</h1>", head=f'<script type="application/ld+json">{ld}</script>'), "https://t.example/")
    hours = [f.value for f in contact_card([(doc.url, doc.facts)]) if f.kind == "hours"]
    assert hours == ["Tuesday–Thursday 12:30–16:30", "Friday, Saturday 12:30–16:30, 20:00–00:30", "Sunday 12:30–17:00"]


def test_a_homepage_states_the_business_hours_and_days_under_an_hours_heading_count():
    home = parse_html(
        page("<h1>Bäckerei</h1><p>Montag bis Freitag 6:30 – 18:30 Uhr, Samstag 7:00 – 14:00 Uhr.</p>"),
        "https://baecker.example/de/",
    )
    post = parse_html(
        page("<h1>Neuer Ofen</h1><p>Der Ofen brennt Montag bis Freitag 4:00 – 6:00 Uhr vor.</p>"),
        "https://baecker.example/de/blog/ofen/",
    )
    bistro = parse_html(
        page(
            "<h1>Infos</h1><h2>Horaires</h2><ul><li>Du mardi au samedi</li><li>Midi et soir</li>"
            "<li>Fermé le dimanche et le lundi</li></ul><h2>Accès</h2><p>Tram A, arrêt Langstross, le samedi aussi.</p>",
            lang="fr",
        ),
        "https://bistro.example/infos/",
    )
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in (home, post)]) if f.kind == "hours"]
    assert hours == ["Montag bis Freitag 6:30 – 18:30 Uhr, Samstag 7:00 – 14:00 Uhr."]  # not the blog post's
    # days without times under "Horaires", without the list marks; not a day named elsewhere
    assert [f.value for f in bistro.facts if f.kind == "hours"] == [
        "Du mardi au samedi",
        "Fermé le dimanche et le lundi",
    ]


def test_one_line_addresses_as_footers_write_them():
    assert (
        one_line_address("Rapid Flow Plumbing LLC · 2210 NW 7th St, Miami, FL 33125")
        == "2210 NW 7th St, Miami, FL 33125"
    )
    assert one_line_address("Harbour Light, 12 Quay Street, Porthkerris, Cornwall TR26 1AB") == (
        "12 Quay Street, Porthkerris, Cornwall TR26 1AB"
    )
    assert one_line_address("Bäckerei Sonnenkorn · Schillerstraße 12 · 79098 Freiburg") == (
        "Schillerstraße 12, 79098 Freiburg"
    )
    assert one_line_address("14 rue des Tanneurs, 67000 Strasbourg") == "14 rue des Tanneurs, 67000 Strasbourg"
    assert one_line_address("Calle Pelay y Correa, 31, 41010 Sevilla") == "Calle Pelay y Correa, 31, 41010 Sevilla"
    for prose in ("Version 2, 2024 Edition", "We have 12 rooms, 3500 guests a year", "Plaza del Sol 3 and 2024 Madrid"):
        assert one_line_address(prose) is None


def test_footer_addresses_dl_hours_and_opening_times_without_an_end_reach_the_card():
    footer = "<footer><p>Rapid Flow Plumbing LLC · 2210 NW 7th St, Miami, FL 33125</p></footer>"

    def plumber(path: str, body: str) -> tuple[str, tuple]:
        html = f"<html lang='en'><head><title>t</title></head><body><main>{body}</main>{footer}</body></html>"
        return f"https://plumber.example{path}", parse_html(html, f"https://plumber.example{path}").facts

    hours = (
        "<h1>Contact</h1><h2>Office hours</h2><dl><dt>Monday – Friday</dt><dd>7:00 am – 6:00 pm</dd>"
        "<dt>Saturday</dt><dd>8:00 am – 2:00 pm</dd><dt>Sunday</dt><dd>Closed</dd></dl>"
        "<p>Every Monday from 6pm the showroom stays open late.</p><p>Groups from Monday ab 5 Personen.</p>"
    )
    listings = "<h1>Homes we worked on</h1><p>87 Gurr Ct, Sparks, NV 89431</p><p>3241 Edna Ct, Sparks, NV 89431</p>"
    pages = [plumber("/", listings), plumber("/contact/", hours), plumber("/faq/", "<h1>FAQ</h1>")]
    card = contact_card(pages)
    assert [f.value for f in card if f.kind == "address"] == ["2210 NW 7th St, Miami, FL 33125"]  # not the listings
    assert [f.value for f in card if f.kind == "hours"] == [
        "Monday – Friday 7:00 am – 6:00 pm",  # a definition list reads as term and definition
        "Every Monday from 6pm the showroom stays open late.",
        "Saturday 8:00 am – 2:00 pm",
        "Sunday Closed",
    ]


def test_the_card_does_not_depend_on_the_order_pages_were_read_in():
    footer = "<footer><p>Tél. <a href='tel:+33388123456'>03 88 12 34 56</a> · 14 rue des Tanneurs, 67000 Strasbourg</p>"
    footer += "<h2>Horaires</h2><ul><li>Du mardi au samedi</li><li>Fermé le dimanche et le lundi</li></ul></footer>"
    urls = ["https://bistro.example/", "https://bistro.example/en/", "https://bistro.example/mentions-legales/"]
    pages = [
        (u, parse_html(f"<html lang='fr'><body><main><h1>Bistro</h1></main>{footer}</body></html>", u).facts)
        for u in urls
    ]
    assert contact_card(pages) == contact_card(pages[::-1]) == contact_card([pages[1], pages[0], pages[2]])


def test_no_address_from_taglines_and_titles_and_every_part_of_a_real_one():
    for prose in (
        "© 2024 Rapid Flow Plumbing LLC, Miami, FL 33125",
        "Over 30 years serving Orange County, Irvine, CA 92618",
        "True Crime Season 3, 2021 Netflix",
        "Trivia Night 12, 2024 Champions",
        "Olivia, 25, 2019 Miss Bolivia",
    ):
        assert one_line_address(prose) is None, prose
    assert one_line_address("© 2000- 2026 B & H Foto Corp. 420 9th Ave, New York, NY 10001") == (
        "420 9th Ave, New York, NY 10001"
    )
    assert (
        one_line_address("2210 NW 7th St, Suite 200, Miami, FL 33125") == "2210 NW 7th St, Suite 200, Miami, FL 33125"
    )
    assert one_line_address("221B Baker Street, London NW1 6XE") == "221B Baker Street, London NW1 6XE"
    assert one_line_address("Kalverstraat 92, 1012 PH Amsterdam") == "Kalverstraat 92, 1012 PH Amsterdam"
    labelled = parse_html(
        page(
            "<h1>Kontakt</h1><p>Adresse: Hinterhaus, 2. OG, Hauptstraße 5, 79098 Freiburg. Die Tram hält vor der Tür.</p>"
        ),
        "https://e.de/kontakt/",
    )
    assert [f.value for f in labelled.facts if f.kind == "address"] == [
        "Hinterhaus, 2. OG, Hauptstraße 5, 79098 Freiburg"
    ]


def test_hours_lines_that_are_not_every_week_stay_off_the_card():
    body = (
        "<h1>Contact</h1><p>Mo. - Fr. 9:00 - 18:00 Uhr</p><p>Closed this Saturday for a private event – sorry!</p>"
        "<p>Kids eat free every Sunday from 5pm!</p><p>Happy hour Monday to Friday from 4pm</p>"
        "<p>Closed on Sundays and public holidays</p><p>Domingos cerrado</p><p>So geschlossen</p>"
        "<p>So closed today?</p>"
        "<p>Smile</p><p>:) see you soon on Monday 9-5</p>"
    )
    doc = parse_html(page(body, lang="en"), "https://e.example/contact/")
    hours = [f.value for f in doc.facts if f.kind == "hours"]
    assert hours[:4] == [
        "Mo. - Fr. 9:00 - 18:00 Uhr",
        "Closed on Sundays and public holidays",
        "Domingos cerrado",
        "So geschlossen",  # a short day name opens a short line
    ]
    assert not any(h.startswith("So closed") for h in hours)  # prose
    assert not any("Smile" in h for h in hours)  # a line starting with ":" is no definition unless written as one


def test_a_contact_page_gives_the_week_in_order_and_two_letter_folders_are_not_homepages():
    hours = "<h1>Kontakt</h1><p>Montag – Freitag 9:00 – 18:00</p><p>Samstag 9:00 – 13:00</p><p>Sonntag Ruhetag</p>"
    menu = "<h1>Speisekarte</h1><p>Sonntag Ruhetag</p>"
    press = "<h1>Presse</h1><p>Pressekontakt: Agentur Müller, Tel. 089 7654321</p>"
    urls_bodies = [("/kontakt/", hours), ("/karte/", menu), ("/karte/mittag/", menu), ("/pr/", press)]
    pages = [(f"https://e.de{u}", parse_html(page(b), f"https://e.de{u}").facts) for u, b in urls_bodies]
    card = contact_card(pages)
    assert [f.value for f in card if f.kind == "hours"] == [
        "Montag – Freitag 9:00 – 18:00",
        "Samstag 9:00 – 13:00",
        "Sonntag Ruhetag",  # said on three pages, still after Saturday
    ]
    assert "089 7654321" not in [f.value for f in card]  # /pr/ is a press page, not a homepage
    home = parse_html(
        "<html lang='de'><body><main><h1>Bäckerei</h1><p>Brot seit 1901.</p></main>"
        "<footer><p>Bäckerei Sonnenkorn · Schillerstraße 12 · 79098 Freiburg</p></footer></body></html>",
        "https://e.de/",
    )
    assert [f.value for f in contact_card([(home.url, home.facts)]) if f.kind == "address"] == [
        "Schillerstraße 12, 79098 Freiburg"  # a one-page site: its footer's address
    ]


def test_messengers_are_a_way_to_reach_the_business_and_share_buttons_are_not():
    body = (
        "<h1>예약 방법</h1><p>카카오톡(ID: gulumse_dental) 또는 WhatsApp으로 메시지를 보내 주세요.</p>"
        "<p>Hotline: 0800 123 456</p><p>Line: 0800 555</p>"
        '<p><a href="https://t.me/share/url?url=https://x.example/">Share</a> '
        '<a href="https://t.me/gulumse/">Telegram</a> <a href="https://matrix.to/#/#space:x.example">Matrix</a> '
        '<a href="https://chat.x.example/">Chat</a> <a href="https://blog.x.example/">Blog</a></p>'
    )
    doc = parse_html(page(body, lang="ko"), "https://x.example/ko/")
    assert sorted((f.value, f.label) for f in doc.facts if f.kind == "chat") == [
        ("gulumse_dental", "KakaoTalk"),  # written out, its ID
        ("https://chat.x.example", ""),  # the business's own chat, by the link's word
        ("https://matrix.to/#/#space:x.example", "Matrix"),
        ("https://t.me/gulumse", "Telegram"),
    ]
    markdown = card_markdown(contact_card([(doc.url, doc.facts)]), ["ko"])
    assert "메신저 / Chat: gulumse_dental (KakaoTalk)" in markdown


def test_ranges_that_are_not_opening_hours_read_on_real_pages():
    # Each was taken as opening hours from a WCXB page read as a contact page.
    prose = [
        "Seedlings: 16-18 hours per day",
        "Battery allows for 4-5 hours of cordless use.",
        "Best revenue split in the industry, with 95–100% of revenue going to creators.",
        "Our range is 30–40 mi on one charge.",
        "Thu, 08/04/2022 - 08:15",
        "1-800-SCRIPPS Find doctors, learn about services & classes.",
        "In Listing 9-3, we try to open a file.",
        "Repeat 10-12 times, until you could not possibly do one more.",
    ]
    hours = ["Hours: 9am-5pm", "Mi 10–18 Uhr", "Mo–Fr 9–18, Sa 9–13", "Call us Mon-Fri 9-5 on (305) 555-0147."]
    body = "<h1>Contact</h1>" + "".join(f"<p>{line}</p>" for line in prose + hours)
    ld = '{"@context": "https://schema.org", "@type": "LocalBusiness", "name": "S", "openingHours": ", , , , , , "}'
    head = f'<script type="application/ld+json">{ld}</script>'  # as Squarespace writes it
    doc = parse_html(page(body, head=head, lang="en"), "https://e.example/contact/")
    assert [f.value for f in doc.facts if f.kind == "hours"] == hours


def test_italian_contact_and_hours_pages_and_a_booking_page_reach_the_card():
    hours = "<h1>Orari</h1><table><tr><td>Lunedì</td><td>Chiuso</td></tr>"
    hours += "<tr><td>Martedì</td><td>12:00–14:30</td><td>19:00–23:30</td></tr></table>"
    booking = '<h1>Prenotazioni</h1><p>Scrivici su <a href="https://wa.me/393331234567">WhatsApp</a>.</p>'
    pages = [
        (u, parse_html(page(b, lang="it"), u).facts)
        for u, b in (("https://gino.example/orari/", hours), ("https://gino.example/prenotazioni/", booking))
    ]
    card = contact_card(pages)
    assert [f.value for f in card if f.kind == "hours"] == ["Lunedì Chiuso", "Martedì 12:00–14:30 19:00–23:30"]
    assert "+393331234567" in [f.value for f in card if f.kind == "whatsapp"]  # stated on the booking page only


def test_a_portuguese_guesthouse_card_has_its_morada_and_no_complaints_book():
    contact = parse_html(
        page(
            "<h1>Contactos</h1><p><strong>Morada:</strong> Rua de São Miguel, 24, 1100-544 Lisboa</p>"
            '<p><a href="https://reservas.engine.example/alfama">Reservar</a></p>'
            '<p><a href="https://www.livroreclamacoes.pt/Inicio/">Complaints Book (Livro de Reclamações)</a></p>'
            '<p><a href="https://www.example.org/address_book">Address Book</a></p>'
        ),
        "https://alfama.example/contactos/",
    )
    kinds = {(f.kind, f.value) for f in contact.facts}
    assert ("address", "Rua de São Miguel, 24, 1100-544 Lisboa") in kinds
    assert [v for k, v in kinds if k == "booking"] == ["https://reservas.engine.example/alfama"]
    footer = parse_html(
        page("<h1>Casa</h1><p>Rua de São Miguel, 24<br>1100-544 Lisboa, Portugal</p>"),
        "https://alfama.example/contactos/",
    )
    assert ("address", "Rua de São Miguel, 24, 1100-544 Lisboa, Portugal") in {(f.kind, f.value) for f in footer.facts}


def test_a_symbol_is_no_label():
    doc = parse_html(
        page('<h1>Contact</h1><p>📞 <a href="tel:0302314567">030 231 45 67</a></p>'), "https://f.example/contact/"
    )
    assert [f.label for f in doc.facts if f.value == "030 231 45 67"] == [""]  # not "📞"


def test_one_booking_engine_in_each_language_is_one_booking_link():
    pages = []
    for path, lang, word in (
        ("/contactos/", "pt", "Reservar"),
        ("/en/contact/", "en", "Book now"),
        ("/fr/", "fr", "Réserver"),
    ):
        link = f'<a href="https://engine.example/alfama?lang={lang}">{word}</a>'
        doc = parse_html(page(f"<h1>Casa</h1><p>{link}</p>"), f"https://alfama.example{path}")
        pages.append((doc.url, doc.facts))
    bookings = [(f.value, f.label) for f in contact_card(pages) if f.kind == "booking"]
    assert bookings == [("https://engine.example/alfama?lang=pt", "Reservar")]  # as the contact page links it


def test_a_long_week_is_cut_not_dropped_and_a_footer_repeating_a_day_keeps_the_week_in_order():
    days = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    rows = "".join(f"<p>{d} 12:00 – 15:00</p><p>{d} 19:00 – 23:00</p>" for d in days)  # lunch and dinner: 14 lines
    contact = parse_html(page(f"<h1>Contact</h1>{rows}"), "https://r.example/contact/")
    home = parse_html(page("<h1>R</h1><p>Open Monday to Friday 9:00 – 18:00</p>"), "https://r.example/")
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in (home, contact)]) if f.kind == "hours"]
    assert len(hours) == 12 and hours[0] == "Monday 12:00 – 15:00"  # the fullest place, cut; not the homepage's line
    week = "".join(f"<tr><td>{d}</td><td>9:00 – 17:00</td></tr>" for d in days)
    pages = [parse_html(page(f"<h1>Hours</h1><table>{week}</table>"), "https://s.example/hours/")]
    footer = "<footer><p>Sunday 9:00 – 17:00</p></footer>"
    pages += [parse_html(page(f"<h1>P{i}</h1><p>Text.</p>{footer}"), f"https://s.example/p{i}/") for i in range(4)]
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in pages]) if f.kind == "hours"]
    assert [h.split()[0] for h in hours] == list(days)  # Sunday, in the footer too, stays last


def test_the_web_agency_the_host_and_the_chamber_on_legal_pages_are_not_the_business():
    body = (
        "<h1>Mentions légales</h1><h2>Éditeur</h2><p>Optique Dupont SA<br>Rue de Lausanne 12, 1700 Fribourg<br>"
        'Tél. <a href="tel:+41263221100">026 322 11 00</a><br><a href="mailto:info@dupont.ch">info@dupont.ch</a></p>'
        "<p>Website: www.dupont.ch</p>"  # the business's own site: no other party
        "<h2>Hébergement</h2><p>Infomaniak Network SA<br>Rue Eugène-Marziano 25, 1227 Les Acacias<br>"
        'Tél. <a href="tel:+41228203544">+41 22 820 35 44</a></p>'
        "<h2>Crédits</h2><p>Webdesign : Studio Pixel, <a href='mailto:hello@pixel.ch'>hello@pixel.ch</a></p>"
        "<p>Le site est hébergé par OVH, 2 rue Kellermann, 59100 Roubaix, tél. 09 72 10 10 07</p>"
        "<p>Website: Agentur Webwerk Wien, Tel. +43 1 999 88 77</p>"
        "<p><strong>Aufsichtsbehörde:</strong><br>Ärztekammer für Wien<br>Weihburggasse 10, 1010 Wien<br>"
        "Telefon: +43 1 515 01 0</p>"
    )
    doc = parse_html(page(body, lang="fr"), "https://dupont.example/mentions-legales/")
    facts = {(f.kind, f.value) for f in doc.facts if f.kind in ("phone", "email", "address")}
    assert facts == {
        ("phone", "026 322 11 00"),
        ("email", "info@dupont.ch"),
        ("address", "Rue de Lausanne 12, 1700 Fribourg"),
        ("phone", "+49 30 123456"),  # the footer's
        ("email", "hallo@example.de"),
    }
    credit = '<footer><p>Tel. <a href="tel:+41263221100">026 322 11 00</a></p><p>Website by <a href="mailto:a@agency.example">Agency</a></p></footer>'
    doc = parse_html(f"<html><body><main><h1>Home</h1><p>Hi.</p></main>{credit}</body></html>", "https://d.example/")
    assert {f.value for f in doc.facts} == {"026 322 11 00"}


def test_hours_to_call_follow_the_week_and_closed_or_by_appointment_days_written_short_are_read():
    table = (
        "<h1>Ordinationszeiten</h1><table><tr><th>Mo, Mi</th><td>8–19 Uhr</td></tr>"
        "<tr><th>Di, Do</th><td>8–13 Uhr</td></tr><tr><th>Fr</th><td>nach Vereinbarung</td></tr>"
        "<tr><th>Sa, So</th><td>geschlossen</td></tr></table>"
        "<h2>Telefonische Erreichbarkeit</h2><p>Am Telefon erreichen Sie uns Mo–Do von 8 bis 12 Uhr.</p>"
        "<h2>Telefonzeiten</h2><p>Fr 9–11 Uhr</p>"
    )
    doc = parse_html(page(table), "https://physio.example/ordinationszeiten/")
    english = parse_html(
        page("<h1>Hours</h1><p>Monday–Friday 8 am – 7 pm</p>", lang="en"), "https://physio.example/en/"
    )
    hours = [
        (f.value, f.label)
        for f in contact_card([(doc.url, doc.facts), (english.url, english.facts)])
        if f.kind == "hours"
    ]
    assert hours == [
        ("Mo, Mi 8–19 Uhr", ""),
        ("Di, Do 8–13 Uhr", ""),
        ("Fr nach Vereinbarung", ""),
        ("Sa, So geschlossen", ""),
        ("Am Telefon erreichen Sie uns Mo–Do von 8 bis 12 Uhr.", ""),  # its own words say it is the phone's
        ("Fr 9–11 Uhr", "Telefonzeiten"),  # only its heading does
        ("Monday–Friday 8 am – 7 pm", ""),  # the whole week said in German first, then in English
    ]
    assert "Öffnungszeiten / Opening hours: Fr 9–11 Uhr (Telefonzeiten)" in card_markdown(
        contact_card([(doc.url, doc.facts)]), ["de"]
    )
    prose = parse_html(
        page("<h1>Team</h1><p>Sa, So closed for the holidays, sorry.</p><p>Do und Fr nach dem Kurs.</p>"),
        "https://t.example/team/",
    )
    assert not [f for f in prose.facts if f.kind == "hours"]


def test_a_french_hours_page_leads_the_card_and_the_footer_saying_it_again_is_left_out():
    rows = "".join(
        f"<tr><td>{d}</td><td>{t}</td></tr>"
        for d, t in (
            ("Lundi", "13h30 – 18h30"),
            ("Mardi", "9h00 – 18h30"),
            ("Mercredi", "9h00 – 18h30"),
            ("Jeudi", "9h00 – 20h00"),
            ("Vendredi", "9h00 – 18h30"),
            ("Samedi", "9h00 – 16h00"),
            ("Dimanche", "fermé"),
        )
    )
    footer = "<footer><p>Lu 13h30–18h30 · Ma–Ve 9h–18h30 · Sa 9h–16h</p></footer>"
    html = lambda title, body: f'<html lang="fr"><body><main><h1>{title}</h1>{body}</main>{footer}</body></html>'  # noqa: E731
    pages = [parse_html(html("Horaires", f"<table>{rows}</table>"), "https://o.example/horaires.html")]
    pages += [parse_html(html(f"Page {i}", "<p>Texte.</p>"), f"https://o.example/p{i}.html") for i in range(3)]
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in pages]) if f.kind == "hours"]
    week = ["Lundi", "Mardi", "Mercredi", "Jeudi", "Vendredi", "Samedi", "Dimanche"]
    assert [h.split()[0] for h in hours[:7]] == week
    assert "Lu 13h30–18h30 · Ma–Ve 9h–18h30 · Sa 9h–16h" not in hours  # the footer's days are the page's
    kontakt = "<p>Donnerstag Abendverkauf bis 20.00 Uhr</p><p>Ouvert aujourd'hui jusqu'à 19h</p>"
    german = [f.value for f in parse_html(html("Kontakt", kontakt), "https://o.example/de/kontakt.html").facts]
    assert "Donnerstag Abendverkauf bis 20.00 Uhr" in german  # a closing time alone
    assert "Ouvert aujourd'hui jusqu'à 19h" not in german  # today's status, not the week


def test_labels_are_no_sentence_starts_and_one_address_in_two_languages_is_one():
    body = (
        "<h1>Contact</h1><p>Ou écrivez-nous à <a href='mailto:rdv@o.example'>rdv@o.example</a>.</p>"
        "<p>Rue de Lausanne 47, 1700 Fribourg</p>"
    )
    fr = parse_html(page(body, lang="fr"), "https://o.example/contact.html")
    de = parse_html(
        page("<h1>Kontakt</h1><p>Lausannegasse 47 (Rue de Lausanne 47), 1700 Freiburg</p>"),
        "https://o.example/de/kontakt.html",
    )
    card = contact_card([(fr.url, fr.facts), (de.url, de.facts)])
    assert ("rdv@o.example", "") in {(f.value, f.label) for f in card if f.kind == "email"}
    assert [f.value for f in card if f.kind == "address"] == ["Rue de Lausanne 47, 1700 Fribourg"]


def test_a_korean_clinic_on_gnuboard_its_own_number_first_no_fax_and_its_hours_table():
    header = (
        '<div id="hd"><a href="tel:027774182">전화하기</a><ul><li><a href="/">홈</a></li></ul></div>'
        '<div id="gnb"><a href="/guide/hours.html">진료시간 안내</a></div>'
    )
    footer = (
        '<div id="ft"><p>상호명 : 청연한의원 대표원장 : 한지원<br>사업자등록번호 : 201-90-48213<br>'
        "주소 : 서울특별시 중구 명동8나길 38, 5층<br>대표전화 : 02-777-4182 팩스 : 02-777-4183<br>"
        "이메일 : clinic@example.kr</p><p>[강남점] 서울특별시 강남구 강남대로94길 15, 3층 | TEL 02-545-7718</p>"
        "<p>진료시간 평일 10:00 ~ 19:00 (목 야간 ~21:00) / 토요일 09:30 ~ 14:00</p></div>"
    )
    ld = '<script type="application/ld+json">{"@type": "MedicalClinic", "telephone": "02-318-5520"}</script>'

    def html(body, head=""):
        return f'<html lang="ko"><head>{head}</head><body>{header}<div id="wrapper">{body}</div>{footer}</body></html>'

    table = (
        "<h2>진료시간</h2><table><tr><th>요일</th><th>진료시간</th></tr>"
        "<tr><td>월 · 화 · 수 · 금</td><td>오전 10:00 ~ 오후 7:00</td></tr>"
        "<tr><td>목요일</td><td>오전 10:00 ~ 오후 8:30</td></tr>"
        "<tr><td>토요일</td><td>오전 9:30 ~ 오후 2:00</td></tr><tr><td>일요일 · 공휴일</td><td>휴진</td></tr></table>"
    )
    notice = '<p><a href="/community/notice.html">네이버 예약 오픈 안내</a></p>'
    pages = [
        parse_html(
            html(f"<h2>환영합니다</h2><p>명동 한의원입니다. 진료 안내를 확인하세요.</p>{notice}", ld), "https://c.kr/"
        ),
        parse_html(html(table), "https://c.kr/guide/hours.html"),
        parse_html(html("<p>LINE : @cheongyeon</p><p>Phone: +82-2-777-4182</p>"), "https://c.kr/en/"),
        parse_html(html("<p>微信 : cheongyeon_md</p>"), "https://c.kr/zh/"),
    ]
    card = contact_card([(d.url, d.facts) for d in pages])
    phones = [(f.value, f.label) for f in card if f.kind == "phone"]
    assert phones[:2] == [
        ("02-777-4182", "대표전화"),
        ("02-545-7718", "강남점"),
    ]  # own number, as written; the branch named
    assert "02-777-4183" not in {v for v, _ in phones}  # the fax
    assert len([v for v, _ in phones if v.endswith("4182")]) == 1  # "+82-2-777-4182" is the same number
    hours = [f.value for f in card if f.kind == "hours"]
    assert hours[0].startswith("월 · 화 · 수 · 금 오전 10:00 ~ 오후 7:00") and hours[3].startswith("일요일")
    assert not any("21:00" in h for h in hours)  # the footer's older week, said again by the table
    assert {(f.value, f.label) for f in card if f.kind == "chat"} == {
        ("@cheongyeon", "LINE"),
        ("cheongyeon_md", "WeChat"),
    }
    assert not [f for f in card if f.kind == "booking"]  # a notice about booking is news


def test_a_japanese_shop_its_address_hours_and_the_sister_shop_named():
    footer = (
        "<footer><p>菓匠ゆずりは 谷中本店<br>〒110-0001<br>東京都台東区谷中3-11-8<br>TEL：03-3827-5140<br>"
        "営業時間：10:00～18:00（甘味処 11:00～17:00）<br>定休日：月曜日（祝日の場合は翌日）</p>"
        "<p>■根津店（お持ち帰り専門）<br>東京都文京区根津2-19-3 根津マンション1F<br>TEL 03-5815-6623<br>"
        "11:00～19:00／水曜定休</p></footer>"
    )
    contact = "<p>お電話でのお問い合わせは、谷中本店 03-3827-5140（営業時間内）までお願いいたします。</p>"

    def html(body):
        return f'<html lang="ja"><body><main><h1>ページ</h1>{body}</main>{footer}</body></html>'

    pages = [parse_html(html(contact), "https://y.jp/contact/")]
    pages += [parse_html(html(f"<p>和菓子{i}</p>"), f"https://y.jp/p{i}/") for i in range(3)]
    card = contact_card([(d.url, d.facts) for d in pages])
    phones = [(f.value, f.label) for f in card if f.kind == "phone"]
    assert phones == [("03-3827-5140", "谷中本店"), ("03-5815-6623", "根津店（お持ち帰り専門）")]
    addresses = [(f.value, f.label) for f in card if f.kind == "address"]
    assert addresses[0][0].endswith("東京都台東区谷中3-11-8") and addresses[1][1] == "根津店（お持ち帰り専門）"
    hours = {(f.value, f.label) for f in card if f.kind == "hours"}
    assert ("営業時間：10:00～18:00（甘味処 11:00～17:00）", "") in hours
    assert ("定休日：月曜日（祝日の場合は翌日）", "") in hours
    assert ("11:00～19:00／水曜定休", "根津店（お持ち帰り専門）") in hours  # the other shop's, said so
    assert days_of("月～金 10:00～18:00") == {0, 1, 2, 3, 4} and days_of("周一、二、三、五 10:00-19:00") == {0, 1, 2, 4}
    assert "# お問い合わせ / Contact" in card_markdown(card, ["ja"])
    bullet = parse_html(page("<h1>Hours</h1><p>● Open daily 9-5<br>Tel 555 123 4567</p>"), "https://b.example/contact/")
    labels = {f.value: f.label for f in bullet.facts}
    assert labels["● Open daily 9-5"] == labels["555 123 4567"] == ""  # a marked line with times names nothing


def test_a_polish_workshop_its_address_and_a_label_with_its_bracket():
    body = (
        "<h1>Kontakt</h1><address>Auto-Serwis Kowalczyk<br>ul. Zakopiańska 12, 31-123 Kraków</address>"
        '<p><a href="tel:+48123456789">Zadzwoń</a></p><p>Komórka (Paweł): <a href="tel:+48601234567">601 234 567</a></p>'
    )
    doc = parse_html(page(body, lang="pl"), "https://a.pl/kontakt.html")
    card = contact_card([(doc.url, doc.facts)])
    assert [f.value for f in card if f.kind == "address"] == ["ul. Zakopiańska 12, 31-123 Kraków"]
    phones = {(f.value, f.label) for f in card if f.kind == "phone"}
    assert ("601 234 567", "Komórka (Paweł)") in phones and ("+48123456789", "") in phones
    assert card_markdown(card, ["pl"]).startswith("# Kontakt")


def test_numbers_are_kept_as_the_page_writes_them_not_as_links_and_structured_data_give_them():
    # A Brazilian vet: the WhatsApp link's digits carry the country code, its text the
    # number callers know. A Czech studio: JSON-LD's "+420604123456" beside the page's
    # "+420 604 123 456" (read out digit group by digit group, not as one huge number).
    vet = page(
        '<p><a href="https://wa.me/5541998123344?text=Ol%C3%A1">WhatsApp: (41) 99812-3344 (somente mensagens)</a></p>',
        lang="pt-BR",
    )
    facts = {(f.kind, f.value) for f in parse_html(vet, "https://vet.example/contato/").facts}
    assert ("whatsapp", "(41) 99812-3344") in facts
    other = page('<p><a href="https://wa.me/5541998123344">WhatsApp: (41) 3333-4455</a></p>', lang="pt-BR")
    facts = {(f.kind, f.value) for f in parse_html(other, "https://vet.example/contato/").facts}
    assert ("whatsapp", "+5541998123344") in facts  # the text's number is another one
    ld = '<script type="application/ld+json">{"@type": "HealthClub", "telephone": "+420604123456"}</script>'
    studio = page('<p>Telefon: <a href="tel:+420604123456">+420 604 123 456</a></p>', head=ld, lang="cs")
    doc = parse_html(studio, "https://studio.example/kontakt/")
    card = contact_card([("https://studio.example/kontakt/", doc.facts)])
    assert [f.value for f in card if f.kind == "phone" and "420" in f.value] == ["+420 604 123 456"]


def test_a_brazilian_address_ends_with_its_place_and_cep():
    html = page(
        "<h2>Endereço</h2><p>Av. Silva Jardim, 2380 – Água Verde<br>Curitiba – PR, CEP 80240-030</p>"
        "<p>Ficamos a duas quadras da Praça do Japão.</p>",
        lang="pt-BR",
    )
    facts = parse_html(html, "https://vet.example/horarios-e-contato/").facts
    assert ("address", "Av. Silva Jardim, 2380 – Água Verde, Curitiba – PR, CEP 80240-030") in {
        (f.kind, f.value) for f in facts
    }


def test_weeks_named_by_bold_lines_keep_their_names_and_a_days_line_reads_with_its_times():
    # Squarespace's hours grid: each service's name in bold, its days and times on two
    # lines. A card mixing the daycare's week with the dog wash's would tell a caller
    # the wrong closing time.
    grid = (
        "<h2>Hours</h2><div><div><strong>Doggy Daycare</strong></div><div>Monday &ndash; Friday<br>"
        "7:00 am &ndash; 6:30 pm</div></div><div><div><strong>Self-Serve Dog Wash</strong></div><div>"
        "Monday &ndash; Friday 10:00 am &ndash; 7:00 pm<br>Saturday 9:00 am &ndash; 5:00 pm</div></div>"
    )
    facts = parse_html(page(grid, lang="en"), "https://groomer.example/hours-location/").facts
    assert [(f.value, f.label) for f in facts if f.kind == "hours"] == [
        ("Monday – Friday 7:00 am – 6:30 pm", "Doggy Daycare"),
        ("Monday – Friday 10:00 am – 7:00 pm", "Self-Serve Dog Wash"),
        ("Saturday 9:00 am – 5:00 pm", "Self-Serve Dog Wash"),
    ]
    # A heading that is a day names its line by itself.
    days = "<h2>Office hours</h2><h4>Monday</h4><p>7:00AM - 5:00PM</p><h4>Saturday</h4><p>8:00AM - 3:00PM</p>"
    facts = parse_html(page(days, lang="en"), "https://dentist.example/contact/").facts
    assert [(f.value, f.label) for f in facts if f.kind == "hours"] == [
        ("Monday 7:00AM - 5:00PM", ""),
        ("Saturday 8:00AM - 3:00PM", ""),
    ]


def test_a_declared_language_without_function_words_here_is_overruled_only_by_much_evidence():
    # Czech shares its shortest words with Portuguese ("a", "o", "do", "na", "se", "e"):
    # a Czech studio's terms of business were indexed as Portuguese.
    czech = (
        "Rezervace a zrušení lekcí. Na lekci se přihlaste přes rezervační systém, o zrušení nás informujte "
        "nejpozději 12 hodin předem. Do studia přijďte 10 minut před začátkem. Permanentka je platná "
        "tři měsíce od data nákupu a je nepřenosná. Pokud lektor onemocní, lekci zrušíme a vrátíme vstup "
        "na permanentku. Vstup do sálu je možný pouze v čisté obuvi nebo naboso, e-mail pro dotazy najdete "
        "v kontaktech. Ceny jsou uvedeny včetně DPH, platit lze v hotovosti i kartou."
    )
    assert text_language(czech, "cs") == "cs"
    english = (
        "This is the page of the studio and it was written in English by the team that runs it. We are open "
        "for you at the weekend, and you can book with us on the website or by phone. Our teachers have "
        "been with the studio for years, and the classes are not only for beginners: they are for anyone "
        "who wants to move, from the first lesson to the last. That is what we are here for."
    )
    assert text_language(english, "cs") == "en"  # a theme declaring Czech on every page


def test_a_number_to_text_is_on_the_card_and_a_news_post_is_no_contact_page():
    # A dog groomer's contact page gives a number to call and one to text; its footer, on
    # every page, the first, and a post named "holiday-hours" had been taken for a
    # contact page ("hours" in its address), so the card was read there.
    footer = '<footer><p>Call <a href="tel:+15035550182">(503) 555-0182</a></p></footer>'

    def groomer(body: str) -> str:
        return f'<html lang="en"><head><title>t</title></head><body><main>{body}</main>{footer}</body></html>'

    contact = groomer("<h2>Get in touch</h2><p>Call: (503) 555-0182<br>Text: (503) 555-0147</p>")
    post = groomer("<h1>Holiday hours 2024</h1><p>We close at 2:00 pm on Christmas Eve.</p>")
    pages = [
        ("https://g.example/blog/holiday-hours-2024.html", parse_html(post, "https://g.example/blog/h.html").facts),
        ("https://g.example/hours-location/", parse_html(contact, "https://g.example/hours-location/").facts),
    ]
    card = contact_card(pages)
    assert [(f.value, f.label, f.url) for f in card if f.kind == "phone"] == [
        ("(503) 555-0182", "", "https://g.example/hours-location/"),
        ("(503) 555-0147", "Text", "https://g.example/hours-location/"),
    ]


def test_an_address_given_as_lines_in_structured_data_keeps_its_parts_apart():
    ld = (
        '<script type="application/ld+json">{"@type": "LocalBusiness", "name": "Muddy Paws", '
        '"address": "2418 SE Division St\\nPortland, OR, 97202\\nUnited States"}</script>'
    )
    doc = parse_html(page("<p>Hi</p>", head=ld, lang="en"), "https://g.example/")
    assert ("address", "2418 SE Division St, Portland, OR, 97202, United States") in {
        (f.kind, f.value) for f in doc.facts
    }


def test_a_booking_link_is_a_whole_address_the_assistant_can_send():
    doc = parse_html(page('<p><a href="/book/">Book Now</a></p>', lang="en"), "https://g.example/hours-location/")
    assert [f.value for f in doc.facts if f.kind == "booking"] == ["https://g.example/book/"]


def _days_are(*lines: tuple[str, set[int]]) -> None:
    for line, days in lines:
        assert days_of(line) == days, line


def _values_of(kind: str, body: str, url: str, lang: str = "en") -> list[str]:
    return [f.value for f in parse_html(page(body, lang=lang), url).facts if f.kind == kind]


def _hours_of(body: str, url: str, lang: str = "en") -> list[str]:
    return _values_of("hours", body, url, lang)


def test_an_hours_table_whose_header_row_names_the_days_gives_each_row_its_days():
    """Days as columns ("| | 平日 | 土・日・祝日 |"), places or services as rows: each
    time reads with its column's days, so the weekend's other opening time is not lost."""
    japanese = (
        "<h1>営業案内</h1><h2>営業時間</h2><table><thead><tr><th></th><th>平日</th><th>土・日・祝日</th></tr></thead>"
        "<tbody><tr><th>店舗（お持ち帰り）</th><td>10:00～18:00</td><td>9:30～18:00</td></tr>"
        "<tr><th>甘味処</th><td>11:00～17:00</td><td>11:00～17:30</td></tr></tbody></table>"
    )
    assert _hours_of(japanese, "https://wagashi.example/hours/", "ja") == [
        "店舗（お持ち帰り） 平日 10:00～18:00 土・日・祝日 9:30～18:00",
        "甘味処 平日 11:00～17:00 土・日・祝日 11:00～17:30",
    ]
    german = (
        "<h1>Öffnungszeiten</h1><table><tr><th>Bereich</th><th>Mo–Fr</th><th>Sa</th><th>So</th></tr>"
        "<tr><td>Praxis</td><td>8–18 Uhr</td><td>9–12 Uhr</td><td>geschlossen</td></tr></table>"
    )
    assert _hours_of(german, "https://praxis.example/zeiten/", "de") == [
        "Praxis Mo–Fr 8–18 Uhr Sa 9–12 Uhr So geschlossen"
    ]
    assert days_of("店舗 平日 10:00～18:00") == {0, 1, 2, 3, 4}
    # on a site whose footer says "営業時間：10:00～18:00" on every page, and whose access page
    # says it too, the card keeps the table's week and says the footer's line once
    footer = "<footer><p>営業時間：10:00～18:00（甘味処 11:00～17:00）</p><p>定休日：月曜日</p></footer>"

    def site_page(path: str, body: str) -> tuple[str, tuple]:
        html = f"<html lang='ja'><head><title>t</title></head><body><main>{body}</main>{footer}</body></html>"
        return "https://wagashi.example" + path, parse_html(html, "https://wagashi.example" + path).facts

    access = "<h1>アクセス</h1><p>受付時間 10:00-18:00 [ 月曜定休 ]</p>"
    pages = [site_page("/hours/", japanese), site_page("/access/", access)]
    pages += [site_page(f"/news/{n}/", f"<h1>お知らせ {n}</h1><p>新作のご案内です。</p>") for n in range(3)]
    hours = [f.value for f in contact_card(pages) if f.kind == "hours"]
    assert hours[:2] == [
        "店舗（お持ち帰り） 平日 10:00～18:00 土・日・祝日 9:30～18:00",
        "甘味処 平日 11:00～17:00 土・日・祝日 11:00～17:30",
    ]
    assert len(hours) == len(set(hours))
    # a training plan's days are no opening hours
    plan = (
        "<h1>Plan</h1><table><tr><th>Week</th><th>Monday</th><th>Tuesday</th><th>Wednesday</th></tr>"
        "<tr><td>1st</td><td>Rest</td><td>5-6 miles</td><td>4 miles</td></tr></table>"
    )
    assert not _hours_of(plan, "https://run.example/plan/")
    # a table of prices whose header names no day is read as before
    prices = "<h1>Preise</h1><table><tr><th>Kurs</th><th>Einzel</th><th>10er</th></tr><tr><td>Yoga</td><td>18 €</td><td>150 €</td></tr></table>"
    assert not _hours_of(prices, "https://yoga.example/preise/", "de")


def test_romanian_and_hungarian_days_make_hours_lines():
    """A Romanian car-rental site's "Luni – Vineri: 08:00 – 20:00" was no hours line: its
    Romanian card had no hours, only its English pages' did."""
    ro = (
        "<h1>Contact</h1><table><tr><td>Luni – Vineri:</td><td>08:00 – 20:00</td></tr>"
        "<tr><td>Sâmbătă:</td><td>09:00 – 15:00</td></tr><tr><td>Duminică:</td><td>închis</td></tr></table>"
    )
    assert _hours_of(ro, "https://rent.example/contact/", "ro") == [
        "Luni – Vineri: 08:00 – 20:00",
        "Sâmbătă: 09:00 – 15:00",
        "Duminică: închis",
    ]
    hu = "<h1>Nyitvatartás</h1><p>Hétfő–Péntek 9:00–18:00</p><p>Szombat 9:00–13:00</p><p>Vasárnap zárva</p>"
    assert _hours_of(hu, "https://bolt.example/kapcsolat/", "hu") == [
        "Hétfő–Péntek 9:00–18:00",
        "Szombat 9:00–13:00",
        "Vasárnap zárva",
    ]
    assert days_of("Zilnic 09:00 – 18:00") == set(range(7))


def test_a_finnish_site_its_days_its_contact_page_and_its_news():
    """A Tampere sauna's contact page (/yhteystiedot/) holds a table of short days ("Ti–To",
    "La") against two places' times; its footer says "ti–pe 11–20, la 10–20"; its
    Christmas hours are in a news post (/ajankohtaista/…). The card had only the English
    page's hours and read its phone and address off the English page."""
    assert days_of("Ti–To 11–20 16–21") == {1, 2, 3}
    assert days_of("| La | 10–20 | 12–22 |") == {5}
    assert days_of("Lounas ti–pe klo 11–14") == {1, 2, 3, 4}
    assert days_of("Maanantaisin suljettu") == {0}
    # two letters that are words elsewhere name no day without a time or a range
    assert days_of("To book, call 10 minutes ahead") == set() and days_of("La cocina abre a las 12:00") == set()
    assert days_of("| Ti 23.12. | Kahvila 11–16 |") == set()  # a date, not Tuesdays
    footer = "<footer><p>Puhelin 040 718 2290</p><p>Kahvila ti–pe 11–20, la 10–20, su 11–18</p></footer>"

    def site_page(path: str, body: str) -> tuple[str, tuple]:
        html = f"<html lang='fi'><head><title>t</title></head><body><main>{body}</main>{footer}</body></html>"
        return "https://sauna.example" + path, parse_html(html, "https://sauna.example" + path).facts

    contact = (
        "<h1>Yhteystiedot</h1><p>Kaislarannankatu 7<br>33250 Tampere</p><h2>Aukioloajat</h2>"
        "<table><tr><th></th><th>Kahvila</th><th>Sauna</th></tr><tr><td>Maanantai</td><td>suljettu</td><td>suljettu</td></tr>"
        "<tr><td>Ti–Su</td><td>11–20</td><td>16–21</td></tr></table>"
    )
    christmas = "<h1>Joulun aukioloajat</h1><p>Ke 24.12. jouluaatto: joulusauna 9–13. Puhelin 040 718 2290.</p>"
    pages = [site_page("/yhteystiedot/", contact), site_page("/ajankohtaista/joulu-2025/", christmas)]
    pages += [site_page(f"/sivu-{n}/", f"<h1>Sivu {n}</h1><p>Tervetuloa.</p>") for n in range(3)]
    card = contact_card(pages)
    # the table's columns are places: each time says whose it is
    assert [f.value for f in card if f.kind == "hours"][:2] == [
        "Maanantai suljettu suljettu",
        "Ti–Su Kahvila 11–20 Sauna 16–21",
    ]
    assert [f.url for f in card if f.kind == "phone"] == ["https://sauna.example/yhteystiedot/"]
    # the card's passage says its labels in Finnish too: a Finnish caller's words match them
    assert "Aukioloajat / Opening hours: Ti–Su Kahvila 11–20 Sauna 16–21" in card_markdown(card, ["fi"])


def test_a_hungarian_impresszum_names_its_host_which_is_not_the_business():
    impresszum = (
        "<h1>Impresszum</h1><p>Vadrózsa Beauty Kft., 6720 Szeged, Mikszáth Kálmán utca 14.</p>"
        "<p>E-mail: info@vadrozsa.example</p><p><strong>Tárhelyszolgáltató</strong></p>"
        "<p>Tárhelypark Hosting Kft., 1117 Budapest, Hunyadi János út 19.</p>"
        "<p>E-mail: ugyfelszolgalat@tarhely.example</p>"
    )
    emails = _values_of("email", impresszum, "https://vadrozsa.example/impresszum/", "hu")
    assert "info@vadrozsa.example" in emails and "ugyfelszolgalat@tarhely.example" not in emails


def test_short_weeks_are_read_in_the_lines_own_week():
    """Swedish, Danish, Dutch and Czech write their days in two or three letters, words
    elsewhere ("ons", "tor", "so"); a line's short names are read in the week its ranges
    are written in. "So" is Sunday in German and Saturday in Czech."""
    _days_are(
        ("Mån–tor 9–17, fre 9–15", set(range(5))),
        ("Öppettider: mån-fre 9-17", set(range(5))),
        ("Lör–sön stängt", {5, 6}),
        ("man–fre 8–16, lør 10–14", set(range(6))),
        ("ma–vr 9–18, za 10–16", set(range(6))),
        ("Po–Pá 9:00–17:00, So 9:00–12:00", set(range(6))),
        ("Mo–Fr 9–18, Sa 9–13, So geschlossen", set(range(7))),
        ("So 10–14", {6}),
    )
    for line in ("Bel ons 9-17 uur", "den 12 to 14 people", "pe-la-su"):
        assert days_of(line) == set(), line
    assert _hours_of(
        "<p>Kontoret: Mån–tor 9–17, fre 9–15</p><p>Lör–sön stängt</p>", "https://k.example/kontakt/", "sv"
    ) == [
        "Kontoret: Mån–tor 9–17, fre 9–15",
        "Lör–sön stängt",
    ]


def test_the_sites_own_language_leads_the_card_and_stale_structured_hours_stay_off():
    """An Uppsala driving school: its contact page's table in Swedish, the English page's
    week, and JSON-LD left saying Friday until 16:00. The English page had led the card
    (it says more lines) and the Swedish week was cut by MAX_HOURS; the JSON-LD came in
    as "other words" for the same days, with its stale Friday."""
    days = ("Måndag", "Tisdag", "Onsdag", "Torsdag", "Fredag", "Lördag", "Söndag")
    week = list(zip(days, ("09.00–17.00",) * 4 + ("09.00–15.00", "Stängt", "Stängt")))
    rows = "".join(f"<tr><td>{d}</td><td>{t}</td></tr>" for d, t in week)
    kontakt = parse_html(page(f"<h1>Kontakt</h1><table>{rows}</table>", lang="sv"), "https://k.example/kontakt/")
    english = "".join(f"<p>{d} 9 am – 5 pm</p>" for d in ("Monday", "Tuesday", "Wednesday", "Thursday"))
    english += "<p>Friday 9 am – 3 pm</p><p>Saturday closed</p><p>Sunday closed</p><p>Closed for lunch 12–1 pm on weekdays.</p>"
    english_page = parse_html(page(f"<h1>Contact</h1>{english}", lang="en"), "https://k.example/en/contact/")
    spec = [{"dayOfWeek": ["Monday", "Tuesday", "Wednesday", "Thursday"], "opens": "09:00", "closes": "17:00"}]
    spec.append({"dayOfWeek": "Friday", "opens": "09:00", "closes": "16:00"})
    ld = json.dumps({"@context": "https://schema.org", "@type": "DrivingSchool", "openingHoursSpecification": spec})
    home = parse_html(
        page("<h1>Hem</h1>", head=f'<script type="application/ld+json">{ld}</script>', lang="sv"), "https://k.example/"
    )
    hours = [
        f.value for f in contact_card([(d.url, d.facts) for d in (home, english_page, kontakt)]) if f.kind == "hours"
    ]
    assert hours[:7] == [f"{d} {t}" for d, t in week]
    assert not any("16:00" in h for h in hours)  # the stale Friday
    # structured data with the page's own times keeps its English days beside the site's
    spec[1]["closes"] = "15:00"
    ld = json.dumps({"@context": "https://schema.org", "@type": "DrivingSchool", "openingHoursSpecification": spec})
    home = parse_html(
        page("<h1>Hem</h1>", head=f'<script type="application/ld+json">{ld}</script>', lang="sv"), "https://k.example/"
    )
    hours = [f.value for f in contact_card([(d.url, d.facts) for d in (home, kontakt)]) if f.kind == "hours"]
    assert hours[7:] == ["Monday–Thursday 09:00–17:00", "Friday 09:00–15:00"]


def test_a_vietnamese_tailors_contact_page_days_and_the_web_agency():
    """A Hội An tailor: its contact page labels its lines in Vietnamese (Địa chỉ, Điện
    thoại bàn, Giờ mở cửa), its footer says "Mở cửa: 8:00 – 21:30 hằng ngày (Thứ Hai –
    Chủ Nhật)", and its privacy page gives the web agency's number in a sentence. Nothing
    Vietnamese was read: the card took all it had from the English page."""
    for line, days in (
        ("Mở cửa: 8:00 – 21:30 hằng ngày (Thứ Hai – Chủ Nhật)", set(range(7))),
        ("Thứ Hai – Thứ Bảy 8:00 – 17:00", set(range(6))),
        ("Thứ 2 đến Thứ 6: 8h – 17h", set(range(5))),
        ("T2 – T7: 8:00 – 17:00", set(range(6))),
        ("Chủ nhật nghỉ", {6}),
        ("Lần thứ hai 10:00 – 12:00", set()),  # "the second time", not Monday
    ):
        assert days_of(line) == days, line
    contact = (
        "<h1>Liên hệ</h1><p><strong>Địa chỉ:</strong> 47 Trần Phú, phường Minh An, TP. Hội An</p>"
        "<p><strong>Điện thoại bàn:</strong> 0235 3861 457</p>"
        "<p><strong>Giờ mở cửa:</strong> 8:00 – 21:30, tất cả các ngày trong tuần.</p>"
    )
    facts = parse_html(page(contact, lang="vi"), "https://may.example/lien-he/").facts
    assert [(f.kind, f.label, f.value) for f in facts if f.kind != "email" and f.kind != "whatsapp"][1:] == [
        ("address", "", "47 Trần Phú, phường Minh An, TP. Hội An"),
        ("phone", "Điện thoại bàn", "0235 3861 457"),
        ("hours", "", "Giờ mở cửa: 8:00 – 21:30, tất cả các ngày trong tuần."),
    ]
    privacy = (
        "<h1>Chính sách bảo mật</h1><h2>5. Đơn vị quản trị website</h2><p>Website được thiết kế và quản trị kỹ "
        "thuật bởi Công ty HoiWeb, 88 Hùng Vương, Đà Nẵng. Điện thoại: 0236 3 789 456 – Email: hotro@hoiweb.example.</p>"
        "<p>Mã số doanh nghiệp: 4000812345</p>"
    )
    assert _values_of("phone", privacy, "https://may.example/chinh-sach-bao-mat/", "vi") == ["+49 30 123456"]
    card = contact_card([("https://may.example/lien-he/", facts)])
    assert "Địa chỉ / Address: 47 Trần Phú" in card_markdown(card, ["vi"])


def test_an_indonesian_rental_its_days_its_contact_page_and_the_freelancer():
    """A Ubud scooter rental: "Senin – Sabtu: 08.00 – 20.00", "Minggu" (Sunday; "minggu"
    is also a week), "Telp", "Alamat", /kontak/; its privacy page names the freelancer
    who built the site, with his number, in a sentence ("dibuat dan dikelola oleh …")."""
    _days_are(
        ("Senin – Sabtu: 08.00 – 20.00", set(range(6))),
        ("Minggu: 09.00 – 17.00", {6}),
        ("Senin s.d. Jumat 08.00-16.00", set(range(5))),
        ("Minggu tutup", {6}),
        ("Sewa per minggu Rp 450.000", set()),
        ("Buka setiap hari 08.00 – 20.00", set(range(7))),
    )
    contact = (
        "<h1>Hubungi Kami</h1><p><strong>Telepon kantor:</strong> 0361 975 412</p>"
        "<p><strong>Alamat:</strong> Jl. Raya Andong No. 27, Petulu, Kec. Ubud, Bali 80571</p>"
        "<h2>Jam Operasional</h2><table><tr><td>Senin – Sabtu</td><td>08.00 – 20.00</td></tr>"
        "<tr><td>Minggu</td><td>09.00 – 17.00</td></tr></table>"
    )
    facts = parse_html(page(contact, lang="id"), "https://motor.example/kontak/").facts
    assert ("phone", "Telepon kantor", "0361 975 412") in [(f.kind, f.label, f.value) for f in facts]
    assert [f.value for f in facts if f.kind in ("address", "hours")] == [
        "Jl. Raya Andong No. 27, Petulu, Kec. Ubud, Bali 80571",
        "Senin – Sabtu 08.00 – 20.00",
        "Minggu 09.00 – 17.00",
    ]
    privacy = (
        "<h1>Kebijakan Privasi</h1><p>Situs web ini dibuat dan dikelola oleh Pradnya Web Studio, Denpasar. "
        "Untuk masalah teknis silakan hubungi 0878-6112-0934 atau halo@pradnyaweb.example.</p>"
    )
    assert _values_of("phone", privacy, "https://motor.example/kebijakan-privasi/", "id") == ["+49 30 123456"]
    card = contact_card([("https://motor.example/kontak/", facts)])
    assert "Jam buka / Opening hours: Senin – Sabtu 08.00 – 20.00" in card_markdown(card, ["id"])


def test_a_number_or_address_on_a_line_about_someone_else_is_not_the_one_asked_for():
    # retrieval.asked counts a passage holding a phone as an answer to "what's your number?"
    made_by = (
        "Situs web ini dibuat dan dikelola oleh Pradnya Web Studio. Hubungi 0878-6112-0934 atau halo@pradnya.example."
    )
    assert not mentions_phone(made_by) and not mentions_email(made_by)
    assert mentions_phone(f"{made_by}\nTelp kantor: 0361 975 412") and mentions_email("Email: info@rental.example")


def test_a_ukrainian_clinic_its_week_in_short_and_full_days_and_a_link_label_from_before_it():
    """A Lviv dental clinic: its footer says "Пн–Пт: 9:00–20:00", "Сб: 10:00–15:00",
    "Нд: вихідний"; its contact page's table has the full days ("П'ятниця", an
    apostrophe inside). Its header's phone link writes the number in two spans, followed
    by a Telegram link: the words after the link had become the phone's label."""
    _days_are(
        ("Пн–Пт: 9:00–20:00", set(range(5))),
        ("Сб: 10:00–15:00", {5}),
        ("Нд: вихідний", {6}),
        ("П'ятниця 9:00–20:00", {4}),
        ("з понеділка по п’ятницю 9:00–18:00", set(range(5))),
        ("Пн-Пт 9:00-18:00, Сб 10:00-15:00, Вс выходной", set(range(7))),
    )
    contact = (
        "<h1>Контакти</h1><p><strong>Адреса:</strong> вул. Генерала Чупринки, 47, Львів, 79000</p>"
        "<h2>Графік роботи</h2><table><tr><td>П'ятниця</td><td>9:00–20:00</td></tr>"
        "<tr><td>Неділя</td><td>вихідний</td></tr></table>"
    )
    assert _values_of("address", contact, "https://dent.example/kontakty/", "uk") == [
        "вул. Генерала Чупринки, 47, Львів, 79000"
    ]
    assert _hours_of(contact, "https://dent.example/kontakty/", "uk") == ["П'ятниця 9:00–20:00", "Неділя вихідний"]
    header = (
        '<header><a href="tel:+380322451783"><span>+38 (032)</span> <span>245-17-83</span></a> '
        '<a href="https://t.me/dent_lviv">Telegram</a></header>'
    )
    doc = parse_html(
        f'<html lang="uk"><body>{header}<main><h1>Головна</h1></main></body></html>', "https://dent.example/"
    )
    assert [(f.label, f.value) for f in doc.facts if f.kind == "phone"] == [("", "+38 (032) 245-17-83")]


def test_what_the_new_weeks_must_not_read_elsewhere():
    """A review's finds: a street ("Main St 12-14"), a gate ("Tor 3-5"), a camera ("X-T3"),
    a language tag ("zh-CN"), Turkish "senin" (your) and a French "La fermeture" are no
    days; long runs of spaces after a short name take no time (three \\s* in a row had
    backtracked cubically)."""
    for line in (
        "Visit us at Main St 12-14, Springfield",
        "Lieferungen bitte über Tor 3-5 anliefern.",
        "Fujifilm X-T3 Workshop 9-17",
        "Sprachen: zh-CN 9-17",
        "Senin için 10:00-18:00 arası buradayız",
        "La fermeture du magasin",
    ):
        assert days_of(line) == set(), line
    _days_are(("T2 – T7: 8:00 – 17:00", set(range(6))), ("La suljettu", {5}), ("Po–Pá 9–17, St 9–12", set(range(5))))
    started = time.perf_counter()
    days_of("Mo" + " " * 5000 + "x")
    assert time.perf_counter() - started < 1.0
    # a footer's pieces: the credit to WordPress is not the business's number's line
    footer = "© 2024 Zahnarzt Muster · Tel. 030 1234567 · info@muster.de · Powered by WordPress"
    assert mentions_phone(footer) and mentions_email(footer)


def test_a_12_hour_range_says_its_times_as_a_24_hour_one():
    from ingest.extract.facts import _clock_times

    assert _clock_times("9 am – 5 pm") == _clock_times("09:00–17:00") == {540, 1020}


def test_days_in_traditional_chinese_thai_arabic_and_croatian():
    """Four sites nobody here had read: a Taipei physio ("週一至週五", "禮拜六" as Taiwan
    speaks), a Chiang Mai massage house ("วันจันทร์ พุธ พฤหัสบดี ศุกร์", no spaces inside
    words), an Amman garage ("السبت – الأربعاء: ٨ صباحاً – ٦ مساءً", Arabic-Indic digits and
    the time of day after them) and a Brač apartment office ("Ponedjeljak – subota",
    "pon – pet"). None of their days was read: each card took its hours from the English
    contact page alone, or from nothing."""
    _days_are(
        ("週一至週五 早診 09:00–12:00｜午診 14:30–17:30｜晚診 18:30–21:00", set(range(5))),
        ("週六 早診 09:00–12:00", {5}),
        ("週日、國定假日休診", {6}),
        ("禮拜六下午有看診嗎", {5}),
        ("每週一次，一次 30 分鐘", set()),  # once a week, not Monday
        ("兩週一次", set()),
        ("วันจันทร์ พุธ พฤหัสบดี ศุกร์ 10:00–21:00 น.", {0, 2, 3, 4}),
        ("วันเสาร์–อาทิตย์ 09:00–22:00 น.", {5, 6}),
        ("หยุดทุกวันอังคาร", {1}),
        ("อาทิตย์ละครั้ง", set()),  # once a week: "อาทิตย์" alone is a week too
        ("จ., พ.-อา. 11.00–22.00 น.", {0, 2, 3, 4, 5, 6}),  # the short week Thai shops write
        ("จ.-ศ. 10:00-20:00", set(range(5))),
        ("ส.-อา. ปิด", {5, 6}),
        ("อ.เมือง จ.เชียงใหม่ 50200", set()),  # a district and a province, not Tuesday and Monday
        ("السبت – الأربعاء: ٨ صباحاً – ٦ مساءً", {5, 6, 0, 1, 2}),
        ("من السبت إلى الخميس", {5, 6, 0, 1, 2, 3}),
        ("الجمعة: مسكّرين", {4}),
        ("Ponedjeljak – subota 8:00 – 20:00", set(range(6))),
        ("pon – pet: 9 – 15 h", set(range(5))),
        ("Nedjelja i blagdani zatvoreno", {6}),
    )
    contact = (
        "<h1>اتصل بنا</h1><h2>ساعات الدوام</h2><table><tr><th>السبت</th><td>٨:٠٠ صباحاً – ٦:٠٠ مساءً</td></tr>"
        "<tr><th>الخميس</th><td>٨:٠٠ صباحاً – ٣:٠٠ عصراً</td></tr><tr><th>الجمعة</th><td>مغلق (عطلة أسبوعية)</td></tr></table>"
    )
    facts = parse_html(page(contact, lang="ar"), "https://garage.example/contact/").facts
    assert [f.value for f in facts if f.kind == "hours"] == [
        "السبت ٨:٠٠ صباحاً – ٦:٠٠ مساءً",
        "الخميس ٨:٠٠ صباحاً – ٣:٠٠ عصراً",
        "الجمعة مغلق (عطلة أسبوعية)",
    ]
    thai = (
        "<h1>ติดต่อเรา</h1><h2>เวลาทำการ</h2><table><tr><td>วันจันทร์</td><td>10:00–21:00 น.</td></tr>"
        "<tr><td>วันอังคาร</td><td>ปิดทำการ (หยุดประจำสัปดาห์)</td></tr></table>"
    )
    facts = parse_html(page(thai, lang="th"), "https://nuad.example/contact/").facts
    assert [f.value for f in facts if f.kind == "hours"] == ["วันจันทร์ 10:00–21:00 น.", "วันอังคาร ปิดทำการ (หยุดประจำสัปดาห์)"]


def test_the_web_agencys_number_in_thai_croatian_and_chinese_is_someone_elses():
    # The massage house's privacy page: "ผู้พัฒนาและดูแลเว็บไซต์:" (site developer and
    # maintainer) and the payment provider, each with its own number; "what's your mobile
    # number?" got that page first, as a passage holding the number asked for.
    assert not mentions_phone("- **ผู้พัฒนาและดูแลเว็บไซต์:** บริษัท ล้านนา ดิจิทัล ครีเอทีฟ จำกัด โทร 053-120-448")
    assert not mentions_phone("- **ผู้ให้บริการรับชำระเงินออนไลน์** (บัตรเครดิต): บริษัท สยามเพย์ โทร 02-108-6600")
    assert mentions_phone("- **โทร:** 053-214-587")
    assert not mentions_phone(
        "Izrada, hosting i održavanje web stranice: Kamenjar Digital j.d.o.o., tel. +385 21 782 310"
    )
    assert not mentions_phone("網站設計：康達數位 電話 (02) 2345-6789")
    assert mentions_phone("Telefon: +385 21 631 245")


def test_review_of_the_four_languages_days():
    """A review of the round's patterns, on forms the four sites did not use."""
    _days_are(
        ("Sub: 8-13", {5}),  # a Croatian week one day a line
        ("Pet: 8-14", {4}),
        ("pet 8-14", set()),  # lowercase and alone: a word elsewhere
        ("每週一公休", {0}),  # closed every Monday
        ("星期一至五 9:00-18:00", set(range(5))),
        ("週一~五 9:00-18:00", set(range(5))),
        ("週六日公休", {5, 6}),
        ("週三日勤務", set()),  # Japanese: three days a week
        ("週一度", set()),  # Japanese: once a week
        ("เปิดทุกวัน 10:00-22:00", set(range(7))),
        ("ทุกวันอังคาร", {1}),  # every Tuesday
        ("السبت والأحد مغلق", {5, 6}),  # "و" (and) written onto the day
        ("يومياً 9 صباحاً - 9 مساءً", set(range(7))),
        ("radnim danima 8-16", set(range(5))),
        ("svaki dan 9-21", set(range(7))),
    )
    assert _CLOSED.search("วันพุธปิด") and _CLOSED.search("ปิดทุกวันพุธ") and _CLOSED.search("الجمعة: عطلة")
    assert not _CLOSED.search("เปิดทุกวัน 10:00-22:00") and not _CLOSED.search("เปิดบริการทุกวัน")  # "open" holds "ปิด"
    assert _clock_times("السبت - الخميس: 8 صباحًا - 6 مساءً") == {480, 1080}  # the mark on either side of alef
    assert _clock_times("9:00 ص - 6:00 م") == {540, 1080}
    assert _times("من الساعة 9 صباحاً حتى الساعة 6 مساءً")
    # a dated notice is no weekly hours: Taiwan's 民國 113 and Thailand's 2567
    body = "<h1>公告</h1><p>113年2月10日(週六) 上午 9:00-12:00 看診</p><p>週一至週五 09:00-21:00</p>"
    assert _hours_of(body, "https://k.example/news/", "zh-TW") == ["週一至週五 09:00-21:00"]
    body = "<h1>ประกาศ</h1><p>วันเสาร์ที่ 13 เมษายน 2567 เปิด 10:00-15:00</p><p>วันจันทร์ 10:00-21:00 น.</p>"
    assert _hours_of(body, "https://n.example/news/", "th") == ["วันจันทร์ 10:00-21:00 น."]
    footer = "<h1>ร้านเรือนไทย</h1><p>123 ถ.สุขุมวิท อ.เมือง จ.เชียงใหม่ 50200</p><p>จ.-ศ. 10.00–20.00 น.</p><p>ส.-อา. ปิด</p>"
    assert _hours_of(footer, "https://r.example/", "th") == ["จ.-ศ. 10.00–20.00 น.", "ส.-อา. ปิด"]
    # the business itself is the Thai privacy page's "service provider"; a payment provider is not
    assert not other_party("ผู้ให้บริการ: บริษัท สบายดี สปา จำกัด โทร 053-000-000")
    assert other_party("ผู้ให้บริการรับชำระเงิน: บริษัท สยามเพย์ โทร 02-108-6600")
    for line in ("ไลน์: @sabaidee", "加LINE：@abc", "LINE官方帳號：@abc", "微信号：abc123", "Line ID: 0812345678"):
        assert mentions_chat(line), line
    assert not mentions_chat("Bottom line: we care about your car")


def test_hours_under_a_word_for_hours_without_a_day_in_the_four_languages():
    # "Radno vrijeme: 8-16h": the hours of every working day, with no day named
    for body, lang in (
        ("<h1>Kontakt</h1><p>Radno vrijeme: 8-16h</p>", "hr"),
        ("<h1>اتصل بنا</h1><p>ساعات العمل: 8 صباحاً - 6 مساءً</p>", "ar"),
        ("<h1>聯絡我們</h1><p>門診時間：09:00-21:00</p>", "zh-TW"),
        ("<h1>ติดต่อ</h1><p>เวลาทำการ: เปิดทุกวัน 10:00-22:00</p>", "th"),
    ):
        assert len(_hours_of(body, "https://x.example/kontakt/", lang)) == 1, body


def test_a_hebrew_site_days_phone_and_someone_elses_numbers():
    """A Tel Aviv bike shop nobody here had read: its week in Israel's short form
    ("א׳–ה׳ 9:00–19:00, ו׳ 9:00–14:00, שבת סגור"), an hours table a day a row, "03-5281947"
    for tel:+97235281947, and a privacy page giving the web agency's and the payment
    company's numbers in sentences. Its card had only the English contact page's hours."""
    _days_are(
        ("א׳–ה׳ 9:00–19:00", {6, 0, 1, 2, 3}),  # Sunday to Thursday
        ("ו׳ וערבי חג 9:00–14:00", {4}),  # Friday and holiday eves
        ("שבת סגור", {5}),
        ("ראשון עד חמישי 9:00–19:00", {6, 0, 1, 2, 3}),
        ("פתוחים גם בימי שני", {0}),
        ("בימי שני ורביעי 10:00-12:00", {0, 2}),
        ("שני חדרים 200 ₪", set()),  # "two rooms": "שני" is also a number
        ("יש לכם שני סניפים?", set()),
    )
    contact = (
        "<h1>צור קשר</h1><h3>טלפון החנות</h3><p><a href='tel:+97235281947'>03-5281947</a></p>"
        "<h2>שעות פתיחה</h2><table><tr><td>ראשון</td><td>9:00–19:00</td></tr>"
        "<tr><td>שישי וערבי חג</td><td>9:00–14:00</td></tr><tr><td>שבת</td><td>סגור</td></tr></table>"
    )
    facts = parse_html(page(contact, lang="he"), "https://ofanaim.example/tzor-kesher/").facts
    assert [f.value for f in facts if f.kind == "hours"] == ["ראשון 9:00–19:00", "שישי וערבי חג 9:00–14:00", "שבת סגור"]
    assert "03-5281947" in [f.value for f in facts if f.kind == "phone"]  # as the page writes it
    privacy = (
        "<h1>מדיניות פרטיות</h1><h2>תשלומים</h2><p>תשלומים מקוונים מתבצעים באמצעות חברת הסליקה פיי־סייף "
        'סליקה בע"מ, רחוב המנופים 8, הרצליה, טלפון 09-9580400.</p><h2>פיתוח ואחסון האתר</h2>'
        '<p>האתר נבנה ומתוחזק על ידי פיקסל־וייב סטודיו בע"מ, טלפון 03-7654320.</p>'
    )
    assert _values_of("phone", privacy, "https://ofanaim.example/privacy/", "he") == ["+49 30 123456"]
    assert not mentions_phone("בניית אתרים: פיקסל-וייב סטודיו, טלפון 03-7654320")
    assert mentions_phone("טלפון: 03-5281947")


def test_review_of_the_hebrew_and_thai_readings():
    """A review of the round's patterns, on forms the bike shop did not use."""
    _days_are(
        ("שעות פתיחה: ראשון עד חמישי 09:00-21:00, שישי 09:00-14:00", {6, 0, 1, 2, 3, 4}),
        ("ימים ראשון עד חמישי 9:00-18:00", {6, 0, 1, 2, 3}),
        ('מוצ"ש 20:00-23:00', {5}),  # Saturday night
        ("א׳־ה׳ 8:00-17:00", {6, 0, 1, 2, 3}),  # a maqaf for the range
        ("ש'- סגור", {5}),
        ("קבוצה א' 16:00-17:00, קבוצה ב' 17:00-18:00", set()),  # groups A and B
        ("כיתה ו' 8:00-13:00", set()),  # sixth grade
        ("שני מטפלים זמינים 09:00-17:00", set()),  # two therapists
        ("ראשון לציון 09:00-18:00", set()),  # a city
        ("אפשר לבוא לשבת עם לפטופ?", set()),  # to sit
        ("สอนโดย อ. 13.00-15.00 น.", set()),  # taught by a teacher ("อ.")
        ("ส.ส. 10:00", set()),  # a member of parliament
        ("เปิด อ. 10:00", {1}),
    )
    for names in ("א׳ " * 40, "จ. " * 40, "א׳   " * 30):  # no time after them: this took minutes
        started = time.perf_counter()
        days_of(names)
        assert time.perf_counter() - started < 0.5
    # nor is a line with such a lone name an hours line ("_names_a_day" read it past the rule)
    assert _hours_of("<h1>คอร์ส</h1><p>สอนโดย อ. 13.00-15.00 น.</p>", "https://x.example/course/", "th") == []
    # the agency's credit as Hebrew sites write it
    assert not mentions_phone('עיצוב ופיתוח האתר ע"י סטודיו X, טלפון 050-7654321')
    assert other_party("נבנה על-ידי WebY")  # (a footer's "|" ends the credit: what follows may be the business's)
    # a text's number shown only when it is the link's: 02-1234567 is no local form of +972 52 123 4567
    phones = _values_of("phone", "<p><a href='tel:+972521234567'>02-1234567</a></p>", "https://x.example/", "he")
    assert "+972521234567" in phones and "02-1234567" not in phones


@pytest.mark.parametrize(
    "url, news",
    [
        ("https://g.example/blog/holiday-hours-2024.html", True),
        ("https://f.example/nieuws/", True),
        ("https://c.example/nyheder/nye-aabningstider/", True),
        ("https://s.example/nyheter/julstangt-2024/", True),
        ("https://w.example/aktualnosci/swieta-2026.html", True),
        ("https://y.example/aktuality/workshop-jin-jogy.html", True),
        ("https://h.example/nea/pasxa-2025/", True),
        ("https://n.example/akhbar/taghir-saat-kari-1403/", True),
        ("https://k.example/%EA%B3%B5%EC%A7%80/12", True),  # 공지, as browsers send it
        ("https://blog.example/2025/12/19/what-do-people-love-about-it", True),  # a dated permalink
        ("https://g.example/hours-location/", False),
        ("https://g.example/prices-2025/", False),  # a year in a name is no year's folder
        ("https://n.example/nearby/", False),
        ("https://g.example/nea-smyrni/contact/", False),  # a place
        ("https://c.example/notice-of-privacy-practices/", False),
        ("https://r.example/menu/2025/", False),  # a year's folder, no month
        ("https://b.example/новини/", True),
    ],
)
def test_a_news_post_is_told_by_its_address(url, news):
    assert news_page(url) is news


def test_a_persian_clinics_week_from_its_contact_page_and_not_from_an_old_post():
    # A Shiraz dental clinic: the week starts on Saturday, Friday is closed, times are in
    # Persian digits joined by "تا"; a post dated ۱۴۰۳ gives last year's hours.
    contact = parse_html(
        page(
            "<h1>تماس با ما</h1><h2>ساعات کاری</h2><p>شنبه تا چهارشنبه ۹:۰۰ تا ۱۴:۰۰ و ۱۷:۰۰ تا ۲۱:۰۰</p>"
            "<p>پنجشنبه ۹:۰۰ تا ۱۴:۰۰</p><p>جمعه تعطیل</p>",
            lang="fa",
        ),
        "https://d.example/contact/",
    )
    post = parse_html(
        page("<h1>تغییر ساعات کاری</h1><p>از ۱ مهر ۱۴۰۳ سه‌شنبه‌ها ۸:۳۰ تا ۱۲:۳۰</p>", lang="fa"),
        "https://d.example/news/taghir-saat-kari-1403/",
    )
    card = contact_card([(d.url, d.facts) for d in (contact, post)])
    hours = [f.value for f in card if f.kind == "hours"]
    # in the order of the week as the card counts it, from Monday
    assert hours == ["پنجشنبه ۹:۰۰ تا ۱۴:۰۰", "جمعه تعطیل", "شنبه تا چهارشنبه ۹:۰۰ تا ۱۴:۰۰ و ۱۷:۰۰ تا ۲۱:۰۰"], hours
    assert card_markdown(card, ["fa"]).startswith("# تماس با ما / Contact")


def test_catalan_and_slovenian_weeks_and_cards_are_read():
    _days_are(
        ("De dilluns a divendres de 9:30 a 14:00", set(range(5))),
        ("Dl–Dv: 9:30–14 h, Ds: 10–14 h", set(range(6))),
        ("Dissabtes i diumenges tancat", {5, 6}),
        ("od ponedeljka do petka od 8. do 16. ure", set(range(5))),
        ("Sobota in nedelja: zaprto", {5, 6}),
        ("Pon–pet 8–16, sob 8–12", set(range(6))),
        ("sre 10.00–12.00", {2}),
        ("Sredi mesta, ob reki", set()),  # "in the middle of", no Wednesday
        # Catalan short names are words elsewhere: a DJ, Washington DC
        ("Sábado: DJ 22:00 - 03:00", {5}),
        ("Washington DC 9:00–17:00", set()),
    )
    card = [Fact("hours", "Dilluns tancat")]
    assert card_markdown(card, ["ca"]).startswith("# Contacte / Contact")
    assert "Horari / Opening hours: Dilluns tancat" in card_markdown(card, ["ca"])
    assert "Delovni čas / Opening hours:" in card_markdown(card, ["sl"])
    from ingest.extract.facts import contact_page, news_page

    assert news_page("https://bicis.example/noticies/bicis-de-carrega/") and news_page("https://zobna.example/novice/")
    assert not news_page("https://climb.example/novice-climbing-course/")  # a course for novices
    assert contact_page("https://bicis.example/contacte/") and contact_page("https://zobna.example/kje-smo/")
    assert contact_page("https://bicis.example/on-som/") and not contact_page("https://wine.example/season-sommelier/")


def test_the_days_that_lead_an_hours_line_or_a_tables_row():
    from ingest.extract.facts import hours_line_days

    table = "### Opening hours\n\n| Monday – Friday | 9.30am – 2pm |\n| --- | --- |\n| Saturday | 10am – 2pm |\n| Sunday | Closed |"
    assert hours_line_days(table) == {0, 1, 2, 3, 4, 5, 6}
    assert hours_line_days("- **Dissabte:** 10:00 – 14:00\n- Diumenge: tancat") == {5, 6}
    # after a label or one short word
    assert hours_line_days("De dilluns a divendres de 9:30 a 14:00") == {0, 1, 2, 3, 4}
    assert hours_line_days("Opening hours: Mon–Fri 9–17") == {0, 1, 2, 3, 4}
    assert hours_line_days("Kinderworkshop elke donderdag 15.00 – 17.00") == set()
    # prose naming a day, and a day without a time or a word for closed, lead no hours line
    assert hours_line_days("The weekend rental runs from Saturday at 10:00 to Monday at 10:00.") == set()
    assert hours_line_days("Saturday is our busiest day, please book ahead.") == set()


def test_catalan_and_slovenian_web_agencies_and_booking_platforms_are_other_parties():
    # The Girona restaurant's card gave its web agency's and its booking platform's numbers
    # beside its own, from the legal page.
    for line in (
        "Disseny, allotjament i manteniment del lloc web: Grana Digital Studio, S.L. Tel. 972 10 55 90",
        "Plataforma de reserves en línia: TaulaFàcil, Barcelona. Tel. 93 512 77 40",
        "Aquest web l'ha dissenyat i el manté Estudi Pinyol Digital, S.L.: telèfon 931 07 55 42",
        "Izdelava, gostovanje in vzdrževanje spletne strani: Spletni studio Kranjc d.o.o., tel. +386 4 281 77 40",
        "Spletni rezervacijski sistem in upravljanje kanalov: BookLake, tel. +386 1 620 55 10",
        "Spletno stran je izdelala in jo vzdržuje agencija Spletnik d.o.o., tel. 01 620 44 90",
    ):
        assert other_party(line), line
    for line in ("Telèfon: 972 21 46 83", "Rezervacije: +386 4 576 23 18", "Reserves: truca'ns al 972 21 46 83"):
        assert not other_party(line), line


def test_estonian_lithuanian_and_latvian_weeks_and_cards_are_read():
    _days_are(
        ("E–R 8–18, L 9–15, P suletud", set(range(7))),  # one letter a day, in a line with their range
        ("esmaspäevast reedeni 8.00–18.00", set(range(5))),  # a range in the days' cases alone
        ("Laupäeval 9–15, pühapäeval suletud", {5, 6}),
        ("Pr–Pn 8:00–18:00, Š 9:00–14:00, Sk nedirbame", set(range(7))),
        ("nuo pirmadienio iki penktadienio 9–17", set(range(5))),
        ("Šeštadieniais 9:00–14:00", {5}),
        ("P–Pk 9–18, S 10–15, Sv slēgts", set(range(7))),
        ("no pirmdienas līdz piektdienai 9:00–18:00", set(range(5))),
        # the letters alone, without their week's range, are no days; Polish "Pn" stays Monday
        ("Size L 9–15", set()),
        ("Pn 8–16", {0}),
        # a range of letters where a line, a label or an hours word leads to it; a tie is
        # Hungarian's ("K–P", kedd–péntek, Tuesday to Friday)
        ("Avatud E–R 8.00–18.00", set(range(5))),
        ("K–P: 9–19", {1, 2, 3, 4}),
        ("Nyitvatartás: H–P: 9–18, Szo: 9–13, V: zárva", set(range(7))),
        ("Zone C–S 10–12", set()),
        ("s.n.c. – P.IVA 01234560377", set()),
    )
    card = [Fact("hours", "Pühapäev suletud")]
    assert card_markdown(card, ["et"]).startswith("# Kontakt / Contact")
    assert "Lahtiolekuajad / Opening hours: Pühapäev suletud" in card_markdown(card, ["et"])
    assert "Darbo laikas / Opening hours:" in card_markdown(card, ["lt"])
    assert "Darba laiks / Opening hours:" in card_markdown(card, ["lv"])
    from ingest.extract.facts import contact_page, news_page

    assert news_page("https://rehv.example/uudised/2025/09/sugishooaeg/") and news_page(
        "https://swim.example/naujienos/"
    )
    assert news_page("https://veikals.example/jaunumi/akcija/")
    assert contact_page("https://swim.example/kontaktai/") and contact_page("https://veikals.example/kontakti/")


def test_estonian_lithuanian_and_latvian_web_agencies_and_booking_platforms_are_other_parties():
    for line in (
        "Veebilehe arendus ja haldus: Veebiveski OÜ, tel +372 5600 7788",
        "Broneerimissüsteem: AjaRaamat OÜ, +372 600 3377",
        "Kodulehe valmistas Veebiveski OÜ (info@veebiveski.example)",
        "Svetainės kūrimas: UAB Tinklas, +370 5 219 7788",
        "Registracijos platforma Treniruok.lt: +370 700 55 123",
        "Mājaslapas izstrāde: SIA Lapa, +371 6700 1234",
    ):
        assert other_party(line), line
    assert other_party("Veebimajutus: Zone Media OÜ, +372 5555 1234")
    # "Majutus" is the guesthouse's own accommodation, not hosting
    for line in (
        "Telefon: +372 655 1240",
        "Telefonas: +370 612 48 370",
        "Tālrunis: +371 2000 0000",
        "Majutus: +372 5555 1234",
    ):
        assert not other_party(line), line
