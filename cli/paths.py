"""Where the catalog lives on disk, and paths shown as the user would type them."""

from __future__ import annotations

import os
from pathlib import Path

from metricc.compiler.packages import package_dir
from metricc.core.errors import InputError

__all__ = ["shown", "spec_dir"]


def shown(path: Path) -> str:
    """A path as the user would type it: relative to the working directory when inside it."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(Path.cwd()).as_posix() or "."
    except ValueError:
        return str(absolute)


def spec_dir(given: str | None) -> Path:
    """The spec folder: ``--specs``, else ``./specs``, else the installed catalog's."""
    if given is None:
        return Path("specs") if Path("specs").is_dir() else package_dir("metricc.specs")
    if not Path(given).is_dir():
        raise InputError("--specs", f"not a folder: {given}")
    return Path(given)
