"""Site signals are hints: canonical verdicts, text similarity, the removal guard."""

from ingest.crawl.signals import (
    NEAR_DUPLICATE,
    Canonical,
    canonical_warning,
    judge_canonicals,
    removal_warnings,
    text_similarity,
)

B = "https://acme.com"
HOME = f"{B}/"
TEXTS = {
    HOME: "Acme bakes bread and cakes in Berlin since 1987, open every day but Sunday.",
    f"{B}/prices/": "A loaf of rye costs four euros; a birthday cake for twelve costs thirty-five euros.",
    f"{B}/team/": "Our bakers start at four in the morning; Anna leads the pastry team since 2010.",
}


def _judge(canonical_of, texts=None, moved=None, gone=frozenset()):
    return judge_canonicals(canonical_of, texts or TEXTS, moved or {}, set(gone), lambda url: url.startswith(B), HOME)


def test_similarity_is_one_for_the_same_words_and_low_for_other_text():
    assert text_similarity("Open daily, 9 to 5.", "open DAILY 9 to 5") == 1.0
    assert text_similarity(TEXTS[HOME], TEXTS[f"{B}/prices/"]) < 0.3
    edited = TEXTS[f"{B}/team/"].replace("2010", "2011")
    assert text_similarity(TEXTS[f"{B}/team/"], edited) >= NEAR_DUPLICATE


def test_a_canonical_to_the_homepage_with_other_text_is_a_misconfiguration():
    verdicts = _judge({f"{B}/prices/": HOME, f"{B}/team/": HOME})
    assert verdicts == {f"{B}/prices/": Canonical.HOMEPAGE, f"{B}/team/": Canonical.HOMEPAGE}


def test_only_a_read_target_with_the_same_text_drops_a_page():
    texts = {**TEXTS, f"{B}/print/prices/": TEXTS[f"{B}/prices/"] + " Print"}
    verdicts = _judge({f"{B}/print/prices/": f"{B}/prices/", f"{B}/team/": f"{B}/prices/"}, texts)
    assert verdicts == {f"{B}/print/prices/": Canonical.DUPLICATE, f"{B}/team/": Canonical.DIFFERENT_TEXT}


def test_offsite_missing_and_unread_targets_keep_the_page():
    verdicts = _judge(
        {f"{B}/prices/": "https://other.example/prices/", f"{B}/team/": f"{B}/old-team/", HOME: f"{B}/never-read/"},
        gone={f"{B}/old-team/"},
    )
    assert verdicts == {f"{B}/prices/": Canonical.OFFSITE, f"{B}/team/": Canonical.GONE, HOME: Canonical.NOT_READ}


def test_a_canonical_naming_another_spelling_or_redirecting_back_names_the_page_itself():
    verdicts = _judge({f"{B}/prices/": f"{B}/prices", f"{B}/team/": f"{B}/staff/"}, moved={f"{B}/staff/": f"{B}/team/"})
    assert verdicts == {}


def test_a_canonical_through_a_redirect_to_the_same_text_is_a_duplicate():
    texts = {**TEXTS, f"{B}/rates/": TEXTS[f"{B}/prices/"]}
    verdicts = _judge({f"{B}/rates/": f"{B}/old-prices/"}, texts, moved={f"{B}/old-prices/": f"{B}/prices/"})
    assert verdicts == {f"{B}/rates/": Canonical.DUPLICATE}


def test_two_copies_naming_each_other_keep_one():
    texts = {f"{B}/a/": TEXTS[HOME], f"{B}/b/": TEXTS[HOME]}
    verdicts = _judge({f"{B}/a/": f"{B}/b/", f"{B}/b/": f"{B}/a/"}, texts)
    assert sorted(v.value for v in verdicts.values()) == ["chain", "duplicate"]


def test_the_warning_counts_each_kind_and_gives_two_examples():
    canonical_of = {f"{B}/prices/": HOME, f"{B}/team/": HOME, f"{B}/x/": "https://other.example/"}
    verdicts = {f"{B}/prices/": Canonical.HOMEPAGE, f"{B}/team/": Canonical.HOMEPAGE, f"{B}/x/": Canonical.OFFSITE}
    warning = canonical_warning(verdicts, lambda u: u.removeprefix(B), canonical_of)
    assert warning.startswith("3 pages name a canonical URL")
    assert "2 point to the homepage, 1 point off the site" in warning
    assert "/prices/ -> /, /team/ -> /" in warning
    assert canonical_warning({f"{B}/a/": Canonical.DUPLICATE}, str, canonical_of) is None


def test_a_rule_taking_more_than_a_fifth_warns_with_count_and_examples():
    urls = [f"{B}/p{i}/" for i in range(5)]
    warnings = removal_warnings({"noindex": urls, "duplicate": urls[:2]}, 20, lambda u: u.removeprefix(B))
    assert warnings == [
        "the noindex rule took away 5 of 20 pages with content (25%; e.g. /p0/, /p1/): check that the site means it"
    ]
    assert removal_warnings({"noindex": urls}, 25, str) == []  # exactly 20%
    assert removal_warnings({"noindex": urls[:2]}, 4, str) == []  # too few to be a pattern


def test_our_own_exclusions_warn_only_past_a_menu_s_worth_of_paths():
    menu = [f"{B}/{p}/" for p in ("cart", "account", "search", "login", "register")]
    assert removal_warnings({"exclusion pattern": menu}, 5, str) == []
    section = [f"{B}/konto/{i}/" for i in range(12)]
    assert removal_warnings({"exclusion pattern": section}, 20, lambda u: u.removeprefix(B))[0].startswith(
        "the exclusion pattern rule took away 12 of 20 pages"
    )
