"""TFRecord files without TensorFlow: reading with both checksums verified, and writing.

Each record is: uint64 length (little-endian), uint32 masked CRC-32C of those 8 bytes, the
data, uint32 masked CRC-32C of the data. CRC-32C (Castagnoli) comes from the optional
``crc32c`` package when installed (hardware-accelerated); otherwise a table-driven Python
implementation that processes 8 bytes per step.
"""

from __future__ import annotations

import os
import struct
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..errors import DataFileError

_POLYNOMIAL = 0x82F63B78  # CRC-32C, reflected
_MASK_DELTA = 0xA282EAD8


class TFRecordError(DataFileError):
    """A TFRecord file is truncated or corrupted; the message names the record's byte offset."""


def _tables() -> list[list[int]]:
    """Slicing-by-8 lookup tables for CRC-32C."""
    first = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLYNOMIAL if crc & 1 else 0)
        first.append(crc)
    tables = [first]
    for _ in range(7):
        previous = tables[-1]
        tables.append([(previous[i] >> 8) ^ first[previous[i] & 0xFF] for i in range(256)])
    return tables


_T = _tables()


def _crc32c_python(data: bytes) -> int:
    t0, t1, t2, t3, t4, t5, t6, t7 = _T
    crc = 0xFFFFFFFF
    view = memoryview(data)
    whole = len(data) - len(data) % 8
    for (word,) in struct.iter_unpack("<Q", view[:whole]):
        word ^= crc
        crc = (
            t7[word & 0xFF] ^ t6[(word >> 8) & 0xFF] ^ t5[(word >> 16) & 0xFF] ^ t4[(word >> 24) & 0xFF]
            ^ t3[(word >> 32) & 0xFF] ^ t2[(word >> 40) & 0xFF] ^ t1[(word >> 48) & 0xFF] ^ t0[word >> 56]
        )
    for byte in view[whole:]:
        crc = (crc >> 8) ^ t0[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


try:  # optional: a C implementation, ~100x faster on large records
    from crc32c import crc32c as _crc32c_native
except ImportError:  # pragma: no cover - depends on the environment
    _crc32c_native = None


def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli) of ``data``."""
    return _crc32c_native(data) if _crc32c_native is not None else _crc32c_python(data)


def masked_crc(data: bytes) -> int:
    """TFRecord's masked CRC: rotate right by 15 bits, add a constant."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def iter_records(path: Path) -> Iterator[tuple[int, bytes]]:
    """(byte offset, data) of every record, after verifying both checksums."""
    with open(path, "rb") as stream:
        offset = 0
        while True:
            header = stream.read(12)
            if not header:
                return
            if len(header) < 12:
                raise TFRecordError(f"record at offset {offset}: truncated length header ({len(header)} of 12 bytes)")
            length_bytes, (length_crc,) = header[:8], struct.unpack("<I", header[8:])
            if masked_crc(length_bytes) != length_crc:
                raise TFRecordError(f"record at offset {offset}: length checksum mismatch (corrupted header)")
            (length,) = struct.unpack("<Q", length_bytes)
            body = stream.read(length + 4)
            if len(body) < length + 4:
                raise TFRecordError(f"record at offset {offset}: truncated data ({len(body)} of {length + 4} bytes)")
            data, (data_crc,) = body[:length], struct.unpack("<I", body[length:])
            if masked_crc(data) != data_crc:
                raise TFRecordError(f"record at offset {offset}: data checksum mismatch (corrupted record)")
            yield offset, data
            offset += 12 + length + 4


def encode_record(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc(length)) + data + struct.pack("<I", masked_crc(data))


def write_records(path: Path, records: Iterable[bytes]) -> int:
    """Write records to ``path`` atomically (a temporary file renamed at the end); returns the count."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    count = 0
    try:
        with os.fdopen(handle, "wb", buffering=1 << 20) as stream:
            for data in records:
                stream.write(encode_record(data))
                count += 1
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return count
