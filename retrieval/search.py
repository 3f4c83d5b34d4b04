"""Hybrid search (dense + BM25, fused with RRF) within one business's chunks.

One code path for the CLI, the HTTP API and in-process use: `Searcher` keeps the
vector stores and the query embedder open (the API holds one for its lifetime);
`search()` opens one for a single query.
"""

from __future__ import annotations

import logging
import math
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from ingest.index.chunk import body_of
from ingest.kb.embed import Embedder, is_local, make_embedder
from ingest.kb.lexical import ANALYSED_LANGUAGES, document_terms, query_language, query_language_winners, query_terms
from ingest.kb.lexical import SCHEME as LEXICAL_SCHEME
from ingest.kb.state import StateStore
from ingest.kb.store import Hit, SearchMode, SharedStore, open_existing_store
from ingest.settings import Settings, load_settings
from retrieval.asked import asked_days, asked_first, asked_kinds, asks_standing, asks_weekly, holds_every
from retrieval.check import AnswerCheck

log = logging.getLogger(__name__)

MAX_QUERY_CHARS = 1000
# Two passages whose word sets overlap this much say the same thing: one is enough. *ours*
NEAR_DUPLICATE_JACCARD = 0.85
# A page's passages in one answer: a summary page (the Korean page of a Turkish site)
# otherwise fills the top 5. Over the five sites' questions, hit@5 with no cap / 3 / 2:
# xhain 0.76 / 0.79 / 0.79, dentist 0.80 / 0.82 / 0.82, the other three unchanged. *ours*
MAX_PASSAGES_PER_PAGE = 3
_WORDS = re.compile(r"\w+")


class UnknownBusiness(LookupError):
    pass


@dataclass(frozen=True)
class SearchHit:
    text: str
    heading_path: str
    url: str
    title: str
    score: float
    position: int

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Answer:
    """A search's passages, and whether they answer the question at all."""

    hits: list[SearchHit]
    answerable: bool
    confidence: float  # 0-1: how likely the hits answer the question (calibrated, see answer_confidence)
    signals: AnswerSignals | None = None
    judged_by: str = "signals"  # or "model": a chat model read the passages (retrieval.check)


def _words(hit: SearchHit) -> set[str]:
    """The words of a passage's body: the heading path differs between copies of one
    passage. A passage without one is all body, its first paragraph too."""
    return set(_WORDS.findall(body_of(hit.text, hit.heading_path).lower()))


def collapse_near_duplicates(hits: Iterable[SearchHit], limit: int) -> list[SearchHit]:
    """Best-first; a hit whose words are nearly those of a better hit is dropped, and so
    is a page's passage beyond its first MAX_PASSAGES_PER_PAGE (its neighbours are one
    /v1/chunks call away). `hits` is read only as far as it takes to keep `limit`."""
    kept: list[tuple[SearchHit, set[str]]] = []
    per_page: dict[str, int] = {}
    for hit in hits:
        if per_page.get(hit.url, 0) >= MAX_PASSAGES_PER_PAGE:
            continue
        words = _words(hit)
        if any(
            words and other and len(words & other) / len(words | other) >= NEAR_DUPLICATE_JACCARD for _, other in kept
        ):
            continue
        per_page[hit.url] = per_page.get(hit.url, 0) + 1
        kept.append((hit, words))
        if len(kept) == limit:
            break
    return [hit for hit, _ in kept]


# How far down each ranking fusion looks. *ours*
FUSION_DEPTH = 40
# Query vectors kept per process: callers ask the same few things. *ours*
QUERY_CACHE_SIZE = 2048
# A question in a language the site is not written in shares few words with it: the
# lexical ranking then keeps this share of its weight (names and numbers still match).
# On the handbook's English questions (Spanish site, e5-small) BM25 alone finds 61% in
# the top 5, dense alone 85%, the two fused with equal weights 77%. *ours*
CROSS_LANGUAGE_LEXICAL_WEIGHT = 0.25
# Beside a multilingual model, BM25 counts a little less than the dense ranking: on the
# three corpus sites (scripts/questions/, e5-small) hit@5 at lexical weight 1.0 / 0.6 /
# 0.4 was 0.91 / 0.93 / 0.93 (handbook), 0.74 / 0.76 / 0.76 (xhain), 0.96 / 0.98 / 0.98
# (demo), and hit@1 was best at 0.6. *ours*
LEXICAL_WEIGHT = 0.6
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
# Letters only Vietnamese writes: ơ, ư and the vowels with a tone mark beneath or a hook.
_VIETNAMESE = re.compile(r"[ơưạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ]", re.IGNORECASE)
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_HAN = re.compile(r"[\u4e00-\u9fff]")
# Scripts of one language each here, in the order they are tried: Thai; Arabic, or Persian
# with its own letters or on a Persian site without Arabic pages (not Urdu or Kurdish);
# Hebrew (Yiddish is rare on a business's site); kana (Japanese, with its Han letters),
# else Han alone (Chinese).
_SCRIPTS = (
    ("th", re.compile(r"[\u0e01-\u0e4e]")),
    ("ar", re.compile(r"[\u0621-\u064a]")),
    ("he", re.compile(r"[\u05d0-\u05ea]")),
    ("ja", re.compile(r"[\u3040-\u30ff]")),
    ("zh", _HAN),
)
_PERSIAN = re.compile(r"[\u067e\u0686\u0698\u06a9\u06af\u06cc]")  # پ چ ژ ک گ ی
# Urdu's (ٹ ڈ ڑ ں ھ ہ ے) and Sorani Kurdish's (ە ێ ۆ ڕ ڵ) own letters
_URDU_KURDISH = re.compile(r"[\u0679\u0688\u0691\u06ba\u06be\u06c1\u06d2\u06d5\u06ce\u06c6\u0695\u06b5]")


def language_of(query: str, business_languages: tuple[str, ...]) -> str | None:
    """The query's language among the site's languages and English (callers ask in
    English everywhere), else among every language BM25 analyses (a Spanish caller to
    an English site), or None when unclear. Korean, Thai, Arabic, Persian, Hebrew,
    Japanese and Chinese are told by their scripts."""
    if _HANGUL.search(query):
        return "ko"
    if len(_VIETNAMESE.findall(query)) >= 2:
        return "vi"  # no stemmer here, but its letters tell it
    latin = len(_LATIN.findall(query))
    for lang, script in _SCRIPTS:
        if not script.search(query):
            continue
        if len(script.findall(query)) + (len(_HAN.findall(query)) if lang == "ja" else 0) < latin:
            continue  # "Do you sell 烏龍茶?" stays English
        if lang == "ar":
            site = site_languages(business_languages)
            if _URDU_KURDISH.search(query):
                continue  # Urdu's or Kurdish's own letters: no analysis here
            if _PERSIAN.search(query) or ("fa" in site and "ar" not in site):
                return "fa"  # Persian's own letters, or a Persian site's (keyboards type Arabic's "ي")
        if lang == "zh" and "ja" in site_languages(business_languages) - {"zh"}:
            return "ja"  # "営業時間" on a Japanese site: Han letters alone
        return lang
    if _CYRILLIC.search(query):  # few stopwords in a short question; the letters tell these two apart
        folded = query.casefold()
        ukrainian, russian = any(ch in folded for ch in "іїєґ"), any(ch in folded for ch in "ыэъё")
        if ukrainian != russian:
            return "uk" if ukrainian else "ru"
    found = query_language(query, {*business_languages, "en"} - {""})
    if found:
        return found
    # Among every language, one word is too little: "Bike rental per day?" has Italian's
    # "per", "Dog friendly?" Danish's "dog". Two words, or one and a letter or sign of
    # the language ("¿Abren los sábados?", "Siete aperti il lunedì?").
    winners, votes = query_language_winners(query, ANALYSED_LANGUAGES)
    folded = query.casefold()
    if len(winners) == 1:
        other = next(iter(winners))
        return other if votes >= 2 or any(ch in _TELLING_LETTERS.get(other, "") for ch in folded) else None
    told = {lang for lang in winners if any(ch in _TIE_LETTERS.get(lang, "") for ch in folded)}
    # A tie of languages sharing their function words ("es", "el", "de" are Spanish's and
    # Catalan's): the one of them whose letters the question has ("¿Cuál es el número?").
    return next(iter(told)) if len(told) == 1 else None


_TELLING_LETTERS = {
    "ca": "·",
    "es": "¿¡ñ",
    "pt": "ãõç",
    "fr": "çœêë",
    "it": "àèìòù",
    "de": "ßäöü",
    "tr": "ığş",
    "ro": "ăâîșț",
}
_TELLING_LETTERS |= {"uk": "іїєґ", "ru": "ыэъё", "et": "õ", "lt": "ąęėįų", "lv": "āēīķļņģ"}
# Between languages that tie on their function words, letters one of them has and the
# other not: Spanish's "á" against Catalan's "à", "è", "ò".
_TIE_LETTERS = _TELLING_LETTERS | {"es": "¿¡ñá", "ca": "·àèòç"}


def site_languages(business_languages: tuple[str, ...]) -> set[str]:
    """`("es-CL", "en", "")` -> `{"es", "en"}`."""
    return {lang.split("-")[0] for lang in business_languages if lang}


def page_languages(business_languages: tuple[str, ...], shares: dict[str, float] | None) -> set[str]:
    """The languages the business's pages are written in: those of its lexical analysis,
    where Korean, Thai or Bulgarian pages count as plain (""), and those its passages'
    shares name. An English question on a Thai site with English summary pages is asked
    across languages: the hub penalty (fewer_hubs) applies, as on a Spanish site."""
    return site_languages(business_languages) | set(shares or ())


def fusion_weights(
    query_lang: str | None,
    business_languages: tuple[str, ...],
    model_languages: tuple[str, ...] | None,
    shares: dict[str, float] | None = None,
) -> tuple[float, float]:
    """(dense, lexical) weights of the two rankings in the fusion.

    Dense steps aside for a query in a language the embedding model was not trained on
    (on the handbook's Spanish questions all-MiniLM-L6-v2 alone finds 79% in the top 5,
    BM25 alone 97%, the two fused 88%); lexical mostly steps aside for a query in a
    language none of the site's pages is written in, when the model reads the site's
    languages (an English-only model on a Spanish site keeps BM25 whole). A query of
    unclear language keeps both. *ours*

    BM25 reads a question only against the passages in its language. Where those are a
    few summary pages beside the site's own (`shares`: the business's passages by
    language), it ranks them above the native page that answers, which only the model
    reads: "Is there a bus stop near you?" got the English contact page's hours, not the
    Estonian one's bus stop. Its weight there is scaled by the question's language's
    share against the site's main language's (0.2 against 0.8: a quarter). *ours*"""
    site = site_languages(business_languages)
    if query_lang is None:
        return 1.0, LEXICAL_WEIGHT if model_languages is None else 1.0
    if model_languages is not None and query_lang not in model_languages:
        return 0.0, 1.0
    dense_reads_site = model_languages is None or site <= set(model_languages)
    if site and query_lang not in site and dense_reads_site:
        return 1.0, CROSS_LANGUAGE_LEXICAL_WEIGHT
    lexical = LEXICAL_WEIGHT if model_languages is None else 1.0
    if shares and dense_reads_site and query_lang in shares:
        lexical *= min(1.0, shares[query_lang] / max(shares.values()))
    return 1.0, lexical


# Reciprocal-rank fusion's constant (the RRF paper's, and Qdrant's default).
RRF_K = 60
# A ranking weighted 0 still orders what only it found, after everything else.
_FOLLOWING = 1e-9


def fuse(rankings: list[tuple[list[Hit], float]], k: int = RRF_K) -> list[Hit]:
    """Weighted reciprocal-rank fusion; a hit's score is its fused score. The hits of
    a ranking weighted 0 follow the others (a Spanish question to an English-only
    model: BM25's ranking, then the dense one's)."""
    scores: dict[str, float] = {}
    first: dict[str, Hit] = {}
    for hits, weight in rankings:
        for rank, hit in enumerate(hits, 1):
            scores[hit.id] = scores.get(hit.id, 0.0) + max(weight, _FOLLOWING) / (k + rank)
            first.setdefault(hit.id, hit)
    ranked = sorted(scores, key=lambda pid: -scores[pid])
    return [Hit(id=pid, score=scores[pid], payload=first[pid].payload) for pid in ranked]


# A page's version in another language says more than the version shown when it holds
# this many times its statements (and a few more): the Turkish original beside its
# English summary. Statements, not tokens: a complete translation has about as many in
# any language, while tokens per word differ threefold between English and Korean. *ours*
FULLER_VERSION_RATIO = 1.5
FULLER_VERSION_MIN_EXTRA = 3
# A page's version in the question's language takes its slot only when its best passage
# scored at least this share of the passage that matched: the pizzeria's Italian
# homepage ("Senza glutine", fused 0.014) went above its English page's "a Margherita
# costs €7.50" (0.026) for "Quanto costa una margherita?". Such pushed-up passages
# scored 0.52-0.58 of the match; on the five corpus sites those at 0.75 and above moved
# no answer either way. Below it the version keeps its own rank. *ours*
SAME_LANGUAGE_MIN_SHARE = 2 / 3
# A version that says much more than the one taking a page's slot (FULLER_VERSION_RATIO)
# goes before it when its best passage scored at least this share of the one that
# matched: what a summary says its original says too, not the other way round. The
# dentist's English treatments page above the Turkish one that states the implants'
# guarantee; the bistro's English menu ("prices on the French page") above /carte/. On
# the fifteen benchmark sites, from 0.8 to 0.9 the same: 4 more answers first, one
# from second to third; from 0.7 down, fuller passages that matched worse push answers
# out of the first five. *ours*
FULLER_FIRST_MIN_SHARE = 0.85
_STATEMENT_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])|\n+")
_CJK_RUN = re.compile(r"[\u3040-\u30ff\u4e00-\u9fff]{4,}")  # Chinese and Japanese write no spaces


def statements(passages: list[tuple[str, str]]) -> int:
    """How many sentences, list items and table rows a page's passages hold ((heading
    path, text) pairs; the heading paths left out): a size that does not depend on the
    language."""
    count = 0
    for heading, text in passages:
        for part in _STATEMENT_END.split(body_of(text, heading)):
            count += len(_WORDS.findall(part)) >= 2 or bool(_CJK_RUN.search(part))
    return count


def one_slot_per_page(
    hits: list[Hit], translation_of: dict[str, str], lang: str | None, size_of: Callable[[str], int] | None = None
) -> list[Hit]:
    """A page and its translations (hreflang) take one result slot: the best-ranked of
    them, shown in the question's language when a translation in it was found too. The
    passage that ranked best then keeps the slot after it (that one passage only),
    because a translation is often shorter than its original: the fact a caller asks
    for may be only in the passage that matched. When the translation's passage scored
    much lower (SAME_LANGUAGE_MIN_SHARE), the one that matched stays first and the
    translation's passages keep their own ranks. Further passages of the page shown
    keep their own ranks; the other translations go, unless one says much more than the
    versions shown (`size_of(url)` statements, FULLER_VERSION_RATIO): then its passages
    keep their ranks too, since what they add is in no version shown. Such a fuller
    version goes first in the page's slot when its passage matched nearly as well
    (FULLER_FIRST_MIN_SHARE)."""
    group_of = {h.id: translation_of.get(h.payload.get("url", ""), h.payload.get("url", "")) for h in hits}
    members: dict[str, list[Hit]] = {}  # translation set -> its passages, best first
    for h in hits:
        members.setdefault(group_of[h.id], []).append(h)
    shown: dict[str, set[str]] = {}  # translation set -> the URLs shown for it
    kept: list[Hit] = []
    used: set[str] = set()
    for hit in hits:
        if hit.id in used:
            continue
        group, url = group_of[hit.id], hit.payload.get("url", "")
        if group not in shown:
            chosen = hit
            if lang and hit.payload.get("lang", "").split("-")[0] != lang:
                chosen = next(
                    (h for h in members[group] if h.id not in used and h.payload.get("lang", "").split("-")[0] == lang),
                    hit,
                )
            shown[group] = {chosen.payload.get("url", "")}  # the matched passage alone keeps its slot
            if chosen is not hit and chosen.score < SAME_LANGUAGE_MIN_SHARE * hit.score:
                shown[group] = {url, chosen.payload.get("url", "")}  # both, each at its own rank
                chosen = hit
            slot = [chosen, hit] if chosen is not hit else [hit]
            fuller = _fuller_version(members[group], used, chosen, hit, size_of)
            if fuller is not None:
                shown[group].add(fuller.payload.get("url", ""))
                slot = [fuller, *(h for h in slot if h is not fuller)]
            for h in slot:
                used.add(h.id)
                kept.append(h)
            continue
        if url not in shown[group]:
            if size_of is None or not _fuller(size_of(url), [size_of(u) for u in shown[group]]):
                continue
            shown[group].add(url)
        used.add(hit.id)
        kept.append(hit)
    return kept


def _fuller_version(
    versions: list[Hit], used: set[str], chosen: Hit, matched: Hit, size_of: Callable[[str], int] | None
) -> Hit | None:
    """The best passage of another version of `chosen`'s page (`versions`: the passages
    of the page's translation set, best first) that says much more than it and matched
    nearly as well as `matched` (FULLER_FIRST_MIN_SHARE), if any."""
    if size_of is None:
        return None
    mine = chosen.payload.get("url", "")
    for h in versions:
        url = h.payload.get("url", "")
        if h.id in used or url == mine:
            continue
        if h.score < FULLER_FIRST_MIN_SHARE * matched.score:
            return None  # ranked best first: the rest matched worse still
        if _fuller(size_of(url), [size_of(mine)]):
            return h
    return None


def _fuller(size: int, shown: list[int]) -> bool:
    most = max(shown, default=0)
    return size >= FULLER_VERSION_RATIO * most and size >= most + FULLER_VERSION_MIN_EXTRA


# Hubs. A passage in another language than the question's can sit near every question
# in it: on the tapas site a Spanish cookie notice naming Google Maps was the nearest
# passage (e5-small) to "How much is the Iberian ham?", "Where can I park the car?" and
# most English questions. Such a passage loses HUB_PENALTY x how much closer than the
# other such passages in the top 40 it is to its HUB_NEIGHBOURS nearest questions on
# unrelated subjects in the question's language (offtopic_questions.txt): cross-domain
# similarity local scaling (CSLS, Conneau et al. 2018), applied only across languages,
# where a shared word or name makes hubs. Dense-only over the five sites' questions,
# hit@1 / hit@5 0.696 / 0.910 -> 0.732 / 0.940, no same-language question moved, and
# 0.5 sits within a plateau (0.5-0.7). A bank of typical callers' questions instead
# did as well on average but pushed down the passages that answer them (tapas'
# reservations page for "What times can we book for dinner?"). Per model: cosines
# differ by model, and only e5-small was measured. *ours*
HUB_PENALTY: dict[str, float] = {"multilingual-e5-small-q4": 0.5}
HUB_NEIGHBOURS = 10
OFFTOPIC_QUESTIONS = Path(__file__).with_name("offtopic_questions.txt")


# embedder id -> (the off-topic questions' languages, their vectors): the same for every
# searcher of a process.
_OFFTOPIC: dict[str, tuple[np.ndarray, np.ndarray]] = {}
_OFFTOPIC_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def offtopic_questions() -> tuple[tuple[str, str], ...]:
    """(language, question) lines of offtopic_questions.txt."""
    lines = OFFTOPIC_QUESTIONS.read_text(encoding="utf-8").splitlines()
    return tuple(tuple(line.split("\t", 1)) for line in lines if "\t" in line and not line.startswith("#"))  # type: ignore[misc]


def fewer_hubs(dense: list[Hit], lang: str, offtopic: np.ndarray, weight: float) -> list[Hit]:
    """The dense ranking with each passage in another language than `lang` moved down by
    `weight` x how much closer it is to its nearest `offtopic` questions (rows of
    question vectors in `lang`) than the other such passages are; scores stay the cosines."""
    other = [
        i
        for i, h in enumerate(dense)
        if h.vector is not None and h.payload.get("lang", "").split("-")[0] not in ("", lang)  # unknown: not foreign
    ]
    if len(other) < 2 or not len(offtopic):
        return dense
    vectors = np.asarray([dense[i].vector for i in other], dtype=np.float32)
    k = min(HUB_NEIGHBOURS, len(offtopic))
    closeness = np.sort(vectors @ offtopic.T, axis=1)[:, -k:].mean(axis=1)
    penalty = dict(zip(other, weight * (closeness - np.median(closeness))))
    order = sorted(range(len(dense)), key=lambda i: -(dense[i].score - penalty.get(i, 0.0)))
    return [dense[i] for i in order]


@dataclass(frozen=True)
class AnswerSignals:
    """What says whether the best passages answer the question (answer_confidence)."""

    dense_top: float  # the best dense (cosine) score
    dense_z: float  # the best dense score in standard deviations above the rest of the top 40
    coverage: float  # the largest share of the question's words one of the best 3 passages holds
    site_coverage: float  # share of the question's words found in any passage BM25 ranked
    agreement: float  # 1/rank of the fused best passage in the ranking it did not come first in
    cross_language: float  # 1 when the question's language is not one the site is written in
    asked_held: float = 0.0  # 1 when the question asks for a kind of value (asked.py) the first passage holds


@lru_cache(maxsize=8192)
def _terms_of(text: str, lang: str) -> frozenset[int]:
    """A passage's BM25 terms: the same passages come back query after query, and
    analysing 40 of them took half of a search's time without the query embedding."""
    return frozenset(document_terms(text, lang)[0])


def answer_signals(
    query: str, dense: list[Hit], lexical: list[Hit], fused: list[Hit], langs, cross_language: bool
) -> AnswerSignals:
    if not fused:
        return AnswerSignals(0.0, 0.0, 0.0, 0.0, 0.0, float(cross_language))
    scores = [h.score for h in dense]
    dense_z = 0.0
    if len(scores) >= 5:
        rest = scores[1:]
        mean = sum(rest) / len(rest)
        std = math.sqrt(sum((x - mean) ** 2 for x in rest) / len(rest)) or 1e-6
        dense_z = (scores[0] - mean) / std
    coverage = 0.0
    for hit in fused[:3]:
        lang = hit.payload.get("lang", "")
        wanted = set(query_terms(query, (lang,))[0])
        if wanted:
            coverage = max(coverage, len(wanted & _terms_of(hit.payload.get("text", ""), lang)) / len(wanted))
    wanted_any = set(query_terms(query, langs)[0])
    found: set[int] = set()
    for hit in lexical:
        if len(found) == len(wanted_any):
            break  # every word found: the passages further down cannot add one (and need no analysis)
        found |= wanted_any & _terms_of(hit.payload.get("text", ""), hit.payload.get("lang", ""))
    site_coverage = len(found) / len(wanted_any) if wanted_any else 0.0
    best = fused[0]
    in_dense = next((i for i, h in enumerate(dense, 1) if h.id == best.id), None)
    in_lexical = next((i for i, h in enumerate(lexical, 1) if h.id == best.id), None)
    ranks = [r for r in (in_dense, in_lexical) if r is not None]
    agreement = 1 / max(ranks) if len(ranks) == 2 else 0.0
    return AnswerSignals(
        round(scores[0] if scores else 0.0, 4),
        round(dense_z, 4),
        round(coverage, 4),
        round(site_coverage, 4),
        round(agreement, 4),
        float(cross_language),
    )


# Logistic models over the signals, fitted by scripts/calibrate_answerable.py on the
# question sets of five sites in scripts/questions/ (221 answerable, 46 unanswerable
# questions: the handbook, xhain, the demo, and the dentist and tapas sites written for
# evaluation). Cosine scores differ by model, so the fit that uses the best dense score
# is e5-small's; other models get the fit without it. The thresholds flag 2% of the
# answerable questions: fitted on four sites, the fifth saw 0-10% of its answerable
# questions flagged and 0-56% of its unanswerable ones (docs/benchmarks.md). A wrong
# "I don't know" costs a caller more than a weak passage, so the flag is conservative.
# e5-small's fit is of 2026-12-04 (`calibrate_answerable.py --sites handbook xhain demo
# dentist tapas --max-flagged 0.02`), with the questions whose first passage holds the
# kind of value they ask for left unflagged (`asked_held`, answer_confidence). *ours*
CONFIDENCE_MODELS: dict[str | None, tuple[dict[str, float], float]] = {
    "multilingual-e5-small-q4": (
        {
            "bias": -21.591,
            "dense_top": 21.44,
            "dense_z": 0.315,
            "coverage": 2.236,
            "site_coverage": 1.238,
            "agreement": 1.208,
            "cross_language": 1.416,
        },
        0.154,
    ),
    None: (
        {
            "bias": -3.751,
            "dense_z": 0.352,
            "coverage": 2.674,
            "site_coverage": 1.404,
            "agreement": 1.384,
            "cross_language": 1.46,
        },
        0.144,
    ),
}


def answer_confidence(signals: AnswerSignals, model: str | None = None) -> tuple[float, float]:
    """(confidence in 0-1, the threshold under which the hits do not answer). A first
    passage that holds a value of the kind the question asks for ("what's your number?",
    "how much is …") counts as an answer, at the threshold at least: the words that make
    the other signals are often not in it ("Where exactly are you located?" against the
    card's "Address: …"). Such questions the sites do not answer ("How much does an MRI
    cost?") were not flagged before either: their other signals are strong."""
    weights, threshold = CONFIDENCE_MODELS.get(model) or CONFIDENCE_MODELS[None]
    x = weights["bias"] + sum(w * getattr(signals, name) for name, w in weights.items() if name != "bias")
    confidence = 1 / (1 + math.exp(-max(-30.0, min(30.0, x))))
    return (max(confidence, threshold) if signals.asked_held else confidence), threshold


def checked_query(query: str) -> str:
    """The query without surrounding blanks; ValueError saying what is wrong with it."""
    query = query.strip()
    if not query:
        raise ValueError("the query is empty")
    if len(query) > MAX_QUERY_CHARS:
        raise ValueError(f"the query is {len(query)} characters long; the limit is {MAX_QUERY_CHARS}")
    return query


class Searcher:
    """Searches any business; opens each embedder's store and model once."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._stores: dict[str, SharedStore | None] = {}
        self._embedders: dict[str, Embedder] = {}
        self._lock = threading.Lock()
        self._state: StateStore | None = None  # one connection, opened on first use
        self._vectors: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
        # business -> (its last run, URL -> its translation set), refreshed after each run
        self._translations: dict[str, tuple[int, dict[str, str]]] = {}
        # business -> URL -> its statements (one_slot_per_page), emptied with _translations
        self._sizes: dict[str, dict[str, int]] = {}
        # business -> its passages' shares by language (fusion_weights), read with _translations
        self._shares: dict[str, dict[str, float]] = {}
        self._check = AnswerCheck(settings) if settings.answer_check == "openai" else None

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        for store in self._stores.values():
            if store is not None:
                store.close()
        self._stores.clear()
        if self._state is not None:
            self._state.close()
            self._state = None
        if self._check is not None:
            self._check.close()

    def embedder_id(self, business: str) -> str:
        return self._index_of(business)[0]

    def _index_of(self, business: str) -> tuple[str, tuple[str, ...]]:
        """The business's embedder and the languages its lexical index was analysed in."""
        if not self.settings.state_exists():
            raise UnknownBusiness(  # the default data folder is ./data of the folder the command runs in
                f"no knowledge base for {business!r}: nothing ingested under {Path(self.settings.data_dir).resolve()} "
                "(run the command where you ran the ingest, or set SITEKB_DATA_DIR)"
            )
        with self._lock:
            state = self._opened_state()
            embedder_id = state.businesses.embedder_of(business)
            scheme, languages = state.businesses.lexical_of(business)
            run = state.sources.last_run(business)
            if self._translations.get(business, (None,))[0] != run:
                self._translations[business] = (run, state.pages.translations(business, languages))
                self._sizes[business] = {}
                self._shares[business] = state.businesses.language_shares(business)
        if embedder_id is None:
            raise UnknownBusiness(
                f"no knowledge base for {business!r}; run `ingest run SITE --business {business}` first"
            )
        # A knowledge base not yet re-indexed under the current analysis was analysed plainly.
        return embedder_id, languages if scheme == LEXICAL_SCHEME else ()

    def _opened_state(self) -> StateStore:
        """The state's one connection, opened on first use (call with self._lock held)."""
        if self._state is None:
            self._state = StateStore(self.settings.state_location, shared=True)
        return self._state

    def _open(self, embedder_id: str) -> tuple[Embedder, SharedStore | None]:
        with self._lock:
            if embedder_id not in self._embedders:
                self._embedders[embedder_id] = make_embedder(self.settings, recorded_id=embedder_id)
            if self._stores.get(embedder_id) is None:  # a job in this process may have created it since
                self._stores[embedder_id] = open_existing_store(self.settings, embedder_id)
            return self._embedders[embedder_id], self._stores[embedder_id]

    def store_for(self, business: str) -> SharedStore | None:
        return self._open(self.embedder_id(business))[1]

    def search(
        self, business: str, query: str, k: int = 5, mode: SearchMode = "hybrid", vector: list[float] | None = None
    ) -> list[SearchHit]:
        """Top-k chunks of `business`. `vector` skips the query embedding (benchmarks)."""
        return self.answer(business, query, k, mode, vector).hits

    def answer(
        self, business: str, query: str, k: int = 5, mode: SearchMode = "hybrid", vector: list[float] | None = None
    ) -> Answer:
        """Top-k chunks of `business`, and whether they answer the query at all."""
        query = checked_query(query)
        embedder_id, languages = self._index_of(business)
        embedder, store = self._open(embedder_id)
        if store is None:
            return Answer(hits=[], answerable=False, confidence=0.0)
        query_lang = language_of(query, languages)
        if vector is None and mode != "lexical":
            vector = self._query_vector(embedder, query)
        hub_weight = HUB_PENALTY.get(embedder.model, 0.0) if mode != "lexical" else 0.0
        hubs = bool(hub_weight and query_lang and page_languages(languages, self._shares.get(business)) - {query_lang})
        dense, lexical = store.rankings(
            business,
            vector if mode != "lexical" else None,
            query if mode != "dense" else None,
            FUSION_DEPTH,
            languages,
            vectors=hubs,
        )
        ranked = fewer_hubs(dense, query_lang, self._offtopic_of(embedder, query_lang), hub_weight) if hubs else dense
        translations = self._translations.get(business, (0, {}))[1]

        def one_slot(hits: list[Hit]) -> list[Hit]:
            return one_slot_per_page(hits, translations, query_lang, lambda url: self._page_size(business, store, url))

        if mode == "hybrid":
            model_languages = getattr(embedder, "languages", None)
            standard = fusion_weights(query_lang, languages, model_languages)
            weights = fusion_weights(query_lang, languages, model_languages, self._shares.get(business))
            fused = one_slot(fuse([(ranked, weights[0]), (lexical, weights[1])]))
            # the order the confidence models were fitted on: the rankings' standard weights
            calibrated = (
                fused if weights == standard else one_slot(fuse([(ranked, standard[0]), (lexical, standard[1])]))
            )
        else:
            fused = calibrated = one_slot(fuse([(ranked if mode == "dense" else lexical, 1.0)]))
        kinds = asked_kinds(query)
        days = asked_days(query, kinds)
        fused = asked_first(fused, kinds, days, asks_weekly(query, days), asks_standing(query))
        found = (  # made as far as collapse_near_duplicates reads: its first k kept, of up to 80
            SearchHit(
                text=h.payload.get("text", ""),
                heading_path=h.payload.get("heading_path", ""),
                url=h.payload.get("url", ""),
                title=h.payload.get("title", ""),
                score=round(h.score, 6),
                position=int(h.payload.get("position", 0)),
            )
            for h in fused
        )
        hits = collapse_near_duplicates(found, k)
        site = site_languages(languages)
        cross = bool(site) and query_lang is not None and query_lang not in site
        signals = answer_signals(query, dense, lexical, calibrated, languages, cross)
        if kinds and hits and holds_every(hits[0].text, kinds):
            signals = replace(signals, asked_held=1.0)
        confidence, threshold = answer_confidence(signals, embedder.model)
        passages = [(h.heading_path, h.text) for h in hits[: self.settings.answer_check_passages]]
        verdict = self._check.judge(business, query, passages) if self._check is not None else None
        if verdict is not None:
            return Answer(hits, verdict.answerable, verdict.confidence, signals, judged_by="model")
        return Answer(
            hits=hits,
            answerable=bool(hits) and confidence >= threshold,
            confidence=round(confidence, 3),
            signals=signals,
        )

    def _offtopic_of(self, embedder: Embedder, lang: str | None) -> np.ndarray:
        """The off-topic questions' vectors in `lang` (all of them for a language they are
        not written in), embedded once per model and process."""
        found = _OFFTOPIC.get(embedder.id)
        if found is None:  # embedded outside the lock: other searches go on meanwhile
            questions = offtopic_questions()
            vectors = embedder.embed_queries([q for _, q in questions])  # type: ignore[attr-defined]
            with _OFFTOPIC_LOCK:
                found = _OFFTOPIC.setdefault(embedder.id, (np.asarray([lang for lang, _ in questions]), vectors))
        langs, vectors = found
        mine = langs == lang
        return vectors[mine] if mine.any() else vectors

    def warm_up(self) -> list[str]:
        """Load now what the first questions would otherwise wait for: each recorded
        embedder's store and, for a local model, the model and the off-topic questions'
        vectors its ranking across languages uses; and the businesses' lexical analysers.
        Returns the embedders made ready. What fails here is left for the searches that
        meet it to report."""
        try:
            if not self.settings.state_exists():
                return []
            with self._lock:
                state = self._opened_state()
                businesses = state.businesses.all()
                embedders = sorted({e for e in map(state.businesses.embedder_of, businesses) if e})
                languages = {lang for b in businesses for lang in state.businesses.lexical_of(b)[1]}
        except Exception as exc:  # noqa: BLE001 (an unreachable database: the searches say so)
            log.warning("warm-up could not read the state: %s", exc)
            return []
        ready = []
        for embedder_id in embedders:
            try:
                embedder, store = self._open(embedder_id)
                if store is None:
                    continue
                if is_local(embedder):  # a paid model has nothing to load, and is not asked
                    embedder.embed_query("warm-up")  # the model itself (not the query cache)
                    if HUB_PENALTY.get(embedder.model):
                        self._offtopic_of(embedder, None)
            except Exception as exc:  # noqa: BLE001 (a search reports it, in its own words)
                log.warning("warm-up of %s failed: %s", embedder_id, exc)
                continue
            ready.append(embedder_id)
        query_terms("warm-up", tuple(sorted(languages)))
        return ready

    def _page_size(self, business: str, store: SharedStore, url: str) -> int:
        """A page's statements, read once per run of its business (asked only when two
        versions of a page meet in one answer)."""
        sizes = self._sizes.setdefault(business, {})
        size = sizes.get(url)
        if size is None:
            passages = store.page_chunks(business, url)
            size = sizes[url] = statements([(p.get("heading_path", ""), p.get("text", "")) for p in passages])
        return size

    def _query_vector(self, embedder: Embedder, query: str) -> list[float]:
        """Callers ask the same few things: a query's vector is computed once per process."""
        key = (embedder.id, query)
        with self._lock:
            vector = self._vectors.get(key)
            if vector is not None:
                self._vectors.move_to_end(key)
                return vector
        vector = embedder.embed_query(query)
        with self._lock:
            self._vectors[key] = vector
            if len(self._vectors) > QUERY_CACHE_SIZE:
                self._vectors.popitem(last=False)
        return vector


def search(
    business: str, query: str, k: int = 5, settings: Settings | None = None, mode: SearchMode = "hybrid"
) -> list[SearchHit]:
    """Top-k chunks of `business` for `query`. Raises UnknownBusiness when nothing was ingested for it."""
    with Searcher(settings or load_settings()) as searcher:
        return searcher.search(business, query, k, mode)
