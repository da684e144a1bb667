"""Where the catalog lives on disk, and paths shown as the user would type them."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from metricc.compiler.errors import InternalError

__all__ = ["package_dir", "shown"]


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(absolute)


def package_dir(name: str) -> Path:
    """The folder of an installed package (``metricc.specs``, ``metricc.generated``), not imported."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise InternalError(f"package {name} is not installed; reinstall metricc")
    return Path(list(spec.submodule_search_locations)[0])
