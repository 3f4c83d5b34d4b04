import numpy as np

from ingest.kb.embed import LocalMiniLM, make_embedder


def test_local_model_is_the_default_without_a_key(settings):
    embedder = make_embedder(settings)
    assert isinstance(embedder, LocalMiniLM) and embedder.dimensions == 384


def test_local_embeddings_are_normalized_and_meaningful():
    embedder = LocalMiniLM()
    result = embedder.embed_documents(
        [
            "How much is a single room per night?",
            "The single room costs 85 pounds a night.",
            "Dogs are welcome in the family suite.",
        ]
    )
    vectors = np.array(result.vectors)
    assert vectors.shape == (3, 384) and result.tokens > 0 and result.calls == 1
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2


def test_batch_order_does_not_change_vectors():
    embedder = LocalMiniLM()
    texts = ["short", "a much longer text " * 20, "medium length text here"]
    batch = np.array(embedder.embed_documents(texts).vectors)
    alone = np.array([embedder.embed_query(t) for t in texts])
    assert np.allclose(batch, alone, atol=1e-4)
