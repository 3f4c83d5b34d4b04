from ingest.index.fingerprint import fingerprint, key_chunks, point_id
from ingest.models import Chunk


def _chunk(body="Single room 85", path=("Prices",), url="https://a.com/p"):
    return Chunk(url=url, title="Prices", heading_path=path, body=body, position=0, tokens=5)


def test_fingerprint_covers_content_heading_and_embedder():
    base = fingerprint(_chunk(), "m1")
    assert base == fingerprint(_chunk(), "m1")
    assert base != fingerprint(_chunk(body="Single room 90"), "m1")
    assert base != fingerprint(_chunk(path=("Rates",)), "m1")
    assert base != fingerprint(_chunk(), "m2")


def test_point_ids_are_deterministic_and_scoped_to_business_and_url():
    fp = fingerprint(_chunk(), "m1")
    assert point_id("a", "u", fp) == point_id("a", "u", fp)
    assert len({point_id("a", "u", fp), point_id("b", "u", fp), point_id("a", "v", fp)}) == 3


def test_repeated_text_on_one_page_is_one_point():
    keyed = key_chunks([_chunk(), _chunk()], "biz", "m1")
    assert len(keyed) == 1
