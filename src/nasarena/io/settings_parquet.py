"""Parquet tables that carry the settings they were written with, in their schema metadata.

A resumable table (data collection, a proxy table) is rewritten after each chunk; the settings
travel inside the file, under a key of the command that owns it, so that a rerun can tell its
own file from someone else's (no key: not nasarena's) and from one written with other settings
(another key value), and refuse both rather than mix rows. Writes are atomic (a temporary
sibling swapped in), so a kill leaves the previous version.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd

from ..errors import OutputError
from .files import atomic_write_bytes


def read_settings(out: Path, key: bytes) -> dict | None:
    """The settings stored under ``key`` in the Parquet file ``out``; None if it has none (not
    written by this command). A file that is not Parquet is an :class:`OutputError`: it is kept."""
    import pyarrow.parquet as pq

    try:
        metadata = pq.read_schema(out).metadata or {}
    except Exception as error:  # pyarrow raises several types for a file that is not Parquet
        raise OutputError(f"{out} exists and is not a Parquet file ({error}); it is kept: "
                          "choose another --out") from None
    text = metadata.get(key)
    return None if text is None else json.loads(text)


def write_with_settings(out: Path, frame: pd.DataFrame, settings: dict, key: bytes) -> None:
    """Write ``frame`` to ``out`` atomically, ``settings`` (JSON, sorted keys) under ``key``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           key: json.dumps(settings, sort_keys=True).encode()})
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    atomic_write_bytes(out, buffer.getvalue())
