import gzip

from ingest.crawl.rawstore import RawStore


def test_content_addressed_and_compressed(tmp_path):
    store = RawStore(tmp_path)
    body = b"<html>" + b"x" * 10_000 + b"</html>"
    digest = store.put(body)
    assert store.put(body) == digest  # same content, same address, written once
    files = list(tmp_path.rglob("*.gz"))
    assert len(files) == 1 and files[0].stat().st_size < len(body) / 10
    assert gzip.decompress(files[0].read_bytes()) == body
    assert store.get(digest) == body and store.get("0" * 64) is None
