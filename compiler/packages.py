"""Where the installed catalog lives on disk (specs, generated code), found without importing it."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from metricc.compiler.errors import InternalError

__all__ = ["package_dir"]


def package_dir(name: str) -> Path:
    """The folder of an installed package (``metricc.specs``, ``metricc.generated``), not imported."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise InternalError(f"package {name} is not installed; reinstall metricc")
    return Path(list(spec.submodule_search_locations)[0])
