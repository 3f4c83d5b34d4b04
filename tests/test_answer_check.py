"""`answer_check = "openai"` (retrieval.check): a chat model reads the passages found and
says whether they answer the question, under the spend guard, falling back to the local
signals whenever it cannot; against a real HTTP server on 127.0.0.1 speaking OpenAI's
API (tests/fake_openai.py: its 'model' says yes when the passages hold most of the
question's longer words)."""

from __future__ import annotations

import pytest
from conftest import DEMO_SITE, StaticSite, crawl_env
from fake_openai import FakeOpenAI, error_body
from fastapi.testclient import TestClient

from ingest.kb.db import connect
from ingest.kb.state import StateStore
from ingest.pipeline import run
from ingest.settings import SettingsError, load_settings
from retrieval.api import create_app
from retrieval.check import Verdict, prompt
from retrieval.search import Searcher

ANSWERED = "what is your phone number?"
NOT_ANSWERED = "Do you have a sauna or a spa?"


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    """The demo site ingested with the local model (no key)."""
    root = tmp_path_factory.mktemp("check")
    with crawl_env(root), StaticSite(DEMO_SITE, rewrite_hosts=("www.harbourlight.example",)) as site:
        assert run(site.base + "/", load_settings(), business="harbour").problem is None
    return root


@pytest.fixture
def fake(data_dir, monkeypatch):
    with FakeOpenAI() as server:
        monkeypatch.setenv("SITEKB_DATA_DIR", str(data_dir))
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("SITEKB_ANSWER_CHECK", "openai")
        monkeypatch.setenv("SITEKB_ANSWER_CHECK_TIMEOUT_S", "1")
        yield server


def _checks(settings) -> list[tuple]:
    db = connect(settings.state_location)
    try:
        return db.execute("SELECT business, job, kind, units, usd FROM spend WHERE kind='answer_check'").fetchall()
    finally:
        db.close()


def test_the_model_judges_and_each_check_is_paid_once(fake):
    settings = load_settings()
    with Searcher(settings) as searcher:
        found = searcher.answer("harbour", ANSWERED)
        assert found.judged_by == "model" and found.answerable and found.confidence == pytest.approx(0.95)
        assert found.hits  # the passages are the search's, whoever judges them
        missing = searcher.answer("harbour", NOT_ANSWERED)
        assert missing.judged_by == "model" and not missing.answerable and missing.confidence == pytest.approx(0.05)
        assert len(fake.chats) == 2
        searcher.answer("harbour", ANSWERED)  # the same question, the same passages: not asked again
        assert len(fake.chats) == 2
    asked = fake.chats[0]
    assert asked["model"] == "gpt-4o-mini" and asked["max_tokens"] == 1 and asked["logprobs"] is True
    user = asked["messages"][1]["content"]
    assert user.startswith(f"Question: {ANSWERED}") and "+44 1736 555 0199" in user  # the passages it judged
    paid = _checks(settings)[-2:]
    assert len(paid) == 2 and all(b == "harbour" and job == "search" and usd > 0 for b, job, _, _, usd in paid)


def test_over_the_daily_cap_the_local_signals_judge_and_nothing_is_sent(fake, monkeypatch):
    monkeypatch.setenv("SITEKB_DAILY_CAP_BUSINESS_USD", "0")
    with Searcher(load_settings()) as searcher:
        found = searcher.answer("harbour", ANSWERED)
    assert found.judged_by == "signals" and found.hits and fake.chats == []


@pytest.mark.parametrize("trouble", ["server_error", "slow", "not_yes_or_no"])
def test_a_failing_or_slow_model_leaves_the_search_answering_on_its_signals(fake, trouble):
    if trouble == "server_error":
        fake.failures.append((500, error_body("server_error", "boom")))
    elif trouble == "slow":
        fake.chat_delay_s = 2.5  # over the 1 s timeout
    else:
        fake.verdict = "Maybe"
    paid = _checks(load_settings())
    with Searcher(load_settings()) as searcher:
        found = searcher.answer("harbour", ANSWERED)
    assert found.judged_by == "signals" and found.hits
    assert len(fake.chats) == (0 if trouble == "server_error" else 1)  # the fake logs what it answers
    assert _checks(load_settings()) == paid  # a failed check costs nothing in the ledger


def test_the_api_says_who_judged(fake):
    settings = load_settings()
    state = StateStore(settings.state_location)
    _, key = state.keys.create("harbour", "check")
    state.close()
    with TestClient(create_app(settings)) as client:
        body = client.post(
            "/v1/search", json={"query": NOT_ANSWERED}, headers={"Authorization": f"Bearer {key}"}
        ).json()
    assert body["judged_by"] == "model" and body["answerable"] is False and body["hits"]


def test_the_check_needs_a_key(monkeypatch, tmp_path):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("SITEKB_ANSWER_CHECK", "openai")
    with pytest.raises(SettingsError, match="answer_check=openai .* set OPENAI_API_KEY"):
        load_settings()


def test_the_prompt_numbers_the_passages_without_repeating_their_headings():
    text = prompt(
        "¿Cuánto cuesta?", [("Carta > Tapas", "Carta > Tapas\n\n| Jamón | 14,00 € |"), ("Reservas", "Llámanos")]
    )
    assert (
        text
        == "Question: ¿Cuánto cuesta?\n\nPassages:\n[1] Carta > Tapas\n| Jamón | 14,00 € |\n\n[2] Reservas\nLlámanos"
    )
    assert Verdict(True, 0.9).answerable
