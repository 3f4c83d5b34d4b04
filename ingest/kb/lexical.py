"""The lexical (BM25 sparse) side of hybrid search, aware of each page's language.

A chunk's terms are stemmed with the Snowball stemmer of its page's language, with
that language's stopwords removed, so "habitación" finds "habitaciones" and "cuesta"
finds "cuestan". A query does not say its language, so it is analysed once per
language the business's pages are written in and the terms are merged: each
analysis can only match chunks analysed the same way. Polish, Czech, Slovak, Croatian,
Ukrainian, Hebrew, Persian, Estonian, Lithuanian, Latvian, Catalan and Slovenian have no
Snowball stemmer: their words are not stemmed, but their stopwords (stopwords-iso's
lists, qdrant-edge's for Catalan and Slovenian) are dropped, so a question's "w", "o",
"której" do not rank the passages that use them most, and a question can be told to be
in them. Other
languages (Korean, Japanese, ...) and pages without `lang` keep the plain analysis:
words lowercased, accents folded, nothing stemmed.

Korean, Japanese and Chinese text is read as overlapping pairs of letters ("토요일에도"
-> "토요 요일 일에 에도"), as Lucene's CJK analyser does: Korean attaches particles to
its words ("토요일에도", "명동역에서") and Japanese and Chinese write no spaces, so as
whole words a caller's question shared no term with the page that answers it.

Hebrew writes "and", "the", "in" and "to" onto the next word ("בשבת", on Saturday): each
Hebrew word is indexed also without one or two such letters.

Terms are hashed by qdrant-edge's BM25 model; the store weights them with IDF.
`SCHEME` names this analysis: a knowledge base indexed under another scheme is
re-analysed from its stored text (no re-embedding) on its next run.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import qdrant_edge as qe
import stopwordsiso

SCHEME = "bm25-snowball-cjk-thai-hebrew-persian-catalan-slovenian-baltic-9"
_WORDS = re.compile(r"\w+")
PLAIN = ""

# ISO 639-1 code -> qdrant-edge language name, for the languages with a Snowball stemmer.
_SNOWBALL = {
    "ar": "arabic",
    "da": "danish",
    "de": "german",
    "el": "greek",
    "en": "english",
    "es": "spanish",
    "fi": "finnish",
    "fr": "french",
    "hu": "hungarian",
    "it": "italian",
    "nb": "norwegian",
    "nl": "dutch",
    "nn": "norwegian",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sv": "swedish",
    "tr": "turkish",
}
# Languages without a Snowball stemmer analysed with their stopwords alone (stopwords-iso;
# its lists for other such languages hold content words: Slovenian's month names).
_STOPWORDS_ONLY = frozenset({"pl", "cs", "sk", "hr", "uk", "he", "fa", "et", "lt", "lv"})
# Catalan and Slovenian, without a Snowball stemmer either, with qdrant-edge's own lists:
# stopwords-iso's Slovenian list holds "januar", "ponedeljek", "zaprto" (closed), "kdaj"
# (when); qdrant-edge's hold function words only ("quin", "amb", "koliko", "ste").
_EDGE_STOPWORDS = {"ca": "Catalan", "sl": "Slovene"}
# Folding "ı" to "i" and "ş" to "s" before the Turkish stemmer breaks its suffix rules
# ("ışığı" no longer finds "ışık"); voice transcripts spell Turkish with its letters.
_NO_FOLDING = {"tr"}
# The languages a query can be told in, one code per stemmer (Norwegian's three codes
# share one list of stopwords, so they would always tie).
ANALYSED_LANGUAGES = (frozenset(_SNOWBALL) - {"nn", "no"}) | _STOPWORDS_ONLY | frozenset(_EDGE_STOPWORDS)


def analysis_language(lang: str) -> str:
    """`es-CL` -> `es`; languages without a stemmer -> PLAIN."""
    code = (lang or "").strip().lower().replace("_", "-").split("-")[0]
    return code if code in _SNOWBALL or code in _STOPWORDS_ONLY or code in _EDGE_STOPWORDS else PLAIN


_FOLD = str.maketrans("łŁđĐ", "lLdD")  # letters NFKD leaves whole


# stopwords-iso's Hebrew list holds "נגר" (carpenter), likely meant as "נגד" (against); its
# Persian list "باز" (open), "امروز" (today), "فردا" (tomorrow), "روز" (day), "خدمات"
# (services), "راه" (way)
_NOT_STOPWORDS = {"נגר", "باز", "امروز", "فردا", "روز", "خدمات", "راه"}


# Latvian's list lacks its pronouns and question words, which Lithuanian's has ("jūs", "kur",
# "kad"): "Kur jūs atrodaties?" was told Lithuanian on a Latvian site.
_MORE_STOPWORDS = {
    "lv": {"jūs", "jums", "jūsu", "mēs", "man", "mums", "mūsu", "viņš", "viņa", "viņi", "kur", "kad", "kas", "kā"}
    | {"cik", "ko", "kāpēc", "kurš", "kura", "kuri", "šis", "šī", "šo", "tas", "tā", "tie", "tur", "šeit"}
}


def _read_back(word: str) -> str:
    """stopwords-iso's Lithuanian list is Windows-1257 read as Latin-1 ("ðis" is "šis");
    a word already right (a later release) stays as it is."""
    try:
        return word.encode("latin-1").decode("cp1257")
    except UnicodeError:
        return word


def _stopwords(code: str) -> qe.StopwordsSet | qe.Language:
    """`code`'s stopwords: Snowball's list, stopwords-iso's for _STOPWORDS_ONLY (each word
    also as qdrant-edge folds it, "się" and "sie": folded tokens are compared with the
    list), none for PLAIN."""
    if code == PLAIN:
        return qe.StopwordsSet(custom=set())
    if code in _EDGE_STOPWORDS:
        return getattr(qe.Language, _EDGE_STOPWORDS[code])
    if code not in _STOPWORDS_ONLY:
        return getattr(qe.Language, _SNOWBALL[code].title())
    words = {_read_back(w) for w in stopwordsiso.stopwords(code)} if code == "lt" else set(stopwordsiso.stopwords(code))
    words = (words | _MORE_STOPWORDS.get(code, set())) - _NOT_STOPWORDS
    folded = {"".join(c for c in unicodedata.normalize("NFKD", w) if not unicodedata.combining(c)) for w in words}
    return qe.StopwordsSet(custom=words | {w.translate(_FOLD) for w in folded})


@cache
def _model(code: str) -> qe.Bm25:
    if code == PLAIN:
        return qe.Bm25(qe.Bm25Config(ascii_folding=True, stemmer=qe.DisabledStemmer()))
    if code in _STOPWORDS_ONLY or code in _EDGE_STOPWORDS:
        return qe.Bm25(qe.Bm25Config(stopwords=_stopwords(code), ascii_folding=True, stemmer=qe.DisabledStemmer()))
    return qe.Bm25(qe.Bm25Config(language=_SNOWBALL[code], ascii_folding=code not in _NO_FOLDING))


# Hangul syllables and letters, kana, CJK ideographs.
_CJK_RUN = re.compile(
    r"[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}"
)


# Thai letters (no digits): Thai writes no spaces between words either.
_THAI_RUN = re.compile(r"[\u0e01-\u0e4e]+")


def _run_pairs(run: str) -> str:
    return " ".join(run[i : i + 2] for i in range(len(run) - 1)) if len(run) > 1 else run


def _without_marks(text: str) -> str:
    """`text` without the marks written above and below its letters (Thai vowels and tones,
    Hebrew niqqud): a caller's transcript may spell them differently or leave them out."""
    return "".join(c for c in text if unicodedata.category(c) != "Mn")


def _thai_pairs(m: re.Match) -> str:
    """A Thai run's letters as overlapping pairs, without the vowel and tone marks written
    above and below them: the BM25 tokenizer splits a word at each mark ("ชั่วโมง" ->
    "ช", "วโมง"), and a caller's transcript may spell them differently."""
    # spaced apart from what it touches: Thai writes "ปิด20:00น." and "300บาท" without spaces
    return f" {_run_pairs(_without_marks(m.group(0)))} "


# A Hebrew word with its niqqud and cantillation marks, which a caller's transcript leaves out.
_HEBREW_WORD = re.compile(r"[\u05d0-\u05ea][\u05d0-\u05ea\u0591-\u05c7]*")
# Hebrew writes "and", "the", "in", "to", "from", "that", "as" onto the word that follows:
# "בשבת" (on Saturday), "והמחיר" (and the price), "לתיקון" (for the repair). *ours*
_HEBREW_PREFIXES = "והבלמשכ"


def _hebrew_forms(m: re.Match) -> str:
    """A Hebrew word, and the word without one or two letters that may be prefixes when
    three letters or more remain: "בשבת" -> "בשבת שבת", "והמחיר" -> "והמחיר המחיר מחיר".
    A root's own first letter goes too ("מחיר" -> "מחיר חיר"), a term no other word makes."""
    word = _without_marks(m.group(0))
    forms = [word]
    for cut in (1, 2):
        if len(word) - cut >= 3 and all(c in _HEBREW_PREFIXES for c in word[:cut]):
            forms.append(word[cut:])
    return " ".join(forms)


def _pairs(text: str) -> str:
    """Each run of CJK or Thai letters as its overlapping pairs: "명동역에서" -> "명동 동역 역에 에서";
    each Hebrew word with its forms without prefixes."""
    text = _HEBREW_WORD.sub(_hebrew_forms, text)
    return _THAI_RUN.sub(_thai_pairs, _CJK_RUN.sub(lambda m: _run_pairs(m.group(0)), text))


# Persian writes "پنج‌شنبه" (Thursday) and "می‌خواهم" with a half-space, or without one, and
# Arabic keyboards type "ي" and "ك" for its "ی" and "ک": one spelling each before analysis,
# else the tokenizer splits "پنج‌شنبه" into "five" (a stopword) and "Saturday"; so with a
# space ("سه شنبه"). *ours*
_PERSIAN_FOLD = str.maketrans({"\u200c": None, "\u200b": None, "\u200d": None, "ي": "ی", "ك": "ک"})
_PERSIAN_DAY = re.compile(r"(یک|دو|سه|چهار|پنج)\s+شنبه")  # "سه شنبه", Tuesday, as one word


def _analysed(text: str, code: str) -> str:
    return _PERSIAN_DAY.sub(r"\1شنبه", text.translate(_PERSIAN_FOLD)) if code == "fa" else text


def document_terms(text: str, lang: str = "") -> tuple[list[int], list[float]]:
    code = analysis_language(lang)
    vector = _model(code).embed_document(_analysed(_pairs(text), code))
    return list(vector.indices), list(vector.values)


def query_terms(text: str, langs: tuple[str, ...] | list[str] = ()) -> tuple[list[int], list[float]]:
    """The query analysed for every language in `langs` (PLAIN when empty), merged."""
    codes = sorted({analysis_language(lang) for lang in langs} or {PLAIN})
    merged: dict[int, float] = {}
    text = _pairs(text)
    for code in codes:
        vector = _model(code).embed_query(_analysed(text, code))
        for index, value in zip(vector.indices, vector.values):
            merged[index] = max(merged.get(index, 0.0), value)
    return list(merged), list(merged.values())


@cache
def _stopword_probe(code: str) -> qe.Bm25:
    """Drops exactly `code`'s stopwords (PLAIN: none), nothing else."""
    return qe.Bm25(qe.Bm25Config(stopwords=_stopwords(code), stemmer=qe.DisabledStemmer(), min_token_len=1))


def query_language(text: str, candidates: set[str] | tuple[str, ...]) -> str | None:
    """The candidate language whose stopwords the query uses most ("¿Con qué sistema se
    marca la asistencia?" -> es), or None when no candidate clearly wins. Short spoken
    questions are full of function words, which is what makes this work."""
    return query_language_votes(text, candidates)[0]


def query_language_votes(text: str, candidates: set[str] | tuple[str, ...]) -> tuple[str | None, int]:
    """query_language's answer and how many of the query's words voted for it."""
    winners, best = query_language_winners(text, candidates)
    return (next(iter(winners)), best) if len(winners) == 1 else (None, 0)


def query_language_winners(text: str, candidates: set[str] | tuple[str, ...]) -> tuple[frozenset[str], int]:
    """The candidate languages whose stopwords the query uses most (more than one when
    they tie; none when it uses none), and how many of its words each has."""
    codes = sorted({analysis_language(c) for c in candidates} - {PLAIN})
    if not codes:
        return frozenset(), 0
    words = _WORDS.findall(text.lower())
    counts = {code: 0 for code in codes}
    for word in set(words):
        if not _stopword_probe(PLAIN).embed_query(word).indices:
            continue  # the tokenizer drops it anyway
        for code in codes:
            counts[code] += not _stopword_probe(code).embed_query(word).indices
    best = max(counts.values())
    return (frozenset(code for code, n in counts.items() if n == best) if best > 0 else frozenset()), best
