"""TFRecord reading/writing and the NB101 record codec, including every error path."""

import base64
import json
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nasarena.io.nb101_records import (
    EvaluationData,
    ModelMetrics,
    NB101Record,
    RecordError,
    decode_model_metrics,
    encode_model_metrics,
    parse_record,
    serialize_record,
)
from nasarena.io.tfrecord import TFRecordError, _crc32c_python, crc32c, iter_records, masked_crc, write_records


def test_crc32c_test_vectors():
    for implementation in (crc32c, _crc32c_python):
        assert implementation(b"123456789") == 0xE3069283
        assert implementation(bytes(32)) == 0x8A9136AA
        assert implementation(b"") == 0
    data = bytes(range(256)) * 3 + b"xyz"
    assert _crc32c_python(data) == crc32c(data)


def test_records_round_trip(tmp_path):
    records = [b"", b"a", b"hello world" * 100]
    path = tmp_path / "file.tfrecord"
    assert write_records(path, records) == 3
    read = list(iter_records(path))
    assert [data for _, data in read] == records
    assert [offset for offset, _ in read] == [0, 16, 33]


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b[:5], "offset 0: truncated length header"),
        (lambda b: b[:20], "offset 0: truncated data"),
        (lambda b: b[:8] + bytes([b[8] ^ 1]) + b[9:], "offset 0: length checksum mismatch"),
        (lambda b: b[:12] + bytes([b[12] ^ 1]) + b[13:], "offset 0: data checksum mismatch"),
        (lambda b: b + b[:20], "offset 27: truncated data"),
        (lambda b: b + b[:5], "offset 27: truncated length header"),
    ],
)
def test_corrupt_files_name_the_offset(tmp_path, mutate, message):
    path = tmp_path / "file.tfrecord"
    write_records(path, [b"some record"])
    path.write_bytes(mutate(path.read_bytes()))
    with pytest.raises(TFRecordError, match=message):
        list(iter_records(path))


METRICS = ModelMetrics(
    (EvaluationData(0.0, 0.0, 0.1, 0.1, 0.1, "ckpt-0"), EvaluationData(54.0, 900.5, 0.8, 0.7, 0.69),
     EvaluationData(108.0, 1800.25, 1.0, 0.93, 0.925)),
    8_555_530,
    1900.0,
)


def test_model_metrics_round_trip_and_unknown_fields():
    encoded = encode_model_metrics(METRICS)
    assert decode_model_metrics(encoded) == METRICS
    unknown = bytes([0x20, 0x05]) + bytes([0x3A, 0x02]) + b"ab" + bytes([0x45]) + b"\x00\x00\x80?"  # fields 4, 7, 8
    assert decode_model_metrics(unknown + encoded) == METRICS
    with pytest.raises(ValueError, match="wire type 3"):
        decode_model_metrics(bytes([0x0B]))


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(*[st.floats(allow_nan=False, allow_infinity=False)] * 5, st.text(max_size=8)), max_size=4),
    st.integers(-(2**31), 2**31 - 1),
    st.floats(allow_nan=False),
)
def test_model_metrics_round_trip_property(evaluations, parameters, total_time):
    metrics = ModelMetrics(tuple(EvaluationData(*e) for e in evaluations), parameters, total_time)
    assert decode_model_metrics(encode_model_metrics(metrics)) == metrics


RECORD = NB101Record("0" * 32, 108, ((0, 1, 0), (0, 0, 1), (0, 0, 0)), ("input", "conv3x3-bn-relu", "output"), METRICS)


def test_record_round_trip():
    data = serialize_record(RECORD)
    fields = json.loads(data)
    assert fields[:4] == ["0" * 32, 108, "010001000", "input,conv3x3-bn-relu,output"]
    assert parse_record(data, 7) == RECORD


def _with(index, value):
    fields = json.loads(serialize_record(RECORD))
    fields[index] = value
    return json.dumps(fields).encode()


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"\xff\xfe", "offset 42: not UTF-8"),
        (b"[1, 2", "offset 42: bad JSON"),
        (b"[1, 2, 3]", "offset 42: expected a JSON list of 5 fields"),
        (_with(2, "0100"), "offset 42: 3 ops for a 2x2 matrix"),
        (_with(2, "01000100"), "offset 42: adjacency of length 8 is not a square"),
        (_with(2, "010002000"), "offset 42: adjacency holds characters other than 0 and 1"),
        (_with(4, "not base64!"), "offset 42: metrics are not valid base64"),
        (_with(4, base64.b64encode(b"\x0a\x05ab").decode()), "offset 42: bad ModelMetrics protobuf"),
        (_with(1, "108"), r"offset 42: fields must be \[str, int, str, str, str\]"),
    ],
)
def test_bad_records_name_the_offset(data, message):
    with pytest.raises(RecordError, match=message):
        parse_record(data, 42)


def test_masked_crc_is_the_tfrecord_masking():
    crc = crc32c(b"abc")
    assert masked_crc(b"abc") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    assert struct.pack("<I", masked_crc(b"abc"))  # fits 32 bits
