"""The build cache: results of the slow stages, keyed by exactly what they are computed from.

A rebuild after editing one spec should redo only what depends on it. Each entry's key is a
digest of its input, never a file name or a time: the analyzed IR of a metric is keyed by its
lowered IR (which holds its spec and every metric it references, inlined), a proof by the two
exact forms it compares. Every key also holds :func:`compiler_version` (the compiler's own
source and the versions of the libraries whose results are stored), so a changed compiler
starts from an empty cache. An entry is therefore never stale: it is used or it is not.

The cache lives outside ``generated/`` (default ``.metricc-cache/`` beside the spec folder,
``METRICC_CACHE_DIR`` or ``metricc build --cache-dir``), in one file written atomically with
a checksum; an unreadable, corrupted or foreign file is ignored, and the build computes
everything again. Like a ``__pycache__`` folder it is trusted as the source tree is (it holds
pickles). It is the one module besides the loader and the writer that touches files.
"""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import sys
import tempfile
from pathlib import Path

import sympy
from sympy.core.operations import AssocOp

from metricc.compiler.analysis.record_text import key_text

__all__ = ["Cache", "ENVIRONMENT", "compiler_version", "digest", "dumps", "remembered"]

ENVIRONMENT = "METRICC_CACHE_DIR"
_HEADER = b"metricc build cache 1\n"
_PREFIX = "build-"


def compiler_version() -> str:
    """Digest of every source file of the compiler and of the libraries its stored results depend on."""
    import jinja2
    import numpy

    root = Path(__file__).resolve().parents[1]  # the compiler package
    state = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in (".py", ".j2", ".json") and "__pycache__" not in p.parts):
        state.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    versions = (sys.version_info[:3], sympy.__version__, numpy.__version__, jinja2.__version__)
    state.update(repr(versions).encode())
    return state.hexdigest()


def canonical(value) -> str:
    """A text that determines ``value``: sympy trees with assumptions and unevaluated structure,
    IR dataclasses field by field (:func:`.record_text.key_text`)."""
    return key_text(value)


def digest(*parts) -> str:
    """The key of an entry computed from ``parts``."""
    return hashlib.sha256(key_text(*parts).encode()).hexdigest()


def remembered(memo, key: str, check, compute):
    """``compute()``, or the value ``memo`` holds under ``key`` when it passes ``check`` (an
    entry of the wrong kind is computed again, never used)."""
    value = memo.get(key, _MISSING)
    if value is _MISSING or not check(value):
        value = compute()
        memo[key] = value
    return value


_MISSING = object()


def _rebuild(cls, args):
    # sympy's own pickles rebuild through the evaluating constructors, which can turn an
    # unevaluated 2*(C - 1) into 2*C - 2; this rebuilds the tree exactly as it was stored.
    if issubclass(cls, AssocOp):
        return cls._from_args(args)
    try:
        return cls(*args, evaluate=False)
    except TypeError:
        return cls(*args)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, sympy.Basic) and not obj.is_Atom and type(obj).__reduce_ex__ is sympy.Basic.__reduce_ex__:
            return _rebuild, (type(obj), obj.args)
        return NotImplemented


def dumps(value) -> bytes:
    """A pickle that rebuilds every sympy tree exactly as it is (what the cache and build workers send)."""
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


class Cache:
    """Entries by key; ``directory=None`` keeps them in memory for one build only.

    ``get`` and item assignment are all the stages see (a ``dict`` works as well). ``save``
    writes the entries this build used or made, dropping the rest.
    """

    def __init__(self, directory: Path | None = None, record=None) -> None:
        self.directory = directory
        self.record = record  # a .record.Record: what the cache lacks is read there, and kept
        self.version = compiler_version() if directory is not None else ""
        self._stored = self._load() if directory is not None else {}
        self._used: dict = {}
        self.hits = self.misses = 0
        self.made: set[str] = set()  # keys computed by this build (what a rebuild redid)

    @property
    def path(self) -> Path | None:
        return None if self.directory is None else self.directory / f"{_PREFIX}{self.version[:20]}.pickle"

    def _load(self) -> dict:
        try:
            data = self.path.read_bytes()
            header, checksum, body = data[:len(_HEADER)], data[len(_HEADER):len(_HEADER) + 64], data[len(_HEADER) + 65:]
            if header != _HEADER or checksum != hashlib.sha256(body).hexdigest().encode():
                return {}
            stored = pickle.loads(body)
        except Exception:  # absent, unreadable or not ours: start from nothing, never fail the build
            return {}
        if not isinstance(stored, dict) or stored.get("version") != self.version or not isinstance(stored.get("entries"), dict):
            return {}
        return stored["entries"]

    def get(self, key: str, default=None):
        if key in self._used:
            return self._used[key]
        if key in self._stored:
            self.hits += 1
            self._used[key] = self._stored[key]
            if self.record is not None:
                self.record.keep(key, self._stored[key], made=False)
            return self._stored[key]
        recorded = _MISSING if self.record is None else self.record.get(key, _MISSING)
        if recorded is not _MISSING:
            self._used[key] = recorded
            return recorded
        self.misses += 1
        return default

    def __setitem__(self, key: str, value) -> None:
        self.made.add(key)
        if self.record is not None:
            self.record.keep(key, value, made=True)
        if self.directory is not None:
            try:  # keep only what comes back equal: the cached build must equal the uncached one
                if pickle.loads(dumps(value)) != value:
                    return
            except Exception:
                return
        self._used[key] = value

    def save(self) -> None:
        """Write this build's entries atomically; failing to write only costs the next build time."""
        if self.record is not None:
            self.record.save()
        if self.directory is None:
            return
        try:
            body = dumps({"version": self.version, "entries": self._used})
            self.directory.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
            try:
                with os.fdopen(handle, "wb") as out:
                    out.write(_HEADER + hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
                os.replace(temporary, self.path)
            finally:
                if os.path.exists(temporary):
                    os.unlink(temporary)
            for old in self.directory.glob(f"{_PREFIX}*.pickle"):
                if old != self.path:
                    old.unlink()
        except OSError:
            return
