import numpy as np
import pytest

from ingest.kb.embed import LocalE5, LocalMiniLM, LocalUSE, make_embedder
from ingest.settings import load_settings


def test_local_model_is_the_multilingual_one_by_default_without_a_key(settings):
    embedder = make_embedder(settings)
    assert isinstance(embedder, LocalE5) and embedder.dimensions == 384 and embedder.languages is None


def test_a_knowledge_base_keeps_the_model_it_was_built_with(settings, monkeypatch):
    monkeypatch.setenv("SITEKB_LOCAL_MODEL", "use-m3")
    assert isinstance(make_embedder(load_settings()), LocalUSE)
    # Searching a knowledge base built with MiniLM still embeds the query with MiniLM.
    assert isinstance(make_embedder(load_settings(), recorded_id=LocalMiniLM().id), LocalMiniLM)


@pytest.mark.parametrize("model", [LocalE5, LocalUSE])
def test_multilingual_models_match_a_question_to_the_answer_in_another_language(model):
    embedder = model()
    docs = embedder.embed_documents(
        [
            "La habitación individual cuesta 85 libras por noche, desayuno incluido.",
            "Los perros son bienvenidos en la suite familiar.",
            "Unser Team repariert Fahrräder in Kreuzberg.",
        ]
    )
    vectors = np.array(docs.vectors)
    assert vectors.shape == (3, embedder.dimensions) and docs.tokens > 0
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = np.array(embedder.embed_query("How much is a single room per night?"))
    assert int(np.argmax(vectors @ query)) == 0
    korean = np.array(embedder.embed_query("개는 데려갈 수 있나요?"))  # "can I bring the dog?"
    assert int(np.argmax(vectors @ korean)) == 1


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


def test_a_long_question_is_embedded_on_one_openmp_thread_and_passages_on_all(monkeypatch):
    """A question past the model's window goes to the engine, which reads it in windows:
    one OpenMP thread for it, on the calling thread only (another thread meanwhile keeps
    the default), the same vector as the engine's own, and the default back afterwards."""
    import threading

    from ingest.kb import embed

    model = LocalE5()
    engine, questions = model._load(), LocalE5.question_encoder()
    long_question = "what time is check-in, and can we arrive late at night? " * 60
    assert not questions.fits(questions.ids(long_question))
    gomp = embed._engine_openmp(engine)
    assert gomp is not None, "the engine's OpenMP runtime was not found"
    assert gomp is engine._lib  # the engine's own handle, not a library found elsewhere
    default = gomp.omp_get_max_threads()
    gomp.omp_set_num_threads(3)  # a default other than 1 on any machine, for this thread
    seen: dict[str, int] = {}
    elsewhere: list[int] = []
    query, passage = engine.query, engine.passage

    def watched_query(texts):
        seen["query"] = gomp.omp_get_max_threads()
        other = threading.Thread(target=lambda: elsewhere.append(gomp.omp_get_max_threads()))
        other.start()
        other.join()
        return query(texts)

    def watched_passage(texts):
        seen["passage"] = gomp.omp_get_max_threads()
        return passage(texts)

    monkeypatch.setattr(engine, "query", watched_query)
    monkeypatch.setattr(engine, "passage", watched_passage)
    try:
        vector = model.embed_query(long_question)
        model.embed_documents(["Check-in is from 15:00."])
        after = gomp.omp_get_max_threads()
    finally:
        gomp.omp_set_num_threads(default)
    assert seen == {"query": 1, "passage": 3} and after == 3
    assert elsewhere and elsewhere[0] != 1  # a thread of its own keeps OpenMP's default
    assert np.allclose(vector, query([long_question])[0])


def test_a_processs_first_question_goes_to_the_engine_and_the_rest_to_the_graph():
    """A one-off search (or an ingest run) does not build the questions' graph; the
    second call of a process does, and both give the question the same vector."""
    import subprocess
    import sys

    script = (
        "import numpy as np\n"
        "from ingest.kb.embed import LocalE5\n"
        "m = LocalE5()\n"
        "m.embed_documents(['Check-in is from 15:00.'])\n"
        "passages_only = LocalE5._questions is None\n"
        "first = np.array(m.embed_query('when is check-in?'))\n"
        "after_first = LocalE5._questions is None\n"
        "second = np.array(m.embed_query('when is check-in?'))\n"
        "print(passages_only, after_first, LocalE5._questions is not None, round(float(first @ second), 5))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=True)
    passages_only, after_first, after_second, cosine = out.stdout.split()
    assert (passages_only, after_first, after_second) == ("True", "True", "True")
    assert float(cosine) > 0.9998
