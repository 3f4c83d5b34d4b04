"""`answer_check = "openai"` (retrieval.check): a chat model reads the passages found and
says whether they answer the question, under the spend guard, falling back to the local
signals whenever it cannot; against a real HTTP server on 127.0.0.1 speaking OpenAI's
API (tests/fake_openai.py: its 'model' says yes when the passages hold most of the
question's longer words)."""

from __future__ import annotations

import threading
import time

import pytest
from conftest import DEMO_SITE, StaticSite, crawl_env
from fake_openai import FakeOpenAI, error_body
from fastapi.testclient import TestClient

from ingest.kb.db import connect
from ingest.kb.state import StateStore
from ingest.ops.guard import SpendGuard
from ingest.pipeline import run
from ingest.settings import SettingsError, load_settings
from retrieval.api import create_app
from retrieval.check import prompt
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
        server.use(monkeypatch)
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


@pytest.mark.parametrize(
    "cap, why",
    [
        ("SITEKB_DAILY_CAP_BUSINESS_USD", "would pass its daily cap"),
        ("SITEKB_ANSWER_CHECK_DAILY_CAP_USD", "answer checks have spent their daily cap"),
    ],
)
def test_over_a_daily_cap_the_local_signals_judge_and_nothing_is_sent(fake, monkeypatch, caplog, cap, why):
    monkeypatch.setenv(cap, "0")
    with Searcher(load_settings()) as searcher:
        found = searcher.answer("harbour", ANSWERED)
    assert found.judged_by == "signals" and found.hits and fake.chats == []
    assert why in caplog.text  # the check was tried, and the cap stopped it


@pytest.mark.parametrize(
    "trouble", ["server_error", "slow", "not_yes_or_no", "rate_limited", "out_of_credit", "breaker_open"]
)
def test_a_failing_slow_or_unpaid_model_leaves_the_search_answering_on_its_signals(fake, trouble, tmp_path):
    settings = load_settings()
    if trouble == "server_error":
        fake.failures.append((500, error_body("server_error", "boom")))
    elif trouble == "slow":
        fake.chat_delay_s = 2.5  # over the 1 s timeout
    elif trouble == "not_yes_or_no":
        fake.verdict = "Maybe"
    elif trouble == "rate_limited":
        fake.failures.append((429, error_body("rate_limit_exceeded", "slow down")))
    elif trouble == "out_of_credit":
        fake.failures.append((429, error_body("insufficient_quota", "no credit")))
    paid = _checks(settings)
    guard = SpendGuard(settings)
    try:
        if trouble == "breaker_open":
            guard.credit_exhausted()
        with Searcher(settings) as searcher:
            found = searcher.answer("harbour", ANSWERED)
        assert found.judged_by == "signals" and found.hits
        assert fake.failures == []  # a provider error was answered: the check was made
        assert len(fake.chats) == (1 if trouble in ("slow", "not_yes_or_no") else 0)
        assert _checks(settings) == paid  # a failed check costs nothing in the ledger
        # Out of credit opens the breaker for every job of this installation, as ingestion does.
        assert (guard.breaker()[0] > time.time()) == (trouble in ("out_of_credit", "breaker_open"))
    finally:
        guard._db.execute("UPDATE breaker SET open_until=0 WHERE id=1")
        guard.close()


def test_a_locked_ledger_does_not_hold_the_search(fake):
    # An ingestion holding the state's write lock: the check gives up within LEDGER_WAIT_S
    # and the local signals answer, instead of waiting 30 s or failing the search.
    settings = load_settings()
    holder = connect(settings.state_location)
    holder.execute("BEGIN IMMEDIATE")
    try:
        with Searcher(settings) as searcher:
            found = searcher.answer("harbour", ANSWERED)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert found.judged_by == "signals" and found.hits and fake.chats == []


def test_checks_from_many_threads_share_a_few_ledger_connections(fake):
    # The API's thread pool retires idle threads and starts new ones: connections must not
    # pile up with them.
    settings = load_settings()
    with Searcher(settings) as searcher:
        for i in range(12):
            thread = threading.Thread(target=searcher.answer, args=("harbour", f"{ANSWERED} ({i})"))
            thread.start()
            thread.join()
        assert len(searcher._check._guards) == 1
    assert len(fake.chats) == 12


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
    passages = [
        ("Carta > Tapas", "Carta > Tapas\n\n| Jamón | 14,00 € |"),
        ("", "Llámanos al 954 55 27 18.\n\nAbrimos a las 12:30."),  # no heading path: all of it
    ]
    assert prompt("¿Cuánto cuesta?", passages) == (
        "Question: ¿Cuánto cuesta?\n\nPassages:\n[1] Carta > Tapas\n| Jamón | 14,00 € |\n\n"
        "[2]\nLlámanos al 954 55 27 18.\n\nAbrimos a las 12:30."
    )


def test_a_failing_provider_is_logged_once_until_a_check_works_again(fake, caplog):
    fake.failures += [(500, error_body("server_error", "boom 1")), (500, error_body("server_error", "boom 2"))]
    with Searcher(load_settings()) as searcher:
        for i in range(2):
            assert searcher.answer("harbour", f"{ANSWERED} ({i})").judged_by == "signals"
        assert searcher.answer("harbour", ANSWERED).judged_by == "model"
        fake.failures.append((500, error_body("server_error", "boom 3")))
        assert searcher.answer("harbour", f"{ANSWERED} (3)").judged_by == "signals"
        fake.failures.append((401, error_body("invalid_api_key", "the key was revoked")))
        assert searcher.answer("harbour", f"{ANSWERED} (4)").judged_by == "signals"
    skipped = [r.getMessage() for r in caplog.records if "answer check by the model skipped" in r.getMessage()]
    assert len(skipped) == 3 and "boom 1" in skipped[0] and "boom 3" in skipped[1], skipped
    assert "revoked" in skipped[2]  # another kind of failure is news, even before a check works
