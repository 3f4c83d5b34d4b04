from ingest.index.chunk import chunk_document
from ingest.index.tokens import count_tokens
from ingest.models import Document


def _doc(markdown, title="Prices"):
    return Document(url="https://a.com/prices/", title=title, markdown=markdown)


def test_heading_paths_page_h1_h2():
    doc = _doc(
        "# Our rooms\n\nIntro text.\n\n## Single room\n\nOne bed.\n\n### Extras\n\nTea.\n\n## Double\n\nTwo beds."
    )
    chunks = chunk_document(doc, 200)
    paths = [c.heading_path for c in chunks]
    assert ("Prices", "Our rooms") in paths and ("Prices", "Our rooms", "Single room") in paths
    single = next(c for c in chunks if c.heading_path[-1] == "Single room")
    assert single.text.startswith("Prices > Our rooms > Single room\n\n")
    assert "### Extras" in single.body  # H3 stays in the body of its H2 section
    assert [c.position for c in chunks] == list(range(len(chunks)))


def test_title_equal_to_h1_is_not_repeated():
    chunks = chunk_document(_doc("# Prices\n\nText.", title="Prices"), 200)
    assert chunks[0].heading_path == ("Prices",)


def test_every_chunk_fits_the_budget():
    paragraph = " ".join(f"Sentence number {i} says something about the sea." for i in range(200))
    chunks = chunk_document(_doc(f"# Long\n\n{paragraph}"), 120)
    assert len(chunks) > 5
    assert all(c.tokens <= 120 and c.tokens == count_tokens(c.text) for c in chunks)


def test_long_table_is_split_by_rows_with_header_repeated():
    rows = "\n".join(f"| Room {i} | {100 + i} GBP |" for i in range(80))
    doc = _doc(f"# Prices\n\n| Room | Price |\n| --- | --- |\n{rows}")
    chunks = chunk_document(doc, 150)
    assert len(chunks) > 2
    for chunk in chunks:
        assert chunk.body.startswith("| Room | Price |\n| --- | --- |\n| Room ")
    body_rows = [line for c in chunks for line in c.body.splitlines()[2:]]
    assert body_rows == rows.splitlines()  # every row once, in order


def test_a_list_that_fits_stays_whole():
    items = "\n".join(f"- Item {i}" for i in range(10))
    chunks = chunk_document(_doc(f"# Menu\n\nBefore.\n\n{items}\n\nAfter."), 200)
    assert len(chunks) == 1 and items in chunks[0].body


def test_a_heading_never_ends_a_chunk():
    paragraph = " ".join(f"Value sentence {i} explains one thing well." for i in range(12))
    markdown = "# Values\n\n" + "\n\n".join(f"### Value {n}\n\n{paragraph}" for n in range(1, 5))
    chunks = chunk_document(_doc(markdown), 150)
    assert len(chunks) > 2
    for chunk in chunks:
        assert not chunk.body.splitlines()[-1].startswith("#"), chunk.body
    assert sum(c.body.count("### Value") for c in chunks) == 4


def test_sections_without_words_make_no_chunk():
    chunks = chunk_document(_doc("# Home\n\nWelcome to the site.\n\n## What we do\n\n...\n\n## Team\n\nPeople."), 200)
    assert [c.heading_path[-1] for c in chunks] == ["Home", "Team"]


def test_a_code_block_is_one_unit_and_its_comments_are_not_headings():
    code = "```\n# install the client\npip install acme\n\n# then log in\nacme login\n```"
    chunks = chunk_document(_doc(f"# Setup\n\nRun these commands.\n\n{code}\n\n## Next\n\nDone."), 200)
    setup = [c for c in chunks if c.heading_path == ("Prices", "Setup")]
    assert len(setup) == 1 and code in setup[0].body
    assert all("install the client" not in h for c in chunks for h in c.heading_path)


def test_a_sentence_is_not_split_after_an_ordinal_number():
    # German writes ordinals and dates with a period: "jeder 3. Dienstag", "am 24. August".
    # A budget of about one sentence makes every sentence end a place to split.
    paragraph = (
        "Die Reihe ist offen für alle (jeder 3. Dienstag im Monat um 19 Uhr). Am 24. August ist leider Schluss. "
        "Danach geht es im neuen Raum weiter."
    )
    chunks = chunk_document(_doc(f"# Wer wir sind\n\n{paragraph}", title="xHain"), 40)
    bodies = [c.body for c in chunks]
    assert bodies == [
        "Die Reihe ist offen für alle (jeder 3. Dienstag im Monat um 19 Uhr).",
        "Am 24. August ist leider Schluss. Danach geht es im neuen Raum weiter.",
    ], bodies


def test_a_sentence_is_not_split_after_an_abbreviation_before_a_number():
    # A Greek privacy policy: "… Μαρούσι, τηλ. 210 654 3210, email support@…" was cut after
    # "τηλ.", and the web host's number and e-mail began a passage without its name.
    paragraph = (
        "Η φιλοξενία γίνεται από την HellasHost Α.Ε., Λεωφόρος Κηφισίας 100, 151 25 Μαρούσι, "
        "τηλ. 210 654 3210, email support@hellashost.gr. Η online κράτηση παρέχεται από την WebHotelier."
    )
    chunks = chunk_document(_doc(f"# Πολιτική απορρήτου\n\n{paragraph}", title="Ακρογιάλι"), 110)
    host = next(c.body for c in chunks if "210 654 3210" in c.body)
    assert "HellasHost" in host, [c.body for c in chunks]
    assert len(chunks) > 1  # it is still split, at the sentence's end


def test_an_introduction_leads_the_list_it_introduces_and_a_closing_line_joins_its_end():
    # A guesthouse's house rules, 700 characters, were four passages: the introduction
    # alone ("… please respect these rules:"), six rules, one rule, and the closing line.
    rules = "\n".join(
        f"- **Rule {i}:** guests are asked to respect quiet hours and the neighbours, please." for i in range(9)
    )
    doc = _doc(
        f"# House rules\n\nSo that everyone has a quiet stay, please respect these rules:\n\n{rules}\n\nDamage is charged."
    )
    chunks = chunk_document(doc, 120)
    assert all(c.tokens <= 120 for c in chunks)
    assert chunks[0].body.startswith("So that everyone has a quiet stay, please respect these rules:\n\n- **Rule 0:**")
    assert chunks[-1].body.endswith(
        "Rule 8:** guests are asked to respect quiet hours and the neighbours, please.\n\nDamage is charged."
    )
    assert len(chunks) == 2


def test_a_subsection_stays_whole_when_the_chunk_before_it_is_full():
    # An optician's team page: each member an H3, a title line, a paragraph. Packed greedily,
    # Sophie's name and title ended one passage and what she does began the next, so "who
    # fits contact lenses?" found the passage without her name.
    people = [("Marc Perrottet", "Directeur", "Reprend l'entreprise familiale en 2014 et dirige la basse vision.")]
    people += [("Anna Jungo", "Optométriste BSc", "Elle s'occupe de l'orthokératologie et du suivi de la myopie.")]
    people += [("Sophie Brülhart", "Opticienne CFC", "Sophie adapte et commande vos lentilles de contact.")]
    people += [("Lukas Aebischer", "Apprenti opticien", "Lukas s'occupe de l'atelier et des réparations.")]
    markdown = "# L'équipe\n\n" + "\n\n".join(f"### {name}\n\n{title}\n\n{text}" for name, title, text in people)
    budget = count_tokens(markdown) * 2 // 3  # room for two or three of the four, not all
    chunks = chunk_document(_doc(markdown, title="Équipe"), budget)
    assert len(chunks) > 1
    for name, title, text in people:
        assert sum(f"### {name}\n\n{title}\n\n{text}" in c.body for c in chunks) == 1  # whole, in one passage
