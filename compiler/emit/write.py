"""The only stage that writes: replace an output tree atomically, or compare it.

A build renders every file in memory first; :func:`write_tree` checks that every Python file
compiles, writes them into a temporary sibling directory (``.<name>-new-<pid>-*``) and swaps
it in with two renames: the old tree to ``.<name>-old``, the new one into place. A build that
is interrupted anywhere (an exception, a full disk, SIGKILL) leaves either the old tree or the
new one in place, or the old one under ``.<name>-old`` with nothing in place; :func:`recover`,
which every :func:`write_tree` runs first, restores the old tree in that case and removes the
work folders of builds that are no longer running.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from metricc.compiler.errors import InternalError

__all__ = ["write_tree", "stale_files", "recover"]


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


def _backup(root: Path) -> Path:
    return root.parent / f".{root.name}-old"


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # someone else's process: leave its folder alone
    return True


def recover(root: Path) -> None:
    """Undo what an interrupted :func:`write_tree` left beside ``root``.

    Nothing in place but a backup: the old tree is put back. A tree in place and a backup:
    the swap finished, the backup goes. Work folders whose build process is gone are removed.
    """
    root = Path(root).resolve()
    backup = _backup(root)
    if backup.is_dir() and not root.exists():
        os.replace(backup, root)
    elif backup.exists() and root.is_dir():
        shutil.rmtree(backup)
    if not root.parent.is_dir():
        return
    for work in root.parent.glob(f".{root.name}-new-*"):
        pid = work.name[len(f".{root.name}-new-"):].split("-", 1)[0]
        if work.is_dir() and (not pid.isdigit() or not _running(int(pid))):
            shutil.rmtree(work, ignore_errors=True)


def _check_python(files: Mapping[str, str]) -> None:
    """A module that does not compile would break every later import of the package: refuse
    to write any of them (a spec that reaches here should have been refused earlier)."""
    for name, text in sorted(files.items()):
        if name.endswith(".py"):
            try:
                compile(text, name, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as error:
                raise InternalError(f"the emitted module {name} does not compile ({error}); "
                                    "nothing was written") from error


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Make ``root`` contain exactly ``files`` (relative POSIX path -> text)."""
    _check_python(files)
    root = Path(root).resolve()
    root.parent.mkdir(parents=True, exist_ok=True)
    recover(root)
    staging = Path(tempfile.mkdtemp(prefix=f".{root.name}-new-{os.getpid()}-", dir=root.parent))
    backup = _backup(root)
    try:
        for name, text in sorted(files.items()):
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        if root.exists():
            os.replace(root, backup)
        os.replace(staging, root)
    except BaseException:
        if backup.is_dir() and not root.exists():
            os.replace(backup, root)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    if backup.exists():
        shutil.rmtree(backup)
