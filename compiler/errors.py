"""The compiler's exception tree: every user-facing error carries spec locations.

Diagnostics are values (:class:`Diagnostic`); a stage collects all of a file's problems and
raises them together as one :class:`SpecError` subclass. Rendering happens once, at the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from metricc.core.errors import MetriccError

# Lines longer than this are excerpted around the column in rendered diagnostics.
EXCERPT_CHARS = 160

__all__ = [
    "Location",
    "Diagnostic",
    "SpecError",
    "YamlSyntaxError",
    "SchemaError",
    "FormulaError",
    "CatalogError",
    "UnsupportedError",
    "InternalError",
]


@dataclass(frozen=True)
class Location:
    """A position in a spec file; ``line`` and ``column`` are 1-based."""

    file: str
    line: int
    column: int
    line_text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One problem in a spec: where, under which key (``$.params.beta``), and what."""

    location: Location
    key: str
    message: str

    def render(self) -> str:
        """``file:line:col: $.key: message`` then the offending line and a caret."""
        head = f"{self.location}: {self.key}: {self.message}"
        text = self.location.line_text
        if not text:
            return head
        column = max(self.location.column, 1) - 1
        if len(text) > EXCERPT_CHARS:  # a hostile 100,000-character line: show the part around the column
            start = min(max(column - EXCERPT_CHARS // 2, 0), len(text) - EXCERPT_CHARS)
            text = ("..." if start else "") + text[start:start + EXCERPT_CHARS] + ("..." if start + EXCERPT_CHARS < len(text) else "")
            column = column - start + (3 if start else 0)
        return f"{head}\n    {text}\n    {' ' * column}^"


class SpecError(MetriccError):
    """One or more problems in spec files; ``diagnostics`` lists them in file order."""

    kind = "spec error"

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic) -> None:
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        if not diagnostics:
            raise InternalError(f"{type(self).__name__} raised without a diagnostic")
        self.diagnostics = tuple(diagnostics)
        super().__init__(self.render())

    def render(self) -> str:
        return "\n".join(d.render() for d in self.diagnostics)


class YamlSyntaxError(SpecError):
    """The file is not well-formed YAML (or uses YAML features specs forbid)."""

    kind = "YAML syntax error"


class SchemaError(SpecError):
    """The YAML is well-formed but does not follow ``specs/schema.json``."""

    kind = "schema error"


class FormulaError(SpecError):
    """A formula, domain or default is malformed or names something undeclared."""

    kind = "formula error"


class CatalogError(SpecError):
    """A problem between specs: unknown metric, duplicate id or alias, reference cycle."""

    kind = "catalog error"


class UnsupportedError(SpecError):
    """Valid input that metricc cannot compile yet (kept apart from invalid input)."""

    kind = "not supported yet"


class InternalError(MetriccError):
    """A bug in metricc itself, never the user's fault."""
