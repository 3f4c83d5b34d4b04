"""The few ONNX messages a graph of ours needs, written in protobuf's wire format.

onnxruntime reads a model from bytes; writing them takes ~60 lines here, where the
onnx package would add a dependency and 0.8 s of import to the first question of
every process. Field numbers are onnx.proto's (IR version 8)."""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence

import numpy as np

IR_VERSION = 8
_TENSOR_TYPES = {np.dtype(np.float32): 1, np.dtype(np.uint8): 2, np.dtype(np.int8): 3, np.dtype(np.int64): 7}
FLOAT = _TENSOR_TYPES[np.dtype(np.float32)]
_ATTR_FLOAT, _ATTR_INT, _ATTR_INTS = 1, 2, 7


Message = list  # a message's encoded parts (bytes or buffers), joined once at the end


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int64s as two's complement, as protobuf writes them
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _int(field: int, value: int) -> Message:
    return [_varint(field << 3), _varint(value)]


def _field(field: int, value: Message | bytes | memoryview | str) -> Message:
    """A length-delimited field: a string, raw bytes or an embedded message."""
    parts = [value.encode()] if isinstance(value, str) else value if isinstance(value, list) else [value]
    size = sum(memoryview(p).nbytes for p in parts)
    return [_varint(field << 3 | 2), _varint(size), *parts]


def _all(field: int, messages: Iterable[Message | str]) -> Message:
    return [part for m in messages for part in _field(field, m)]


def tensor(name: str, value: np.ndarray) -> Message:
    """TensorProto: dims, data type, name, little-endian raw data (not copied here)."""
    value = np.ascontiguousarray(value, dtype=value.dtype.newbyteorder("<"))
    dims = [part for d in value.shape for part in _int(1, d)]
    return [*dims, *_int(2, _TENSOR_TYPES[value.dtype]), *_field(8, name), *_field(9, memoryview(value).cast("B"))]


def _attribute(name: str, value: float | int | Sequence[int]) -> Message:
    if isinstance(value, float):
        return [*_field(1, name), _varint(2 << 3 | 5), struct.pack("<f", value), *_int(20, _ATTR_FLOAT)]
    if isinstance(value, int):
        return [*_field(1, name), *_int(3, value), *_int(20, _ATTR_INT)]
    return [*_field(1, name), *(part for v in value for part in _int(8, v)), *_int(20, _ATTR_INTS)]


def node(op: str, inputs: Sequence[str], outputs: Sequence[str], domain: str = "", **attrs) -> Message:
    """NodeProto: inputs ("" for an optional one left out), outputs, op type, attributes."""
    attributes = _all(5, (_attribute(k, v) for k, v in sorted(attrs.items())))
    return [*_all(1, inputs), *_all(2, outputs), *_field(4, op), *attributes, *_field(7, domain)]


def value_info(name: str, elem_type: int, dims: Sequence[int | str]) -> Message:
    """ValueInfoProto of a tensor: a number for a fixed dimension, a name for a free one."""
    shape = _all(1, (_int(1, d) if isinstance(d, int) else _field(2, d) for d in dims))
    return [*_field(1, name), *_field(2, _field(1, [*_int(1, elem_type), *_field(2, shape)]))]


def model(
    name: str, nodes: list[Message], weights: list[Message], inputs: list[Message], outputs: list[Message], opsets: dict
) -> bytes:
    """ModelProto around one GraphProto; `opsets` maps domain ("" for ONNX's) to version."""
    graph = [*_all(1, nodes), *_field(2, name), *_all(5, weights), *_all(11, inputs), *_all(12, outputs)]
    imports = _all(8, ([*_field(1, domain), *_int(2, version)] for domain, version in opsets.items()))
    return b"".join([*_int(1, IR_VERSION), *imports, *_field(7, graph)])
