"""Label files too large to hold in memory: read in chunks and counted into a confusion matrix.

``metricc eval`` and ``metricc report`` read ``--y-true`` and ``--y-pred`` whole (:mod:`.inputs`):
one Python string per sample, about 60 bytes each, so a file of a few GB needs tens of GB. A
pair of label files of which one is at least :data:`STREAM_BYTES` is read here instead,
:data:`CHUNK_BYTES` at a time, and the label pairs are counted as they pass; ``evaluate`` then
gets the confusion matrix, which is all a single-label metric reads. The files may be plain
(one label per line), tables (a column of CSV, TSV or ``;``), JSON arrays or ``.npy`` arrays
(:mod:`.label_sources`). Memory is bounded by two chunks and their lines plus the distinct
labels and label pairs (at most C**2), whatever the number of samples; a progress bar (on a
terminal) counts the chunks.

The result is the one the whole-file reader gives: blank lines skipped, the same header guess
(:func:`.inputs.header_lines`, from counts; a file whose header is in doubt is read twice, once
to count its labels and once to pair them), the same typing of labels (:func:`.inputs.typed_labels`
over the distinct labels) and the same errors, without line numbers where a label is not
readable. A table of one line (its fields are labels) is read whole.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

from metricc.api.progress import progress
from metricc.cli import inputs, label_sources, tables
from metricc.core.errors import InputError

__all__ = ["CHUNK_BYTES", "STREAM_BYTES", "applies", "read_pair"]

STREAM_BYTES = 64 * 2**20  # a label file at least this large is counted in chunks
CHUNK_BYTES = 8 * 2**20  # bytes of one file read at a time
_BOM = b"\xef\xbb\xbf"
_DELIMITERS = (b",", b"\t", b";")  # tables.read_table's, on the first line
_INNER_BLANKS = (b" ", b"\t", b"\x0b", b"\x0c")  # whitespace inside a label; line ends ("\r\n") split alike


def _label_file(value: str | None) -> bool:
    return value is not None and not value.lstrip().startswith("[") and os.path.isfile(value)


def _json_file(option: str, path: str) -> bool:
    """Read as JSON by the whole-file reader: named ``.json``, or text that starts with ``[``."""
    first = _first_line(option, path)
    return path.endswith(".json") or (first is not None and first.startswith(b"["))


def _first_lines(option: str, path: str, count: int = 1) -> list[bytes]:
    """The first ``count`` non-blank lines, stripped (fewer in a short file)."""
    found: list[bytes] = []
    for lines in _chunks(option, path):
        found.extend(lines[:count - len(found)])
        if len(found) == count:
            break
    return found


def _first_line(option: str, path: str) -> bytes | None:
    """The first non-blank line, stripped (None in a blank file)."""
    return next(iter(_first_lines(option, path)), None)


def _pred_path(args) -> str | None:
    """``--y-pred``, or the ``--y-true`` table where ``--y-pred-column`` alone names the predictions."""
    return args.y_true if args.y_pred is None and args.y_pred_column is not None else args.y_pred


def applies(args) -> bool:
    """Whether ``--y-true`` and ``--y-pred`` are label files (plain, tables or ``.npy``), one of
    them large enough to count in chunks."""
    paths = (args.y_true, _pred_path(args))
    if args.multilabel or not all(_label_file(path) for path in paths):
        return False
    if max(os.path.getsize(path) for path in paths) < STREAM_BYTES:
        return False
    for path in paths:
        if inputs.is_npy(path):
            if not label_sources.NpySource.holds_labels(path):
                return False
            continue
        if _json_file("--y-true", path):
            continue
        firsts = _first_lines("--y-true", path, 2)
        if len(firsts) == 1 and any(d in firsts[0] for d in _DELIMITERS) and args.header != "yes":
            return False  # one line of comma-separated labels
    return True


class PlainSource:
    """A plain label file: one label per line, its header guessed from counts (:func:`_header_skips`)."""

    text = True

    def __init__(self, option: str, path: str) -> None:
        self.option, self.path = option, path

    def scan(self, bar) -> None:
        """A blank file is refused; the header guess needs both files (:func:`_header_skips`)."""
        if _first_line(self.option, self.path) is None:
            raise InputError(self.option, f"{self.path}: no labels in the file")

    def chunks(self, bar) -> Iterator[list[bytes]]:
        return _chunks(self.option, self.path, bar)


def _source(option: str, path: str, column: str | None, header: str):
    if inputs.is_npy(path):
        return label_sources.NpySource(option, path, column, CHUNK_BYTES)
    if _json_file(option, path):
        return label_sources.JsonSource(option, path, column, CHUNK_BYTES)
    first = _first_line(option, path)
    if column is None and (first is None or not any(d in first for d in _DELIMITERS)):
        return PlainSource(option, path)
    return label_sources.TableSource(option, path, column, header, CHUNK_BYTES)


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


def _pairs(streams, skips) -> tuple[Counter, list[int]]:
    """The label pairs of two streams of chunks counted, after dropping the first line where
    ``skips`` says; and the streams' lengths. The stream that is behind is read next, so at
    most about a chunk of lines waits for its partner."""
    streams = [iter(stream) for stream in streams]
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


def _header_skips(args, sources, bar) -> tuple[bool, bool]:
    """Whether the first line of each plain file is a header, as the whole-file reader decides:
    a first line that is not a number over a column of numbers (:func:`.tables.read_table`),
    else the guess of :func:`.inputs.header_lines`; each header taken is noted on stderr like
    there. Tables decide their own header (:meth:`.label_sources.TableSource.scan`)."""
    plain = [isinstance(source, PlainSource) for source in sources]
    if args.header != "auto":
        return tuple(args.header == "yes" and p for p in plain)
    if all(tables.is_number(_decode(s.option, s.path, _first_line(s.option, s.path))) for s in sources if
           isinstance(s, PlainSource)):
        return False, False  # a header is never guessed from numbers alone: one pass suffices
    columns, over_numbers = [], []
    for source in sources:
        if not isinstance(source, PlainSource):
            columns.append(inputs.Column(None, source.length, {}, False))
            over_numbers.append(False)
            continue
        option, path = source.option, source.path
        first, counts = _count_labels(option, path, bar)
        length = sum(counts.values())
        named = not tables.is_number(_decode(option, path, first))
        rest = [label for label, n in counts.items() if n - (label == first) > 0]
        over_numbers.append(named and length >= 2 and all(tables.is_number(_decode(option, path, label)) for label in rest))
        columns.append(inputs.Column(first, length, counts, named and length > 1 and not over_numbers[-1]))
    guessed = inputs.header_lines(columns[0], columns[1], None)
    skips = tuple(p and (a or b) for p, a, b in zip(plain, over_numbers, guessed))
    for source, skip, column in zip(sources, skips, columns):
        if skip:
            inputs.note_header(source.option, source.path, [_decode(source.option, source.path, column.first)])
    return skips


def _group(source, raws: list) -> inputs.Labels:
    """The distinct labels of one file, checked as the whole-file reader checks them."""
    if isinstance(source, PlainSource):
        raws = [_decode(source.option, source.path, raw) for raw in raws]
    if source.text:
        return inputs.checked_text_labels(source.option, raws, distinct=True)
    return inputs.json_labels(source.option, raws, f"{source.path}: ")


def _two_passes(args, sources, paths, shown) -> tuple[Counter, list[int]]:
    with progress(_chunk_count(paths), "labels: header guess, chunks", enabled=shown) as bar:
        for source in sources:
            source.scan(bar)
        skips = _header_skips(args, sources, bar)
    with progress(_chunk_count(paths), "labels: counting pairs, chunks", enabled=shown) as bar:
        return _pairs([source.chunks(bar) for source in sources], skips)


def read_pair(args) -> dict:
    """The data keyword arguments of ``evaluate`` for ``--y-true`` and ``--y-pred``: the counted
    confusion matrix, its class labels and the typed ``--pos-label``."""
    paths = (args.y_true, _pred_path(args))
    sources = [_source("--y-true", paths[0], args.column, args.header),
               _source("--y-pred", paths[1], args.y_pred_column or args.column, args.header)]
    shown = not getattr(args, "quiet", False)
    if label_sources.one_table(sources):  # both columns of one table: one pass
        with progress(_chunk_count(paths[:1]), "labels: counting pairs, chunks", enabled=shown) as bar:
            pairs = sources[0].scan(bar, partner=sources[1])
        lengths = [sources[0].length, sources[1].length]
    else:
        pairs, lengths = _two_passes(args, sources, paths, shown)
    if lengths[0] != lengths[1]:
        raise InputError("--y-pred", f"expected {lengths[0]} labels like y_true, got {lengths[1]}")
    if not lengths[0]:  # an empty array is read, then refused by evaluate
        raise InputError("--y-true", f"{args.y_true}: no labels in the file" if sources[0].text
                         else "is empty (shape (0,)); pass at least one label")
    distinct = [sorted({pair[k] for pair in pairs}) for k in (0, 1)]
    groups = [_group(source, raws) for source, raws in zip(sources, distinct)]
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
