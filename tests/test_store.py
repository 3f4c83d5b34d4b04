"""One contract, every VectorStore that can run here."""

import pytest

from ingest.kb.store import EdgeStore, QdrantServerStore, StoredPoint, StoreError
from retrieval.search import fuse


@pytest.fixture(params=["edge", "qdrant-client", "pgvector"])
def store(request, tmp_path):
    if request.param == "edge":
        s = EdgeStore(tmp_path / "edge", dimensions=3)
    elif request.param == "pgvector":
        from ingest.kb.pgstore import PgVectorStore

        s = PgVectorStore(request.getfixturevalue("pg_url"), "test", dimensions=3)
    else:
        from qdrant_client import QdrantClient

        s = QdrantServerStore(QdrantClient(":memory:"), "test", dimensions=3)
    yield s
    s.close()


def _point(i, business, text, vector):
    return StoredPoint(
        f"00000000-0000-0000-0000-{i:012d}", vector, {"business": business, "text": text, "url": f"u{i}"}
    )


def test_upsert_count_search_delete(store):
    store.upsert(
        [
            _point(1, "a", "single room costs 85 pounds", [1, 0, 0]),
            _point(2, "a", "call us on +44 1736 555 0199", [0, 1, 0]),
            _point(3, "b", "single room costs 85 pounds", [1, 0, 0]),
        ]
    )
    assert store.count("a") == 2 and store.count("b") == 1
    hits = store.search("a", [1, 0, 0], "single room", 5, mode="dense")
    assert hits[0].payload["text"] == "single room costs 85 pounds"
    assert {h.payload["business"] for h in hits} == {"a"}
    lexical = store.search("a", None, "555 0199", 1, mode="lexical")  # a dense vector would be useless here
    assert lexical[0].payload["url"] == "u2"
    store.delete([_point(1, "a", "", [0, 0, 1]).id])
    assert store.point_ids("a") == {_point(2, "a", "", [0, 0, 1]).id}
    assert [p["text"] for p in store.payloads("a").values()] == ["call us on +44 1736 555 0199"]


def test_upsert_is_idempotent(store):
    point = _point(7, "a", "text", [0, 0, 1])
    store.upsert([point])
    store.upsert([point])
    assert store.count("a") == 1


def test_edge_store_reopens_with_its_data(tmp_path):
    s = EdgeStore(tmp_path / "edge", dimensions=3)
    s.upsert([_point(1, "a", "persisted", [1, 0, 0])])
    s.close()
    again = EdgeStore(tmp_path / "edge", dimensions=3)
    try:
        assert again.count("a") == 1
    finally:
        again.close()


def test_search_modes_and_page_chunks(store):
    store.upsert(
        [
            _point(1, "a", "single room costs 85 pounds", [1, 0, 0]),
            _point(2, "a", "call us on +44 1736 555 0199", [0, 1, 0]),
        ]
    )
    assert [h.payload["url"] for h in store.search("a", [0, 1, 0], "ignored words", 2, mode="dense")][0] == "u2"
    assert [h.payload["url"] for h in store.search("a", None, "single room", 2, mode="lexical")] == ["u1"]
    assert store.search("a", None, "zzz-unknown-term", 2, mode="lexical") == []
    assert [p["text"] for p in store.page_chunks("a", "u2")] == ["call us on +44 1736 555 0199"]
    assert store.page_chunks("b", "u2") == []


def test_chunks_are_analysed_in_their_page_language(store):
    spanish = StoredPoint(
        "00000000-0000-0000-0000-000000000011",
        [1, 0, 0],
        {"business": "a", "text": "Las habitaciones dobles cuestan 85 euros", "url": "es", "lang": "es"},
    )
    store.upsert([spanish])
    assert [h.payload["url"] for h in store.search("a", None, "cuesta doble", 2, mode="lexical", langs=("es",))] == [
        "es"
    ]
    assert store.search("a", None, "cuesta doble", 2, mode="lexical") == []  # the plain analysis does not stem


def test_dense_weight_zero_lets_the_lexical_ranking_lead(store):
    store.upsert(
        [
            _point(1, "a", "opening hours monday to friday", [1, 0, 0]),
            _point(2, "a", "the sauna costs 12 euros", [0, 1, 0]),
        ]
    )
    # The dense vector points at u1, the words at u2.
    dense = store.search("a", [1, 0, 0], "", 2, mode="dense")
    lexical = store.search("a", None, "sauna", 2, mode="lexical")
    ranked = [h.payload["url"] for h in fuse([(dense, 0.0), (lexical, 1.0)])]
    assert ranked[0] == "u2"
    assert "u1" in ranked  # dense results still follow


def test_points_carry_vectors_and_payloads(store):
    store.upsert([_point(1, "a", "one", [1, 0, 0]), _point(2, "b", "two", [0, 1, 0])])
    [point] = store.points("a")
    assert point.payload["text"] == "one" and [round(x, 3) for x in point.vector] == [1.0, 0.0, 0.0]


def test_dense_hits_carry_their_vectors_when_asked(store):
    store.upsert([_point(1, "a", "one", [1, 0, 0]), _point(2, "a", "two", [0, 1, 0])])
    hits = store.search("a", [1, 0.1, 0], "", 2, mode="dense", vectors=True)
    assert [[round(x, 3) for x in h.vector] for h in hits] == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    assert all(h.vector is None for h in store.search("a", [1, 0.1, 0], "", 2, mode="dense"))
    assert all(h.vector is None for h in store.search("a", None, "one", 2, mode="lexical", vectors=True))


def _files(folder):
    return {(p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in folder.rglob("*") if p.is_file()}


def test_a_second_opener_never_touches_a_held_store(tmp_path):
    holder = EdgeStore(tmp_path / "edge", dimensions=3)
    try:
        holder.upsert([_point(1, "a", "written by the holder", [1, 0, 0])])
        before = _files(tmp_path / "edge")
        with pytest.raises(StoreError, match=r"in use by another sitekb process .*; waited 0.2 s"):
            EdgeStore(tmp_path / "edge", dimensions=3, wait_s=0.2)
        assert _files(tmp_path / "edge") == before  # the engine never opened a file of it
        holder.upsert([_point(2, "a", "and again", [0, 1, 0])])
        assert holder.count("a") == 2
    finally:
        holder.close()


def test_a_second_opener_waits_for_the_holder_to_finish(tmp_path):
    import threading

    holder = EdgeStore(tmp_path / "edge", dimensions=3)
    holder.upsert([_point(1, "a", "written by the holder", [1, 0, 0])])
    threading.Timer(0.3, holder.close).start()
    waiter = EdgeStore(tmp_path / "edge", dimensions=None, wait_s=10)
    try:
        assert waiter.count("a") == 1
    finally:
        waiter.close()


def test_a_new_server_collection_marks_the_business_as_its_tenant():
    """Qdrant's multitenancy advice: one collection, the tenant's keyword index marked
    is_tenant. qdrant-client's local mode ignores indexes, so the request itself is read."""
    from qdrant_client import QdrantClient, models

    class Recording(QdrantClient):
        indexes: dict = {}

        def create_payload_index(self, collection_name, field_name, field_schema=None, **kwargs):
            self.indexes[field_name] = field_schema
            return super().create_payload_index(collection_name, field_name, field_schema, **kwargs)

    client = Recording(":memory:")
    QdrantServerStore(client, "tenants", dimensions=3).close()
    business = client.indexes["business"]
    assert isinstance(business, models.KeywordIndexParams) and business.is_tenant is True
    assert client.indexes["url"] == models.PayloadSchemaType.KEYWORD
