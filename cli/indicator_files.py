"""Multi-label indicator files too large for nested lists: read a chunk at a time, one byte per entry.

The whole-file reader (:func:`.inputs.read_indicators`) holds the file's text and a Python
list per row, a pointer per entry: about 80 bytes per row of a few classes, so a file of a
few GB needs tens of GB. An indicator file of at least
:data:`.label_stream.STREAM_BYTES` is read here instead, :data:`.label_stream.CHUNK_BYTES` at a
time (:mod:`.label_sources` reads the lines), into a ``uint8`` array ``(n, C)``: memory of
``n * C`` bytes per file (twice that while the chunks are joined) plus one chunk of lines, and
the values ``evaluate`` gives for the nested lists. A ``.npy`` file is mapped
(``np.load(mmap_mode="r")``) and read by ``evaluate`` in place: no copy at all.

Only rows of ``0`` and ``1`` of one width (separated by blanks, ``,`` or ``;``) are read so;
a file with anything else (a comment line, another number, a row of another width) is read
again whole, for the whole reader's value or error with its line.
"""

from __future__ import annotations

import os
import re

import numpy as np

from metricc.api.progress import progress
from metricc.cli import inputs, label_sources, label_stream
from metricc.core.errors import InputError

__all__ = ["read_indicators"]

_SEPARATORS = re.compile(r"[\s,;]+")


def read_indicators(option: str, value: str, *, shown: bool = True):
    """Indicator rows ``(n, C)``, as :func:`.inputs.read_indicators` reads them; a large file in chunks."""
    if value.lstrip().startswith("[") or not os.path.isfile(value) or os.path.getsize(value) < label_stream.STREAM_BYTES:
        return inputs.read_indicators(option, value)
    found = _mapped(option, value) if inputs.is_npy(value) else _rows(option, value, shown)
    return inputs.read_indicators(option, value) if found is None else found


def _mapped(option: str, path: str) -> np.ndarray | None:
    """A ``.npy`` matrix of numbers, mapped, its finiteness checked a block of rows at a time."""
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError):
        return None  # the whole reader says what is wrong
    if array.ndim != 2 or array.dtype.kind not in "biuf":
        return None
    if array.dtype.kind == "f":
        rows = max(1, label_stream.CHUNK_BYTES // max(1, array.itemsize * array.shape[1]))
        for start in range(0, len(array), rows):
            if not np.isfinite(array[start:start + rows]).all():
                raise InputError(option, f"{path}: holds NaN or infinity")
    return array


def _rows(option: str, path: str, shown: bool) -> np.ndarray | None:
    """Rows of 0 and 1 of one width as ``uint8`` ``(n, C)``; None for anything else."""
    blocks, width = [], None
    count = -(-os.path.getsize(path) // label_stream.CHUNK_BYTES)
    with progress(count, f"{option}: indicator rows, chunks", enabled=shown) as bar:
        for lines in label_sources.text_chunks(option, path, label_stream.CHUNK_BYTES, bar):
            rows = [_SEPARATORS.split(line.strip()) for _, line in lines]
            if not rows:
                continue
            width = width or len(rows[0])
            if any(len(row) != width or row[0].startswith("#") for row in rows):
                return None
            digits = "".join(token for row in rows for token in row)
            if len(digits) != width * len(rows) or not set(digits) <= {"0", "1"}:  # one digit per entry
                return None
            blocks.append((np.frombuffer(digits.encode("ascii"), dtype=np.uint8) - ord("0")).reshape(-1, width))
    if not blocks:
        return None
    return np.concatenate(blocks)
