"""How hybrid search weighs its two rankings (retrieval.search)."""

import numpy as np

from ingest.kb.store import Hit
from retrieval.search import (
    CROSS_LANGUAGE_LEXICAL_WEIGHT,
    LEXICAL_WEIGHT,
    SearchHit,
    collapse_near_duplicates,
    fewer_hubs,
    fusion_weights,
    language_of,
    offtopic_questions,
    one_slot_per_page,
    page_languages,
    statements,
)


def dense_weight(query: str, business_languages: tuple[str, ...], model_languages) -> float:
    return fusion_weights(language_of(query, business_languages), business_languages, model_languages)[0]


def test_dense_ranking_steps_aside_for_a_language_the_model_was_not_trained_on():
    english_only = ("en",)
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), english_only) == 0.0
    assert dense_weight("How much is the double room?", ("es",), english_only) == 1.0
    assert dense_weight("habitación doble", ("es",), english_only) == 1.0  # no function words: keep both
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("es",), None) == 1.0  # a multilingual model
    # Pages without `lang`: a question whose one function word ("la") several languages
    # share stays hybrid; its "¿" or "á" tells Spanish, which the model does not read.
    assert dense_weight("Cuanto cuesta la habitacion doble", ("",), english_only) == 1.0
    assert dense_weight("¿Cuánto cuesta la habitación doble?", ("",), english_only) == 0.0


def test_lexical_steps_mostly_aside_for_a_question_in_a_language_the_site_lacks():
    # A multilingual model reads the Spanish pages; BM25 cannot match English words to them.
    assert fusion_weights("en", ("es",), None) == (1.0, CROSS_LANGUAGE_LEXICAL_WEIGHT)
    assert fusion_weights("es", ("es",), None) == (1.0, LEXICAL_WEIGHT)
    assert fusion_weights(None, ("es",), None) == (1.0, LEXICAL_WEIGHT)
    # An English-only model cannot read them either: BM25 keeps its whole weight.
    assert fusion_weights("en", ("es",), ("en",)) == (1.0, 1.0)


def test_lexical_counts_by_its_questions_share_of_the_site():
    # An Estonian tyre shop with a few English summary pages: BM25 reads an English
    # question against those only, the model against every page.
    shares = {"et": 0.72, "ru": 0.1, "en": 0.18}
    assert fusion_weights("en", ("en", "et", "ru"), None, shares) == (1.0, LEXICAL_WEIGHT * 0.25)
    assert fusion_weights("et", ("en", "et", "ru"), None, shares) == (1.0, LEXICAL_WEIGHT)  # the site's own
    assert fusion_weights("en", ("en", "de"), None, {"en": 0.5, "de": 0.5}) == (1.0, LEXICAL_WEIGHT)
    # without shares (a knowledge base not run since), or a model that reads English only
    assert fusion_weights("en", ("en", "et", "ru"), None, {}) == (1.0, LEXICAL_WEIGHT)
    assert fusion_weights("en", ("en", "et", "ru"), ("en",), shares) == (1.0, 1.0)
    assert language_of("영업시간이 어떻게 되나요?", ("en",)) == "ko"


def test_a_question_in_a_language_the_site_lacks_is_told_too():
    # A Miami plumber's English site and its Spanish-speaking callers: told apart, the
    # question is answered across languages (and not flagged for sharing no word with it).
    assert language_of("¿Abren los sábados?", ("en",)) == "es"
    assert language_of("Siete aperti il lunedì?", ("en", "de")) == "it"
    assert language_of("Are you open on Saturdays?", ("es",)) == "en"
    # The site's languages win a tie, and a question with no telling word stays unclear.
    assert language_of("¿Abren los sábados?", ("es", "en")) == "es"
    assert language_of("Wifi?", ("en",)) is None
    # One stopword of some language is no evidence: "per" is Italian's, "dog" Danish's.
    for question in ("Bike rental per day?", "Dog friendly?", "Sale today?"):
        assert language_of(question, ("en",)) is None, question
    assert language_of("Fiets huren per dag?", ("nl", "en")) is None


def test_thai_arabic_chinese_and_japanese_are_told_by_their_scripts():
    assert language_of("ขอเบอร์โทรร้านหน่อยค่ะ", ("th", "en")) == "th"
    assert language_of("وين مكانكم بالزبط؟", ("ar", "en")) == "ar"
    assert language_of("אפשר לקפוץ אליכם בשבת בבוקר", ("he", "en")) == "he"
    assert (
        language_of("Do you repair electric bikes like the ones on אופניים?", ("he", "en")) == "en"
    )  # fewer Hebrew letters
    assert language_of("掛號費要多少錢", ("zh-TW", "en")) == "zh"
    assert language_of("土曜日は何時まで営業していますか", ("ja", "en")) == "ja"  # kanji and kana
    assert language_of("این آدرس کجاست؟", ("en",)) == "fa"  # Persian's own letters
    assert language_of("سه‌شنبه عصر باز هستین؟", ("fa", "en")) == "fa"
    # typed on an Arabic keyboard ("ي", "ك"): Persian on a Persian site, Arabic on an Arabic one
    assert language_of("آدرس كلينيك", ("fa", "en")) == "fa"
    assert language_of("آدرس كلينيك", ("ar", "en")) == "ar"
    assert language_of("متى تفتحون يوم الجمعة؟", ("fa", "ar")) == "ar"  # Arabic on a site with both
    assert language_of("آپ کب کھلتے ہیں؟", ("en",)) is None  # Urdu: not analysed here
    # a word or two of another script in an English question leaves it English
    assert language_of("Do you sell 烏龍茶 by the kilo?", ("en", "zh")) == "en"
    assert language_of("営業時間", ("ja", "en")) == "ja"  # kanji alone, on a Japanese site


def _hit(pid: str, url: str, lang: str) -> Hit:
    return Hit(id=pid, score=1.0, payload={"url": url, "lang": lang})


def test_a_page_and_its_translations_take_one_slot_in_the_questions_language():
    translation_of = {"/de/preise/": "/de/preise/", "/en/prices/": "/de/preise/", "/tr/fiyat/": "/de/preise/"}
    hits = [
        _hit("1", "/en/prices/", "en"),
        _hit("2", "/tr/fiyat/", "tr"),
        _hit("3", "/en/about/", "en"),
        _hit("4", "/de/preise/", "de"),
        _hit("5", "/en/prices/", "en"),
    ]
    # A German question: the German prices page takes the first slot, the English passage
    # that matched best the next (a translation may lack the fact asked for); the English
    # page's further passage and the Turkish translation go, so one page in two languages
    # cannot fill the results.
    assert [h.id for h in one_slot_per_page(hits, translation_of, "de")] == ["4", "1", "3"]
    # An English question: the English page keeps its slot, and its second passage its rank.
    assert [h.id for h in one_slot_per_page(hits, translation_of, "en")] == ["1", "3", "5"]
    # A question in a language the site lacks: the best-ranked translation answers it.
    assert [h.id for h in one_slot_per_page(hits, translation_of, "ko")] == ["1", "3", "5"]
    # Pages without translations are untouched.
    assert one_slot_per_page(hits, {}, "de") == hits


def test_a_translation_that_matched_much_worse_keeps_its_own_rank():
    # The pizzeria's English page states a Margherita's price; its Italian original, the
    # homepage, only gluten-free pizza, whose passage matched an Italian question about
    # the price far worse than the English one and than the menu.
    translation_of = {"/": "/", "/en/": "/"}
    hits = [
        Hit(id="price-en", score=0.026, payload={"url": "/en/", "lang": "en"}),
        Hit(id="menu", score=0.025, payload={"url": "/menu/", "lang": "it"}),
        Hit(id="gluten-it", score=0.014, payload={"url": "/", "lang": "it"}),
    ]
    assert [h.id for h in one_slot_per_page(hits, translation_of, "it")] == ["price-en", "menu", "gluten-it"]
    # Matched nearly as well, the Italian passage takes the page's slot as before.
    hits[2] = Hit(id="gluten-it", score=0.02, payload={"url": "/", "lang": "it"})
    assert [h.id for h in one_slot_per_page(hits, translation_of, "it")] == ["gluten-it", "price-en", "menu"]


def test_a_fuller_version_goes_first_when_it_matched_as_well_else_keeps_its_ranks():
    # The English treatments page is a summary of the Turkish one: a Turkish passage
    # that ranked below it may hold what the summary leaves out (the implants' guarantee).
    translation_of = {"/en/treatments/": "/en/treatments/", "/tr/tedaviler/": "/en/treatments/"}
    hits = [
        _hit("1", "/en/treatments/", "en"),
        _hit("2", "/tr/tedaviler/", "tr"),
        _hit("3", "/en/about/", "en"),
        _hit("4", "/tr/tedaviler/", "tr"),
    ]
    worse = [Hit(id=h.id, score=score, payload=h.payload) for h, score in zip(hits, (1.0, 0.5, 0.4, 0.3))]
    sizes = {"/en/treatments/": 11, "/tr/tedaviler/": 24}
    assert [h.id for h in one_slot_per_page(worse, translation_of, "en", sizes.get)] == ["1", "2", "3", "4"]
    # Matched nearly as well, the fuller version goes first in the page's slot: what the
    # summary says, it says too.
    assert [h.id for h in one_slot_per_page(hits, translation_of, "en", sizes.get)] == ["2", "1", "3", "4"]
    # The fuller version matched first and a question in the summary's language: both in
    # the one slot, the fuller first.
    swapped = [hits[1], hits[0], hits[2]]
    assert [h.id for h in one_slot_per_page(swapped, translation_of, "en", sizes.get)] == ["2", "1", "3"]
    # A complete translation says no more: one slot, as before.
    sizes = {"/en/treatments/": 22, "/tr/tedaviler/": 24}
    assert [h.id for h in one_slot_per_page(hits, translation_of, "en", sizes.get)] == ["1", "3"]
    # The fuller version shown first (a Turkish question): the summary adds nothing and goes.
    hits = [_hit("2", "/tr/tedaviler/", "tr"), _hit("3", "/en/about/", "en"), _hit("1", "/en/treatments/", "en")]
    sizes = {"/en/treatments/": 11, "/tr/tedaviler/": 24}
    assert [h.id for h in one_slot_per_page(hits, translation_of, "tr", sizes.get)] == ["2", "3"]


def test_statements_count_sentences_items_and_rows_in_any_language():
    path = "Treatments > Implants"
    assert statements([(path, f"{path}\n\nWe use Straumann. It takes three months!\n- Osstem too")]) == 3
    assert statements([("Fiyatlar", "Fiyatlar\n\n| İmplant | 22.000 TL |\n| Kron | 9.000 TL |")]) == 2
    assert statements([("가격", "가격\n\n임플란트는 얼마예요? 상담은 무료입니다.")]) == 2
    assert statements([("价格", "价格\n\n种植牙的价格是多少。咨询是免费的。周六也营业。")]) == 3  # no spaces
    assert statements([("Title", "Title\n\nOK.")]) == 0  # a single word is no statement
    # A passage without a heading path: its first paragraph counts too.
    assert statements([("", "Call us on 0199 555 123.\n\nOpen daily from nine.")]) == 2


def test_one_page_takes_at_most_three_slots_and_near_copies_one():
    def hit(url: str, text: str) -> SearchHit:
        return SearchHit(text=f"Heading\n\n{text}", heading_path="Heading", url=url, title="", score=1.0, position=0)

    hits = [hit("/ko/", f"passage number {i} of the summary page") for i in range(5)]
    hits += [hit("/tr/sss/", "sedation is offered"), hit("/tr/copy/", "passage number 0 of the summary page")]
    kept = collapse_near_duplicates(hits, 5)
    assert [h.url for h in kept] == ["/ko/", "/ko/", "/ko/", "/tr/sss/"]


def test_passages_without_a_heading_differ_by_their_first_paragraph_too():
    def hit(url: str, text: str) -> SearchHit:
        return SearchHit(text=text, heading_path="", url=url, title="", score=1.0, position=0)

    footer = "Bakery Sonnenkorn, Schillerstrasse 12, Freiburg"
    prices = hit("/en/", f"A pretzel costs 0.90 euros and a rye loaf 4.20 euros.\n\n{footer}")
    hours = hit("/en/hours/", f"We open at seven on weekdays and at eight on Sundays.\n\n{footer}")
    copy = hit("/en/copy/", f"A pretzel costs 0.90 euros and a rye loaf 4.20 euros.\n\n{footer}")
    assert [h.url for h in collapse_near_duplicates([prices, hours, copy], 5)] == ["/en/", "/en/hours/"]


def _unit(*xs: float) -> list[float]:
    v = np.asarray(xs, dtype=np.float32)
    return (v / np.linalg.norm(v)).tolist()


def test_a_passage_near_questions_on_every_subject_moves_down_in_other_languages_only():
    offtopic = np.asarray([_unit(1, 0.2, 0, 0), _unit(1, 0, 0.2, 0), _unit(1, 0.1, 0.1, 0)], dtype=np.float32)

    def hit(pid: str, score: float, lang: str, vector: list[float]) -> Hit:
        return Hit(id=pid, score=score, payload={"lang": lang}, vector=vector)

    hub = hit("cookies", 0.83, "es", _unit(1, 0.1, 0.1, 0.3))  # near every off-topic question
    menu = hit("menu", 0.82, "es", _unit(0.1, 0, 0, 1))
    english = hit("english", 0.825, "en", _unit(1, 0.1, 0.1, 0.3))  # as near, but in the question's language
    ranked = fewer_hubs([hub, english, menu], "en", offtopic, weight=0.5)
    # Foreign passages are measured against each other (their median): the hub goes
    # down, the passage near no off-topic question up; the cosines stay.
    assert [h.id for h in ranked] == ["menu", "english", "cookies"]
    assert [h.score for h in ranked] == [0.82, 0.825, 0.83]
    # A passage of no known language is not taken for a foreign one: beside it, one foreign
    # passage alone has nothing to be compared with, and nothing moves.
    unknown = hit("unknown", 0.824, "", _unit(0.1, 0, 0, 1))
    assert fewer_hubs([hub, unknown, english], "en", offtopic, weight=0.5) == [hub, unknown, english]
    assert fewer_hubs([hub, english], "en", offtopic, weight=0.5) == [hub, english]


def test_the_offtopic_questions_cover_the_callers_languages():
    langs = {lang for lang, _ in offtopic_questions()}
    assert {"en", "es", "de", "tr", "ko", "fr"} <= langs
    assert all(question.strip() for _, question in offtopic_questions())


def test_a_vietnamese_question_is_told_by_its_letters():
    # No stemmer analyses Vietnamese, and its short words are other languages' stopwords
    # ("em", "do", "con"); ơ, ư and the vowels with a dot below or a hook are its own.
    assert language_of("Tiệm mình mấy giờ đóng cửa vậy em?", ("vi", "en")) == "vi"
    assert language_of("Tiệm mình mấy giờ đóng cửa vậy em?", ("en",)) == "vi"
    assert language_of("Gdje se nalazi Međugorje?", ("en",)) != "vi"  # Croatian "đ" alone


def test_ukrainian_and_russian_questions_are_told_by_their_letters():
    assert language_of("Добрий день, підкажіть номер реєстратури", ("uk", "en")) == "uk"
    assert language_of("Где вы находитесь?", ("en",)) == "ru"
    assert language_of("Сколько стоит чистка зубов?", ("en",)) is None  # no letter of either alone


def test_catalan_and_slovenian_questions_are_told():
    assert language_of("Quant costa llogar una bici elèctrica?", ("ca", "es", "en")) == "ca"
    assert language_of("Quan puc cancel·lar la reserva?", ("en",)) == "ca"  # its "l·l" on an English site
    assert language_of("Ali ste v soboto odprti?", ("sl", "en")) == "sl"
    assert language_of("¿Abren los domingos?", ("ca", "es", "en")) == "es"
    # a tie of the two on their function words: the letters of one of them, not a third's
    assert language_of("La botiga de Gràcia obre el diumenge?", ("ca", "es", "en")) == "ca"
    assert language_of("El menú del migdia inclou el cafè?", ("ca", "es", "en")) == "ca"
    assert language_of("Cuál es el precio de la habitación", ("ca", "es", "en")) == "es"


def test_baltic_questions_are_told_by_their_letters():
    assert language_of("Ką reikia atsinešti į pamoką?", ("en",)) == "lt"  # "ą", "į" on an English site
    assert language_of("Mis kell te õhtul sulgete?", ("et", "ru", "en")) == "et"
    # Lithuanian shares "jūs", "kur", "kad" with Latvian: on a Latvian site, Latvian
    assert language_of("Kur jūs atrodaties?", ("lv", "en")) == "lv"
    assert language_of("Kad jūs strādājat?", ("lv", "en")) == "lv"


def test_the_pages_languages_include_those_analysed_plainly():
    # Thai and Korean pages are analysed as letter pairs (""): the shares name them.
    assert page_languages(("", "en"), {"th": 0.95, "en": 0.05}) == {"th", "en"}
    assert page_languages(("en", "es"), None) == {"en", "es"}  # a knowledge base not run since
