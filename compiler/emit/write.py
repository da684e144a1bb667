"""The only stage that writes: replace an output tree atomically, or compare it.

A build renders every file in memory first; :func:`write_tree` then writes them into a
temporary sibling directory and swaps it in, so a failing build leaves the old tree intact.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

__all__ = ["write_tree", "stale_files"]


def _existing(root: Path) -> dict[str, bytes]:
    if not root.is_dir():
        return {}
    return {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def stale_files(root: Path, files: Mapping[str, str]) -> list[str]:
    """Paths under ``root`` that differ from ``files``, are missing, or are extra."""
    existing = _existing(Path(root))
    wanted = {name: text.encode("utf-8") for name, text in files.items()}
    return sorted(name for name in set(existing) | set(wanted) if existing.get(name) != wanted.get(name))


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Make ``root`` contain exactly ``files`` (relative POSIX path -> text)."""
    root = Path(root).resolve()
    root.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-new-", dir=root.parent))
    try:
        for name, text in sorted(files.items()):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        backup = root.parent / f".{root.name}-old"
        if backup.exists():
            shutil.rmtree(backup)
        if root.exists():
            os.replace(root, backup)
        os.replace(staging, root)
        if backup.exists():
            shutil.rmtree(backup)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
