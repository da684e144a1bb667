"""Multi-label indicator files too large for nested lists: read a chunk at a time, one byte per entry.

The whole-file reader (:func:`.inputs.read_indicators`) holds the file's text and a Python
list per row, a pointer per entry: about 100 bytes per row of a few classes, so a file of a
few GB needs tens of GB. An indicator file of at least :data:`.label_stream.STREAM_BYTES` is
read here instead, :data:`.label_stream.CHUNK_BYTES` at a time, into a ``uint8`` array
``(n, C)``: memory of ``n * C`` bytes per file (twice that while the chunks are joined) plus
a chunk of text, and the values ``evaluate`` gives for the nested lists. A ``.npy`` file is
mapped (``np.load(mmap_mode="r")``) and read by ``evaluate`` in place: no copy at all.

Only rows of ``0`` and ``1`` of one width (separated by blanks, ``,`` or ``;``) are read so,
each chunk checked by one regular expression and its digits taken by one ``bytes.translate``;
a file with anything else (a comment line, another number, a row of another width) is read
again whole, for the whole reader's value or error with its line.
"""

from __future__ import annotations

import os
import re

import numpy as np

from metricc.api.progress import progress
from metricc.cli import inputs, label_stream
from metricc.core.errors import InputError

__all__ = ["read_indicators"]

_BLANK_LINE = rb"[ \t\r]*\n"
_NOT_DIGITS = bytes(b for b in range(256) if b not in b"01")


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
    blocks, pattern = [], None
    count = -(-os.path.getsize(path) // label_stream.CHUNK_BYTES)
    try:
        file = open(path, "rb")
    except OSError:
        return None
    with file, progress(count, f"{option}: indicator rows, chunks", enabled=shown) as bar:
        rest = file.read(3)
        rest = b"" if rest == b"\xef\xbb\xbf" else rest
        while True:
            block = file.read(label_stream.CHUNK_BYTES)
            bar.update()
            ended = not block
            block = rest + block
            cut = len(block) if ended else block.rfind(b"\n") + 1
            text, rest = block[:cut], block[cut:]
            if ended and text and not text.endswith(b"\n"):
                text += b"\n"
            if pattern is None and text.strip():
                width = len(re.split(rb"[ \t,;]+", text.lstrip().split(b"\n", 1)[0].strip()))
                pattern = re.compile(rb"(?:[ \t]*[01](?:[ \t,;]+[01]){%d}[ \t,;\r]*\n|%s)*" % (width - 1, _BLANK_LINE))
            if pattern is not None and text:
                if not pattern.fullmatch(text):
                    return None
                digits = text.translate(None, _NOT_DIGITS)
                blocks.append((np.frombuffer(digits, dtype=np.uint8) - ord("0")).reshape(-1, width))
            if ended:
                break
    return np.concatenate(blocks) if blocks else None
