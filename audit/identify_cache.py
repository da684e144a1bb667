"""The catalog's values at ``identify``'s fixed data points, kept on disk between runs.

Every catalog variant evaluated at the fixed points of :mod:`.identify_numeric` (its
"fingerprint") is the same on every run of the same catalog, runtime and data; computing them
all takes about a second, as long as the rest of one identification. They are stored as JSON
(numbers only, never code: nothing is unpickled or evaluated) under the user's cache folder,
keyed by a hash of the specs, the runtime, the generated code and the module that draws the
points, so any change to these recomputes them. A cache that cannot be read or written is
ignored: the values are computed as before.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib
import tempfile

__all__ = ["cached_table"]

_VERSION = "1"


def _folder() -> pathlib.Path:
    explicit = os.environ.get("METRICC_CACHE_DIR")
    if explicit:
        return pathlib.Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return pathlib.Path(base) / "metricc"


@functools.lru_cache(maxsize=1)
def _catalog_hash() -> str:
    """The hash of everything the values depend on: specs, runtime, generated code, points."""
    from metricc.compiler.packages import package_dir

    digest = hashlib.sha256(_VERSION.encode())
    roots = [pathlib.Path(package_dir(p)) for p in ("metricc.specs", "metricc.core", "metricc.runtime", "metricc.generated", "metricc.api")]
    here = pathlib.Path(__file__).parent
    files = [here / "identify_numeric.py", here / "identify_scores.py", here / "identify_per_class.py"]
    for root in roots:
        files.extend(sorted(p for p in root.rglob("*") if p.suffix in (".py", ".yaml") and p.is_file()))
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:24]


def _tuples(value):
    return tuple(_tuples(v) for v in value) if isinstance(value, list) else value


def cached_table(name: str, compute) -> dict:
    """``compute()`` (a dict of tuple keys -> tuples of float or None), read from the cache
    file ``name`` of this catalog when there is one, else computed and stored."""
    try:
        path = _folder() / f"identify-{_catalog_hash()}-{name}.json"
    except OSError:
        return compute()
    try:
        return {_tuples(key): _tuples(values) for key, values in json.loads(path.read_text())}
    except (OSError, ValueError, TypeError):
        pass
    table = compute()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as out:
            json.dump([[key, values] for key, values in table.items()], out)
        os.replace(out.name, path)
    except (OSError, TypeError, ValueError):
        pass
    return table
