"""The language-aware lexical analysis behind BM25 search."""

from ingest.kb.lexical import PLAIN, analysis_language, document_terms, query_language, query_terms


def _shared(doc: str, doc_lang: str, query: str, langs) -> int:
    return len(set(document_terms(doc, doc_lang)[0]) & set(query_terms(query, langs)[0]))


def test_language_codes_map_to_their_stemmer_or_plain():
    assert analysis_language("es-CL") == "es" and analysis_language("pt_BR") == "pt"
    assert analysis_language("EN") == "en"
    assert analysis_language("ko") == PLAIN and analysis_language("") == PLAIN
    assert analysis_language("pl-PL") == "pl"  # no stemmer, but its stopwords
    assert analysis_language("fa-IR") == "fa"


def test_spanish_stemming_matches_inflections_and_accents():
    doc = "La habitación individual y las habitaciones dobles cuestan 85 euros"
    assert _shared(doc, "es", "¿Cuánto cuesta una habitación doble?", ("es",)) == 3  # cuest, habitacion, dobl
    assert _shared(doc, "es", "cuanto cuesta una habitacion doble", ("es",)) == 3  # typed without accents
    assert _shared(doc, "", "¿Cuánto cuesta una habitación doble?", ()) == 1  # plain: only the exact "habitacion"


def test_turkish_keeps_its_letters_for_the_stemmer():
    assert _shared("Kitaplarımızı ışık altında okuyun", "tr", "kitap ışığı", ("tr",)) == 2


def test_numbers_and_codes_survive_every_analysis():
    for lang in ("es", "en", "tr", ""):
        assert _shared("Teléfono +56 2 2345 6789, código ABC-123", lang, "2345 6789 ABC-123", (lang,)) >= 3


def test_query_is_analysed_for_every_language_of_the_business():
    spanish, english = "Las habitaciones individuales cuestan", "Our single room with breakfast"
    assert _shared(spanish, "es", "cuesta individual", ("es", "en")) == 2
    assert _shared(english, "en", "rooms", ("es", "en")) == 1
    assert _shared(english, "en", "rooms", ("es",)) == 0  # "rooms" -> "room" needs the English stemmer


def test_stopwords_are_not_terms():
    assert query_terms("el la de que y", ("es",)) == ([], [])


def test_query_language_from_function_words():
    assert query_language("¿Con qué sistema se marca la asistencia en la empresa?", {"es", "en"}) == "es"
    assert query_language("What is the phone number of the office?", {"es", "en"}) == "en"
    assert query_language("precio habitación individual", {"es", "en"}) is None  # no function words: unclear
    assert query_language("what is your phone number", set()) is None
    assert query_language("전화번호가 뭐예요?", {"ko", "en"}) is None


def test_polish_function_words_are_no_terms_and_tell_the_language():
    # A Kraków workshop: "O której otwieracie w sobotę?" shared only "o", "w" and "której"
    # with its pages, so BM25 ranked a Christmas notice full of them first, and the one
    # English stopword "o" made the question English.
    notice = "W dniu 23 grudnia pracujemy do 14:00, o czym informujemy w aktualnościach, której"
    assert _shared(notice, "pl", "O której otwieracie w sobotę?", ("pl", "en")) == 0
    assert _shared("Wymiana oleju: 150 zł", "pl", "Ile kosztuje wymiana oleju?", ("pl", "en")) == 2
    assert _shared("Skąd się bierze ta cena?", "pl", "się", ("pl",)) == 0  # folded "sie" is dropped too
    assert query_language("O której otwieracie w sobotę?", {"pl", "en"}) == "pl"
    assert query_language("Do you repair vans like a Ford Transit?", {"pl", "en"}) == "en"  # "do", "a" are Polish too
    assert query_language("Kolik stojí výměna oleje? Je to u vás levné?", {"cs", "en"}) == "cs"


def test_korean_words_with_particles_and_unspaced_japanese_share_terms_with_the_page():
    # As whole words, "토요일에도" (Saturday + "also") never matched "토요일" on the hours
    # page, nor "명동역에서" the station: a Korean clinic's questions found no passage by BM25.
    hours = "토요일 오전 9:30 ~ 오후 2:00 진료, 명동역 8번 출구에서 도보 3분"
    assert _shared(hours, "ko", "토요일에도 진료하세요?", ("ko", "en")) >= 3  # 토요, 요일, 진료
    assert _shared(hours, "ko", "명동역에서 어떻게 가요?", ("ko",)) >= 2  # 명동, 동역
    assert _shared(hours, "ko", "주차장이 있나요?", ("ko",)) == 0  # nothing of it is on the page
    assert _shared("駐車場はありません。地下鉄の駅から徒歩3分です。", "ja", "駐車場はありますか", ("ja",)) >= 2


def test_thai_is_read_as_pairs_of_letters_without_its_marks():
    # Thai writes no spaces and the tokenizer split each word at its vowel and tone marks
    # ("ชั่วโมง" -> "ช", "วโมง"): a Chiang Mai massage house's questions shared no term
    # with the price list that answers them.
    prices = "นวดแผนไทย 60 นาที 350 บาท นวดเท้า 45 นาที 300 บาท"
    assert _shared(prices, "th", "นวดไทยชั่วโมงนึงเท่าไหร่คะ", ("th", "en")) >= 3  # นว, วด, ไท
    assert _shared(prices, "th", "นวดเท้าราคาเท่าไหร่", ("th",)) >= 4  # นว, วด, ดเ, เท
    assert _shared(prices, "th", "มีที่จอดรถไหม", ("th",)) == 0  # parking: nothing of it is there
    # numbers written onto the words ("ปิด20:00น.", "300บาท") do not glue the pairs together
    assert _shared("ปิด21:00น.", "th", "ปิดกี่โมง", ("th",)) == 1  # ปด
    assert _shared("นวดเท้า300บาท", "th", "กี่บาท", ("th",)) == 2  # บา, าท


def test_hebrew_words_share_terms_without_the_letters_written_onto_them():
    # Hebrew writes "and", "the", "in", "to" onto the next word: "בשבת" (on Saturday) shared no
    # term with the hours table's "שבת", nor "המחיר" (the price) with "מחיר".
    hours = "שבת סגור. מחיר כוונון בסיסי 180 ₪"
    assert _shared(hours, "he", "אפשר לקפוץ אליכם בשבת בבוקר", ("he", "en")) == 1  # שבת
    assert _shared(hours, "he", "והמחיר של כוונון?", ("he",)) >= 2  # מחיר, כוונון (and their cut forms)
    assert _shared(hours, "he", "יש חניה ליד החנות?", ("he",)) == 0  # parking: not on the page


def test_persian_questions_share_their_words_and_not_their_stopwords():
    doc = "ساعات کاری مطب: شنبه تا چهارشنبه ۹ تا ۱۴"
    assert _shared(doc, "fa", "ساعات کاری مطب چیه؟", ("fa",)) == 3  # ساعات, کاری, مطب
    assert _shared("این را از ما بپرسید", "fa", "از این", ("fa",)) == 0  # "از" (from), "این" (this)
    # Thursday with a half-space, a space or none, and Sunday typed on an Arabic keyboard
    thursday = "پنجشنبه ۹ تا ۱۴"
    assert _shared(thursday, "fa", "پنج‌شنبه", ("fa",)) == _shared(thursday, "fa", "پنج شنبه", ("fa",)) == 1
    assert _shared("شنبه ۹ تا ۱۴", "fa", "پنج‌شنبه", ("fa",)) == 0  # not Saturday
    assert _shared("یکشنبه تعطیل", "fa", "يكشنبه", ("fa",)) == 1


def test_catalan_and_slovenian_function_words_are_no_terms_and_tell_the_language():
    # Neither has a Snowball stemmer; qdrant-edge's lists hold their function words only
    # (stopwords-iso's Slovenian list holds "ponedeljek" and "zaprto").
    assert analysis_language("ca-ES") == "ca" and analysis_language("sl-SI") == "sl"
    assert _shared("Els dilluns obrim a les nou amb la botiga", "ca", "Quin dia obriu amb la botiga?", ("ca",)) == 1
    assert _shared("Ob ponedeljkih je zaprto", "sl", "Ali je ob ponedeljkih zaprto?", ("sl",)) == 2
    assert query_language("A quina hora obriu els dissabtes?", {"ca", "es", "en"}) == "ca"
    assert query_language("¿A qué hora abren los sábados?", {"ca", "es", "en"}) == "es"
    assert query_language("Koliko stane beljenje zob pri vas?", {"sl", "en"}) == "sl"


def test_baltic_function_words_are_no_terms_and_tell_the_language():
    # No Snowball stemmer for any of the three; stopwords-iso's lists, its Lithuanian one
    # read back from the Latin-1 it was stored as ("ðis" is "šis").
    assert {analysis_language(code) for code in ("et-EE", "lt-LT", "lv")} == {"et", "lt", "lv"}
    assert _shared("Kas te olete pühapäeval avatud", "et", "Kas te olete avatud?", ("et",)) == 2  # not "kas", "te"
    assert _shared("Šis baseinas yra šiltas", "lt", "Ar šis baseinas šiltas?", ("lt",)) == 2
    assert query_language("Kui palju maksab rehvivahetus, kas see on kallis?", {"et", "ru", "en"}) == "et"
    assert query_language("Ar galima atvesti vaiką į bandomąją pamoką?", {"lt", "en"}) == "lt"
