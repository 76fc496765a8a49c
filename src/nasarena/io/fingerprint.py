"""The one fingerprint of settings: a digest of their canonical JSON text.

Every settings hash in nasarena (a run's ``settings_hash``, a training checkpoint's and a
training protocol's fingerprint, a one-shot search's, an output folder's) is
:func:`settings_fingerprint` of a JSON-able payload. The canonical text is
``json.dumps(payload, sort_keys=True)`` with the json module's default separators (``", "``
and ``": "``), ASCII escapes and NaN written as ``NaN``: key order never matters, tuples read as
lists. Values JSON cannot write are written as their ``str()`` (a path as its text), unless
``strict``, where they raise ``TypeError`` as ``json.dumps`` does.

The digests are stored: in result file names and their ``settings_hash`` column (sha1, 10 hex
digits), in checkpoints, one-shot run folders and output marks (sha256, 16 hex digits). The
canonical text is therefore frozen: changing it (separators, ``default``, the digest or the
length) would make every stored result, checkpoint and run folder look like another setting's.
``tests/test_fingerprint.py`` pins the digests of fixed settings of each kind.
"""

from __future__ import annotations

import hashlib
import json

#: The digests a fingerprint may use (the runner's results are sha1, everything else sha256).
DIGESTS = {"sha1": hashlib.sha1, "sha256": hashlib.sha256}


def canonical_json(payload, *, strict: bool = False) -> str:
    """The canonical JSON text of ``payload`` that fingerprints are digests of (see the module)."""
    return json.dumps(payload, sort_keys=True, default=None if strict else str)


def settings_fingerprint(payload, *, digest: str = "sha256", length: int = 16, strict: bool = False) -> str:
    """The first ``length`` hex digits of the ``digest`` of ``payload``'s :func:`canonical_json`.

    ``strict``: a value JSON cannot write raises ``TypeError`` instead of being written as its
    ``str()`` (for settings whose values are all checked JSON types, where anything else is a bug).
    """
    try:
        algorithm = DIGESTS[digest]
    except KeyError:
        raise ValueError(f"unknown fingerprint digest {digest!r}; available: {', '.join(DIGESTS)}") from None
    if isinstance(length, bool) or not isinstance(length, int) or not 1 <= length <= algorithm().digest_size * 2:
        raise ValueError(f"fingerprint length must be 1 to {algorithm().digest_size * 2} hex digits, got {length!r}")
    return algorithm(canonical_json(payload, strict=strict).encode()).hexdigest()[:length]
