"""The strict YAML of specs and of the data files beside them (errata, audit files).

PyYAML's SafeLoader, with plain values resolved by the YAML 1.2 core schema (booleans are only
true/false, ``off`` is text, ``010`` is ten), a composer that records anchors, aliases and
explicit tags instead of acting on them (the readers refuse them at their line), and nesting
bounded by MAX_NESTING (a deeper file is an error, not a RecursionError). :func:`syntax_error`
words PyYAML's errors for the person who wrote the file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import yaml

from metricc.compiler.errors import Diagnostic, Location, YamlSyntaxError
from metricc.compiler.language.limits import MAX_NESTING, over_limit
from metricc.compiler.language.positions import LineIndex, location_at

__all__ = ["TAG", "TooDeep", "StrictLoader", "DataLoader", "load_data_file", "line_locator", "shown_tag", "syntax_error"]

TAG = "tag:yaml.org,2002:"


def line_locator(file: str, text: str) -> Callable[[int, int], Location]:
    """``(line, column)`` as PyYAML counts them (from 0) -> the :class:`Location`, with the line's text."""
    lines = LineIndex(text)
    return lambda line, column: Location(file, line + 1, column + 1, lines.line_text(line))


class TooDeep(yaml.MarkedYAMLError):
    """Nesting beyond MAX_NESTING, raised while composing (before PyYAML's recursion overflows)."""


class StrictLoader(yaml.SafeLoader):
    """A SafeLoader with YAML 1.2 core-schema resolution whose composer records anchors,
    aliases and explicit tags instead of acting on them, and stops at MAX_NESTING levels."""

    # Plain scalars resolve with the YAML 1.2 core schema, nothing else: no yes/no/on/off,
    # no base 60, no 1.1 octals (010 is ten), no timestamps, no '<<' merge or '=' value keys.
    yaml_implicit_resolvers: dict = {}

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.anchored: dict[int, tuple[str, yaml.Node]] = {}
        self.aliases: dict[int, tuple[str, yaml.Node]] = {}
        self.tagged: dict[int, str] = {}
        self.depth = 0

    def compose_node(self, parent, index):  # noqa: ANN001 - PyYAML's signature
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            self.get_event()
            placeholder = yaml.ScalarNode(TAG + "null", "", event.start_mark, event.end_mark)
            self.aliases[id(placeholder)] = (event.anchor, placeholder)
            return placeholder
        nested = isinstance(event, (yaml.SequenceStartEvent, yaml.MappingStartEvent))
        if nested and self.depth >= MAX_NESTING:
            raise TooDeep(problem=over_limit("nested too deeply", self.depth + 1, "levels of mappings and lists",
                                              MAX_NESTING, "in a spec"), problem_mark=event.start_mark)
        self.depth += nested
        node = super().compose_node(parent, index)
        self.depth -= nested
        anchor = getattr(event, "anchor", None)
        if anchor is not None:
            self.anchored[id(node)] = (anchor, node)
        if event.tag is not None:  # written in the file ('!' included), not resolved
            self.tagged[id(node)] = event.tag
        return node


for _tag, _pattern, _first in (
    ("null", r"(?:~|null|Null|NULL|)\Z", ["~", "n", "N", ""]),
    ("bool", r"(?:true|True|TRUE|false|False|FALSE)\Z", list("tTfF")),
    ("int", r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z", list("-+0123456789")),
    ("float", r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
              r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z", list("-+.0123456789")),
):
    StrictLoader.add_implicit_resolver(TAG + _tag, re.compile(_pattern), _first)


class DataLoader(StrictLoader):
    """The loader of YAML data files beside the specs (errata, audit files): the spec
    loader's core schema and nesting bound. Subclasses may record positions while
    constructing (``construct_mapping``)."""


def load_data_file(text: str, file: str, loader: type[DataLoader] = DataLoader) -> Any:
    """The data of a YAML data file, built by ``loader``.

    Same YAML as a spec: the YAML 1.2 core schema, nesting bounded by MAX_NESTING (a deeper
    file is an error, not a RecursionError), and no anchors, aliases or explicit tags (an
    alias-bomb would expand without bound; a tag could build bytes, sets or dates).
    Raises :class:`YamlSyntaxError` at the offending line.
    """
    locate = line_locator(file, text)
    try:
        instance = loader(text)  # checks for unprintable characters
        root = instance.get_single_node()
    except TooDeep as exc:
        mark = exc.problem_mark
        raise YamlSyntaxError(Diagnostic(locate(mark.line, mark.column), "$", exc.problem.replace("in a spec", f"in {file}"))) from None
    except yaml.MarkedYAMLError as exc:
        raise YamlSyntaxError(syntax_error(exc, locate)) from None
    except yaml.reader.ReaderError as exc:
        message = f"character {chr(exc.character)!r} is not allowed in YAML; remove it"
        raise YamlSyntaxError(Diagnostic(location_at(file, text, exc.position), "$", message)) from None
    try:
        refused = [(node.start_mark, f"YAML anchors and aliases are not allowed here ('{name}'); write the value out")
                   for table in (instance.anchored, instance.aliases) for name, node in table.values()]
        refused += [(node.start_mark, f"explicit YAML tags are not allowed ('{shown_tag(tag)}'); remove the tag")
                    for node, tag in _tagged_nodes(root, instance.tagged)]
        if refused:
            refused.sort(key=lambda item: (item[0].line, item[0].column))
            raise YamlSyntaxError([Diagnostic(locate(mark.line, mark.column), "$", message) for mark, message in refused])
        return None if root is None else instance.construct_document(root)
    finally:
        instance.dispose()


def shown_tag(tag: str) -> str:
    """A tag as written: ``!!binary`` for the YAML namespace."""
    return "!!" + tag.removeprefix(TAG) if tag.startswith(TAG) else tag


def _tagged_nodes(root: yaml.Node | None, tagged: dict[int, str]) -> list[tuple[yaml.Node, str]]:
    """The nodes of ``root`` written with an explicit tag (``tagged`` is keyed by node id)."""
    found, pending = [], [] if root is None or not tagged else [root]
    while pending:
        node = pending.pop()
        if id(node) in tagged:
            found.append((node, tagged[id(node)]))
        if isinstance(node, yaml.SequenceNode):
            pending.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            pending.extend(part for pair in node.value for part in pair)
    return found


def syntax_error(exc: yaml.MarkedYAMLError, locate: Callable[[int, int], Location]) -> Diagnostic:
    """PyYAML's error in the words of a spec writer, at its line (``locate``: see :func:`line_locator`)."""
    mark = exc.problem_mark or exc.context_mark
    where = locate(mark.line, mark.column) if mark is not None else locate(0, 0)
    problem = exc.problem or exc.context or "malformed YAML"
    if isinstance(exc, yaml.composer.ComposerError) and "another document" in problem:
        message = "a spec file holds one YAML document; remove the '---' separator"
    elif isinstance(exc, yaml.composer.ComposerError) and "alias" in problem:
        message = f"specs do not support YAML anchors or aliases ({problem})"
    elif isinstance(exc, yaml.composer.ComposerError) and "anchor" in (exc.context or ""):
        message = "specs do not support YAML anchors; remove them"
    elif "'\\t'" in problem:
        before = (where.line_text or "")[:mark.column] if mark is not None else ""
        message = ("tab character in indentation; indent with spaces" if not before.strip() else
                   "tab character after a value (before a '#' comment?); separate with spaces")
    else:
        message = f"invalid YAML: {problem}"
        if exc.problem and exc.context and exc.context_mark is not None:
            message += f" ({exc.context} on line {exc.context_mark.line + 1})"
    return Diagnostic(where, "$", message)
