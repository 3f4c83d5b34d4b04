"""A page that says it is not there: the soft 404.

Some servers answer a missing page with 200 and a body saying so ("page not found",
"Oops! That page can't be found.", "Seite nicht gefunden"). Indexed, that sentence
becomes a passage the assistant may read to a caller. A page is taken for one when its
title or its first words say so and it has little else to say."""

from __future__ import annotations

import re

from ingest.models import Document

# Text a missing page has at most (a sentence or two, a search box's label): more, and
# the words may be a real page's ("what to do when a parcel is not found").
MAX_TEXT_CHARS = 400
# Where its first words end: a heading and a sentence.
OPENING_CHARS = 160
_NOT_FOUND = re.compile(
    r"\bnot\s+found\b|\b(?:can[’']?t|cannot|could\s+not|couldn[’']?t)\s+be\s+found|\b(?:doesn[’']?t|does\s+not)\s+"
    r"exist|\berror\s*404\b|^\W*404\b|\b404\s*(?:error|page)\b|nicht\s+gefunden|existiert\s+nicht|"
    r"no\s+(?:encontrad[ao]|encontramos)|no\s+se\s+(?:ha\s+)?encontr|introuvable|non\s+trouvée?|"
    r"n[’']existe\s+(?:pas|plus)|non\s+(?:trovat[ao]|esiste)|não\s+(?:encontrad[ao]|existe)|niet\s+gevonden|"
    r"bestaat\s+niet|bulunamadı|nie\s+znaleziono|nie\s+istnieje|nenalezen[ao]|nebyla\s+nalezena|"
    r"hittades\s+inte|finnes\s+ikke|findes\s+ikke|ikke\s+fundet|δεν\s+βρέθηκε|не\s+найден|찾을\s*수\s*없|"
    r"존재하지\s*않|見つかりません|存在しません|页面不存在|找不到|未找到",
    re.IGNORECASE | re.MULTILINE,
)


def says_not_found(doc: Document) -> bool:
    """The page's title or opening says it is missing, and little else is on it."""
    if doc.text_chars > MAX_TEXT_CHARS:
        return False
    return bool(_NOT_FOUND.search(doc.title) or _NOT_FOUND.search(doc.markdown.strip()[:OPENING_CHARS]))
