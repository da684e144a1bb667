"""The build record: the slow symbolic results of a build, committed beside the specs.

A fresh clone has no build cache, and a cold build of the catalog redoes every analysis, proof
and emitted file (about a minute of CPU). The record (``build-record.txt`` in the spec folder)
keeps, as text (:mod:`.record_text`), what the last ``metricc build`` computed: each metric's
analysis, the forms, fingerprints and proofs of the equivalences, and each emitted file's
sha256. Its entries have the build cache's keys (a digest of exactly their input: a metric's
lowered IR, the two forms a proof compares), and its header names the digest of the
compiler's source and the versions of the libraries that computed them. A build reads an entry
whose key it needs; an emitted file is taken from the output folder only when its sha256 is the
recorded one. Whatever the record lacks is computed, and the summary says how much was: nothing
is skipped, and the output is the same bytes either way.

``metricc build`` rewrites the record with the entries this build used, sorted by key, so a
rebuild of unchanged specs leaves it byte for byte as it was; ``metricc build --check`` fails
when it would change (an entry missing, stale or extra), as it fails when ``generated/`` would.
A record made with other library versions is not read, nor held against ``--check`` (their
results may differ); ``metricc build`` replaces it.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path

from metricc.compiler.analysis.record_text import Unrecordable, decoded, encoded

__all__ = ["FILE_NAME", "Record", "source_version", "libraries"]

FILE_NAME = "build-record.txt"
_HEADER = "metricc build record 1"
_VALUES = ("analyzed", "form", "print", "equal")  # kinds stored as text
_FILES = "emitted"  # kind stored as {path: sha256}, read from the output folder
_MISSING = object()
_WORDS = {"analyzed": ("analyses", "computed now"), "equal": ("proofs", "proved now"),
          "emitted": ("outputs of a metric", "emitted now")}


def source_version() -> str:
    """Digest of every source file of the compiler (what computed the recorded results)."""
    root = Path(__file__).resolve().parents[1]  # the compiler package
    state = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".j2", ".json") and "__pycache__" not in p.parts):
        state.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return state.hexdigest()


def libraries() -> str:
    """The versions of Python and of the libraries whose results the record holds."""
    import jinja2
    import numpy
    import sympy

    return (f"python {sys.version_info.major}.{sys.version_info.minor} sympy {sympy.__version__} "
            f"numpy {numpy.__version__} jinja2 {jinja2.__version__}")


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Record:
    """The record of ``spec_dir``, its files checked against ``outputs``; ``check``: compare, never
    write; ``read=False`` (``--no-cache``): compute everything, then compare or write as usual.

    The build cache (:class:`~.cache.Cache`) asks :meth:`get` for what it lacks and tells
    :meth:`keep` every entry the build used or made; :meth:`save` ends the build.
    """

    def __init__(self, spec_dir: Path, outputs: Path | None = None, check: bool = False, read: bool = True) -> None:
        self.path = Path(spec_dir) / FILE_NAME
        self.outputs = None if outputs is None else Path(outputs)
        self.check = check
        self.header = f"{_HEADER}\ncompiler {source_version()}\nlibraries {libraries()}\n"
        self.foreign = ""  # the libraries of a record made elsewhere, which is not read
        self.stale = False  # --check: the record differs from what this build would write
        self._texts = self._load()
        if not read:
            self._texts = {}
        self._kept: dict[str, tuple] = {}  # key -> (text or None, value)
        self.read: Counter = Counter()
        self.computed: Counter = Counter()

    def _load(self) -> dict[str, str]:
        try:
            text = self.path.read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            return {}
        lines = text.split("\n")
        if len(lines) > 3 and lines[2] != self.header.split("\n")[2] and lines[0] == _HEADER:
            self.foreign = lines[2].removeprefix("libraries ")
        if text[:len(self.header)] != self.header:
            return {}
        entries = (line.split("\t", 1) for line in lines[3:] if line)
        return {entry[0]: entry[1] for entry in entries if len(entry) == 2}

    def get(self, key: str, default=None):
        """The recorded value of ``key``, else ``default``."""
        text = self._texts.get(key)
        kind = key.split(":", 1)[0]
        if text is None or kind not in (*_VALUES, _FILES):
            return default
        try:
            value = self._files(decoded(text)) if kind == _FILES else decoded(text)
        except (Unrecordable, RecursionError, TypeError, ValueError):
            return default
        if value is _MISSING:
            return default
        self.read[kind] += 1
        self._kept[key] = (text, value)
        return value

    def _files(self, digests) -> dict | object:
        """The emitted files whose sha256 the record holds, read from the output folder."""
        if self.outputs is None or not isinstance(digests, dict):
            return _MISSING
        files = {}
        for path, sha in digests.items():
            if not isinstance(path, str) or Path(path).is_absolute() or ".." in Path(path).parts:
                return _MISSING  # only files inside the output folder
            try:
                text = (self.outputs / path).read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError):
                return _MISSING
            if _sha(text) != sha:
                return _MISSING
            files[path] = text
        return files

    def keep(self, key: str, value, made: bool) -> None:
        """Record ``key`` (used or, ``made``, computed by this build)."""
        kind = key.split(":", 1)[0]
        if kind not in (*_VALUES, _FILES) or (key in self._kept and not made):
            return
        if made:
            self.computed[kind] += 1
        self._kept[key] = (None, value)

    def text(self) -> str:
        """The record this build would write."""
        lines = []
        for key in sorted(self._kept):
            text, value = self._kept[key]
            if text is None:
                try:
                    stored = {p: _sha(t) for p, t in value.items()} if key.startswith(_FILES + ":") else value
                    text = encoded(stored)
                except (Unrecordable, RecursionError):
                    continue  # computed by every build, as the summary's counts show
            lines.append(f"{key}\t{text}\n")
        return self.header + "".join(lines)

    def save(self) -> None:
        """Write the record (``check``: only compare it) when it would change."""
        text = self.text()
        try:
            same = self.path.read_text("utf-8") == text
        except (OSError, UnicodeDecodeError):
            same = False
        self.stale = self.check and not same and not self.foreign
        if same or self.check:
            return
        try:  # a spec folder we may not write (an installed package) only costs the next build time
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, prefix=".record-")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            os.chmod(temporary, 0o644)  # a source file of the project, not a private one
            os.replace(temporary, self.path)
        except OSError:
            return
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)

    def summary(self) -> str:
        """What this build took from the record and what it computed now, by kind."""
        parts = [f"{word}: {self.computed[kind]} {now}, {self.read[kind]} from the record"
                 for kind, (word, now) in _WORDS.items() if self.computed[kind] or self.read[kind]]
        if self.foreign:
            parts.append(f"the record was made with {self.foreign}, not read")
        return "; ".join(parts)
