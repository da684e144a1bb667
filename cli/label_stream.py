"""Label files too large to hold in memory: read in chunks and counted into a confusion matrix.

``metricc eval`` and ``metricc report`` read ``--y-true`` and ``--y-pred`` whole (:mod:`.inputs`):
one Python string per sample, about 60 bytes each, so a file of a few GB needs tens of GB. A
pair of plain label files (one label per line, no delimiter on the first line) of which one
is at least :data:`STREAM_BYTES` is read here instead, :data:`CHUNK_BYTES` at a time, and the
label pairs are counted as they pass; ``evaluate`` then gets the confusion matrix, which is all
a single-label metric reads. Memory is bounded by two chunks and their lines plus the distinct
labels and label pairs (at most C**2), whatever the number of samples; a progress bar (on a
terminal) counts the chunks.

The result is the one the whole-file reader gives: blank lines skipped, the same header guess
(:func:`.inputs.header_lines`, from counts; a file whose header is in doubt is read twice, once
to count its labels and once to pair them), the same typing of labels (:func:`.inputs.typed_labels`
over the distinct labels) and the same errors, without line numbers where a label is not
readable. Tables (a delimiter on the first line), JSON and ``.npy`` files are read whole.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

from metricc.api.progress import progress
from metricc.cli import inputs, tables
from metricc.core.errors import InputError

__all__ = ["CHUNK_BYTES", "STREAM_BYTES", "applies", "read_pair"]

STREAM_BYTES = 64 * 2**20  # a label file at least this large is counted in chunks
CHUNK_BYTES = 8 * 2**20  # bytes of one file read at a time
_BOM = b"\xef\xbb\xbf"
_DELIMITERS = (b",", b"\t", b";")  # tables.read_table's, on the first line
_INNER_BLANKS = (b" ", b"\t", b"\x0b", b"\x0c")  # whitespace inside a label; line ends ("\r\n") split alike


def _plain_file(value: str | None) -> bool:
    return (value is not None and not value.lstrip().startswith("[") and not inputs.is_npy(value)
            and not value.endswith(".json") and os.path.isfile(value))


def _first_line(option: str, path: str) -> bytes | None:
    """The first non-blank line, stripped (None in a blank file)."""
    return next((line for lines in _chunks(option, path) for line in lines), None)


def applies(args) -> bool:
    """Whether ``--y-true`` and ``--y-pred`` are plain label files, one of them large enough to count in chunks."""
    if args.multilabel or args.column is not None or args.y_pred_column is not None:
        return False
    paths = (args.y_true, args.y_pred)
    if not all(_plain_file(path) for path in paths) or max(os.path.getsize(path) for path in paths) < STREAM_BYTES:
        return False
    firsts = [_first_line(option, path) for option, path in zip(("--y-true", "--y-pred"), paths)]
    return all(first is not None and first.lstrip(b"[") == first and not any(d in first for d in _DELIMITERS)
               for first in firsts)


def _lines(block: bytes) -> list[bytes]:
    """The non-blank lines of ``block``, stripped. Labels without blanks (the common case) are
    split in one call: ``bytes.split()`` splits at every run of whitespace, line ends included."""
    if not any(blank in block for blank in _INNER_BLANKS):
        return block.split()
    return [line for line in (raw.strip() for raw in block.split(b"\n")) if line]


def _chunks(option: str, path: str, bar=None) -> Iterator[list[bytes]]:
    """The non-blank lines of ``path``, stripped, a chunk at a time."""
    try:
        with open(path, "rb") as file:
            rest, start = b"", True
            while block := file.read(CHUNK_BYTES):
                if bar is not None:
                    bar.update()
                block = rest + (block.removeprefix(_BOM) if start else block)
                start = False
                cut = block.rfind(b"\n") + 1
                rest = block[cut:]
                yield _lines(block[:cut])
            if rest.strip():
                yield _lines(rest)
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


def _chunk_count(paths) -> int:
    return sum(-(-os.path.getsize(path) // CHUNK_BYTES) for path in paths)


def _count_labels(option: str, path: str, bar) -> tuple[bytes, Counter]:
    """One file's first label and how often each label occurs (the header guess needs both)."""
    counts: Counter = Counter()
    first = None
    for lines in _chunks(option, path, bar):
        if first is None and lines:
            first = lines[0]
        counts.update(lines)
    if first is None:
        raise InputError(option, f"{path}: no labels in the file")
    return first, counts


def _decode(option: str, path: str, label: bytes) -> str:
    try:
        return label.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(option, f"{path}: not UTF-8 text") from None


def _pairs(paths, skips, bar) -> tuple[Counter, list[int]]:
    """The label pairs of the two files counted, after dropping the first line where ``skips``
    says; and the files' lengths. The file that is behind is read next, so at most about a
    chunk of lines waits for its partner."""
    streams = [_chunks(option, path, bar) for option, path in zip(("--y-true", "--y-pred"), paths)]
    pending: list[list[bytes]] = [[], []]
    lengths, done, skips = [0, 0], [False, False], list(skips)
    pairs: Counter = Counter()
    while not all(done):
        for k in (0, 1):
            if done[k] or not (done[1 - k] or len(pending[k]) <= len(pending[1 - k])):
                continue
            lines = next(streams[k], None)
            if lines is None:
                done[k] = True
                continue
            if skips[k] and lines:
                lines, skips[k] = lines[1:], False
            lengths[k] += len(lines)
            pending[k].extend(lines)
        both = min(len(pending[0]), len(pending[1]))
        pairs.update(zip(pending[0][:both], pending[1][:both]))
        # lines past the end of the other file never pair: only their number is kept (for the error)
        pending = [[] if done[1 - k] else rest[both:] for k, rest in enumerate(pending)]
    return pairs, lengths


def _header_skips(args, paths, bar) -> tuple[bool, bool]:
    """Whether each file's first line is a header, as the whole-file reader decides: a first line
    that is not a number over a column of numbers (:func:`.tables.read_table`), else the guess
    of :func:`.inputs.header_lines`; each header taken is noted on stderr like there."""
    if args.header != "auto":
        return (args.header == "yes",) * 2
    options = ("--y-true", "--y-pred")
    if all(tables.is_number(_decode(option, path, _first_line(option, path))) for option, path in zip(options, paths)):
        return False, False  # a header is never guessed from numbers alone: one pass suffices
    columns, over_numbers = [], []
    for option, path in zip(options, paths):
        first, counts = _count_labels(option, path, bar)
        length = sum(counts.values())
        named = not tables.is_number(_decode(option, path, first))
        rest = [label for label, n in counts.items() if n - (label == first) > 0]
        over_numbers.append(named and length >= 2 and all(tables.is_number(_decode(option, path, label)) for label in rest))
        columns.append(inputs.Column(first, length, counts, named and length > 1 and not over_numbers[-1]))
    guessed = inputs.header_lines(columns[0], columns[1], None)
    skips = tuple(a or b for a, b in zip(over_numbers, guessed))
    for option, path, skip, column in zip(options, paths, skips, columns):
        if skip:
            inputs.note_header(option, path, [_decode(option, path, column.first)])
    return skips


def read_pair(args) -> dict:
    """The data keyword arguments of ``evaluate`` for ``--y-true`` and ``--y-pred``: the counted
    confusion matrix, its class labels and the typed ``--pos-label``."""
    paths = (args.y_true, args.y_pred)
    shown = not getattr(args, "quiet", False)
    with progress(_chunk_count(paths), "labels: header guess, chunks", enabled=shown) as bar:
        skips = _header_skips(args, paths, bar)
    with progress(_chunk_count(paths), "labels: counting pairs, chunks", enabled=shown) as bar:
        pairs, lengths = _pairs(paths, skips, bar)
    if lengths[0] != lengths[1]:
        raise InputError("--y-pred", f"expected {lengths[0]} labels like y_true, got {lengths[1]}")
    if not lengths[0]:
        raise InputError("--y-true", f"{args.y_true}: no labels in the file")
    distinct = [sorted({pair[k] for pair in pairs}) for k in (0, 1)]
    groups = [inputs.checked_text_labels(option, [_decode(option, path, raw) for raw in raws], distinct=True)
              for option, path, raws in zip(("--y-true", "--y-pred"), paths, distinct)]
    (typed_true, typed_pred, given), integers = inputs.typed_labels(*groups, inputs.text_labels(args.labels))
    as_typed = [dict(zip(raws, typed)) for raws, typed in zip(distinct, (typed_true, typed_pred))]
    classes = given if given is not None else sorted(set(typed_true) | set(typed_pred))
    index = {label: k for k, label in enumerate(classes)}
    for option, typed in (("--y-true", typed_true), ("--y-pred", typed_pred)):
        missing = next((label for label in typed if label not in index), None)
        if missing is not None:
            raise InputError(option, f"label {missing!r} is not in labels; add it to labels or drop those samples")
    matrix = [[0] * len(classes) for _ in classes]
    for (truth, predicted), n in pairs.items():
        matrix[index[as_typed[0][truth]]][index[as_typed[1][predicted]]] += n
    return {"matrix": matrix, "orientation": "true-rows", "labels": classes,
            "pos_label": inputs.positive_label(args.pos_label, integers)}
