"""A page's language from its words, for pages whose `lang` is wrong.

Site themes often declare one language on every page (`<html lang="en">` on the German
pages of a German/English site); the lexical index then stems German with the English
stemmer and search fails on German questions. The most frequent function words of a
language tell it apart in a few hundred words; Korean is told by its script.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

_WORDS = re.compile(r"[^\W\d_]+")
_HANGUL = re.compile(r"[\uac00-\ud7a3]")
# The 25 most frequent function words of each language (stopword lists, trimmed to the
# words that are not also common words of the others).
FUNCTION_WORDS = {
    "en": "the and of to is in that for with are on this you be as at by from or have not it was we our",
    "de": "der die das und ist nicht ein eine zu den von mit sich des auf für im dem wir auch es sind bei oder wie",
    "es": "el la los las y de que en un una es por con para del se no al lo como más pero sus le ya o este",
    "fr": "le la les et des est une un du que en dans pour pas sur au qui par ce il sont avec nous vous ou",
    "it": "il di che è e la per un una non sono del della in con le gli si da al anche come nel ma",
    "pt": "o a os as de que e do da em um uma para com não no na por mais dos das se ao é",
    "nl": "de het een en van is dat op te in zijn voor met niet aan er ook als bij door maar om",
    "tr": "ve bir bu da de için ile çok gibi daha olan en ne ama var mı olarak sonra kadar her şey",
}
_LOOKUP: dict[str, list[str]] = {}
for _lang, _words in FUNCTION_WORDS.items():
    for _word in _words.split():
        _LOOKUP.setdefault(_word, []).append(_lang)
MIN_EVIDENCE = 6  # distinct function words before the text may overrule the declared language
# ... when the declared language is one without a list here (Czech, Polish, Greek): it
# cannot answer back, and short words of its own are function words of a listed one
# (Czech "a", "o", "do", "na", "se" are Portuguese's too: a Czech legal page gives 6).
MIN_EVIDENCE_UNLISTED = 12
MIN_EVIDENCE_UNDECLARED = 3  # ... or name the language of a page that declares none


def text_language(text: str, declared: str = "") -> str:
    """The language the text is written in, or `declared` when the text does not clearly
    say otherwise (too short, or the declared language is close behind)."""
    sample = text[:20_000]
    letters = sum(ch.isalpha() for ch in sample)
    if letters and len(_HANGUL.findall(sample)) > 0.3 * letters:
        return "ko"
    counts: dict[str, int] = {}
    for word in set(_WORDS.findall(sample.lower())):  # distinct words: a calendar repeats "Di"
        for lang in _LOOKUP.get(word, ()):
            counts[lang] = counts.get(lang, 0) + 1
    if not counts:
        return declared
    best = max(counts, key=counts.get)
    base = declared.split("-")[0].lower()
    if not base and counts[best] >= MIN_EVIDENCE_UNDECLARED:
        return best
    needed = MIN_EVIDENCE if base in FUNCTION_WORDS else MIN_EVIDENCE_UNLISTED
    if best == base or counts[best] < needed or counts[best] < 2 * counts.get(base, 0):
        return declared
    return best


# A first path segment naming a language (/de/, /en-us/, /pt_BR/): the page is in that language.
_LANG_SEGMENT = re.compile(r"^([a-z]{2})(?:[-_][a-z]{2,4})?$", re.I)
LANGUAGE_CODES = frozenset(
    [
        "af",
        "ar",
        "bg",
        "bn",
        "bs",
        "ca",
        "cs",
        "cy",
        "da",
        "de",
        "el",
        "en",
        "es",
        "et",
        "eu",
        "fa",
        "fi",
        "fr",
        "ga",
        "gl",
        "he",
        "hi",
        "hr",
        "hu",
        "hy",
        "id",
        "is",
        "it",
        "ja",
        "ka",
        "kk",
        "ko",
        "lb",
        "lt",
        "lv",
        "mk",
        "ms",
        "mt",
        "nb",
        "nl",
        "nn",
        "no",
        "pl",
        "pt",
        "ro",
        "ru",
        "sk",
        "sl",
        "sq",
        "sr",
        "sv",
        "sw",
        "ta",
        "th",
        "tl",
        "tr",
        "uk",
        "ur",
        "uz",
        "vi",
        "zh",
    ]
)


def path_language(url: str) -> str | None:
    """The language a URL's first path segment names (`/de/preise/` -> 'de'), else None."""
    first = next((s for s in urlsplit(url).path.split("/") if s), "")
    match = _LANG_SEGMENT.match(first)
    return match.group(1).lower() if match and match.group(1).lower() in LANGUAGE_CODES else None
