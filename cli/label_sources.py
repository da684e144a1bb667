"""Label tables, JSON arrays and ``.npy`` label files too large to hold, read a chunk at a time.

:mod:`.label_stream` counts the label pairs of two files in chunks; this module gives it the
labels of a table (CSV, TSV or ``;``: the column chosen with ``--column``), of a JSON array and of a ``.npy``
array, a chunk at a time, by the rules of the whole-file readers (:func:`.tables.read_table`,
:func:`.npy_files.read_npy`) and with their errors. A table is read twice: once for its header
(the ``auto`` rule needs, per column, only whether every later field is a number and whether
the first line's field occurs again) and the width of every line, once for its labels; a table
giving both ``--y-true`` and ``--y-pred`` (two columns) is read once, its label pairs counted in
the same pass as its header summary, the first line's pair kept aside until the header is decided. A
``.npy`` file is mapped (``np.load(mmap_mode="r")``) and read a block of rows at a time. A JSON
file is read as a flat array, the complete labels of each chunk parsed at once; a file that
is not one (nested arrays, invalid JSON) is read whole, for the whole reader's error.
Memory: a chunk of lines (or rows) at a time, whatever the length of the file.
"""

from __future__ import annotations

import codecs
import csv
import os
import re
from collections import Counter
from collections.abc import Iterator
from operator import itemgetter

from metricc.cli import inputs, npy_files, tables
from metricc.core.errors import InputError

__all__ = ["OBJECT_CHUNK", "JsonSource", "NpySource", "TableSource", "one_table"]


def _text_chunks(option: str, path: str, chunk_bytes: int, bar) -> Iterator[tuple[int, list[str]]]:
    """A UTF-8 file's lines a chunk at a time, each chunk with the number of the line before it
    (cut after a line end, so that ``str.splitlines`` numbers them as it numbers the whole text)."""
    number = 0
    try:
        with open(path, "rb") as file:
            rest = file.read(3)
            rest = b"" if rest == b"\xef\xbb\xbf" else rest  # a byte-order mark
            while True:
                block = file.read(chunk_bytes)
                if bar is not None and block:
                    bar.update()
                ended = not block
                block = rest + block
                cut = len(block) if ended else block.rfind(b"\n") + 1
                rest = block[cut:]
                try:
                    lines = block[:cut].decode("utf-8").splitlines()
                except UnicodeDecodeError:
                    raise InputError(option, f"{path}: not UTF-8 text") from None
                yield number, lines
                number += len(lines)
                if ended:
                    return
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


def _numbers(values: list[str]) -> bool:
    """Every value is written as a number (:func:`.tables.is_number`), in one regular-expression pass."""
    return not values or bool(_NUMBER_LINES.fullmatch("\n".join(values)))


_NUMBER_LINES = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?(\n[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)*")


# Tables and JSON arrays are read in chunks of CHUNK_BYTES / OBJECT_CHUNK (128 KiB): every line
# or label of a chunk becomes Python objects of hundreds of bytes; chunks of 8 MiB peaked at
# 380 MB, chunks of 128 KiB stay within about 80 MB and run faster (the objects stay in cache).
OBJECT_CHUNK = 64
_UNSET = object()  # a table's delimiter before its first line is read (None: one column)


class TableSource:
    """One column of a label table: ``scan`` once (header, widths), then ``chunks`` of labels (str).

    A chunk's lines are split by one ``csv.reader`` and its columns checked by C loops (sets,
    one regular expression). The Python objects of a chunk (a string, a list and a line number
    per line: hundreds of bytes per short line) are what memory holds, so tables are read in
    chunks of 1/:data:`OBJECT_CHUNK` of the plain files'.
    """

    text = True

    def __init__(self, option: str, path: str, column: str | None, header: str, chunk_bytes: int) -> None:
        self.option, self.path, self.column, self.header = option, path, column, header
        self.chunk_bytes = max(1, chunk_bytes // OBJECT_CHUNK)
        self.index, self.delimiter, self.first_data, self.length = 0, _UNSET, 0, 0

    def _rows(self, bar) -> Iterator[tuple[list[int], list[list[str]]]]:
        """(line numbers, fields) of the non-blank lines, a chunk at a time."""
        for before, lines in _text_chunks(self.option, self.path, self.chunk_bytes, bar):
            numbers = [before + k for k, line in enumerate(lines, 1) if line.strip()]
            kept = [lines[number - before - 1] for number in numbers]
            del lines
            if kept and self.delimiter is _UNSET:
                self.delimiter = tables.first_delimiter(kept[0])
            if not kept or self.delimiter is None:
                yield numbers, [[line.strip()] for line in kept]
                continue
            rows = list(csv.reader(kept, delimiter=self.delimiter, skipinitialspace=True))
            if len(rows) != len(kept):  # a quoted field across lines: split line by line, as read_table does
                rows = [next(csv.reader([line], delimiter=self.delimiter, skipinitialspace=True)) for line in kept]
            yield numbers, [[field.strip() for field in row] for row in rows]

    def scan(self, bar, partner: TableSource | None = None) -> Counter | None:
        """Read the table once: the width of every line, the header, the chosen column. With
        ``partner`` (another column of this table: the predictions), count the label pairs of
        the two columns in the same pass and decide its header too: returns the pairs."""
        first, first_line, numbers, again, empty, rest = None, 0, [], [], [], 0
        second, tally, columns, fields = None, Counter(), [], None
        for lines, rows in self._rows(bar):
            if first is None and rows:
                first, first_line = rows[0], lines[0]
                numbers, again, empty = [True] * len(first), [False] * len(first), [None] * len(first)
                lines, rows = lines[1:], rows[1:]
                # the columns either header decision could choose: each row counted by their fields
                columns = sorted(self._candidates(first) | partner._candidates(first)) if partner else []
                fields = itemgetter(*columns, *columns[:1]) if columns else None  # a tuple even for one column
            if not rows:
                continue
            widths = [len(row) for row in rows]
            if set(widths) != {len(first)}:
                at = next(k for k, width in enumerate(widths) if width != len(first))
                raise InputError(self.option, f"{self.path}:{lines[at]}: {widths[at]} fields, expected {len(first)} "
                                              f"like line {first_line}; give one label per line, or a table with "
                                              "the same columns on every line")
            if fields is not None:
                tally.update(map(fields, rows))
            for k in range(len(first)):
                values = [row[k] for row in rows]
                numbers[k] = numbers[k] and _numbers(values)
                again[k] = again[k] or first[k] in set(values)
                if empty[k] is None and "" in values:
                    empty[k] = lines[values.index("")]
            second = second or lines[0]
            rest += len(rows)
        if first is None:
            raise InputError(self.option, f"{self.path}: no labels in the file")
        for source in (self, partner) if partner else (self,):
            source._decide(first, first_line, second, rest, numbers, again, empty)
        if partner is None:
            return None
        at = columns.index(self.index), columns.index(partner.index)
        pairs = Counter()
        for key, count in tally.items():
            pairs[key[at[0]], key[at[1]]] += count
        if self.first_data == partner.first_data == first_line:  # neither took the first line as a header
            pairs[first[self.index], first[partner.index]] += 1
        return pairs

    def _candidates(self, first: list[str]) -> set[int]:
        """The indices the chosen column may have, header or not (an error is raised later)."""
        found = set()
        for header in (None, first):
            try:
                found.add(tables.column_index(self.option, self.path, len(first), header, self.column))
            except InputError:
                pass
        return found

    def _decide(self, first, first_line, second, rest, numbers, again, empty) -> None:
        """The header, the column and the length, from the summary of the lines :meth:`scan` read."""
        named = self.column is not None and not self.column.isdigit()
        headed = self.header == "yes" or (self.header == "auto" and (named or tables.looks_like_header(
            first, rest, numbers, again)))
        if self.header == "no" and named:
            raise InputError(self.option, "a column chosen by name needs the header line; give its index instead")
        if headed and not rest:
            raise InputError(self.option, f"{self.path}: only a header line, no data")
        self.index = tables.column_index(self.option, self.path, len(first), first if headed else None, self.column)
        if headed and self.header == "auto" and not named:
            inputs.note_header(self.option, self.path, first)
        blank = first_line if not headed and not first[self.index] else empty[self.index]
        if blank is not None:
            raise InputError(self.option, tables.empty_label(self.path, blank, self.index))
        self.first_data = second if headed else first_line
        self.length = rest + (not headed)

    def chunks(self, bar) -> Iterator[list[str]]:
        """The chosen column's labels, a chunk at a time (checked not empty by :meth:`scan`)."""
        for lines, rows in self._rows(bar):
            skip = 1 if lines and lines[0] < self.first_data else 0  # the header line
            yield [row[self.index] for row in rows[skip:]]


def one_table(sources) -> bool:
    """Whether two sources are columns of one table file (``--y-pred-column`` alone, or the
    same path twice): :meth:`TableSource.scan` then reads it once for both."""
    return (all(isinstance(source, TableSource) for source in sources)
            and len({os.path.realpath(source.path) for source in sources}) == 1)


class NpySource:
    """A ``.npy`` array of labels ``(n,)`` or ``(n, 1)``, mapped and read a block of rows at a time."""

    text = False

    def __init__(self, option: str, path: str, column: str | None, chunk_bytes: int) -> None:
        if column is not None:
            raise InputError(option, "--column applies to table files; a .npy file holds the labels themselves")
        array = npy_files.load_npy(option, path, mapped=True)
        self.option, self.path, self.array = option, path, array
        self.rows = max(1, chunk_bytes // max(1, array.dtype.itemsize))
        self.length = len(array) if array.ndim else 0

    @staticmethod
    def holds_labels(path: str) -> bool:
        """Whether the file is an array of one label per sample (else the whole reader says what is wrong)."""
        import numpy as np

        try:
            array = np.load(path, mmap_mode="r", allow_pickle=False)
        except (ValueError, OSError):
            return False
        return array.ndim == 1 or (array.ndim == 2 and array.shape[1] == 1)

    def scan(self, bar) -> None:
        """Nothing to decide before the labels: a ``.npy`` file has no header."""

    def chunks(self, bar) -> Iterator[list]:
        import numpy as np

        for start in range(0, self.length, self.rows):
            block = np.asarray(self.array[start:start + self.rows]).reshape(-1)
            if bar is not None:
                bar.update()
            if block.dtype.kind == "f" and not np.isfinite(block).all():
                raise InputError(self.option, f"{self.path}: holds NaN or infinity")
            yield block.tolist()


# A run of complete labels of a flat JSON array, each followed by its comma: strings (escapes
# included) or bare tokens (numbers, true, false, null); a bracket or brace ends the run.
_LABELS = re.compile(r'(?:\s*(?:"(?:[^"\\]|\\.)*"|[^\s,\[\]{}"]+)\s*,)*')


class JsonSource:
    """A JSON file holding one array of labels, parsed a chunk of complete labels at a time."""

    text = False

    def __init__(self, option: str, path: str, column: str | None, chunk_bytes: int) -> None:
        if column is not None:
            raise InputError(option, "--column applies to table files; a JSON file holds the labels themselves")
        self.option, self.path, self.chunk_bytes = option, path, max(1, chunk_bytes // OBJECT_CHUNK)
        self._length: int | None = None

    def scan(self, bar) -> None:
        """Nothing to decide before the labels: a JSON array has no header."""

    @property
    def length(self) -> int:
        """The number of labels, read once more (the header guess of a plain partner file needs it)."""
        if self._length is None:
            self._length = sum(len(labels) for labels in self.chunks(None))
        return self._length

    def chunks(self, bar) -> Iterator[list]:
        where, done, buffer = f"{self.path}: ", 0, None
        for text in self._texts(bar):
            if buffer is None:
                text = text.lstrip()
                if not text:
                    continue
                if not text.startswith("["):
                    self._whole()
                buffer = text[1:]
            else:
                buffer += text
            run = _LABELS.match(buffer).end()
            if buffer[run:].lstrip()[:1] in ("[", "{"):
                self._whole()  # a nested array or an object: not a flat array of labels
            if run:
                labels = self._parse(buffer[:run].rstrip().removesuffix(","))
                inputs.json_labels(self.option, labels, where, done)
                done += len(labels)
                buffer = buffer[run:]
                yield labels
        if buffer is None or not buffer.rstrip().endswith("]"):
            self._whole()
        labels = self._parse(buffer.rstrip().removesuffix("]"))
        inputs.json_labels(self.option, labels, where, done)
        yield labels

    def _texts(self, bar) -> Iterator[str]:
        """The file's text (UTF-8, a byte-order mark dropped), a chunk at a time."""
        decoder = codecs.getincrementaldecoder("utf-8-sig")()
        try:
            with open(self.path, "rb") as file:
                while block := file.read(self.chunk_bytes):
                    if bar is not None:
                        bar.update()
                    yield decoder.decode(block)
                yield decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise InputError(self.option, f"{self.path}: not UTF-8 text") from None
        except OSError as error:
            raise InputError(self.option, f"cannot read {self.path}: {error.strerror or error}") from None

    def _parse(self, run: str) -> list:
        """The labels of ``run`` (labels separated by commas); the whole reader's error where it is no such run."""
        try:
            return inputs.parse_json(self.option, f"[{run}]", f"{self.path}: ")
        except InputError:
            self._whole()

    def _whole(self):
        """Read the file whole: its error is the whole reader's (the chunks only read flat arrays)."""
        inputs.read_labels(self.option, self.path)
        raise InputError(self.option, f"{self.path}: not one flat JSON array of labels; it is too large to read whole")
