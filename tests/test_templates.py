from dataclasses import replace

from ingest.extract.templates import MIN_REMAINING_CHARS, SITE_DOCUMENT_FRAGMENT, find_template_lines, strip_templates
from ingest.models import Document

NAV = "- Home\n- Rooms\n- Prices\n- Contact"
FOOTER = "12 Quay Street, Porthkerris\nPhone +44 1736 555 0199"


def _doc(i, body, lang="en", title=None):
    return Document(
        url=f"https://a.com/p{i}/",
        title=title or f"Page {i} | Harbour Light",
        markdown=f"{NAV}\n\n{body}\n\n{FOOTER}",
        chrome="",
        lang=lang,
    )


def _site(n=6):
    return [
        _doc(
            i,
            f"# Page {i}\n\nUnique text number {i} about the guesthouse and its many rooms by the sea, "
            f"written for page {i} only, long enough to count as real content.",
        )
        for i in range(n)
    ]


def test_lines_on_more_than_half_of_pages_are_dropped_everywhere():
    docs = _site()
    result = strip_templates(docs, docs[0].url)
    for doc in result.documents:
        assert "- Home" not in doc.markdown and "555 0199" not in doc.markdown
        assert "Unique text number" in doc.markdown
    assert result.report.chars_dropped > 0 and len(result.report.chars_dropped_per_page) == 6


def test_template_is_kept_once_in_a_site_wide_document():
    docs = _site()
    site_doc = strip_templates(docs, docs[0].url).site_document
    assert site_doc is not None and site_doc.url.endswith(SITE_DOCUMENT_FRAGMENT)
    assert "Phone +44 1736 555 0199" in site_doc.markdown and "12 Quay Street" in site_doc.markdown
    assert site_doc.markdown.count("Phone +44") == 1


def test_lines_on_half_or_fewer_pages_stay():
    docs = _site(6)
    docs = [
        d if i >= 3 else Document(**{**d.__dict__, "markdown": d.markdown + "\nShared by three"})
        for i, d in enumerate(docs)
    ]
    assert "Shared by three" not in find_template_lines(docs)


def test_common_title_suffix_is_removed():
    result = strip_templates(_site(), None)
    assert [d.title for d in result.documents][:2] == ["Page 0", "Page 1"]


def test_safety_valve_is_about_remaining_text_not_ratio():
    """A template-heavy page with real text left is stripped even though most of it drops
    (a 60%-ratio rule would switch itself off here); a page left with almost nothing keeps its lines."""
    docs = _site()
    heavy_body = "# Heavy\n\nA short but real paragraph about breakfast served from eight until ten daily."
    docs.append(_doc(9, heavy_body))
    docs.append(_doc(10, "# Tiny"))
    result = strip_templates(docs, None)
    heavy = next(d for d in result.documents if d.url.endswith("/p9/"))
    assert "- Home" not in heavy.markdown and "breakfast" in heavy.markdown
    tiny = next(d for d in result.documents if d.url.endswith("/p10/"))
    assert len(heavy_body) > MIN_REMAINING_CHARS and "- Home" in tiny.markdown


def test_language_groups_find_each_languages_menu():
    """A bilingual site: each menu is on half the pages overall, but on all pages of its language."""
    docs = []
    for i in range(4):
        docs.append(
            Document(
                url=f"https://a.com/en/{i}",
                title="x",
                lang="en",
                markdown=f"- Home\n- Rooms\n\nEnglish page {i} with its own long text about the sea.",
            )
        )
        docs.append(
            Document(
                url=f"https://a.com/de/{i}",
                title="x",
                lang="de",
                markdown=f"- Startseite\n- Zimmer\n\nDeutsche Seite {i} mit eigenem langen Text über das Meer.",
            )
        )
    template = find_template_lines(docs)
    assert {"- Home", "- Startseite"} <= template


def test_a_recovered_block_repeated_on_most_pages_is_template_and_a_page_specific_one_stays():
    """The seed's clinic: callout recovery re-added an author bio repeated on 17-38 pages;
    recovered blocks go through the repetition rule, judged whole (a bio is longer than
    the 200-character line limit)."""
    bio = (
        "Dr. Ayşe Demir has placed dental implants for twenty years, trained in Istanbul and Zurich, "
        "and leads the clinic's surgical team; she answers patients' questions every Friday afternoon "
        "and writes the clinic's guides on implants, bridges and aftercare."
    )
    warning = "Four implants are not automatically enough for every patient."
    docs = []
    for i in range(30):
        recovered = [bio] if i < 17 else []
        body = f"# Service {i}\n\nPage {i} describes its own treatment in words found only on page {i} of the site."
        if i == 3:
            body += f"\n\n{warning}"
            recovered.append(warning)
        if i < 17:
            body += f"\n\n{bio}"
        docs.append(
            Document(
                url=f"https://clinic.example/s{i}/", title=f"Service {i}", markdown=body, recovered=tuple(recovered)
            )
        )
    assert len(bio) > 200
    result = strip_templates(docs, "https://clinic.example/s0/")
    assert not [d.url for d in result.documents if "Dr. Ayşe Demir" in d.markdown]
    assert warning in result.documents[3].markdown
    assert result.site_document is not None and "Dr. Ayşe Demir" in result.site_document.markdown  # kept once
    assert result.report.chars_dropped >= 17 * len(bio)


def test_the_site_wide_document_says_one_thing_a_passage():
    from ingest.index.chunk import chunk_document

    chrome = (
        "Sonnenkorn\n\n- Start\n- Sortiment\n- Blog\n- Kontakt\n\n"
        "**Bäckerei Sonnenkorn**\nSchillerstraße 12, 79098 Freiburg\nTel. 0761 234 56 78\n\n"
        "##### Öffnungszeiten\n\n- Montag bis Freitag\n- Samstag vormittags\n- Sonntag geschlossen\n\n"
        "##### Newsletter\n\nEinmal im Monat: neue Brote, Backkurse und die Termine am Weihnachtsmarkt.\n\n"
        "**Folgt uns auf Instagram: @sonnenkorn**\n\n"
        "© 2025 Bäckerei Sonnenkorn GmbH"
    )
    pages = [
        Document(url=f"https://b.example/{i}/", title=f"Seite {i}", markdown=f"# Seite {i}\n\nText {i}.", chrome=chrome)
        for i in range(5)
    ]
    site_doc = strip_templates(pages, pages[0].url).site_document
    passages = [c.text for c in chunk_document(site_doc, 200)]
    everything = "\n".join(passages)
    # every fact of the template is kept, headings and bold lines included.
    for fact in ("Schillerstraße 12", "0761 234 56 78", "Sonntag geschlossen", "Öffnungszeiten", "@sonnenkorn"):
        assert everything.count(fact) == 1, (fact, passages)
    # One thing a passage: the menu and the address, the hours, the newsletter apart.
    [address] = [p for p in passages if "Schillerstraße" in p]
    [hours] = [p for p in passages if "Sonntag geschlossen" in p]
    [newsletter] = [p for p in passages if "Backkurse" in p]
    assert len({address, hours, newsletter}) == 3 and "Newsletter" not in address + hours
    [copyright] = [p for p in passages if "© 2025" in p]
    assert "@sonnenkorn" in copyright  # never a passage of its own


def test_a_contact_page_keeps_its_own_address_that_the_footer_repeats():
    # The dog groomer's "Find us" states the address its footer repeats on every page:
    # cut as template, the contact page's passage said "We're on the north side of
    # Division" without the street. A page that is no contact page, whose footer its
    # markup did not mark, still loses the footer's lines.
    docs = [
        Document(
            url=f"https://g.example/p{i}/",
            title=f"P{i}",
            markdown=f"# P{i}\n\nOwn text of page {i}, long enough to be a page's own content and more than a footer.",
            chrome=FOOTER,
        )
        for i in range(6)
    ]
    docs[1] = replace(
        docs[1],
        url="https://g.example/contact/",
        markdown="# Find us\n\n12 Quay Street, Porthkerris\n\nThe blue door on the harbour front, two minutes from the bus stop; ring twice after dark.",
    )
    docs[2] = replace(docs[2], markdown=f"{docs[2].markdown}\n\n{FOOTER}", chrome="")
    result = strip_templates(docs, docs[0].url)
    assert "12 Quay Street, Porthkerris" in result.documents[1].markdown
    assert "12 Quay Street" not in result.documents[2].markdown and "Own text of page 2" in result.documents[2].markdown
    assert "12 Quay Street, Porthkerris" in result.site_document.markdown  # and once site-wide, as before
    # A footer unmarked on three pages is a footer: the contact page loses it too.
    unmarked = [
        replace(d, markdown=f"{d.markdown}\n\n{FOOTER}", chrome="") if i in (3, 4) else d for i, d in enumerate(docs)
    ]
    assert "12 Quay Street" not in strip_templates(unmarked, docs[0].url).documents[1].markdown
