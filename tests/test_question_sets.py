"""The benchmark's question sets (scripts/questions/) say what their sites say.

scripts/bench_retrieval.py counts a page hit when a passage of an expected page ranks,
and an answer when a passage holds the question's `answer_snippet`. A path that names no
page, or a snippet the pages do not hold, would count a miss whatever the search does.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bench_retrieval import SITES, _plain
from bs4 import BeautifulSoup
from conftest import CORPORA_MISSING, REPO
from serve_site import page_file, site_path

QUESTIONS = REPO / "scripts" / "questions"
ANSWERS = {"en", "es", "de", "fr", "it", "pt", "nl", "tr", "ko", "ja", "el", "pl", "cs"}
ANSWERS |= {"ro", "fi", "hu", "sv", "vi", "id", "uk"}  # the trial sites' languages
ANSWERS |= {"zh", "th", "ar", "hr", "he", "ru", "da"}
ANSWERS |= {"nb", "sk", "bg", "fa"}
ANSWERS |= {"ca", "sl"}


def _visible(file: Path) -> list[str]:
    """A page's visible text, folded as the benchmark folds passages: with and without a
    space where tags meet ("**Drakkar Tribe**." has none before its full stop)."""
    soup = BeautifulSoup(file.read_text(encoding="utf-8", errors="replace"), "lxml")
    for tag in soup(["script", "style", "noscript", "template"]):
        tag.decompose()
    return [_plain(soup.get_text(" ")), _plain(soup.get_text())]


@pytest.mark.parametrize("site", list(SITES))
def test_every_question_points_at_pages_that_hold_its_answer(site):
    folder, _ = SITES[site]
    if not folder.exists():
        pytest.skip(CORPORA_MISSING or f"{folder} is missing")
    questions = json.loads((QUESTIONS / f"{site}.json").read_text(encoding="utf-8"))
    assert len({q["id"] for q in questions}) == len(questions), "ids repeat"
    for q in questions:
        assert q["lang"] in ANSWERS and q["question"].strip(), q
        if not q["expected"]:
            assert not q.get("answer_snippet"), f"an unanswerable question has an answer: {q}"
            continue
        files = [(named := site_path(folder.resolve(), path)) and page_file(named) for path in q["expected"]]
        assert all(files), f"{site} #{q['id']}: no page for {q['expected']}"
        snippets = q.get("answer_snippet")
        if not snippets:
            continue
        texts = [text for file in files for text in _visible(file)]
        snippets = [snippets] if isinstance(snippets, str) else snippets
        assert any(_plain(s) in text for s in snippets for text in texts), f"{site} #{q['id']}: {snippets}"
