"""The embedded proxy tables shipped as package data: cheap proxies of NB201 and NB101 cells.

``nasarena estimators compute`` writes a Parquet table (:mod:`.table`); the package ships one per
space in a compact form (NB201: every unique architecture; NB101: a seeded sample of the cells
with real accuracies at 4 to 108 epochs; ``NB201_PROXIES_FILE`` and ``NB101_PROXIES_FILE`` in
:mod:`nasarena.io.packaged`, checksummed by the
manifest, whose provenance says how it was computed): the rows of the architectures, each
proxy's value (float64) and measured seconds (float32), and the settings of the computation as
JSON. :func:`embedded_table` reads it back as the same columns a computed table has, so every
command that takes a table takes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InvalidSettingError
from ..io.packaged import NB101_PROXIES_FILE, NB201_PROXIES_FILE, load_arrays, save_arrays

#: The embedded table of each space that has one.
EMBEDDED = {"nb201": NB201_PROXIES_FILE, "nb101": NB101_PROXIES_FILE}


def embedded_table(space: str = "nb201", directory: Path | None = None) -> pd.DataFrame:
    """The embedded proxy table of ``space`` (columns as :func:`.table.compute_table`'s); its
    settings are in ``frame.attrs["settings"]``. The file's checksum is verified first."""
    from ..spaces.registry import space as space_named

    if space not in EMBEDDED:
        raise InvalidSettingError(f"no embedded proxy table of the {space} space; there is one of "
                                  f"{', '.join(EMBEDDED)}")
    arrays = load_arrays(EMBEDDED[space], directory)
    settings = json.loads(str(arrays["settings"]))
    owner = space_named(space)
    rows = arrays["row"].astype(np.int64)
    frame = pd.DataFrame({"arch": [owner.to_text(owner.at_row(int(row))) for row in rows], "row": rows})
    for name in settings["proxies"]:
        frame[name] = arrays[name].astype(np.float64)
    for name in settings["proxies"]:
        frame[f"{name}_seconds"] = arrays[f"{name}_seconds"].astype(np.float64)
    frame["device"] = settings["device"]
    frame["row"] = frame["row"].astype("Int64")
    frame.attrs["settings"] = settings
    return frame


def save_embedded_table(space: str, frame: pd.DataFrame, settings: dict, provenance: str,
                        directory: Path | None = None):
    """Write a computed table (a frame of :func:`.table.compute_table` and its settings) as
    ``space``'s embedded table and record it in the manifest; the manifest entry is returned."""
    proxies = list(settings["proxies"])
    arrays = {"row": frame["row"].to_numpy(dtype=np.int32), "settings": np.array(json.dumps(settings, sort_keys=True))}
    for name in proxies:
        arrays[name] = frame[name].to_numpy(dtype=np.float64)
        arrays[f"{name}_seconds"] = frame[f"{name}_seconds"].to_numpy(dtype=np.float32)
    description = (f"zero-cost proxies ({', '.join(proxies)}) of {len(frame):,} {space} architectures at full network "
                   f"size: rows (index order), each proxy's value and measured seconds, and the settings (JSON)")
    return save_arrays(EMBEDDED[space], arrays, description, provenance, directory)
