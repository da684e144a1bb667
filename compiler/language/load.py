"""Load stage: read a spec file into plain data, remembering where every value came from.

The file is parsed with :func:`yaml.compose` (never ``yaml.load``), so every node keeps its
position; the plain Python data (dict/list/str/int/float/bool/None) is then built by hand
from the nodes. That is also where the YAML features specs forbid are caught: duplicate
keys (which PyYAML silently accepts), non-string keys, anchors, aliases, merge keys and
explicit tags. Plain values resolve with YAML 1.2 core-schema rules, not PyYAML's YAML 1.1
ones: booleans are only true/false, ``off``, ``yes`` or ``n`` are text, ``1:30`` is text
(not 90 in base 60) and ``010`` is ten. The sizes of :mod:`.limits` (file size, nesting,
digits of a number, float range) are checked before the step they protect. All problems
of a file are raised together as one :class:`~metricc.compiler.errors.YamlSyntaxError`.

>>> import pathlib, tempfile
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "f1.yaml").write_text("id: f1\\nformula: '2 * TP'\\n")
>>> spec = load_spec(d / "f1.yaml")
>>> spec.data
{'id': 'f1', 'formula': '2 * TP'}
>>> spec.locate(("formula",)).line, spec.locate(("formula",)).column
(2, 10)
>>> spec.locate_in_value(("formula",), 4).column  # the 'T' of TP: the quote counts
15
>>> spec.key_name(("formula",))
'$.formula'
>>> _ = (d / "g.yaml").write_text("a: off\\nb: 1:30\\nc: 010\\nd: true\\n")
>>> load_spec(d / "g.yaml").data
{'a': 'off', 'b': '1:30', 'c': 10, 'd': True}
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

import yaml

from metricc.compiler.errors import Diagnostic, Location, YamlSyntaxError
from metricc.compiler.language.errata import ERRATA_FIELDS, load_errata
from metricc.compiler.language.limits import MAX_NUMBER_DIGITS, MAX_SPEC_BYTES, over_limit
from metricc.compiler.language.positions import LineIndex, Scalar, location_at, printable, scalar_positions
from metricc.compiler.language.strict_yaml import (
    TAG, DataLoader, StrictLoader, TooDeep, line_locator, load_data_file, shown_tag, syntax_error,
)

# The errata and the data files beside the specs are loaded here too (from their own modules).
__all__ = ["ERRATA_FIELDS", "DataLoader", "SourceSpec", "load_catalog", "load_data_file", "load_errata", "load_spec"]

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")  # \Z: "x\n" is not an identifier
# A comment after a plain scalar on its line: YAML drops it from the value.
_TRAILING_COMMENT = re.compile(r"[ \t]+#")


@dataclass(frozen=True)
class SourceSpec:
    """One loaded spec: its plain data plus the source location of every value.

    ``locations`` maps a JSON path such as ``("params", "beta", "default")`` or
    ``("references", 0)`` to the location of that value; ``()`` is the whole document.
    ``key_locations`` maps the same paths (mapping entries only) to where the *key* is.
    """

    path: str
    text: str
    data: dict
    locations: Mapping[tuple, Location]
    key_locations: Mapping[tuple, Location] = field(default_factory=dict, repr=False)
    _scalars: Mapping[tuple, Scalar] = field(default_factory=dict, repr=False, compare=False)
    # Computed on first use: "lines" -> the LineIndex; a path -> its scalar's character positions.
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def diagnostic(self, path: tuple, message: str) -> Diagnostic:
        """``message`` about the value at ``path``, the caret under the value."""
        return Diagnostic(self.locate(path), self.key_name(path), message)

    def key_diagnostic(self, path: tuple, message: str) -> Diagnostic:
        """``message`` about the entry's name at ``path``, the caret under the key."""
        return Diagnostic(self.locate_key(path), self.key_name(path), message)

    def locator(self, path: tuple) -> Callable[[int], Location]:
        """Offsets into the value at ``path`` -> locations, for the formula parser."""
        return lambda offset: self.locate_in_value(path, offset)

    def locate(self, path: tuple) -> Location:
        """Location of the value at ``path``, or of its nearest existing ancestor."""
        path = tuple(path)
        while path not in self.locations and path:
            path = path[:-1]
        return self.locations[path]

    def locate_key(self, path: tuple) -> Location:
        """Location of the key of the entry at ``path``; falls back to :meth:`locate`."""
        path = tuple(path)
        if path in self.key_locations:
            return self.key_locations[path]
        return self.locate(path)

    @staticmethod
    def key_name(path: tuple) -> str:
        """``("params", "beta", "default")`` -> ``$.params.beta.default``; ``[0]`` for items.

        >>> SourceSpec.key_name(("references", 0))
        '$.references[0]'
        >>> SourceSpec.key_name(("let", "s[j]"))
        "$.let['s[j]']"
        """
        parts = ["$"]
        for step in path:
            if isinstance(step, int):
                parts.append(f"[{step}]")
            elif _IDENTIFIER.match(step):
                parts.append(f".{step}")
            else:
                parts.append(f"[{_short_repr(step)}]")
        return "".join(parts)

    def locate_in_value(self, path: tuple, offset: int) -> Location:
        """Location of character ``offset`` of the scalar at ``path`` (e.g. in a formula).

        Quoting, escapes, line folding and block scalars (``|``, ``>``) are accounted for;
        ``offset == len(value)`` points just past the last character, larger offsets are
        clamped there. For a missing path or a mapping/list, this is :meth:`locate`.
        """
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        path = tuple(path)
        scalar = self._scalars.get(path)
        if scalar is None:
            return self.locate(path)
        positions = self._cache.get(path)
        if positions is None:
            value = _value_at(self.data, path)
            value = value if isinstance(value, str) else self.text[scalar.start : scalar.end]
            positions = self._cache[path] = scalar_positions(self.text, scalar, value)
        if not positions:
            return self.locate(path)
        if offset < len(positions):
            index = positions[offset]
        else:  # just past the end: one column after the last character
            index = positions[-1] + 1
        return self._lines().location(self.path, index)

    def comment_after(self, path: tuple) -> Location | None:
        """Where a comment starts after the plain (unquoted) scalar at ``path``, on its last line.

        YAML drops such a comment from the value: ``formula: TP / (TP + FP) # + FN`` reads
        ``TP / (TP + FP)``, which may not be what its author meant.
        """
        scalar = self._scalars.get(tuple(path))
        if scalar is None or scalar.style is not None:
            return None
        comment = _TRAILING_COMMENT.match(self.text, scalar.end)
        return self._lines().location(self.path, comment.end() - 1) if comment else None

    def _lines(self) -> LineIndex:
        if "lines" not in self._cache:
            self._cache["lines"] = LineIndex(self.text)
        return self._cache["lines"]


def load_spec(path: str | os.PathLike) -> SourceSpec:
    """Read and parse one spec file; raise :class:`YamlSyntaxError` listing all problems.

    Locations name the file as ``path`` was given (keep it relative for stable messages).
    """
    name = os.fspath(path)
    raw = Path(path).read_bytes()
    if len(raw) > MAX_SPEC_BYTES:
        message = over_limit("file too large", len(raw), "bytes", MAX_SPEC_BYTES, "in a spec file")
        raise YamlSyntaxError(Diagnostic(Location(name, 1, 1), "$", message))
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlSyntaxError(_not_utf8(name, raw, exc)) from None
    # Drop a byte-order mark so that columns on line 1 are counted from the first character.
    text = text.removeprefix("\ufeff")
    return _Builder(name, text).build()


def load_catalog(directory: str | os.PathLike) -> list[SourceSpec]:
    """Load every ``*.yaml`` in ``directory`` (sorted by name), reporting all files' errors."""
    base = os.fspath(directory)
    if not os.path.isdir(base):
        raise NotADirectoryError(f"not a directory: {base}")
    specs: list[SourceSpec] = []
    diagnostics: list[Diagnostic] = []
    for file in sorted(os.listdir(base)):
        if not file.endswith(".yaml") or not os.path.isfile(os.path.join(base, file)):
            continue
        try:
            specs.append(load_spec(os.path.join(base, file)))
        except YamlSyntaxError as exc:
            diagnostics.extend(exc.diagnostics)
    if diagnostics:
        raise YamlSyntaxError(diagnostics)
    return specs


# --- building plain data from nodes ----------------------------------------------------


class _Builder:
    """Turns one file's node tree into data, locations and diagnostics."""

    def __init__(self, file: str, text: str) -> None:
        self.file = file
        self.text = text
        self._loc_line = line_locator(file, text)  # (line, column) from 0 -> Location
        self.diagnostics: list[Diagnostic] = []
        self.locations: dict[tuple, Location] = {}
        self.key_locations: dict[tuple, Location] = {}
        self.scalars: dict[tuple, Scalar] = {}

    def build(self) -> SourceSpec:
        try:
            loader = StrictLoader(self.text)  # checks for unprintable characters
            root = loader.get_single_node()
        except TooDeep as exc:
            raise YamlSyntaxError(Diagnostic(self._loc(exc.problem_mark), "$", exc.problem)) from None
        except yaml.MarkedYAMLError as exc:
            raise YamlSyntaxError(syntax_error(exc, self._loc_line)) from None
        except yaml.reader.ReaderError as exc:
            message = f"character {chr(exc.character)!r} is not allowed in YAML; remove it"
            where = location_at(self.file, self.text, exc.position)
            raise YamlSyntaxError(Diagnostic(where, "$", message)) from None
        if root is None:
            raise YamlSyntaxError(
                Diagnostic(self._loc_line(0, 0), "$", "file is empty; a spec is a mapping "
                           "with keys id, name, description, references, formula, ...")
            )
        self.loader = loader
        if not isinstance(root, yaml.MappingNode):
            what = "a list" if isinstance(root, yaml.SequenceNode) else "a single value"
            raise YamlSyntaxError(
                Diagnostic(self._loc(root.start_mark), "$",
                           f"a spec must be a mapping of keys (id: ..., name: ...), not {what}")
            )
        data = self._node(root, ())
        if self.diagnostics:
            self.diagnostics.sort(key=lambda d: (d.location.line, d.location.column, d.key))
            raise YamlSyntaxError(self.diagnostics)
        return SourceSpec(
            path=self.file,
            text=self.text,
            data=data,
            locations=MappingProxyType(self.locations),
            key_locations=MappingProxyType(self.key_locations),
            _scalars=MappingProxyType(self.scalars),
        )

    def _node(self, node: yaml.Node, path: tuple) -> Any:
        self.locations[path] = self._loc(node.start_mark)
        if id(node) in self.loader.aliases:
            name = self.loader.aliases[id(node)][0]
            self._error(node.start_mark, path, f"specs do not support YAML aliases (*{name}); "
                        "write the value out in full")
            return None
        if id(node) in self.loader.anchored:
            name = self.loader.anchored[id(node)][0]
            self._error(node.start_mark, path, f"specs do not support YAML anchors (&{name}); "
                        "remove the anchor")
        if id(node) in self.loader.tagged:
            self._explicit_tag(node, path)
            if isinstance(node, yaml.ScalarNode):
                return None  # never construct it: '!!int abc' has no value
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, path)
        if isinstance(node, yaml.SequenceNode):
            return [self._node(item, path + (i,)) for i, item in enumerate(node.value)]
        return self._scalar(node, path)

    def _mapping(self, node: yaml.MappingNode, path: tuple) -> dict:
        result: dict[str, Any] = {}
        first_line: dict[str, int] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == "<<" and key_node.style is None:
                self._error(key_node.start_mark, path, "specs do not support YAML merge keys "
                            "('<<'); write the keys out in full")
                continue
            key = self._key(key_node, path)
            if key is None:
                continue
            line = key_node.start_mark.line + 1
            if key in first_line:
                self._error(key_node.start_mark, path + (key,),
                            f"duplicate key {_short_repr(key)} on lines {first_line[key]} "
                            f"and {line}; keep only one")
                continue
            first_line[key] = line
            self.key_locations[path + (key,)] = self._loc(key_node.start_mark)
            result[key] = self._node(value_node, path + (key,))
        return result

    def _key(self, node: yaml.Node, path: tuple) -> str | None:
        """The key as a string, or None (with a diagnostic) if it is not a plain string."""
        if id(node) in self.loader.aliases or id(node) in self.loader.anchored:
            self._error(node.start_mark, path, "specs do not support YAML anchors or aliases "
                        "in keys; write the key out")
            return None
        if id(node) in self.loader.tagged:
            self._explicit_tag(node, path)
            return None
        if not isinstance(node, yaml.ScalarNode):
            self._error(node.start_mark, path, "a key must be a string, not a mapping or list")
            return None
        if node.tag != TAG + "str":
            source = self.text[node.start_mark.index : node.end_mark.index]
            self._error(node.start_mark, path, f"key {source} is not a string; quote it "
                        f"('{source}') or rename it")
            return None
        return node.value

    def _scalar(self, node: yaml.ScalarNode, path: tuple) -> Any:
        """The value of a scalar whose tag the core schema resolved (no explicit tags here)."""
        style = node.style if node.style in ("'", '"', "|", ">") else None
        self.scalars[path] = Scalar(style, node.start_mark.index, node.end_mark.index)
        kind = node.tag.removeprefix(TAG)
        if kind == "null":
            return None
        if kind == "bool":
            return node.value in ("true", "True", "TRUE")
        if kind in ("int", "float"):
            return self._number(node, path, kind)
        return node.value

    def _number(self, node: yaml.ScalarNode, path: tuple, kind: str) -> int | float | None:
        """An int or float, its digits counted before conversion and its size kept to floats."""
        text = node.value
        if text.lstrip("+-").lower() in (".inf", ".nan"):
            return float(text.replace(".", "", 1))  # the validate stage says what to write instead
        base = {"0o": 8, "0x": 16}.get(text[:2], 10) if kind == "int" else 10
        digits = len(text.lstrip("+-")) if kind == "int" else sum(ch.isdigit() for ch in text)
        digits -= 0 if base == 10 else 2
        if digits > MAX_NUMBER_DIGITS:
            message = over_limit("number too long", digits, "digits", MAX_NUMBER_DIGITS, "in a number")
            self._error(node.start_mark, path, message)
            return None
        if kind == "int":
            return int(text if base == 10 else text[2:], base)
        value = float(text)
        mantissa = text.lower().partition("e")[0]
        if math.isinf(value) or (value == 0 and any(ch in "123456789" for ch in mantissa)):
            self._error(node.start_mark, path, f"number {text} is outside the float range "
                        "(about 1e-308 to 1e308 in absolute value)")
            return None
        return value

    def _explicit_tag(self, node: yaml.Node, path: tuple) -> None:
        shown = shown_tag(self.loader.tagged[id(node)])
        self._error(node.start_mark, path, f"explicit YAML tags are not allowed ({_short_repr(shown)[1:-1]}); "
                    "remove the tag, and quote the value if it is text")

    def _error(self, mark: yaml.Mark, path: tuple, message: str) -> None:
        self.diagnostics.append(Diagnostic(self._loc(mark), SourceSpec.key_name(path), message))

    def _loc(self, mark: yaml.Mark) -> Location:
        return self._loc_line(mark.line, mark.column)


def _not_utf8(file: str, raw: bytes, exc: UnicodeDecodeError) -> Diagnostic:
    before = raw[: exc.start]
    line = before.count(b"\n")
    line_start = before.rfind(b"\n") + 1
    line_end = raw.find(b"\n", exc.start)
    line_bytes = raw[line_start : None if line_end < 0 else line_end].rstrip(b"\r")
    column = len(raw[line_start : exc.start].decode("utf-8", errors="replace")) + 1
    text = printable(line_bytes.decode("utf-8", errors="replace"))
    byte = raw[exc.start]
    return Diagnostic(
        Location(file, line + 1, column, text), "$",
        f"file is not valid UTF-8 (byte 0x{byte:02x}); save it with UTF-8 encoding",
    )


# --- small helpers -----------------------------------------------------------------------


def _value_at(data: Any, path: tuple) -> Any:
    for step in path:
        data = data[step]
    return data


def _short_repr(value: Any, limit: int = 40) -> str:
    """``repr`` of a value, shortened; escapes control characters in strings."""
    text = repr(value)
    if len(text) <= limit:
        return text
    if isinstance(value, str):
        return text[: limit - 4] + "..." + text[0]
    return text[: limit - 3] + "..."
