"""Label tables, JSON arrays and ``.npy`` label files too large to hold, read a chunk at a time.

:mod:`.label_stream` counts the label pairs of two files in chunks; this module gives it the
labels of a table (CSV, TSV or ``;``: the column chosen with ``--column``) and of a ``.npy``
array, a chunk at a time, by the rules of the whole-file readers (:func:`.tables.read_table`,
:func:`.inputs.read_npy`) and with their errors. A table is read twice: once for its header
(the ``auto`` rule needs, per column, only whether every later field is a number and whether
the first line's field occurs again) and the width of every line, once for its labels. A
``.npy`` file is mapped (``np.load(mmap_mode="r")``) and read a block of rows at a time. A JSON
file is read as a flat array, the complete labels of each chunk parsed at once; a file that
is not one (nested arrays, invalid JSON) is read whole, for the whole reader's error.
Memory: a chunk of lines (or rows) at a time, whatever the length of the file.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator

from metricc.cli import inputs, tables
from metricc.core.errors import InputError

__all__ = ["JsonSource", "NpySource", "TableSource", "text_chunks"]


def text_chunks(option: str, path: str, chunk_bytes: int, bar) -> Iterator[list[tuple[int, str]]]:
    """The non-blank lines of a UTF-8 file, numbered from 1, a chunk at a time (cut after a
    line end, so that ``str.splitlines`` numbers them as it numbers the whole text)."""
    number = 0

    def numbered(block: bytes) -> list[tuple[int, str]]:
        nonlocal number
        try:
            lines = block.decode("utf-8").splitlines()
        except UnicodeDecodeError:
            raise InputError(option, f"{path}: not UTF-8 text") from None
        number += len(lines)
        return [(number - len(lines) + k, line) for k, line in enumerate(lines, 1) if line.strip()]

    try:
        with open(path, "rb") as file:
            rest, start = b"", True
            while block := file.read(chunk_bytes):
                if bar is not None:
                    bar.update()
                block = rest + (block.removeprefix(b"\xef\xbb\xbf") if start else block)
                start = False
                cut = block.rfind(b"\n") + 1
                rest = block[cut:]
                yield numbered(block[:cut])
            if rest:
                yield numbered(rest)
    except OSError as error:
        raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None


class TableSource:
    """One column of a label table: ``scan`` once (header, widths), then ``chunks`` of labels (str)."""

    text = True

    def __init__(self, option: str, path: str, column: str | None, header: str, chunk_bytes: int) -> None:
        self.option, self.path, self.column, self.header, self.chunk_bytes = option, path, column, header, chunk_bytes
        self.index = 0
        self.first_data: int | None = None  # line number of the first label
        self.length = 0

    def scan(self, bar) -> None:
        """Read the table once: the width of every line, the header, the chosen column."""
        first, delimiter, numbers, again, rest, first_line = None, None, [], [], 0, 0
        second, empty = None, []  # empty: per column, the first line (after the first) with an empty field
        for lines in text_chunks(self.option, self.path, self.chunk_bytes, bar):
            for number, line in lines:
                if first is None:
                    delimiter = tables.first_delimiter(line)
                    first, first_line = tables.split_fields(line, delimiter), number
                    numbers, again, empty = [True] * len(first), [False] * len(first), [None] * len(first)
                    continue
                fields = tables.split_fields(line, delimiter)
                if len(fields) != len(first):
                    raise InputError(self.option, f"{self.path}:{number}: {len(fields)} fields, expected {len(first)} "
                                                  f"like line {first_line}; give one label per line, or a table with "
                                                  "the same columns on every line")
                for k, field in enumerate(fields):
                    numbers[k] = numbers[k] and tables.is_number(field)
                    again[k] = again[k] or field == first[k]
                    if not field and empty[k] is None:
                        empty[k] = number
                second = second or number
                rest += 1
        if first is None:
            raise InputError(self.option, f"{self.path}: no labels in the file")
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
        self.delimiter = delimiter

    def chunks(self, bar) -> Iterator[list[str]]:
        """The chosen column's labels, a chunk at a time; an empty one is refused with its line."""
        for lines in text_chunks(self.option, self.path, self.chunk_bytes, bar):
            labels = []
            for number, line in lines:
                if number < self.first_data:
                    continue
                label = tables.split_fields(line, self.delimiter)[self.index]
                if not label:
                    raise InputError(self.option, tables.empty_label(self.path, number, self.index))
                labels.append(label)
            yield labels


class NpySource:
    """A ``.npy`` array of labels ``(n,)`` or ``(n, 1)``, mapped and read a block of rows at a time."""

    text = False

    def __init__(self, option: str, path: str, column: str | None, chunk_bytes: int) -> None:
        import numpy as np

        if column is not None:
            raise InputError(option, "--column applies to table files; a .npy file holds the labels themselves")
        try:
            array = np.load(path, mmap_mode="r", allow_pickle=False)
        except ValueError as error:  # object arrays need pickles; a malformed header
            raise InputError(option, f"{path}: not a NumPy array of numbers or strings ({error})") from None
        except OSError as error:
            raise InputError(option, f"cannot read {path}: {error.strerror or error}") from None
        if array.dtype.kind not in "biufU":
            raise InputError(option, f"{path}: an array of dtype {array.dtype}; expected numbers or strings")
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
        self.option, self.path, self.chunk_bytes = option, path, chunk_bytes
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
