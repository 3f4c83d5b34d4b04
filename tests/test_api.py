"""The retrieval API (issue #7): auth, tenant isolation, validation, hybrid search, contract."""

from __future__ import annotations

import sys

import jsonschema
import pytest
from conftest import DEMO_SITE, StaticSite, crawl_env
from fastapi.testclient import TestClient

from ingest.kb.state import StateStore
from ingest.pipeline import run
from ingest.settings import load_settings
from retrieval.api import create_app
from retrieval.search import Searcher

BAKERY = {
    "index.html": "<h1>Panadería Sol</h1><p>Panadería Sol bakes bread in Valencia every morning since 1987, with "
    "flour from local mills and a wood oven that the family built by hand.</p>",
    "products/index.html": "<h1>Products</h1><h2>Empanadas</h2><p>Our empanadas de atún are folded by hand each "
    "morning.</p><h2>Catering trays</h2><p>The party tray, product code SKU-77812, feeds twelve "
    "guests and must be ordered two days ahead.</p>",
    "contact/index.html": "<h1>Contact</h1><p>Call the bakery on +34 961 440 218 between 7:00 and 14:00, or visit "
    "Carrer de la Pau 4 in Valencia.</p>",
    "story/index.html": "<h1>Our story</h1><p>Three generations of bakers have worked the same oven, and the "
    "sourdough starter is older than the shop itself, kept alive through every summer.</p>",
}


@pytest.fixture(scope="module")
def kb(tmp_path_factory):
    root = tmp_path_factory.mktemp("api")
    bakery = root / "bakery"
    nav = "".join(f'<a href="/{p.split("/")[0]}/">{p.split("/")[0]}</a> ' for p in BAKERY if "/" in p)
    for path, body in BAKERY.items():
        (bakery / path).parent.mkdir(parents=True, exist_ok=True)
        (bakery / path).write_text(
            f"<html><head><title>{path}</title></head><body><nav>{nav}</nav><main>{body}</main></body></html>"
        )
    with crawl_env(root / "data"):
        settings = load_settings()
        with StaticSite(DEMO_SITE, rewrite_hosts=("www.harbourlight.example",)) as site:
            assert run(site.base + "/", settings, business="harbour").problem is None
        with StaticSite(bakery) as site:
            assert run(site.base + "/", settings, business="bakery").problem is None
        state = StateStore(settings.state_location)
        keys = {b: state.keys.create(b, "test")[1] for b in ("harbour", "bakery")}
        revoked_id, revoked = state.keys.create("harbour", "old")
        state.keys.revoke(revoked_id)
        state.close()
        with TestClient(create_app(settings)) as client:
            yield client, keys, revoked, settings


search_module = sys.modules["retrieval.search"]  # the package exports a function of that name


def _auth(key):
    return {"Authorization": f"Bearer {key}"}


def test_health(kb):
    client, *_ = kb
    assert client.get("/healthz").json() == {"status": "ok"}


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer nope"}, {"Authorization": "Basic dXNlcjpwYXNz"}, {"Authorization": "Bearer "}],
)
@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", "/v1/search", {"query": "rooms"}),
        ("get", "/v1/sources", None),
        ("get", "/v1/chunks?url=x", None),
        ("get", "/v1/facts", None),
    ],
)
def test_every_endpoint_refuses_missing_or_wrong_keys(kb, headers, method, path, body):
    client, *_ = kb
    response = getattr(client, method)(path, headers=headers, **({"json": body} if body else {}))
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    assert "traceback" not in response.text.lower()


def test_a_revoked_key_is_refused(kb):
    client, _, revoked, _ = kb
    assert client.post("/v1/search", json={"query": "rooms"}, headers=_auth(revoked)).status_code == 401


def test_a_key_only_ever_sees_its_own_business(kb):
    client, keys, *_ = kb
    for business, query in (("harbour", "Panadería Sol empanadas"), ("bakery", "single room price check-in")):
        response = client.post("/v1/search", json={"query": query, "top_k": 10}, headers=_auth(keys[business]))
        assert response.status_code == 200 and response.json()["business"] == business
        texts = " ".join(h["text"] for h in response.json()["hits"])
        if business == "harbour":
            assert "Panadería" not in texts and "empanadas" not in texts
        else:
            assert "Harbour" not in texts and "room" not in texts.lower()


def test_the_request_cannot_name_another_business(kb):
    client, keys, *_ = kb
    response = client.post("/v1/search", json={"query": "bread", "business": "bakery"}, headers=_auth(keys["harbour"]))
    assert response.status_code == 422 and "business" in response.text


def test_sources_and_chunks_are_scoped_to_the_key(kb):
    client, keys, *_ = kb
    sources = client.get("/v1/sources", headers=_auth(keys["bakery"])).json()
    assert sources["business"] == "bakery" and len(sources["sources"]) == 1
    assert sources["sources"][0]["chunks"] > 0 and sources["sources"][0]["last_refreshed_at"]
    hit = client.post("/v1/search", json={"query": "party tray"}, headers=_auth(keys["bakery"])).json()["hits"][0]
    page = client.get("/v1/chunks", params={"url": hit["url"]}, headers=_auth(keys["bakery"])).json()
    assert [c["position"] for c in page["chunks"]] == sorted(c["position"] for c in page["chunks"])
    assert any(c["position"] == hit["position"] for c in page["chunks"])
    other = client.get("/v1/chunks", params={"url": hit["url"]}, headers=_auth(keys["harbour"]))
    assert other.status_code == 404


@pytest.mark.parametrize(
    "body, field",
    [
        ({"query": ""}, "query"),
        ({"query": "   "}, "query"),
        ({"query": "x" * 1001}, "query"),
        ({"query": "rooms", "top_k": 0}, "top_k"),
        ({"query": "rooms", "top_k": 51}, "top_k"),
        ({}, "query"),
        ({"query": 42}, "query"),
    ],
)
def test_validation_errors_are_422_and_name_the_field(kb, body, field):
    client, keys, *_ = kb
    response = client.post("/v1/search", json=body, headers=_auth(keys["harbour"]))
    assert response.status_code == 422
    assert any(field in err["loc"] for err in response.json()["detail"])


def test_a_lone_surrogate_is_422_not_500(kb):
    client, keys, *_ = kb
    body = b'{"query": "\\ud800 rooms"}'  # valid JSON, no valid text
    headers = {**_auth(keys["harbour"]), "Content-Type": "application/json"}
    response = client.post("/v1/search", content=body, headers=headers)
    assert response.status_code == 422 and response.json()["detail"][0]["loc"] == ["body", "query"]


def test_a_422_does_not_echo_the_input(kb):
    client, keys, *_ = kb
    response = client.post("/v1/search", json={"query": "x" * 5000}, headers=_auth(keys["harbour"]))
    assert response.status_code == 422 and len(response.content) < 500


def test_a_body_over_the_limit_is_413_before_the_key_is_checked(kb):
    client, keys, *_ = kb
    big = b'{"query": "' + b"x" * 100_000 + b'"}'
    response = client.post("/v1/search", content=big, headers={"Content-Type": "application/json"})
    assert response.status_code == 413 and len(response.content) < 200
    ok = client.post("/v1/search", json={"query": "rooms"}, headers=_auth(keys["harbour"]))
    assert ok.status_code == 200  # ordinary requests pass


def test_a_chunked_body_is_cut_off_at_the_limit(kb):
    client, keys, *_ = kb

    def body():
        yield b'{"query": "'
        for _ in range(50):
            yield b"x" * 10_000
        yield b'"}'

    response = client.post(
        "/v1/search", content=body(), headers={**_auth(keys["harbour"]), "Content-Type": "application/json"}
    )
    assert response.status_code == 413


@pytest.mark.parametrize("body", [b"rooms please", b'\xff\xfe{"query": "rooms"}'])  # not JSON; not UTF-8
def test_not_json_is_422(kb, body):
    client, keys, *_ = kb
    response = client.post(
        "/v1/search", content=body, headers={**_auth(keys["harbour"]), "Content-Type": "application/json"}
    )
    assert response.status_code == 422


@pytest.mark.parametrize(
    "query, expected", [("+34 961 440 218", "contact"), ("SKU-77812", "products"), ("empanadas de atún", "products")]
)
def test_hybrid_finds_names_codes_and_numbers(kb, query, expected):
    client, keys, *_ = kb
    hits = client.post("/v1/search", json={"query": query, "top_k": 3}, headers=_auth(keys["bakery"])).json()["hits"]
    assert f"/{expected}/" in hits[0]["url"]


def test_lexical_signal_is_what_finds_them(kb):
    """Prices, codes and numbers: hybrid puts the passage holding them first every time;
    the English dense model alone does not (it ranks both prices second)."""
    client, *_ = kb
    searcher = client.app.state.searcher  # the server's own: the store admits one opener
    queries = [
        ("bakery", "+34 961 440 218", "961 440 218"),
        ("bakery", "SKU-77812", "SKU-77812"),
        ("bakery", "empanadas de atún", "empanadas de atún"),
        ("harbour", "£9.50", "9.50"),
        ("harbour", "£240", "£240"),
        ("harbour", "TR26 1AB", "TR26 1AB"),
    ]

    def rank(business, query, needle, mode):
        hits = searcher.search(business, query, 10, mode=mode)
        return next((i + 1 for i, h in enumerate(hits) if needle in h.text), 99)

    hybrid = [rank(*q, "hybrid") for q in queries]
    dense = [rank(*q, "dense") for q in queries]
    assert hybrid == [1] * len(queries), hybrid
    assert dense.count(1) < len(queries), dense


def test_the_phone_number_in_the_footer_is_answerable(kb):
    client, keys, *_ = kb
    hits = client.post(
        "/v1/search", json={"query": "what is your phone number", "top_k": 5}, headers=_auth(keys["harbour"])
    ).json()["hits"]
    assert "1736 555 0199" in hits[0]["text"]  # the contact card's phone line, not the number 17 bus


def test_the_contact_card_is_served_without_a_search(kb):
    client, keys, *_ = kb
    card = client.get("/v1/facts", headers=_auth(keys["harbour"])).json()
    phones = [f for f in card["facts"] if f["kind"] == "phone"]
    assert card["business"] == "harbour" and phones and "1736 555 0199" in phones[0]["value"]
    assert any(f["kind"] == "email" and f["value"] == "bookings@harbourlight.example" for f in card["facts"])
    assert any(f["kind"] == "hours" and "08:00" in f["value"] for f in card["facts"])
    # Each business sees its own card: the bakery states its number in its contact page's text.
    bakery = client.get("/v1/facts", headers=_auth(keys["bakery"])).json()["facts"]
    assert [f["value"] for f in bakery if f["kind"] == "phone"] == ["+34 961 440 218"]
    assert client.get("/v1/facts").status_code == 401


def test_a_search_says_whether_it_found_an_answer(kb):
    client, keys, *_ = kb
    auth = _auth(keys["harbour"])
    found = client.post("/v1/search", json={"query": "can I bring my dog?"}, headers=auth).json()
    assert found["answerable"] is True and found["confidence"] > 0.5
    nonsense = client.post("/v1/search", json={"query": "Do you have a sauna or a spa?"}, headers=auth).json()
    assert nonsense["answerable"] is False and nonsense["confidence"] < found["confidence"]


def test_a_first_passage_holding_the_value_asked_for_answers(kb):
    """ "Where exactly are you located?" shares no word with the card's "Address: …": the
    passage still answers, since it holds the kind of value asked for. A question that
    asks for no such value gets no such pass."""
    *_, settings = kb
    weights, threshold = search_module.CONFIDENCE_MODELS["multilingual-e5-small-q4"]
    with Searcher(settings) as searcher:
        assert searcher.embedder_id("harbour").startswith("multilingual-e5-small-q4")
        located = searcher.answer("harbour", "Where exactly are you located?")
        assert located.signals.asked_held == 1.0 and located.answerable and located.confidence >= threshold
        sauna = searcher.answer("harbour", "Do you have a sauna or a spa?")
        assert sauna.signals.asked_held == 0.0 and not sauna.answerable
    weak = search_module.AnswerSignals(0.78, 1.0, 0.0, 0.0, 0.0, 0.0)
    assert search_module.answer_confidence(weak, "multilingual-e5-small-q4")[0] < threshold
    held = search_module.AnswerSignals(0.78, 1.0, 0.0, 0.0, 0.0, 0.0, asked_held=1.0)
    assert search_module.answer_confidence(held, "multilingual-e5-small-q4")[0] == threshold


def test_responses_match_the_openapi_document(kb):
    client, keys, *_ = kb
    spec = client.get("/openapi.json").json()

    def check(path, method, response):
        schema = spec["paths"][path][method]["responses"][str(response.status_code)]["content"]["application/json"][
            "schema"
        ]
        jsonschema.validate(
            response.json(), {**schema, "components": spec["components"]}, cls=jsonschema.Draft202012Validator
        )

    auth = _auth(keys["harbour"])
    search = client.post("/v1/search", json={"query": "breakfast"}, headers=auth)
    check("/v1/search", "post", search)
    check("/v1/search", "post", client.post("/v1/search", json={}, headers=auth))
    check("/v1/sources", "get", client.get("/v1/sources", headers=auth))
    check("/v1/facts", "get", client.get("/v1/facts", headers=auth))
    check("/v1/chunks", "get", client.get("/v1/chunks", params={"url": search.json()["hits"][0]["url"]}, headers=auth))
    assert set(spec["paths"]) == {"/healthz", "/v1/search", "/v1/chunks", "/v1/sources", "/v1/facts"}
    assert spec["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"


def test_the_key_is_checked_before_the_body_is_parsed(kb):
    client, keys, *_ = kb
    broken = b'{"query": "rooms", "top_k": '  # not JSON: parsing it would answer 422
    response = client.post("/v1/search", content=broken, headers={"Content-Type": "application/json"})
    assert response.status_code == 401 and response.headers["www-authenticate"] == "Bearer"
    revoked = client.post("/v1/search", content=broken, headers={"Authorization": "Bearer nope"})
    assert revoked.status_code == 401 and revoked.json() == {"detail": "unknown or revoked key"}
    keyed = client.post("/v1/search", content=broken, headers=_auth(keys["harbour"]))
    assert keyed.status_code == 422  # with a good key, the body is read and judged


def test_an_unreachable_shared_database_is_a_503_to_retry_not_a_500():
    import asyncio

    import psycopg

    from ingest.kb.db import StateUnavailable
    from retrieval.api import _internal_error

    for exc in (StateUnavailable("cannot open the state database"), psycopg.OperationalError("server closed")):
        response = asyncio.run(_internal_error(None, exc))
        assert response.status_code == 503 and response.headers["retry-after"] == "5"
    assert asyncio.run(_internal_error(None, KeyError("x"))).status_code == 500


def test_the_model_and_store_are_loaded_before_the_first_question(kb, monkeypatch):
    """A server loads each recorded embedder, its store and the off-topic questions'
    vectors as it starts, not while its first caller waits."""
    *_, settings = kb
    offtopic: dict = {}
    monkeypatch.setattr(search_module, "_OFFTOPIC", offtopic)
    with TestClient(create_app(settings)) as fresh:
        services = fresh.app.state.services
        services._warm_up.join(timeout=120)
        searcher = services.searcher
        embedder_id = searcher.embedder_id("harbour")
        assert embedder_id in searcher._embedders and searcher._stores.get(embedder_id) is not None
        if search_module.HUB_PENALTY.get(searcher._embedders[embedder_id].model):
            assert list(offtopic) == [embedder_id]


def test_warming_up_never_asks_a_paid_embedder(kb, monkeypatch):
    """A knowledge base embedded by OpenAI has no model to load: the warm-up opens its
    store and makes no call (which would be paid, at every start)."""
    *_, settings = kb

    class Paid:
        model, dimensions = "text-embedding-3-small", 1536

        def embed_query(self, text):
            raise AssertionError("the warm-up asked a paid embedder")

        embed_queries = embed_query

    with Searcher(settings) as searcher:
        opened = []
        monkeypatch.setattr(searcher, "_open", lambda embedder_id: opened.append(embedder_id) or (Paid(), object()))
        assert searcher.warm_up() == opened == [searcher.embedder_id("harbour")]


def test_a_warm_up_that_cannot_read_the_state_says_so_and_stops(tmp_path, monkeypatch, caplog):
    """An unreachable shared database: a warning, not a thread's traceback; the searches
    then answer 503 as before."""
    from ingest.kb.db import StateUnavailable

    def unreachable(self):
        raise StateUnavailable("cannot open the state database")

    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path))
    with Searcher(load_settings()) as searcher:
        monkeypatch.setattr(type(searcher.settings), "state_exists", unreachable)
        assert searcher.warm_up() == []
    assert "cannot open the state database" in caplog.text


def test_warming_up_an_empty_data_folder_does_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("SITEKB_DATA_DIR", str(tmp_path / "nothing"))
    with Searcher(load_settings()) as searcher:
        assert searcher.warm_up() == []
    assert not (tmp_path / "nothing").exists()
