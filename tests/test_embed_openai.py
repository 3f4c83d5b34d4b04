"""The OpenAI embedder against a real HTTP server on 127.0.0.1 speaking OpenAI's API."""

import pytest
from fake_openai import DIMENSIONS, FakeOpenAI, error_body

from ingest.kb.embed import CreditExhausted, EmbedderError, OpenAIEmbedder, QuotaExceeded, make_embedder
from ingest.settings import load_settings


@pytest.fixture
def fake(monkeypatch, tmp_path):
    with FakeOpenAI() as server:
        monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
        server.use(monkeypatch)
        yield server


def _embedder():
    return OpenAIEmbedder(load_settings(), backoff_max_s=0.01)


def test_key_selects_openai_and_usage_is_counted(fake):
    embedder = make_embedder(load_settings())
    assert isinstance(embedder, OpenAIEmbedder) and embedder.dimensions == DIMENSIONS
    result = embedder.embed_documents(["single room 85 pounds", "dogs welcome"])
    assert result.calls == 1 and len(result.vectors) == 2 and len(result.vectors[0]) == DIMENSIONS
    assert result.tokens == 6  # the server's usage figure, not our estimate
    assert result.cost_usd == pytest.approx(6 * 0.02 / 1e6)


def test_batches_by_count_and_by_tokens(fake):
    embedder = _embedder()
    embedder.max_batch_inputs = 3
    embedder.embed_documents([f"text {i}" for i in range(7)])
    assert [len(r) for r in fake.requests] == [3, 3, 1]
    fake.requests.clear()
    embedder.max_batch_inputs, embedder.max_batch_tokens = 100, 10
    embedder.embed_documents(["one two three four five six"] * 3)  # 6 tokens each
    assert [len(r) for r in fake.requests] == [1, 1, 1]


def test_rate_limits_and_server_errors_are_retried(fake):
    fake.failures = [(429, error_body("rate_limit_exceeded", "slow down")), (500, error_body("server_error", "oops"))]
    result = _embedder().embed_documents(["hello"])
    assert len(result.vectors) == 1 and len(fake.requests) == 1


def test_persistent_rate_limit_becomes_a_quota_error(fake):
    fake.failures = [(429, error_body("rate_limit_exceeded", "slow down"))] * 5
    with pytest.raises(QuotaExceeded):
        _embedder().embed_documents(["hello"])


def test_insufficient_quota_is_credit_exhausted_and_not_retried(fake):
    fake.failures = [
        (429, error_body("insufficient_quota", "You exceeded your current quota")),
        (429, error_body("insufficient_quota", "again")),
    ]
    with pytest.raises(CreditExhausted, match="out of credit"):
        _embedder().embed_documents(["hello"])
    assert len(fake.failures) == 1  # one request only


@pytest.mark.parametrize(
    "payload",
    [b"not json", {"object": "list"}, {"data": [{"index": 0, "embedding": [0.1, 0.2]}], "usage": {"total_tokens": 1}}],
)
def test_malformed_responses_are_errors_not_garbage_vectors(fake, payload):
    fake.failures = [(200, payload)]
    with pytest.raises(EmbedderError):
        _embedder().embed_documents(["hello"])


def test_bad_request_is_not_retried(fake):
    fake.failures = [(400, error_body("invalid_request_error", "input too long")), (200, b"unused")]
    with pytest.raises(EmbedderError, match="input too long"):
        _embedder().embed_documents(["hello"])
    assert len(fake.failures) == 1
