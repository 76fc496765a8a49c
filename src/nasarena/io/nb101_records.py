"""The records of the official NAS-Bench-101 files, without TensorFlow or protobuf.

Each TFRecord holds UTF-8 JSON ``[module hash, epochs, adjacency, ops, metrics]``: the
adjacency as a row-major string of "0"/"1", the ops joined by ",", and base64 of a serialized
``ModelMetrics`` protocol buffer. The two messages involved are small enough for a wire-format
codec of our own (field numbers from the original ``model_metrics.proto``):

    ModelMetrics   { repeated EvaluationData evaluation_data = 1; int32 trainable_parameters = 2;
                     double total_time = 3; }
    EvaluationData { double current_epoch = 1; double training_time = 2; double train_accuracy = 3;
                     double validation_accuracy = 4; double test_accuracy = 5; string checkpoint_path = 6; }
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..errors import DataFileError
from .tfrecord import iter_records

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5
_EVALUATION_DOUBLES = {1: "current_epoch", 2: "training_time", 3: "train_accuracy", 4: "validation_accuracy",
                       5: "test_accuracy"}


class RecordError(DataFileError):
    """A record cannot be decoded; the message names the record's byte offset."""


@dataclass(frozen=True)
class EvaluationData:
    current_epoch: float = 0.0
    training_time: float = 0.0
    train_accuracy: float = 0.0
    validation_accuracy: float = 0.0
    test_accuracy: float = 0.0
    checkpoint_path: str = ""


@dataclass(frozen=True)
class ModelMetrics:
    evaluation_data: tuple[EvaluationData, ...] = ()
    trainable_parameters: int = 0
    total_time: float = 0.0


@dataclass(frozen=True)
class NB101Record:
    module_hash: str
    epochs: int
    matrix: tuple[tuple[int, ...], ...]
    ops: tuple[str, ...]
    metrics: ModelMetrics


# --- protobuf wire format -------------------------------------------------------------------


def _varint(value: int) -> bytes:
    value &= (1 << 64) - 1  # negative int32 is sign-extended to 10 bytes, as protobuf does
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _read_varint(data: bytes, position: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if position >= len(data):
            raise ValueError("truncated varint")
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7
        if shift >= 70:
            raise ValueError("varint too long")


def _fields(data: bytes) -> Iterator[tuple[int, int, object]]:
    """(field number, wire type, value) of every field; unknown fields are parsed and yielded too."""
    position = 0
    while position < len(data):
        key, position = _read_varint(data, position)
        number, wire = key >> 3, key & 7
        if wire == _VARINT:
            value, position = _read_varint(data, position)
        elif wire == _FIXED64:
            if position + 8 > len(data):
                raise ValueError("truncated 64-bit field")
            value, position = data[position : position + 8], position + 8
        elif wire == _LENGTH:
            length, position = _read_varint(data, position)
            if position + length > len(data):
                raise ValueError("truncated length-delimited field")
            value, position = data[position : position + length], position + length
        elif wire == _FIXED32:
            if position + 4 > len(data):
                raise ValueError("truncated 32-bit field")
            value, position = data[position : position + 4], position + 4
        else:
            raise ValueError(f"unsupported wire type {wire} (field {number})")
        yield number, wire, value


def _double(wire: int, value) -> float:
    if wire != _FIXED64:
        raise ValueError(f"expected a double, got wire type {wire}")
    return struct.unpack("<d", value)[0]


def decode_evaluation(data: bytes) -> EvaluationData:
    values: dict[str, object] = {}
    for number, wire, value in _fields(data):
        if number in _EVALUATION_DOUBLES:
            values[_EVALUATION_DOUBLES[number]] = _double(wire, value)
        elif number == 6 and wire == _LENGTH:
            values["checkpoint_path"] = value.decode("utf-8")
    return EvaluationData(**values)


def decode_model_metrics(data: bytes) -> ModelMetrics:
    evaluations, parameters, total_time = [], 0, 0.0
    for number, wire, value in _fields(data):
        if number == 1 and wire == _LENGTH:
            evaluations.append(decode_evaluation(value))
        elif number == 2 and wire == _VARINT:
            parameters = value - (1 << 64) if value >= 1 << 63 else value
        elif number == 3:
            total_time = _double(wire, value)
    return ModelMetrics(tuple(evaluations), parameters, total_time)


def _key(number: int, wire: int) -> bytes:
    return _varint(number << 3 | wire)


def encode_evaluation(evaluation: EvaluationData) -> bytes:
    out = bytearray()
    for number, name in _EVALUATION_DOUBLES.items():
        out += _key(number, _FIXED64) + struct.pack("<d", getattr(evaluation, name))
    if evaluation.checkpoint_path:
        path = evaluation.checkpoint_path.encode("utf-8")
        out += _key(6, _LENGTH) + _varint(len(path)) + path
    return bytes(out)


def encode_model_metrics(metrics: ModelMetrics) -> bytes:
    out = bytearray()
    for evaluation in metrics.evaluation_data:
        body = encode_evaluation(evaluation)
        out += _key(1, _LENGTH) + _varint(len(body)) + body
    out += _key(2, _VARINT) + _varint(metrics.trainable_parameters)
    out += _key(3, _FIXED64) + struct.pack("<d", metrics.total_time)
    return bytes(out)


# --- records --------------------------------------------------------------------------------


def parse_record(data: bytes, offset: int = 0) -> NB101Record:
    """Decode one record's data; any problem is a :class:`RecordError` naming ``offset``."""
    try:
        fields = json.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise RecordError(f"record at offset {offset}: not UTF-8") from None
    except json.JSONDecodeError as error:
        raise RecordError(f"record at offset {offset}: bad JSON ({error.msg})") from None
    if not isinstance(fields, list) or len(fields) != 5:
        raise RecordError(f"record at offset {offset}: expected a JSON list of 5 fields")
    module_hash, epochs, adjacency, ops, metrics = fields
    if not isinstance(module_hash, str) or not isinstance(epochs, int) or not isinstance(adjacency, str) \
            or not isinstance(ops, str) or not isinstance(metrics, str):
        raise RecordError(f"record at offset {offset}: fields must be [str, int, str, str, str]")
    size = math.isqrt(len(adjacency))
    if size * size != len(adjacency) or size == 0:
        raise RecordError(f"record at offset {offset}: adjacency of length {len(adjacency)} is not a square matrix")
    if set(adjacency) - {"0", "1"}:
        raise RecordError(f"record at offset {offset}: adjacency holds characters other than 0 and 1")
    op_list = tuple(ops.split(","))
    if len(op_list) != size:
        raise RecordError(f"record at offset {offset}: {len(op_list)} ops for a {size}x{size} matrix")
    try:
        decoded = decode_model_metrics(base64.b64decode(metrics, validate=True))
    except binascii.Error:
        raise RecordError(f"record at offset {offset}: metrics are not valid base64") from None
    except (ValueError, UnicodeDecodeError) as error:
        raise RecordError(f"record at offset {offset}: bad ModelMetrics protobuf ({error})") from None
    matrix = tuple(tuple(int(c) for c in adjacency[row * size : (row + 1) * size]) for row in range(size))
    return NB101Record(module_hash, epochs, matrix, op_list, decoded)


def serialize_record(record: NB101Record) -> bytes:
    """The record's data in the official layout (compact JSON)."""
    adjacency = "".join(str(x) for row in record.matrix for x in row)
    metrics = base64.b64encode(encode_model_metrics(record.metrics)).decode("ascii")
    return json.dumps([record.module_hash, record.epochs, adjacency, ",".join(record.ops), metrics],
                      separators=(",", ":")).encode("utf-8")


def iter_nb101_records(path: Path) -> Iterator[tuple[int, NB101Record]]:
    """(byte offset, record) of every record of an official NB101 file."""
    for offset, data in iter_records(path):
        yield offset, parse_record(data, offset)
